// elasticd: the resident runtime. Launch it as the only process of an mpirun with ULFM:
//   mpirun --with-ft ulfm -n 1 --bind-to none elasticd --hostfile FILE --state-dir DIR
// Exit codes (elastic/cli/exit_code.h): 0 stopped by SIGTERM/SIGINT, 2 bad input (hostfile, state
// dir, options), 1 runtime error.
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <string>

#include "CLI/CLI.hpp"
#include "elastic/allocator/solver_table.h"
#include "elastic/cli/exit_code.h"
#include "elastic/cli/number_checks.h"
#include "elastic/daemon/daemon.h"

namespace {

using elastic::cli::exit_code;
using elastic::cli::kExitBadInput;
using elastic::cli::kExitOk;

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop.store(true); }

int finalize_and_exit(int code) {
  std::fflush(stdout);
  std::fflush(stderr);
  alarm(10);  // MPI_Finalize can hang after peer failures (docs/runtime.md "Known limitations")
  MPI_Finalize();
  return code;
}

// --solver takes the allocator's names (solver_table.h); an unknown one is refused with the list.
std::string check_solver(const std::string& name) {
  absl::StatusOr<elastic::alloc::SolverKind> kind = elastic::alloc::parse_solver(name);
  return kind.ok() ? std::string() : std::string(kind.status().message());
}

}  // namespace

