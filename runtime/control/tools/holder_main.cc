// elastic-holder: what a Slurm holder job runs (`elastic feed slurm` submits it). It holds its
// node for libelastic until Slurm preempts the job, then gives the node back quickly: on SIGTERM
// it writes <dir>/<node>.leaving (its job id), which the feed turns into the node's removal from
// the hostfile, and exits as soon as the feed writes <dir>/<node>.released with its job id (no job
// of elasticd's left on the node) or after --max-wait-s, whichever comes first, so that the
// main-queue job waits neither for the site's KillWait nor for a SIGKILL. A program rather than a
// shell trap: bash lost the SIGTERM in 2 of 8 runs (issue 11). Exit codes: 0 ok, 2 bad input.
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <thread>

#include "CLI/CLI.hpp"
#include "elastic/cli/exit_code.h"
#include "elastic/cli/number_checks.h"
#include "elastic/control/atomic_file.h"
#include "fmt/format.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Hold this Slurm node for libelastic until the job is preempted"};
  fs::path dir;
  double max_wait_s = 4;
  app.add_option("--dir", dir, "Holder dir shared with `elastic feed slurm` (its --holder-dir)")
      ->required();
  app.add_option("--max-wait-s", max_wait_s,
                 "After SIGTERM, exit at the latest this many seconds later (keep it below the "
                 "site's KillWait)")
      ->check(elastic::cli::non_negative_seconds());
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is 0; CLI11's own codes (106, 109, ...) are not ours
    return app.exit(e) == 0 ? elastic::cli::kExitOk : elastic::cli::kExitBadInput;
  }
  const std::string job = env("SLURM_JOB_ID");
  std::string node = env("SLURMD_NODENAME");
  if (job.empty()) {
    std::cerr << "elastic-holder: SLURM_JOB_ID is not set: run it as a Slurm job\n";
    return 2;
  }
  if (node.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof(host) - 1);
    node = host;
  }
  // Blocked before anything else, so that a preemption arriving early is taken by sigwait.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGHUP);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  int sig = 0;
  sigwait(&set, &sig);
  const auto got = Clock::now();
  if (absl::Status s = elastic::rt::write_file_atomic(dir / (node + ".leaving"), job + "\n", 0600);
      !s.ok()) {
    std::cerr << "elastic-holder: " << s.message() << "\n";
    return 1;
  }
  const fs::path released = dir / (node + ".released");
  const auto deadline =
      got + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(max_wait_s));
  while (Clock::now() < deadline) {
    absl::StatusOr<std::string> r = elastic::rt::read_file(released);
    if (r.ok() && trimmed(*r) == job) {
      std::cerr << fmt::format("elastic-holder: {} job {} released after {:.2f} s\n", node, job,
                               std::chrono::duration<double>(Clock::now() - got).count());
      return 0;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  std::cerr << fmt::format("elastic-holder: {} job {} not released within {} s, leaving anyway\n",
                           node, job, max_wait_s);
  return 0;
}
