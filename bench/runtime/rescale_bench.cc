// Rescale latency of the elastic protocol, measured by a controller that drives real jobs with
// elasticd's JobGroup verbs (run_bench.sh runs it as `mpirun --with-ft ulfm -n 1`; fake nodes as
// labels on this host). For each size N (ranks after a grow) and repetition, a job of
// rescale_trainer processes starts with N/2 ranks on node "a", then:
//   grow      grow({"b"}) (N/2 ranks spawned as one node)  -> first progress report at N ranks
//   shrink    shrink({"b"}) on notice                         -> first progress report at N/2 ranks
//   recovery  grow({"c"}), SIGKILL node c's ranks; from the controller's detection (the poll that
//             found the failure) -> first progress report at N/2 ranks; kill -> detection apart
// A progress report at size K is sent by the leader after a step boundary of the K-rank
// membership, i.e. once every rank finished its first step there (state sync included).
// A grow's spawns run while the job trains (protocol.h, "Grow"), so the time the job is held up
// is shorter: grow_stall / shrink_stall are the leader's own measure of it (rescale_trainer's
// "resize" line: end of its last step at the old size -> end of its first step at the new one).
// Prints one JSON line per measurement: {"n":N,"what":"grow","s":seconds}.
//   rescale_bench TRAINER [--sizes 2,4,8,16] [--reps 3] [--state-mb 4]
#include <dirent.h>
#include <mpi.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "elastic/daemon/job_group.h"

namespace {

using Clock = std::chrono::steady_clock;
using elastic::rt::JobGroup;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The pids of this host's processes whose environment has all of `needles` ("K=V" entries).
std::vector<int> pids_with_env(const std::vector<std::string>& needles) {
  std::vector<int> out;
  DIR* d = opendir("/proc");
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    const int pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    std::ifstream f(std::string("/proc/") + e->d_name + "/environ", std::ios::binary);
    std::string env((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    bool all = !env.empty();
    for (const std::string& n : needles) {
      all = all && (env.find(std::string(1, '\0') + n + '\0') != std::string::npos ||
                    env.rfind(n + '\0', 0) == 0);
    }
    if (all) out.push_back(pid);
  }
  closedir(d);
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

void emit(int n, const char* what, double s) {
  std::printf("{\"n\":%d,\"what\":\"%s\",\"s\":%.6f}\n", n, what, s);
  std::fflush(stdout);
}

bool one_round(const std::string& trainer, int n, int rep, double state_mb) {
  const int half = std::max(1, n / 2);
  elastic::rt::LaunchSpec spec;
  spec.job_id = "bench" + std::to_string(n) + "_" + std::to_string(rep);
  spec.command = trainer;
  spec.args = {"--state-mb", std::to_string(state_mb)};
  spec.ranks_per_node = half;
  spec.stdout_path = "/tmp/rescale_bench." + spec.job_id + ".stdout";
  std::filesystem::remove(spec.stdout_path);
  spec.stderr_path = "/tmp/rescale_bench." + spec.job_id + ".stderr";
  char host[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(host, &len);
  elastic::rt::Placement place{true, std::string(host, static_cast<std::size_t>(len))};
  JobGroup g(spec, place, std::chrono::seconds(60), std::chrono::seconds(60));
  if (absl::Status st = g.start({"a"}); !st.ok()) {
    std::fprintf(stderr, "rescale_bench: start: %s\n", std::string(st.message()).c_str());
    return false;
  }
  if (!wait_ranks(g, half, 120)) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  auto t0 = Clock::now();
  if (absl::Status st = g.grow({"b"}); !st.ok()) return false;
  if (!wait_ranks(g, n, 120)) return false;
  emit(n, "grow", since(t0));
  emit(n, "grow_stall", last_stall(spec.stdout_path, n));
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  t0 = Clock::now();
  if (absl::Status st = g.shrink({"b"}); !st.ok()) return false;
  if (!wait_ranks(g, half, 120)) return false;
  emit(n, "shrink", since(t0));
  emit(n, "shrink_stall", last_stall(spec.stdout_path, half));

  if (absl::Status st = g.grow({"c"}); !st.ok()) return false;
  if (!wait_ranks(g, n, 120)) return false;
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const std::vector<int> victims =
      pids_with_env({"ELASTIC_FAKE_NODE=c", "ELASTIC_JOB_ID=" + spec.job_id});
  if (static_cast<int>(victims.size()) != n - half) {
    std::fprintf(stderr, "rescale_bench: found %zu ranks on node c, expected %d\n", victims.size(),
                 n - half);
    return false;
  }
  const auto t_kill = Clock::now();
  for (int pid : victims) kill(pid, SIGKILL);
  Clock::time_point detected{};
  if (!wait_ranks(g, half, 120, &detected) || detected == Clock::time_point{}) return false;
  emit(n, "detect", std::chrono::duration<double>(detected - t_kill).count());
  emit(n, "recovery", since(detected));
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
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: rescale_bench TRAINER [--sizes 2,4,8,16] [--reps 3] [--state-mb 4]\n");
    MPI_Finalize();
    return 2;
  }
  const std::string trainer = argv[1];
  std::vector<int> sizes = {2, 4, 8, 16};
  int reps = 3;
  double state_mb = 4;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    if (k == "--reps") reps = std::atoi(argv[i + 1]);
    if (k == "--state-mb") state_mb = std::strtod(argv[i + 1], nullptr);
    if (k == "--sizes") {
      sizes.clear();
      for (const char* p = argv[i + 1]; *p != '\0';) {
        char* end = nullptr;
        sizes.push_back(static_cast<int>(std::strtol(p, &end, 10)));
        p = *end == ',' ? end + 1 : end;
      }
    }
  }
  int failures = 0;
  for (int n : sizes) {
    for (int rep = 0; rep < reps; ++rep) {
      if (!one_round(trainer, n, rep, state_mb)) {
        std::fprintf(stderr, "rescale_bench: round n=%d rep=%d failed\n", n, rep);
        ++failures;
      }
    }
  }
  std::fflush(stdout);
  alarm(10);
  MPI_Finalize();
  return failures == 0 ? 0 : 1;
}
