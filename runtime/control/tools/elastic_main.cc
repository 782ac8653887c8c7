// `elastic`: the user's CLI for the resident runtime. It talks to elasticd only through the state
// dir (state_dir.h): submit/cancel drop files in queue/, status/nodes read status.json (and the
// journal and queue when no daemon runs), feed writes the hostfile the daemon watches, up starts
// the daemon under mpirun. Exit codes (elastic/cli/exit_code.h): 0 ok, 2 bad input, 1 runtime
// error.
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "CLI/CLI.hpp"
#include "elastic/cli/exit_code.h"
#include "elastic/cli/number_checks.h"
#include "elastic/control/command.h"
#include "elastic/control/feed.h"
#include "elastic/control/feed_trace.h"
#include "elastic/control/hostfile.h"
#include "elastic/control/job_spec.h"
#include "elastic/control/journal.h"
#include "elastic/control/journal_salvage.h"
#include "elastic/control/state_dir.h"
#include "elastic/control/status.h"
#include "elastic/control/timeline.h"
#include "elastic/control/up_command.h"
#include "elastic/traces/interval_csv.h"
#include "fmt/format.h"

namespace fs = std::filesystem;
using namespace elastic::rt;

namespace {

constexpr int kOk = elastic::cli::kExitOk;
constexpr int kRuntimeError = elastic::cli::kExitFailure;
constexpr int kBadInput = elastic::cli::kExitBadInput;

int fail(const absl::Status& s) {
  std::cerr << "elastic: " << s.message() << "\n";
  return elastic::cli::exit_code(s);
}

fs::path exe_dir() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path() : self.parent_path();
}

// A program of ours that runs beside `elastic` (the holder, the Slurm launch agent). Checked here:
// without it the holder jobs or PRRTE's daemons would fail on the nodes, far from the cause.
absl::StatusOr<fs::path> companion(const std::string& name, const std::string& option) {
  const fs::path path = exe_dir() / name;
  if (::access(path.c_str(), X_OK) == 0) return path;
  return absl::FailedPreconditionError(fmt::format(
      "{} is missing or not executable: build or install the {} target beside elastic, or pass {}",
      path.string(), name, option));
}

// Everything the CLI knows about jobs: the daemon's snapshot when one runs, completed with the
// journal (jobs the snapshot does not list) and queue/ (submissions not yet taken).
absl::StatusOr<StatusSnapshot> gather_status(const StateDir& dir, bool* daemon_running) {
  const int pid = DaemonLock::holder_pid(dir);
  *daemon_running = pid != 0;
  StatusSnapshot snap;
  if (*daemon_running) {
    absl::StatusOr<StatusSnapshot> s = read_status(dir.status_path());
    if (s.ok()) {
      snap = *std::move(s);
    } else if (!absl::IsNotFound(s.status())) {
      return s.status();
    }
  }
  const auto listed = [&](std::string_view id) {
    return std::any_of(snap.jobs.begin(), snap.jobs.end(),
                       [&](const JobStatus& j) { return j.id == id; });
  };
  absl::StatusOr<JournalReplay> journal = replay_journal(dir.journal_path());
  if (!journal.ok()) return journal.status();
  for (const std::string& w : journal->warnings) std::cerr << "elastic: warning: " << w << "\n";
  for (const JobRecord& r : journal->jobs) {
    if (listed(r.spec.id)) continue;
    JobStatus j;
    j.id = r.spec.id;
    j.state = std::string(to_string(r.state));
    j.samples_done = r.samples_done;
    j.target_samples = r.spec.target_samples.value_or(0);
    j.rescales = r.rescales;
    j.min_nodes = r.spec.min_nodes;
    j.max_nodes = r.spec.max_nodes;
    j.command = r.spec.command;
    j.reason = r.reason;
    snap.jobs.push_back(std::move(j));
  }
  for (const QueuedSubmission& q : JobQueue(dir).submissions()) {
    if (listed(q.id)) continue;
    JobStatus j;
    j.id = q.id;
    j.state = "queued";
    if (q.spec.ok()) {
      j.target_samples = q.spec->target_samples.value_or(0);
      j.min_nodes = q.spec->min_nodes;
      j.max_nodes = q.spec->max_nodes;
      j.command = q.spec->command;
    } else {
      j.state = "invalid";
      j.reason = std::string(q.spec.status().message());
    }
    snap.jobs.push_back(std::move(j));
  }
  return snap;
}

