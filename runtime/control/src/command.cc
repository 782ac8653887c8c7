#include "elastic/control/command.h"

#include <sys/wait.h>

#include <cstdio>

#include "fmt/format.h"

namespace elastic::rt {

absl::StatusOr<std::string> run_capture(std::string_view command) {
  std::FILE* p = ::popen(std::string(command).c_str(), "r");
  if (p == nullptr) return absl::InternalError(fmt::format("cannot run {}", command));
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof(buf), p)) > 0;) out.append(buf, n);
  const int rc = ::pclose(p);
  if (rc == -1) return absl::InternalError(fmt::format("'{}': pclose failed", command));
  if (WIFSIGNALED(rc)) {
    return absl::UnavailableError(fmt::format("'{}' killed by signal {}", command, WTERMSIG(rc)));
  }
  if (WEXITSTATUS(rc) != 0) {
    return absl::UnavailableError(
        fmt::format("'{}' exited with status {}", command, WEXITSTATUS(rc)));
  }
  return out;
}

std::string shell_quote(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace elastic::rt
