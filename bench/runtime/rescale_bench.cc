// Rescale latency of the elastic protocol on the cluster in a box (scripts/box.sh), measured by a
// controller that drives real jobs with elasticd's JobGroup verbs (run_bench.sh runs it as
// `mpirun --with-ft ulfm -n 1` on the head host h0). For each host count H and repetition, a job
// of rescale_trainer processes (R ranks per host) starts on hosts A = h1..h(H/2), then:
//   grow      grow(B = h(H/2+1)..hH)  -> first progress report at H*R ranks
//   shrink    shrink(B) on notice      -> first progress report at H/2*R ranks
//   recovery  grow(B) again, then every process of host hH is SIGKILLed, its PRRTE daemon
//             included (a node vanishing); from the controller's detection (the poll that found
//             the failure) -> first progress report at (H-1)*R ranks; kill -> detection apart
// A progress report at size K is sent by the leader after a step boundary of the K-rank
// membership, i.e. once every rank finished its first step there (state sync included).
// A grow's spawns run while the job trains (protocol.h, "Grow"), so the time the job is held up
// is shorter: grow_stall / shrink_stall are the leader's own measure of it (rescale_trainer's
// "resize" line: end of its last step at the old size -> end of its first step at the new one).
// Prints one JSON line per measurement: {"hosts":H,"rph":R,"what":"grow","s":seconds}.
//   rescale_bench TRAINER --box BOX_SH --out DIR [--hosts 2,4,8] [--ranks-per-host 1] [--reps 3]
//                 [--state-mb 4] [--warm-up-mb MB] [--step-us US]
// (DIR: seen by every host, e.g. under /var/tmp; --warm-up-mb goes to the trainer, which passes it
// to SessionOptions::warm_up_max_bytes: 0 turns a grow's warm-up off, unset keeps the default).
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "elastic/cli/number_checks.h"
#include "elastic/daemon/job_group.h"

