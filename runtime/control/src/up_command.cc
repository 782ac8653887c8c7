#include "elastic/control/up_command.h"

#include <string>

#include "fmt/format.h"

namespace elastic::rt {

std::vector<std::string> compose_up_command(const UpOptions& o) {
  std::vector<std::string> argv = {o.mpirun.string(), "--with-ft", "ulfm", "-n", "1",
                                   "--bind-to",       "none"};
  if (!o.fake_nodes) {
    argv.insert(argv.end(), {"--prtemca", "rml_base_radix", std::to_string(kFlatRoutingRadix)});
  }
  if (!o.fake_nodes && !o.launch_agent.empty()) {
    argv.insert(argv.end(), {"--prtemca", "plm_ssh_agent", o.launch_agent.string()});
  }
  if (!o.fake_nodes && o.slurm_steps) argv.push_back("--leave-session-attached");
  argv.insert(argv.end(), o.mpirun_args.begin(), o.mpirun_args.end());
  argv.insert(argv.end(), {o.elasticd.string(), "--hostfile", o.hostfile.string(), "--state-dir",
                           o.state_dir.string()});
  if (o.fake_nodes) argv.push_back("--fake-nodes");
  if (!o.fake_nodes && o.slurm_steps) argv.push_back("--ranks-ignore-sigterm");
  argv.insert(argv.end(), o.elasticd_args.begin(), o.elasticd_args.end());
  return argv;
}

std::string shell_join(const std::vector<std::string>& argv) {
  std::string out;
  for (const std::string& a : argv) {
    if (!out.empty()) out += ' ';
    const bool plain = !a.empty() && a.find_first_not_of(
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                         "0123456789_-./=:,+@%") == std::string::npos;
    if (plain) {
      out += a;
      continue;
    }
    out += '\'';
    for (char c : a) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  return out;
}

std::vector<HostEntry> fake_nodes(int n, int slots) {
  std::vector<HostEntry> out;
  const int width = std::max<int>(2, static_cast<int>(std::to_string(n).size()));
  for (int i = 1; i <= n; ++i) {
    std::string num = std::to_string(i);
    num.insert(0, static_cast<std::size_t>(width) - num.size(), '0');
    out.push_back({"node" + num, slots, std::nullopt});
  }
  return out;
}

}  // namespace elastic::rt