int cmd_submit(const fs::path& state_dir, const fs::path& file, const std::string& id) {
  absl::StatusOr<JobSpec> spec = read_job_spec(file);
  if (!spec.ok()) return fail(spec.status());
  if (!id.empty()) {
    if (absl::Status s = validate_job_id(id); !s.ok()) return fail(s);
    spec->id = id;
  }
  // Relative paths mean what they meant where the user typed the command.
  const fs::path cwd = fs::current_path();
  spec->workdir = spec->workdir.empty() ? cwd.string() : fs::absolute(spec->workdir).string();
  if (spec->command.find('/') != std::string::npos && !fs::path(spec->command).is_absolute()) {
    spec->command = (fs::path(spec->workdir) / spec->command).lexically_normal().string();
  }
  const char* path_env = std::getenv("PATH");
  if (absl::StatusOr<fs::path> where = resolve_command(spec->command, path_env ? path_env : "");
      !where.ok()) {
    std::cerr << "elastic: warning: " << file.string()
              << ": field 'command': " << where.status().message()
              << " here; the daemon checks again at launch and marks the job failed if it is "
                 "still missing\n";
  }
  absl::StatusOr<StateDir> dir = StateDir::open(state_dir);
  if (!dir.ok()) return fail(dir.status());
  if (!spec->id.empty()) {
    bool running = false;
    absl::StatusOr<StatusSnapshot> known = gather_status(*dir, &running);
    if (known.ok() && std::any_of(known->jobs.begin(), known->jobs.end(),
                                  [&](const JobStatus& j) { return j.id == spec->id; })) {
      return fail(absl::AlreadyExistsError(
          fmt::format("{}: field 'id': job '{}' already exists", file.string(), spec->id)));
    }
  }
  absl::StatusOr<std::string> queued = JobQueue(*dir).submit(*std::move(spec));
  if (!queued.ok()) return fail(queued.status());
  std::cout << *queued << "\n";
  return kOk;
}

int cmd_status(const fs::path& state_dir, bool json, bool nodes_only) {
  absl::StatusOr<StateDir> dir = StateDir::open(state_dir, /*create=*/false);
  if (!dir.ok()) return fail(dir.status());
  bool running = false;
  absl::StatusOr<StatusSnapshot> snap = gather_status(*dir, &running);
  if (!snap.ok()) return fail(snap.status());
  if (json) {
    nlohmann::json j = to_json(*snap);
    j["daemon_running"] = running;
    std::cout << (nodes_only ? j["nodes"] : j).dump(2) << "\n";
    return kOk;
  }
  if (!running) {
    std::cerr << "elastic: no elasticd is running on " << dir->root().string()
              << " (showing the journal and the queue)\n";
  }
  std::cout << (nodes_only ? format_nodes_table(*snap) : format_jobs_table(*snap));
  return kOk;
}

int cmd_cancel(const fs::path& state_dir, const std::string& id) {
  if (absl::Status s = validate_job_id(id); !s.ok()) return fail(s);
  absl::StatusOr<StateDir> dir = StateDir::open(state_dir, /*create=*/false);
  if (!dir.ok()) return fail(dir.status());
  bool running = false;
  absl::StatusOr<StatusSnapshot> snap = gather_status(*dir, &running);
  if (!snap.ok()) return fail(snap.status());
  auto it = std::find_if(snap->jobs.begin(), snap->jobs.end(),
                         [&](const JobStatus& j) { return j.id == id; });
  if (it == snap->jobs.end()) return fail(absl::NotFoundError(fmt::format("no job '{}'", id)));
  if (it->state == "finished" || it->state == "failed" || it->state == "cancelled") {
    return fail(
        absl::FailedPreconditionError(fmt::format("job '{}' is already {}", id, it->state)));
  }
  if (absl::Status s = JobQueue(*dir).request_cancel(id); !s.ok()) return fail(s);
  std::cout << "cancel requested for " << id
            << (running ? "" : " (takes effect when elasticd runs)") << "\n";
  return kOk;
}

std::atomic<bool> g_stop{false};

