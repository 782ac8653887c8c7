// elastic-replay: replays idle-node holes from a real scheduler log with a DNN training workload
// through the allocator and reports what the jobs achieved (docs/replay.md).
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>

#include "CLI/CLI.hpp"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "elastic/allocator/input_limits.h"
#include "elastic/allocator/solver_table.h"
#include "elastic/cli/exit_code.h"
#include "elastic/cli/number_checks.h"
#include "elastic/replay/report.h"
#include "elastic/replay/scale_workload.h"
#include "elastic/replay/simulator.h"
#include "elastic/replay/swf_holes.h"
#include "elastic/replay/tile_trace.h"
#include "elastic/traces/interval_csv.h"
#include "elastic/traces/swf_log.h"
#include "elastic/traces/workload_csv.h"
#include "fmt/format.h"

namespace {

using namespace elastic;

using cli::exit_code;
using cli::kExitBadInput;
using cli::kExitFailure;

constexpr const char* kSemantics = R"(
Semantics:
  Holes: an interval CSV (node,idle_start_unix,idle_end_unix[,duration_s][,censored]) keeps its
  node names; an SWF log gives capacity (header MaxNodes or --capacity) minus busy nodes, with the
  recorded schedule (start = submit + wait) or, without wait times, FCFS + EASY backfill on the
  requested times; jobs larger than the capacity are cut to it (counted). SWF nodes are named
  node0000.. and a starting job takes the lowest-numbered free nodes.
  Jobs arrive at Tsub shifted so the first submission is at the trace start (after --start), and
  finish exactly when they have processed Pmax samples.
  Events: node joins/leaves (all at one instant together), job arrivals, job finishes. At each:
   1. every running job is credited r(N) x (elapsed time outside its stall); r(N) = 0 below Jmin;
   2. finished jobs release their nodes; a held node that leaves is lost at once and its job is
      charged its shrink stall (Tcdw);
   3. arrived jobs are admitted first-come-first-served while fewer than --max-running are admitted;
   4. the allocator (--solver, --horizon, --objective) re-plans unless its input is unchanged, and
      the plan is applied at once: a job that grows (also from 0) is charged Tcup, one that shrinks
      Tcdw. Stalls queue: a new one starts when the current one ends. No samples are made in a stall.
  Scaling knowledge (--scaling): oracle plans with the true Ps/Os tables; learned never sees them:
  every --report-period seconds each job holding nodes reports samples/s made in the period times
  a seeded normal noise factor (--report-noise, --seed), the first report after its nodes changed
  is dropped, and the planner uses elasticd's ScalingModel (a report that moves a table by >10%
  re-plans); probing is learned with active probing: from a job's largest measured count to twice
  it, its table assumes the serial fraction of the better quarter of the measured jobs where that
  is more optimistic than its own; none plans with 1 per node for every job. Learned, probing and
  none ignore Os (the objective decides the value: throughput = the table, speedup = table /
  table(1)). Progress and all metrics use the true Ps tables in every mode.
  --scale-workload K runs K copies of the job list side by side (copy k of job J is J#k, arriving
  with J), admits K x --max-running jobs, and repeats the copies back to back in time (J@r, shifted
  by r x (submission span + mean gap)) until the trace ends; 'auto' picks the fewest copies for
  which --max-running jobs per copy at the mean Jmax reach the trace's mean idle pool.
  Metrics (../shared/DESIGN.md): H = integral of idle nodes, A = integral of allocated nodes,
  utilization A/H; ideal samples I = sum integral r(N) dt; samples S (stalls removed);
  elastic efficiency S/I; scaling efficiency S / sum integral N r(1) dt; completion time =
  finish - arrival (finished jobs). Exit codes: 0 ok, 2 bad input, 1 other failure.
)";

std::optional<replay::ScalingSource> scaling_source(const std::string& name) {
  if (name == "oracle") return replay::ScalingSource::kOracle;
  if (name == "learned") return replay::ScalingSource::kLearned;
  if (name == "probing") return replay::ScalingSource::kProbing;
  if (name == "none") return replay::ScalingSource::kNone;
  return std::nullopt;
}

// "1613000000" (Unix seconds) or "+3600" (seconds after the trace start).
struct TimeArg {
  double value = 0.0;
  bool relative = false;
};