namespace {

using Clock = std::chrono::steady_clock;
using elastic::rt::JobGroup;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The pids of every process on `host` (its PRRTE daemon included), from `box.sh pids HOST`.
std::vector<int> host_pids(const std::string& box, const std::string& host) {
  std::vector<int> out;
  FILE* f = ::popen((box + " pids " + host).c_str(), "r");
  if (f == nullptr) return out;
  int pid = 0;
  while (std::fscanf(f, "%d", &pid) == 1) out.push_back(pid);
  ::pclose(f);
  return out;
}

std::vector<std::string> host_range(int first, int last) {
  std::vector<std::string> out;
  for (int i = first; i <= last; ++i) out.push_back("h" + std::to_string(i));
  return out;
}

// Polls until a progress report says `ranks`; false after `timeout_s`. Returns the poll that
// first saw lost nodes through `detected` (if not null).
bool wait_ranks(JobGroup& g, int ranks, double timeout_s, Clock::time_point* detected = nullptr) {
  const auto t0 = Clock::now();
  while (since(t0) < timeout_s) {
    const auto tp = Clock::now();
    elastic::rt::PollResult r = g.poll();
    if (detected != nullptr && !r.lost_nodes.empty()) *detected = tp;
    if (r.error) {
      std::fprintf(stderr, "rescale_bench: job error: %s\n", r.error->c_str());
      return false;
    }
    if (r.progressed && g.progress_ranks() == ranks) return true;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  std::fprintf(stderr, "rescale_bench: no report at %d ranks within %.0f s (last %d)\n", ranks,
               timeout_s, g.progress_ranks());
  return false;
}

bool refused(const char* what, const absl::Status& st) {
  std::fprintf(stderr, "rescale_bench: %s: %s\n", what, std::string(st.message()).c_str());
  return false;
}

// The stall of the last "resize OLD NEW STALL" line of `stdout_path` that went to `size`.
double last_stall(const std::string& stdout_path, int size) {
  std::ifstream f(stdout_path);
  std::string line;
  double stall = -1;
  while (std::getline(f, line)) {
    std::istringstream in(line);
    std::string word;
    int from = 0;
    int to = 0;
    double s = 0;
    if (in >> word >> from >> to >> s && word == "resize" && to == size) stall = s;
  }
  return stall;
}

struct Round {
  std::string trainer, box, out;
  int hosts = 2, per_host = 1, rep = 0;
  double state_mb = 4;
  std::string warm_up_mb;  // empty: the trainer's default
  std::string step_us;     // empty: the trainer's default (a sleep per step)
};

void emit(const Round& r, const char* what, double s) {
  std::printf("{\"hosts\":%d,\"rph\":%d,\"what\":\"%s\",\"s\":%.6f}\n", r.hosts, r.per_host, what,
              s);
  std::fflush(stdout);
}

bool one_round(const Round& r) {
  const int half = std::max(1, r.hosts / 2);
  const std::vector<std::string> a = host_range(1, half);
  const std::vector<std::string> b = host_range(half + 1, r.hosts);
  const int at_a = half * r.per_host;
  const int at_all = r.hosts * r.per_host;
  elastic::rt::LaunchSpec spec;
  spec.job_id = "bench" + std::to_string(r.hosts) + "x" + std::to_string(r.per_host) + "_" +
                std::to_string(r.rep);
  spec.command = r.trainer;
  spec.args = {"--state-mb", std::to_string(r.state_mb)};
  if (!r.warm_up_mb.empty()) spec.args.insert(spec.args.end(), {"--warm-up-mb", r.warm_up_mb});
  if (!r.step_us.empty()) spec.args.insert(spec.args.end(), {"--step-us", r.step_us});
  spec.ranks_per_node = r.per_host;
  spec.stdout_path = r.out + "/" + spec.job_id + ".stdout";
  std::filesystem::remove(spec.stdout_path);
  spec.stderr_path = r.out + "/" + spec.job_id + ".stderr";
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  elastic::rt::Placement place{false, std::string(host, static_cast<std::size_t>(len))};
  JobGroup g(spec, place, std::chrono::seconds(60), std::chrono::seconds(60));
  if (absl::Status st = g.start(a); !st.ok()) {
    std::fprintf(stderr, "rescale_bench: start: %s\n", std::string(st.message()).c_str());
    return false;
  }
  if (!wait_ranks(g, at_a, 120)) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  auto t0 = Clock::now();
  if (absl::Status st = g.grow(b); !st.ok()) return refused("grow", st);
  if (!wait_ranks(g, at_all, 120)) return false;
  emit(r, "grow", since(t0));
  emit(r, "grow_stall", last_stall(spec.stdout_path, at_all));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  t0 = Clock::now();
  if (absl::Status st = g.shrink(b); !st.ok()) return refused("shrink", st);
  if (!wait_ranks(g, at_a, 120)) return false;
  emit(r, "shrink", since(t0));
  emit(r, "shrink_stall", last_stall(spec.stdout_path, at_a));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  if (absl::Status st = g.grow(b); !st.ok()) return refused("grow back", st);
  if (!wait_ranks(g, at_all, 120)) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::string victim = b.back();
  const std::vector<int> victims = host_pids(r.box, victim);
  if (static_cast<int>(victims.size()) <= r.per_host) {  // the ranks and the host's prted
    std::fprintf(stderr, "rescale_bench: %zu processes on %s, expected more than %d\n",
                 victims.size(), victim.c_str(), r.per_host);
    return false;
  }
  const auto t_kill = Clock::now();
  for (int pid : victims) kill(pid, SIGKILL);
  Clock::time_point detected{};
  if (!wait_ranks(g, at_all - r.per_host, 120, &detected)) return false;
  if (detected == Clock::time_point{}) {
    std::fprintf(stderr, "rescale_bench: the job shrank, but no poll reported %s lost\n",
                 victim.c_str());
    return false;
  }
  emit(r, "detect", std::chrono::duration<double>(detected - t_kill).count());
  emit(r, "recovery", since(detected));
  (void)g.stop(/*wait_boundary=*/true);
  std::filesystem::remove(spec.stdout_path);
  std::this_thread::sleep_for(std::chrono::seconds(1));  // leavers finalize
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  signal(SIGPIPE, SIG_IGN);  // as elasticd: a dead rank's socket must not kill the controller
  Round base;
  std::vector<int> host_counts = {2, 4, 8};
  int reps = 3;
  CLI::App app{
      "Rescale latency of the elastic protocol on the cluster in a box: one JSON line per grow, "
      "shrink on notice and recovery (run_bench.sh runs it under mpirun on h0)"};
  app.add_option("TRAINER", base.trainer, "The rescale_trainer binary")->required();
  app.add_option("--box", base.box, "scripts/box.sh")->required();
  app.add_option("--out", base.out, "A directory every host sees (e.g. under /var/tmp)")
      ->required();
  app.add_option("--hosts", host_counts, "Host counts H to measure, comma-separated")
      ->delimiter(',')
      ->check(CLI::Range(2, 4096))
      ->capture_default_str();
  app.add_option("--ranks-per-host", base.per_host, "Ranks R per host")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  app.add_option("--reps", reps, "Repetitions per host count")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  app.add_option("--state-mb", base.state_mb, "Model state each rank holds (MB)")
      ->check(elastic::cli::non_negative())
      ->capture_default_str();
  app.add_option("--warm-up-mb", base.warm_up_mb,
                 "Passed to the trainer (SessionOptions::warm_up_max_bytes; 0: no warm-up; "
                 "default: the trainer's)")
      ->check(elastic::cli::non_negative());
  app.add_option("--step-us", base.step_us,
                 "The trainer's sleep per step in microseconds (default: the trainer's)")
      ->check(elastic::cli::non_negative());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    MPI_Finalize();
    return rc == 0 ? 0 : 2;
  }
  int failures = 0;
  for (int h : host_counts) {
    for (int rep = 0; rep < reps; ++rep) {
      Round r = base;
      r.hosts = h;
      r.rep = rep;
      if (!one_round(r)) {
        std::fprintf(stderr, "rescale_bench: round hosts=%d rep=%d failed\n", h, rep);
        ++failures;
      }
    }
  }
  std::fflush(stdout);
  alarm(10);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