// `feed NAME`, a row of feeds.def: without --input, the row's holder jobs when it has them
// (until SIGTERM/SIGINT), else run_feed over the row's listing: once, or every --every seconds
// until SIGTERM/SIGINT.
int cmd_feed(const fs::path& state_dir, const Feed& feed, const FeedOptions& o,
             HolderFeedOptions h) {
  const bool holders = feed.holders != nullptr && o.input.empty();
  if (holders || o.polls()) {
    std::signal(SIGTERM, [](int) { g_stop = true; });
    std::signal(SIGINT, [](int) { g_stop = true; });
  }
  if (!holders) {
    if (absl::Status s = run_feed(feed, o, g_stop); !s.ok()) return fail(s);
    return kOk;
  }
  std::optional<fs::path> holder;
  if (h.holder_command.empty()) {
    absl::StatusOr<fs::path> p = companion("elastic-holder", "--holder");
    if (!p.ok()) return fail(p.status());
    holder = *p;
  }
  absl::StatusOr<StateDir> dir = StateDir::open(state_dir);
  if (!dir.ok()) return fail(dir.status());
  h.hostfile = o.hostfile;
  h.slots = o.slots;
  if (o.every_s > 0) h.every_s = o.every_s;
  h.status_path = dir->status_path();
  if (h.holder_dir.empty()) h.holder_dir = dir->root() / fmt::format("{}-holders", feed.name);
  if (holder) {
    h.holder_command = fmt::format("{} --dir {}", shell_quote(holder->string()),
                                   shell_quote(h.holder_dir.string()));
  }
  if (absl::Status s = feed.holders(feed, h, g_stop); !s.ok()) return fail(s);
  return kOk;
}

struct TraceArgs {
  std::string trace;
  int nodes = 8;
  std::vector<std::string> hosts;
  std::optional<double> start, duration;
  double speed = 600;
};

// `feed trace`: replays a node-state trace into the hostfile (feed_trace.h), printing the node
// mapping first and then every change as it is written.
int cmd_feed_trace(const TraceArgs& a, const fs::path& out, int slots) {
  if (a.trace.empty()) return fail(absl::InvalidArgumentError("feed trace needs --trace FILE"));
  absl::StatusOr<elastic::traces::HoleTrace> trace =
      elastic::traces::load_interval_csv(a.trace, elastic::traces::ReadOptions{});
  if (!trace.ok()) return fail(trace.status());
  TraceFeedOptions o;
  o.nodes = a.nodes;
  o.hosts = a.hosts;
  o.start = a.start;
  o.duration = a.duration;
  o.slots = slots > 0 ? slots : 1;
  absl::StatusOr<TraceFeedPlan> plan = plan_trace_feed(*trace, o);
  if (!plan.ok()) return fail(plan.status());
  if (!(a.speed > 0)) return fail(absl::InvalidArgumentError("--speed: must be positive"));
  const double span = plan->window_end - plan->window_start;
  // The replay sleeps until each step's wall time: a --speed of 1e-300 overflowed it, and every
  // step was written at once.
  if (!(span / a.speed <= elastic::cli::kMaxSeconds)) {
    return fail(absl::InvalidArgumentError(
        fmt::format("--speed: the window of {:.0f} trace s would take {:g} wall s at {:g}x, more "
                    "than 1e7 s (about 116 days)",
                    span, span / a.speed, a.speed)));
  }
  int total = 0;
  for (int c : plan->changes) total += c;
  std::cout << fmt::format(
      "feed trace: {} window [{:.0f}, {:.0f}) = {:.0f} trace s at {}x = {:.1f} wall s; {} nodes, "
      "{} changes\n",
      a.trace, plan->window_start, plan->window_end, span, a.speed, span / a.speed,
      plan->names.size(), total);
  for (std::size_t i = 0; i < plan->names.size(); ++i) {
    std::cout << fmt::format("  {} = {} ({} changes)\n", plan->names[i], plan->trace_names[i],
                             plan->changes[i]);
  }
  std::cout.flush();
  const auto join = [](const std::vector<std::string>& v, std::string_view sign) {
    std::string s;
    for (const std::string& x : v) s += fmt::format(" {}{}", sign, x);
    return s;
  };
  absl::Status s = run_trace_feed(*plan, out, a.speed, [&](const TraceStep& step, double wall) {
    std::string idle;
    for (const HostEntry& h : step.hosts)
      idle += fmt::format("{}{}", idle.empty() ? "" : ",", h.name);
    std::cout << fmt::format("[{:7.1f}s] trace +{:6.0f}s:{}{} -> {} idle{}{}\n", wall,
                             step.offset_s, join(step.left, "-"), join(step.joined, "+"),
                             step.hosts.size(), idle.empty() ? "" : ": ", idle);
    std::cout.flush();
  });
  if (!s.ok()) return fail(s);
  std::cout << "feed trace: window replayed\n";
  return kOk;
}