std::optional<TimeArg> parse_time(std::string text) {
  TimeArg t;
  text = std::string(absl::StripAsciiWhitespace(text));
  if (!text.empty() && text.front() == '+') {
    t.relative = true;
    text.erase(0, 1);
  }
  if (!absl::SimpleAtod(text, &t.value)) return std::nullopt;
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"elastic-replay: how much DNN training would this machine's idle nodes give?"};
  app.footer(kSemantics);
  std::string trace_path, workload_path, out_dir = "replay-out", solver = "milp", compare;
  std::string objective = "throughput", format = "auto", schedule = "auto", start_arg, end_arg;
  std::string scaling = "oracle", scale_workload = "1";
  replay::LearnOptions learn;
  double horizon = 10.0, time_limit = 10.0, stall = -1.0;
  int max_running = 10, capacity = 0;
  double tile_days = 0.0, finish_window_scale = 1.0;
  bool lenient = false, no_plots = false, hole_aware = false, hole_horizon = false;
  bool hole_loss = false, value_to_finish = false;
  std::string hole_estimate = "km";
  app.add_option("--trace", trace_path, "Idle-interval CSV or SWF log (.gz or plain)")->required();
  app.add_option("--workload", workload_path,
                 "Training jobs CSV (job,Tcup,Tcdw,Jmin,Jmax,Pmax,Tsub,Ns,Ps,Os)")
      ->required();
  app.add_option("--out", out_dir,
                 "Output folder: metrics.json, timeline.csv (per event), hours.csv (per hour of "
                 "the trace), plots (docs/replay.md, \"Outputs\")")
      ->capture_default_str();
  app.add_option("--solver", solver, alloc::solver_help())->capture_default_str();
  app.add_option("--compare", compare,
                 "Comma-separated solvers to run side by side, e.g. milp,equal-share");
  app.add_option("--scaling", scaling,
                 "What the planner knows of scalability: oracle | learned | probing | none, or a "
                 "comma-separated list to run side by side")
      ->capture_default_str();
  app.add_option("--report-period", learn.report_period_s,
                 "Learned scaling: seconds between a job's progress reports")
      ->capture_default_str();
  app.add_option("--report-noise", learn.noise,
                 "Learned scaling: relative standard deviation of a report (0.05 = 5%)")
      ->capture_default_str();
  std::int64_t seed = 1;
  app.add_option("--seed", seed, "Learned scaling: seed of the report noise (>= 0)")
      ->capture_default_str();
  app.add_option("--scale-workload", scale_workload,
                 "K copies of the job list side by side (K x --max-running admitted), repeated in "
                 "time to the trace end; 'auto': the fewest copies whose demand at Jmax reaches "
                 "the mean idle pool")
      ->capture_default_str();
  app.add_option(
      "--stall", stall,
      "Grow and shrink stall of every job in seconds (default: the workload's Tcup/Tcdw)");
  app.add_flag("--hole-aware", hole_aware,
               "Give each node its expected remaining idle time from its hole's age (learned from "
               "holes that ended so far); grows avoid, shrinks release first, nodes expected to "
               "leave within the horizon");
  app.add_flag("--hole-horizon", hole_horizon,
               "Horizon per solve = the pool's median expected remaining idle time (1..600 s) "
               "instead of --horizon");
  app.add_flag("--hole-loss", hole_loss,
               "Value each count with the nodes' expected remaining idle time: what they make "
               "while they stay, less the stall when one leaves and the rescale stall (use a "
               "--horizon longer than the stalls, e.g. 120); grows take the longest-lived nodes");
  app.add_flag("--value-to-finish", value_to_finish,
               "--hole-loss: a job that would reach its target before its nodes leave is worth "
               "the samples it has left and what its nodes make for the next job, not its rate "
               "(docs/replay.md)")
      ->needs("--hole-loss");
  app.add_option("--finish-window-scale", finish_window_scale,
                 "--value-to-finish: the window within which a job counts as finishing, as a "
                 "multiple of the pool's mean expected idle time; longer trades samples for "
                 "elastic efficiency (docs/replay.md)")
      ->check(cli::positive())
      ->needs("--value-to-finish")
      ->capture_default_str();
  app.add_option("--hole-estimate", hole_estimate,
                 "--hole-loss: km (Kaplan-Meier over ended and open holes) | ended (ended holes "
                 "only)")
      ->capture_default_str()
      ->check(CLI::IsMember({"km", "ended"}));
  app.add_option("--horizon", horizon, "Look-ahead T in seconds")->capture_default_str();
  app.add_option("--objective", objective, "throughput | speedup | weighted | fair")
      ->capture_default_str();
  app.add_option("--max-running", max_running, "Jobs admitted at once")
      ->capture_default_str()
      ->check(CLI::Range(1, 1'000'000));
  app.add_option("--time-limit", time_limit, "Solver time limit per call (s)")
      ->capture_default_str();
  app.add_option("--format", format, "Trace format: auto | intervals | swf")->capture_default_str();
  app.add_option("--capacity", capacity, "SWF machine size (default: header MaxNodes)")
      ->check(CLI::Range(0, alloc::kMaxNodes));
  app.add_option("--swf-schedule", schedule, "auto | recorded | easy")->capture_default_str();
  app.add_option("--start", start_arg,
                 "Window start: Unix seconds, or +seconds after the trace start");
  app.add_option("--end", end_arg, "Window end: Unix seconds, or +seconds after the trace start");
  app.add_option("--tile-days", tile_days,
                 "Synthetic trace: repeat the trace back to back to this many days (benchmarks)");
  app.add_flag("--lenient", lenient, "Skip malformed trace lines (counted in metrics.json)");
  app.add_flag("--no-plots", no_plots, "Write data only, do not run gnuplot");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is 0; CLI11's own codes are not ours
    return app.exit(e) == 0 ? cli::kExitOk : kExitBadInput;
  }

  auto bad = [](const std::string& what) {
    std::cerr << "elastic-replay: " << what << "\n";
    return kExitBadInput;
  };
  using alloc::echo_token;
  std::vector<std::string> policies =
      app.count("--compare") == 0
          ? std::vector<std::string>{solver}
          : std::vector<std::string>(absl::StrSplit(compare, ',', absl::SkipEmpty()));
  // `--compare ,` ran nothing and exited 0.
  if (policies.empty()) {
    return bad("--compare: no solver given (" + absl::StrJoin(alloc::solver_names(), ", ") + ")");
  }
  for (const std::string& p : policies) {
    if (absl::StatusOr<alloc::SolverKind> kind = alloc::parse_solver(p); !kind.ok()) {
      return bad(std::string(kind.status().message()));
    }
  }
  const std::vector<std::string> scalings = absl::StrSplit(scaling, ',', absl::SkipEmpty());
  if (scalings.empty()) return bad("--scaling: empty (oracle, learned, probing, none)");
  for (const std::string& sc : scalings) {
    if (!scaling_source(sc)) {
      return bad("--scaling: unknown '" + echo_token(sc) + "' (oracle, learned, probing, none)");
    }
  }
  if (!(learn.report_period_s > 0 && learn.report_period_s <= alloc::kMaxSeconds)) {
    return bad(fmt::format("--report-period: must be in (0, {:g}] seconds, not {:g}",
                           alloc::kMaxSeconds, learn.report_period_s));
  }
  if (app.count("--stall") > 0 && !(stall >= 0 && stall <= alloc::kMaxSeconds)) {
    return bad(
        fmt::format("--stall: must be in [0, {:g}] seconds, not {:g}", alloc::kMaxSeconds, stall));
  }
  if (seed < 0) return bad(fmt::format("--seed: must be >= 0, not {}", seed));
  learn.seed = static_cast<std::uint64_t>(seed);
  if (!(learn.noise >= 0 && learn.noise <= 1)) {
    return bad(fmt::format("--report-noise: must be in [0, 1], not {:g}", learn.noise));
  }
  static const std::map<std::string, alloc::Objective> kObjectives{
      {"throughput", alloc::Objective::kThroughput},
      {"speedup", alloc::Objective::kSpeedup},
      {"weighted", alloc::Objective::kWeighted},
      {"fair", alloc::Objective::kFair}};
  if (!kObjectives.contains(objective)) {
    return bad("unknown --objective '" + echo_token(objective) + "'");
  }
  // The allocator's own limits, checked here so that the message names the option.
  if (!(horizon > 0 && horizon <= alloc::kMaxSeconds)) {
    return bad(fmt::format("--horizon: must be in (0, {:g}] seconds, not {:g}", alloc::kMaxSeconds,
                           horizon));
  }
  if (!(time_limit > 0 && time_limit <= alloc::kMaxSeconds)) {
    return bad(fmt::format("--time-limit: must be in (0, {:g}] seconds, not {:g}",
                           alloc::kMaxSeconds, time_limit));
  }
  if (!(tile_days >= 0 && std::isfinite(tile_days))) {
    return bad(fmt::format("--tile-days: must be a positive number of days, not {:g}", tile_days));
  }
  std::optional<TimeArg> start_t, end_t;
  if (!start_arg.empty() && !(start_t = parse_time(start_arg))) {
    return bad("--start: not a time: " + echo_token(start_arg));
  }
  if (!end_arg.empty() && !(end_t = parse_time(end_arg))) {
    return bad("--end: not a time: " + echo_token(end_arg));
  }

  // --out is made before the replay, which may take minutes: a folder that could not be written
  // was found when the first results were, and they were lost.
  {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) return bad(fmt::format("--out: cannot create {}: {}", out_dir, ec.message()));
    if (::access(out_dir.c_str(), W_OK | X_OK) != 0) {
      return bad(fmt::format("--out: cannot write in {}: {}", out_dir, std::strerror(errno)));
    }
  }

  int copies = 1;  // 0: auto, once the trace is known
  if (scale_workload != "auto" && !(absl::SimpleAtoi(scale_workload, &copies) && copies >= 1 &&
                                    copies <= replay::kMaxWorkloadCopies)) {
    return bad(fmt::format("--scale-workload: not 'auto' or a whole number in [1, {}]: {}",
                           replay::kMaxWorkloadCopies, echo_token(scale_workload)));
  }
  if (scale_workload == "auto") copies = 0;

  // Holes.
  const traces::ReadOptions read{.lenient = lenient};
  if (format == "auto") {
    format = absl::StrContains(trace_path, ".swf") ? "swf" : "intervals";
  }
  absl::StatusOr<traces::HoleTrace> trace;
  if (format == "swf") {
    replay::SwfHoleOptions so;
    so.capacity = capacity;
    if (schedule == "recorded")
      so.schedule = replay::SwfSchedule::kRecorded;
    else if (schedule == "easy")
      so.schedule = replay::SwfSchedule::kEasy;
    else if (schedule != "auto")
      return bad("unknown --swf-schedule '" + echo_token(schedule) + "'");
    absl::StatusOr<traces::SwfLog> log = traces::load_swf(trace_path, read);
    if (!log.ok()) return bad(std::string(log.status().message()));
    trace = replay::holes_from_swf(*log, so);
    // holes_from_swf does not know the file; load_interval_csv's messages start with it.
    if (!trace.ok()) return bad(trace_path + ": " + std::string(trace.status().message()));
  } else if (format == "intervals") {
    trace = traces::load_interval_csv(trace_path, read);
  } else {
    return bad("unknown --format '" + echo_token(format) + "'");
  }
  if (!trace.ok()) return bad(std::string(trace.status().message()));
  if (start_t || end_t) {
    std::optional<double> lo, hi;
    const double base = trace->start;
    if (start_t) lo = start_t->relative ? base + start_t->value : start_t->value;
    if (end_t) hi = end_t->relative ? base + end_t->value : end_t->value;
    if (absl::Status s = traces::clip_to_window(*trace, lo, hi); !s.ok()) {
      return bad(std::string(s.message()));
    }
    if (trace->intervals.empty()) return bad("empty trace: no idle node in the window");
  }

  if (tile_days > 0) {
    trace = replay::tile_trace(*trace, tile_days * 86400.0);
    if (!trace.ok()) return bad("--tile-days: " + std::string(trace.status().message()));
  }

  absl::StatusOr<std::vector<traces::WorkloadJob>> workload =
      traces::load_workload_csv(workload_path);
  if (!workload.ok()) return bad(std::string(workload.status().message()));
  if (workload->empty()) return bad(workload_path + ": empty workload");
  if (stall >= 0) {
    for (traces::WorkloadJob& job : *workload) job.grow_stall_s = job.shrink_stall_s = stall;
  }
  if (copies == 0) copies = replay::copies_to_fill(*trace, *workload, max_running);
  if (copies > 1) {
    if (static_cast<double>(max_running) * copies > 1e6) {
      return bad(fmt::format("--scale-workload: {} copies x --max-running {} exceeds 1000000 jobs",
                             copies, max_running));
    }
    max_running *= copies;
  }
  if (scale_workload != "1") {
    absl::StatusOr<std::vector<traces::WorkloadJob>> scaled =
        replay::scale_workload(*workload, copies, trace->end - trace->start);
    if (!scaled.ok()) return bad("--scale-workload: " + std::string(scaled.status().message()));
    *workload = *std::move(scaled);
  }

  // One run per (solver, scaling knowledge); oracle runs keep the solver's name.
  struct Run {
    std::string name;
    alloc::SolverKind solver;
    replay::ScalingSource scaling;
  };
  std::vector<Run> runs;
  for (const std::string& p : policies) {
    for (const std::string& sc : scalings) {
      const bool plain = scalings.size() == 1 && sc == "oracle";
      runs.push_back({plain ? p : p + "-" + sc, *alloc::parse_solver(p), *scaling_source(sc)});
    }
  }
  std::vector<replay::ReplayResult> results;
  results.reserve(runs.size());
  const bool tty = isatty(STDERR_FILENO) != 0;
  bool write_failed = false;
  for (const Run& run : runs) {
    const std::string& policy = run.name;
    replay::ReplayOptions options;
    options.solver = run.solver;
    options.scaling = run.scaling;
    options.learn = learn;
    options.objective = kObjectives.at(objective);
    options.horizon_s = horizon;
    options.time_limit_s = time_limit;
    options.max_running = max_running;
    options.hole_aware = hole_aware;
    options.hole_horizon = hole_horizon;
    options.hole_loss = hole_loss;
    options.finish_window_scale = value_to_finish ? finish_window_scale : 0.0;
    options.hole_censored = hole_estimate == "km";
    const auto t0 = std::chrono::steady_clock::now();
    auto last = t0;
    int last_decile = -1;
    bool shown = false;
    options.progress = [&](double fraction) {
      const auto now = std::chrono::steady_clock::now();
      const double elapsed = std::chrono::duration<double>(now - t0).count();
      if (elapsed < 2.0 && fraction < 1.0) return;  // short runs stay quiet
      if (fraction >= 1.0 && !shown) return;
      if (tty) {
        if (fraction < 1.0 && std::chrono::duration<double>(now - last).count() < 0.25) return;
        fmt::print(stderr, "\r[{}] {:5.1f}% of the trace, {:.1f} s{}", policy, 100 * fraction,
                   elapsed, fraction >= 1.0 ? "\n" : "");
      } else {
        const int decile = static_cast<int>(fraction * 10);
        if (decile == last_decile) return;
        last_decile = decile;
        fmt::print(stderr, "[{}] {:.0f}% of the trace, {:.1f} s\n", policy, 100 * fraction,
                   elapsed);
      }
      shown = true;
      last = now;
    };
    absl::StatusOr<replay::ReplayResult> result = replay::run_replay(*trace, *workload, options);
    if (!result.ok()) {
      std::cerr << "elastic-replay: " << result.status().message() << "\n";
      return exit_code(result.status());
    }
    result->metrics.policy = policy;
    const std::string dir =
        runs.size() == 1 ? out_dir : (std::filesystem::path(out_dir) / policy).string();
    // A write that fails now (a full disk) loses this run's files, not the others' results: the
    // replay goes on and the summary is printed.
    if (absl::Status s = replay::write_outputs(dir, *trace, *workload, *result); !s.ok()) {
      std::cerr << "elastic-replay: --out: " << s.message() << "\n";
      write_failed = true;
    } else if (!no_plots) {
      if (std::string warning = replay::write_plots(dir); !warning.empty()) {
        std::cerr << "elastic-replay: warning: " << warning << "\n";
      }
    }
    results.push_back(std::move(*result));
  }

  const traces::HoleTrace& t = *trace;
  std::vector<const replay::Metrics*> table;
  for (const auto& r : results) table.push_back(&r.metrics);
  const std::string summary = fmt::format(
      "trace {} ({} nodes, {:.1f} h, {} holes); workload {} ({} jobs{}, max running {})\n{}"
      "outputs in {}\n",
      trace_path, t.node_names.size(), (t.end - t.start) / 3600, t.intervals.size(), workload_path,
      workload->size(), copies > 1 ? fmt::format(" in {} copies", copies) : "", max_running,
      replay::summary_table(table), out_dir);
  // The summary is the answer: one that did not reach stdout (a full disk) is a failure.
  if (std::fwrite(summary.data(), 1, summary.size(), stdout) != summary.size() ||
      std::fflush(stdout) != 0) {
    std::cerr << "elastic-replay: cannot write to standard output\n";
    return kExitFailure;
  }
  return write_failed ? kExitFailure : cli::kExitOk;
}