int main(int argc, char** argv) {
  elastic::rt::DaemonOptions o;
  double directive_timeout_s = 60;
  double spawn_timeout_s = 60;
  CLI::App app("elasticd: the elastic runtime's controller (run under mpirun --with-ft ulfm -n 1)");
  app.add_option("--hostfile", o.hostfile, "Hostfile of granted nodes, watched for changes")
      ->required();
  app.add_option("--state-dir", o.state_dir, "State dir (queue, journal, status, job output)")
      ->required();
  app.add_option("--grace-s", o.grace_s,
                 "Seconds to vacate a node removed from the hostfile, and for a rank that left "
                 "its job to exit; what still runs then is killed")
      ->check(elastic::cli::non_negative_seconds());
  app.add_flag("--fake-nodes", o.fake_nodes,
               "Label mode (a fallback where no cluster in a box can be built): hostfile names "
               "are labels and every rank runs on this host");
  app.add_flag("--ranks-ignore-sigterm", o.ranks_ignore_sigterm,
               "Ranks ignore SIGTERM (set by `elastic up --slurm-steps`: a preemption signals "
               "every step of a holder job, and the holder's notice moves the ranks off instead)");
  app.add_option("--ranks-per-node", o.ranks_per_node, "Default ranks per node (0 = hwloc)")
      ->check(elastic::cli::non_negative());
  app.add_option("--debounce-s", o.debounce_s, "Plan at most this often after events")
      ->check(elastic::cli::non_negative_seconds());
  app.add_option("--directive-timeout-s", directive_timeout_s,
                 "Give up on a job whose ranks do not reach a step boundary within this")
      ->check(elastic::cli::positive_seconds());
  app.add_option("--spawn-timeout-s", spawn_timeout_s,
                 "Fail a job whose MPI_Comm_spawn does not return within this (e.g. its command "
                 "hangs before MPI_Init)")
      ->check(elastic::cli::positive_seconds());
  app.add_option("--max-output-mb", o.max_output_mb,
                 "Keep each job's stdout and stderr under this many MB: past it a file is cut "
                 "back to its first half and a line in it says how much was dropped (0 = no "
                 "bound)")
      ->check(elastic::cli::non_negative_megabytes())
      ->capture_default_str();
  app.add_option("--events-max-mb", o.events_max_mb,
                 "Rotate the decision log events.jsonl past this many MB (events.1.jsonl, "
                 "events.2.jsonl are kept; older ones are dropped)")
      ->check(elastic::cli::positive_megabytes())
      ->capture_default_str();
  app.add_option("--journal-compact-records", o.journal_compact_records,
                 "Rewrite the journal as one record per job once it holds this many records (and "
                 "at least twice as many as jobs), so that it grows with the jobs, not with "
                 "their rescales")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  // How each plan is stated and solved (plan_actions.h).
  std::string solver(elastic::alloc::to_string(o.plan.solver));
  app.add_option("--solver", solver, "Allocator solver: " + elastic::alloc::solver_help())
      ->check(CLI::Validator(check_solver, "SOLVER"))
      ->capture_default_str();
  app.add_option(
         "--solve-time-limit-s", o.plan.time_limit_s,
         "Seconds a solve may take before its best plan so far is used (the event loop waits)")
      ->check(elastic::cli::positive_seconds())
      ->capture_default_str();
  app.add_option(
         "--horizon-s", o.plan.horizon_s,
         "Seconds a plan is expected to hold (T_fwd): a rescale must repay its stall within this")
      ->check(elastic::cli::positive_seconds())
      ->capture_default_str();
  app.add_option("--grow-stall-s", o.plan.grow_stall_s,
                 "Estimated stall of a grow, for jobs whose [scaling] gives no grow_stall_s")
      ->check(elastic::cli::non_negative_seconds())
      ->capture_default_str();
  app.add_option("--shrink-stall-s", o.plan.shrink_stall_s,
                 "Estimated stall of a shrink, for jobs whose [scaling] gives no shrink_stall_s")
      ->check(elastic::cli::non_negative_seconds())
      ->capture_default_str();
  app.add_flag("--hole-loss", o.plan.hole_loss,
               "Plan with each node's expected idle time, learned from the hostfile's history (how "
               "long granted nodes stayed): grows onto nodes likely to leave soon pay for it. "
               "Pair with a --horizon-s of 60-120 (docs/runtime.md)");
  bool value_to_finish = false;
  double finish_window_scale = 1.0;
  app.add_flag("--value-to-finish", value_to_finish,
               "With --hole-loss: a job that would reach its target_samples before its nodes "
               "leave is worth the samples it has left and what its nodes make for the next job, "
               "not its rate (docs/replay.md, \"Value to the finish\")")
      ->needs("--hole-loss");
  app.add_option("--finish-window-scale", finish_window_scale,
                 "With --value-to-finish: the window within which a job counts as finishing, as a "
                 "multiple of the pool's mean expected idle time; longer trades samples for "
                 "elastic efficiency")
      ->check(elastic::cli::positive())
      ->needs("--value-to-finish")
      ->capture_default_str();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitBadInput;
  }
  o.plan.solver = *elastic::alloc::parse_solver(solver);  // checked by the option
  o.plan.finish_window_scale = value_to_finish ? finish_window_scale : 0.0;
  // Both are at most kMaxSeconds (positive_seconds): their milliseconds fit a long.
  o.directive_timeout = std::chrono::milliseconds(static_cast<long>(directive_timeout_s * 1000));
  o.spawn_timeout = std::chrono::milliseconds(static_cast<long>(spawn_timeout_s * 1000));

  // MULTIPLE: MPI_Comm_spawn runs in a helper thread so that it can be abandoned (bounded_spawn.h).
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != 1) {
    std::fprintf(stderr, "elasticd: run it as a single process (mpirun -n 1), not %d\n", size);
    return finalize_and_exit(kExitBadInput);
  }
  if (provided < MPI_THREAD_MULTIPLE) {
    std::fprintf(stderr, "elasticd: MPI has no MPI_THREAD_MULTIPLE: spawns are not bounded\n");
  }
  struct sigaction sa = {};
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
  // Writes to the socket of a rank that just died raise SIGPIPE in Open MPI's TCP transport: the
  // controller must see the failure through ULFM, not die of it.
  signal(SIGPIPE, SIG_IGN);

  absl::StatusOr<std::unique_ptr<elastic::rt::Daemon>> daemon = elastic::rt::Daemon::create(o);
  if (!daemon.ok()) {
    std::fprintf(stderr, "elasticd: %s\n", std::string(daemon.status().message()).c_str());
    return finalize_and_exit(exit_code(daemon.status()));
  }
  std::fprintf(stderr, "elasticd: running (pid %d), hostfile %s, state dir %s%s\n",
               static_cast<int>(getpid()), o.hostfile.c_str(), o.state_dir.c_str(),
               o.fake_nodes ? ", LABEL MODE" : ", ranks placed on their nodes");
  if (o.fake_nodes) {
    std::fprintf(stderr,
                 "elasticd: label mode (--fake-nodes): node names are labels and every rank runs "
                 "on this host; nothing here shows that jobs grow onto other hosts (scripts/box.sh "
                 "builds distinct hosts on one machine)\n");
  }
  absl::Status st = (*daemon)->run(g_stop);
  daemon->reset();
  if (!st.ok()) {
    std::fprintf(stderr, "elasticd: %s\n", std::string(st.message()).c_str());
    return finalize_and_exit(exit_code(st));
  }
  return finalize_and_exit(kExitOk);
}