// `journal check`: every bad line with its number (exit 2 if any). `journal salvage`: the bad
// lines moved to journal.jsonl.bad and the journal rewritten (journal_salvage.h); refused while a
// daemon runs, and the daemon's lock is held meanwhile so that none starts.
int cmd_journal(const fs::path& state_dir, const std::string& action) {
  absl::StatusOr<StateDir> dir = StateDir::open(state_dir, /*create=*/false);
  if (!dir.ok()) return fail(dir.status());
  const fs::path path = dir->journal_path();
  absl::StatusOr<JournalCheck> check;
  if (action == "salvage") {
    absl::StatusOr<DaemonLock> lock = DaemonLock::acquire(*dir);
    if (!lock.ok()) return fail(lock.status());
    check = salvage_journal(path);
  } else {
    check = check_journal(path);
  }
  if (!check.ok()) return fail(check.status());
  for (const BadJournalLine& b : check->bad) {
    std::cout << fmt::format("{}:{}: {}\n", path.string(), b.line, b.reason);
  }
  const std::size_t jobs = check->replay.jobs.size(), records = check->replay.records;
  if (check->bad.empty()) {
    std::cout << fmt::format("{}: clean, {} records, {} jobs\n", path.string(), records, jobs);
    return kOk;
  }
  if (action == "salvage") {
    std::cout << fmt::format("{}: kept {} records ({} jobs); moved {} bad line(s) to {}\n",
                             path.string(), records, jobs, check->bad.size(),
                             bad_lines_path(path).string());
    return kOk;
  }
  std::cout << fmt::format(
      "{}: {} bad line(s), {} good records ({} jobs); `elastic journal salvage` keeps the good "
      "ones and moves the bad ones to {}\n",
      path.string(), check->bad.size(), records, jobs, bad_lines_path(path).string());
  return kBadInput;
}

struct UpArgs {
  fs::path hostfile, mpirun, elasticd, agent;
  int fake_nodes = 0;
  int slots = 2;
  bool dry_run = false;
  bool slurm_steps = false;
  std::vector<std::string> mpi_args, daemon_args;
};

