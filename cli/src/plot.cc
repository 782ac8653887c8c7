#include "elastic/cli/plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>
#include <fstream>

extern char** environ;

namespace elastic::cli {

std::string gnuplot_quoted(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string run_gnuplot(const std::filesystem::path& dir, const std::string& script) {
  const std::string path = (dir / "plots.gp").string();
  {
    std::ofstream out(path, std::ios::binary);
    out << "cd " << gnuplot_quoted(dir.string()) << "\n" << script;
    out.close();
    if (!out) return fmt::format("cannot write {}: plots not drawn", path);
  }
  const std::string log_path = (dir / "gnuplot.log").string();
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string prog = "gnuplot";
  std::vector<char*> argv{prog.data(), const_cast<char*>(path.c_str()), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "gnuplot", &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    return fmt::format("gnuplot not found ({}): plots not drawn; their data and script are in {}",
                       std::strerror(rc), dir.string());
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return fmt::format("gnuplot failed (see {}); the plot data is in {}", log_path, dir.string());
  }
  return "";
}

}  // namespace elastic::cli
