// elastic-slurm-agent: PRRTE's launch agent (plm_ssh_agent) on Slurm-fed nodes. PRRTE calls it as
// ssh, `AGENT [ssh options] HOST COMMAND...`; it runs COMMAND (PRRTE's daemon, prted) on HOST as a
// step of the holder job that holds HOST (`srun --jobid=H --overlap -N1 -n1 -w HOST`), so that
// our processes on the node live inside the holder: when Slurm evicts the holder it takes exactly
// them, and nothing of ours outlives it on the node (docs/slurm.md).
//
// A preemption signals every step of the job at once (SIGTERM, then SIGKILL when the holder has
// exited). PRRTE's daemon would shut down on that SIGTERM and turn every notice into a node loss,
// so the step runs `elastic-slurm-agent --in-step COMMAND`, which blocks SIGTERM and then execs the
// command: prted inherits the mask and its handler never runs; its ranks (whose mask PRRTE resets)
// ignore SIGTERM themselves under elasticd --ranks-ignore-sigterm. The holder's notice path
// (SIGTERM -> <node>.leaving -> shrink -> <node>.released -> exit) then moves the ranks off the
// node, and the SIGKILL that follows the holder's exit ends the daemon.
//
// Needs PRRTE's daemons to stay attached to the agent (mpirun --leave-session-attached: without
// it, a daemon started for a host added at run time daemonizes and leaves the step). Exit codes:
// 2 bad arguments, 3 no running holder holds HOST; otherwise srun's.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_join.h"
#include "elastic/control/command.h"
#include "elastic/control/slurm_holders.h"

namespace {

constexpr std::string_view kUsage =
    "usage: elastic-slurm-agent [--squeue=CMD] [--srun=CMD] [ssh options] HOST COMMAND...\n"
    "       elastic-slurm-agent --in-step COMMAND...\n"
    "PRRTE's launch agent on Slurm-fed nodes: runs COMMAND on HOST as a step of the holder job\n"
    "(\"elastic-hold:HOST\", elastic feed slurm) that holds it, with SIGTERM blocked.\n"
    "  mpirun --leave-session-attached --prtemca plm_ssh_agent elastic-slurm-agent ...\n";

[[noreturn]] void exec_or_die(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  ::execvp(argv[0], argv.data());
  std::cerr << "elastic-slurm-agent: cannot run " << args[0] << ": " << std::strerror(errno)
            << "\n";
  std::_Exit(127);
}

// On HOST, inside the step: SIGTERM blocked for the command and everything it starts.
[[noreturn]] void in_step(const std::string& command) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigprocmask(SIG_BLOCK, &set, nullptr);
  exec_or_die({"/bin/bash", "-c", command});
}

std::string self_path() {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  return n > 0 ? std::string(buf.data(), static_cast<std::size_t>(n)) : "elastic-slurm-agent";
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  std::string squeue = "squeue";
  std::string srun = "srun";
  std::size_t i = 0;
  if (!args.empty() && (args[0] == "-h" || args[0] == "--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (!args.empty() && args[0] == "--in-step") {
    if (args.size() < 2) {
      std::cerr << "elastic-slurm-agent: --in-step needs a COMMAND\n" << kUsage;
      return 2;
    }
    in_step(absl::StrJoin(args.begin() + 1, args.end(), " "));
  }
  // Our options, then ssh's (PRRTE may pass some, e.g. -x), then HOST.
  for (; i < args.size() && args[i].starts_with("-"); ++i) {
    if (args[i].starts_with("--squeue=")) squeue = args[i].substr(9);
    if (args[i].starts_with("--srun=")) srun = args[i].substr(7);
  }
  if (args.size() < i + 2) {
    std::cerr << "elastic-slurm-agent: expected HOST COMMAND...\n" << kUsage;
    return 2;
  }
  const std::string host = args[i];
  const std::string command =
      absl::StrJoin(args.begin() + static_cast<long>(i) + 1, args.end(), " ");
  const std::string name = std::string(elastic::rt::kHolderJobPrefix) + host;
  absl::StatusOr<std::string> ids =
      elastic::rt::run_capture(squeue + " -h -t RUNNING -w " + elastic::rt::shell_quote(host) +
                               " -n " + elastic::rt::shell_quote(name) + " -o %i");
  if (!ids.ok()) {
    std::cerr << "elastic-slurm-agent: " << ids.status().message() << "\n";
    return 3;
  }
  const std::string job = ids->substr(0, ids->find_first_of(" \n"));
  if (job.empty()) {
    std::cerr << "elastic-slurm-agent: no running holder job \"" << name << "\" holds " << host
              << " (is `elastic feed slurm` running, and is " << host << " in its hostfile?)\n";
    return 3;
  }
  exec_or_die({srun, "--jobid=" + job, "--overlap", "-N1", "-n1", "-w", host, "--quiet",
               self_path(), "--in-step", command});
}