fs::path find_mpirun(const fs::path& given) {
  if (!given.empty()) return given;
  if (const char* home = std::getenv("MPI_HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / "bin/mpirun";
  }
#ifdef ELASTIC_MPI_BIN
  if (fs::exists(fs::path(ELASTIC_MPI_BIN) / "mpirun")) return fs::path(ELASTIC_MPI_BIN) / "mpirun";
#endif
  return "mpirun";
}

fs::path find_elasticd(const fs::path& given) {
  if (!given.empty()) return fs::absolute(given);
  const fs::path here = exe_dir();
  for (const fs::path& p : {here / "elasticd", here / "../daemon/elasticd"}) {
    if (fs::exists(p)) return p.lexically_normal();
  }
  return "elasticd";
}

int cmd_up(const fs::path& state_dir, UpArgs a) {
  if (a.fake_nodes <= 0 && a.hostfile.empty()) {
    return fail(absl::InvalidArgumentError("up needs --hostfile FILE or --fake-nodes N"));
  }
  absl::StatusOr<StateDir> dir = StateDir::open(state_dir, /*create=*/!a.dry_run);
  if (!dir.ok() && !(a.dry_run && absl::IsNotFound(dir.status()))) return fail(dir.status());
  UpOptions o;
  o.mpirun = find_mpirun(a.mpirun);
  o.elasticd = find_elasticd(a.elasticd);
  o.state_dir = fs::absolute(state_dir);
  o.mpirun_args = a.mpi_args;
  o.elasticd_args = a.daemon_args;
  // Before touching any hostfile: a running daemon's pool is not ours to rewrite.
  if (const int pid = dir.ok() ? DaemonLock::holder_pid(*dir) : 0; pid != 0 && !a.dry_run) {
    return fail(absl::UnavailableError(
        fmt::format("elasticd (pid {}) already runs on {}", pid, dir->root().string())));
  }
  if (a.fake_nodes > 0) {
    // Label mode: every rank runs on this machine, so there is no remote daemon to launch.
    if (!a.agent.empty() || a.slurm_steps) {
      return fail(absl::InvalidArgumentError(
          fmt::format("{}: fake nodes need no launch agent (every rank runs on this machine)",
                      a.slurm_steps ? "--slurm-steps" : "--agent")));
    }
    o.fake_nodes = true;
    // STATE/fake_hostfile belongs to `up` and is rewritten; a --hostfile FILE that exists belongs
    // to an adapter (`elastic feed`) and is kept, so a restarted daemon sees the pool as it is.
    const bool own = a.hostfile.empty();
    o.hostfile = own ? o.state_dir / "fake_hostfile" : fs::absolute(a.hostfile);
    if (!own && fs::exists(o.hostfile)) {
      absl::StatusOr<std::vector<HostEntry>> h = read_hostfile(o.hostfile);
      if (!h.ok()) return fail(h.status());
      if (!a.dry_run) {
        std::cerr << "elastic: " << o.hostfile.string() << " exists: keeping its " << h->size()
                  << " node(s)\n";
      }
    } else if (!a.dry_run) {
      if (absl::Status s = write_hostfile(o.hostfile, fake_nodes(a.fake_nodes, a.slots), 0600);
          !s.ok()) {
        return fail(s);
      }
    }
  } else {
    o.hostfile = fs::absolute(a.hostfile);
    if (!a.agent.empty()) o.launch_agent = fs::absolute(a.agent);
    o.slurm_steps = a.slurm_steps;
    if (a.slurm_steps && a.agent.empty()) {
      absl::StatusOr<fs::path> agent = companion("elastic-slurm-agent", "--agent");
      if (!agent.ok()) return fail(agent.status());
      o.launch_agent = *agent;
    }
    if (absl::StatusOr<std::vector<HostEntry>> h = read_hostfile(o.hostfile); !h.ok()) {
      return fail(h.status());
    }
  }
  const std::vector<std::string> argv = compose_up_command(o);
  if (a.dry_run) {
    std::cout << shell_join(argv) << "\n";
    return kOk;
  }
  // mpirun refuses root unless told; the admin running `up` as root has decided already.
  if (::geteuid() == 0) {
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 0);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 0);
  }
  std::cerr << "elastic: " << shell_join(argv) << "\n";
  std::vector<char*> cargv;
  for (const std::string& s : argv) cargv.push_back(const_cast<char*>(s.c_str()));
  cargv.push_back(nullptr);
  ::execvp(cargv[0], cargv.data());
  return fail(absl::InternalError(fmt::format("cannot run {}: {}", argv[0], std::strerror(errno))));
}

// Reads the decision log and writes timeline.csv and timeline.png (timeline.h).
int cmd_timeline(const fs::path& state_dir, const std::string& out_opt) {
  absl::StatusOr<StateDir> dir = StateDir::open(state_dir, /*create=*/false);
  if (!dir.ok()) return fail(dir.status());
  absl::StatusOr<Timeline> t = read_timeline(dir->events_path());
  if (!t.ok()) return fail(t.status());
  const fs::path out = out_opt.empty() ? state_dir / "timeline" : fs::path(out_opt);
  ::umask(077);  // owner-only like everything in the state dir, gnuplot's files too
  absl::StatusOr<std::string> warning = write_timeline(*t, out);
  if (!warning.ok()) return fail(warning.status());
  std::cout << fmt::format("{} events over {:.0f} s, {} jobs: {}", t->events, t->end - t->start,
                           t->jobs.size(), (out / "timeline.csv").string());
  if (warning->empty()) std::cout << ", " << (out / "timeline.png").string();
  std::cout << "\n";
  if (!warning->empty()) std::cerr << "elastic: " << *warning << "\n";
  return kOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"elastic: submit and watch elastic training jobs on idle HPC nodes"};
  app.require_subcommand(1);
  std::string state_dir_opt;
  app.add_option("--state-dir", state_dir_opt,
                 "The runtime's state dir (default: $ELASTIC_STATE_DIR or ~/.local/state/elastic)")
      ->envname("ELASTIC_STATE_DIR");
  app.fallthrough();

  auto* submit = app.add_subcommand("submit", "Queue a job described by a TOML file");
  std::string job_file, submit_id;
  submit->add_option("JOB.toml", job_file, "The job spec (see docs/runtime.md)")->required();
  submit->add_option("--id", submit_id, "Job id (overrides the file's id)");

  auto* status =
      app.add_subcommand("status", "Show jobs: state, nodes, ranks, samples/s, progress");
  bool status_json = false;
  status->add_flag("--json", status_json, "Print the full snapshot as JSON");

  auto* cancel = app.add_subcommand("cancel", "Cancel a queued or running job");
  std::string cancel_id;
  cancel->add_option("ID", cancel_id, "The job id")->required();

  auto* nodes = app.add_subcommand("nodes", "Show the granted nodes and which job holds each");
  bool nodes_json = false;
  nodes->add_flag("--json", nodes_json, "Print JSON");

  auto* feed = app.add_subcommand(
      "feed", fmt::format("Write the hostfile from a scheduler: {}; or trace: replay a node-state "
                          "trace (--input: a recorded listing of the scheduler's command)",
                          feed_help()));
  std::string feed_kind;
  FeedOptions feed_args;
  std::vector<std::string> feed_kinds;
  for (const Feed& f : feed_table()) feed_kinds.emplace_back(f.name);
  feed_kinds.emplace_back("trace");
  feed->add_option("SCHEDULER", feed_kind, "A scheduler, or trace (replay a node-state trace)")
      ->required()
      ->check(CLI::IsMember(feed_kinds));
  feed->add_option("--input", feed_args.input,
                   "Recorded scheduler output ('-' = stdin; default: run the scheduler's command)");
  feed->add_option("--hostfile", feed_args.hostfile, "The hostfile to write (atomically)")
      ->required();
  feed->add_option("--slots", feed_args.slots, "Slots per node (default: the node's CPU count)")
      ->check(elastic::cli::non_negative());
  feed->add_option(
          "--every", feed_args.every_s,
          "Repeat every SECONDS (default: once; holder jobs: poll the scheduler every 1 s)")
      ->check(elastic::cli::non_negative_seconds());
  HolderFeedOptions holder_args;
  feed->add_option("--partition", holder_args.partition,
                   "holder jobs (slurm): the preemptible partition they run in (scavenger)");
  feed->add_option("--holder-dir", holder_args.holder_dir,
                   "holder jobs: dir shared with the holders, on a file system every node sees "
                   "(default: STATE_DIR/SCHEDULER-holders)");
  feed->add_option("--holder", holder_args.holder_command,
                   "holder jobs: what each runs (default: elastic-holder --dir HOLDER_DIR)");
  feed->add_option("--max-holders", holder_args.max_holders,
                   "holder jobs: at most N (0 = one per idle node)")
      ->check(elastic::cli::non_negative());
  feed->add_option("--submit-per-s", holder_args.submit_per_s,
                   "holder jobs: submissions per second, at most (4)")
      ->check(elastic::cli::positive());
  feed->add_option("--vacate-for", holder_args.vacate_for,
                   "holder jobs: main-queue partitions (comma-separated) whose newly submitted "
                   "jobs get holders given back before Slurm's next scheduling pass would preempt "
                   "them (default: none, preemption only)");
  feed->add_option("--vacate-every", holder_args.vacate_every_s,
                   "holder jobs: list --vacate-for's pending jobs every SECONDS (0.25)")
      ->check(elastic::cli::positive_seconds());
  feed->add_option("--vacate-max-step", holder_args.vacate_max_step_s,
                   "holder jobs: give back a node where elasticd runs a job only when the job's "
                   "training steps take at most SECONDS (0.25; it leaves at a step boundary)")
      ->check(elastic::cli::non_negative_seconds());

  TraceArgs trace_args;
  feed->add_option(
      "--trace", trace_args.trace,
      "trace: per-node idle intervals (node,idle_start_unix,idle_end_unix,...; .gz ok)");
  feed->add_option("--nodes", trace_args.nodes,
                   "trace: replay the K nodes that change most often in the window (node01..)")
      ->check(CLI::Range(1, 999));
  feed->add_option("--hosts", trace_args.hosts,
                   "trace: replay onto these hosts instead of node01..nodeK (K = their number), "
                   "e.g. h1,h2,h3 on a cluster in a box")
      ->delimiter(',')
      ->excludes("--nodes");
  feed->add_option("--start", trace_args.start,
                   "trace: window start, seconds from the trace's start or a Unix time (>= 1e9)")
      ->check(elastic::cli::non_negative());
  feed->add_option("--duration", trace_args.duration,
                   "trace: window length in trace seconds (default: to the trace's end)")
      ->check(elastic::cli::positive());
  feed->add_option("--speed", trace_args.speed, "trace: trace seconds per wall second (600)")
      ->check(elastic::cli::positive());

  auto* journal = app.add_subcommand(
      "journal",
      "check: list the journal's bad lines (exit 2 if any); salvage: move them to "
      "journal.jsonl.bad and keep the rest, so that elasticd starts again");
  std::string journal_action;
  journal->add_option("ACTION", journal_action, "check or salvage")
      ->required()
      ->check(CLI::IsMember({"check", "salvage"}));

  auto* timeline = app.add_subcommand(
      "timeline",
      "Plot what the runtime did from its decision log: nodes per job over time, nodes granted, "
      "nodes lost (timeline.csv, timeline.png)");
  std::string timeline_out;
  timeline->add_option("--out", timeline_out, "Output folder (default: STATE_DIR/timeline)");

  auto* up = app.add_subcommand("up", "Start elasticd under mpirun (or print the line)");
  UpArgs up_args;
  up->add_option("--hostfile", up_args.hostfile, "The hostfile elasticd watches");
  up->add_option("--fake-nodes", up_args.fake_nodes,
                 "One-machine mode: N fake nodes (node01..), labels for ranks that all run here")
      ->check(CLI::Range(1, 999));
  up->add_option("--slots", up_args.slots, "Slots per fake node (2)")->check(CLI::Range(1, 4096));
  up->add_option("--mpirun", up_args.mpirun, "mpirun to use (default: $MPI_HOME/bin/mpirun)");
  up->add_option("--elasticd", up_args.elasticd, "elasticd to run (default: next to elastic)");
  up->add_option("--agent", up_args.agent,
                 "Launch agent for PRRTE's daemons (plm_ssh_agent; default ssh; not with "
                 "--fake-nodes)");
  up->add_flag("--slurm-steps", up_args.slurm_steps,
               "Run our processes on each Slurm-fed node as steps of its holder job "
               "(elastic-slurm-agent, beside elastic, unless --agent; see docs/slurm.md)");
  up->add_option("--mpi-arg", up_args.mpi_args, "Extra mpirun argument (repeatable)")
      ->allow_extra_args(false);
  up->add_option("--daemon-arg", up_args.daemon_args, "Extra elasticd argument (repeatable)")
      ->allow_extra_args(false);
  up->add_flag("--dry-run", up_args.dry_run, "Print the mpirun line instead of running it");

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kBadInput;
  }
  const fs::path state_dir = state_dir_opt.empty() ? default_state_dir() : fs::path(state_dir_opt);
  const int code = [&] {
    try {
      if (*submit) return cmd_submit(state_dir, job_file, submit_id);
      if (*status) return cmd_status(state_dir, status_json, false);
      if (*cancel) return cmd_cancel(state_dir, cancel_id);
      if (*nodes) return cmd_status(state_dir, nodes_json, true);
      if (*feed && feed_kind == "trace") {
        return cmd_feed_trace(trace_args, feed_args.hostfile, feed_args.slots);
      }
      if (*feed) return cmd_feed(state_dir, *find_feed(feed_kind), feed_args, holder_args);
      if (*up) return cmd_up(state_dir, std::move(up_args));
      if (*journal) return cmd_journal(state_dir, journal_action);
      if (*timeline) return cmd_timeline(state_dir, timeline_out);
    } catch (const std::exception& e) {
      std::cerr << "elastic: " << e.what() << "\n";
      return kRuntimeError;
    }
    return kBadInput;
  }();
  // What a command prints is its answer: one that did not reach standard output (a full disk) is
  // a failure, not exit 0 with nothing printed.
  std::cout.flush();
  if (!std::cout && code == kOk) {
    std::cerr << "elastic: cannot write to standard output\n";
    return kRuntimeError;
  }
  return code;
}
