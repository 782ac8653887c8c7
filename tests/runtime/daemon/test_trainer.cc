// The small training program of the runtime tests: one allreduce per step whose result it checks
// (sum of rank+1 over the membership), progress via report(), and the elastic protocol at every
// step boundary. Prints one line per membership change so tests can follow generations; the first
// ("joined ... node N host H") names the node elasticd placed it on and the host it runs on.
//   test_trainer STEPS   env: ELASTIC_TEST_STEP_US (sleep per step, default 2000),
//                             ELASTIC_TEST_NO_SCALING=1 (the sleep is STEP_US times the size, so
//                             the job's samples/s do not grow with its node count),
//                             ELASTIC_TEST_KILL_RANK / ELASTIC_TEST_KILL_STEP (SIGKILL itself),
//                             ELASTIC_TEST_EXIT_AT_ONCE=N (a broken job: exit(N) right after init),
//                             ELASTIC_TEST_EXIT_BEFORE_INIT_ON=NODE (exit(1) before MPI_Init when
//                             ELASTIC_NODE is NODE: a command that never joins),
//                             ELASTIC_TEST_HOLD_BEFORE_INIT_ON=NODE, ELASTIC_TEST_HOLD_FILE=F
//                             (on NODE, wait before MPI_Init while F exists, at most 120 s: a
//                             spawn onto NODE stays in progress until the test removes F),
//                             ELASTIC_TEST_PRINT_KB=N (N KiB of numbered lines to stderr per step:
//                             a job whose output has no bound).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "elastic/worker/session.h"

namespace {

long env_long(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::strtol(v, nullptr, 10) : fallback;
}

}  // namespace

int main(int argc, char** argv) {
  using elastic::rt::Event;
  const long steps = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 200;
  const long step_us = env_long("ELASTIC_TEST_STEP_US", 2000);
  const bool no_scaling = env_long("ELASTIC_TEST_NO_SCALING", 0) != 0;
  const long print_kb = env_long("ELASTIC_TEST_PRINT_KB", 0);
  const long kill_rank = env_long("ELASTIC_TEST_KILL_RANK", -1);
  const long kill_step = env_long("ELASTIC_TEST_KILL_STEP", -1);
  const char* no_init_on = std::getenv("ELASTIC_TEST_EXIT_BEFORE_INIT_ON");
  // Finish at the next step boundary once this file exists (a test that needs the job to run for
  // as long as it takes, then finish): one rank seeing it stops them all (step_boundary sums done).
  const char* stop_file = std::getenv("ELASTIC_TEST_STOP_FILE");
  const char* node_env = std::getenv("ELASTIC_NODE");
  const std::string node = node_env != nullptr ? node_env : "-";
  if (no_init_on != nullptr && node == no_init_on) return 1;
  const char* hold_on = std::getenv("ELASTIC_TEST_HOLD_BEFORE_INIT_ON");
  const char* hold_file = std::getenv("ELASTIC_TEST_HOLD_FILE");
  if (hold_on != nullptr && hold_file != nullptr && node == hold_on) {
    for (int i = 0; i < 1200 && access(hold_file, F_OK) == 0; ++i) usleep(100000);
  }
  auto session = elastic::rt::Session::init(&argc, &argv);
  if (!session.ok()) {
    std::fprintf(stderr, "test_trainer: %s\n", std::string(session.status().message()).c_str());
    return 3;
  }
  elastic::rt::Session& s = **session;
  if (const long code = env_long("ELASTIC_TEST_EXIT_AT_ONCE", 0); code != 0) {
    std::fprintf(stderr, "test_trainer: exiting with %ld at once (as asked)\n", code);
    s.exit(static_cast<int>(code));
  }
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  std::printf("joined gen %d rank %d size %d node %s host %s\n", s.generation(), s.rank(), s.size(),
              node.c_str(), host);
  std::fflush(stdout);
  const int first_rank = s.rank();  // kill by the rank at start, so only one process dies
  long step = 0;
  for (;;) {
    if (step == kill_step && first_rank == kill_rank) raise(SIGKILL);
    double v = s.rank() + 1;
    const int n = s.size();
    absl::StatusOr<Event> ev = Event::kContinue;
    if (MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, s.comm()) != MPI_SUCCESS) {
      ev = s.recover();
    } else {
      if (v != n * (n + 1) / 2.0) {
        std::fprintf(stderr, "test_trainer: WRONG allreduce %g at size %d\n", v, n);
        s.exit(5);
      }
      s.report(1);
      for (long k = 0; k < print_kb * 16; ++k) {  // 64-byte lines
        std::fprintf(stderr, "print rank %d step %ld line %ld %*s\n", s.rank(), step, k, 20, "");
      }
      ++step;
      if (step_us > 0) usleep(static_cast<useconds_t>(step_us * (no_scaling ? n : 1)));
      ev = s.step_boundary(step >= steps || (stop_file != nullptr && access(stop_file, F_OK) == 0));
      if (!ev.ok() && absl::IsAborted(ev.status())) ev = s.recover();
    }
    if (!ev.ok()) {
      std::fprintf(stderr, "test_trainer: %s\n", std::string(ev.status().message()).c_str());
      s.exit(4);
    }
    switch (*ev) {
      case Event::kContinue:
        break;
      case Event::kChanged:
      case Event::kRecovered:
        std::printf("%s gen %d rank %d size %d step %ld overlap %lld\n",
                    *ev == Event::kRecovered ? "recovered" : "changed", s.generation(), s.rank(),
                    s.size(), step, static_cast<long long>(s.grow_overlap_steps()));
        std::fflush(stdout);
        break;
      case Event::kStop:
        std::printf("done rank %d size %d steps %ld samples %lld\n", s.rank(), s.size(), step,
                    static_cast<long long>(s.samples_total()));
        s.exit(0);
      case Event::kLeave:
        std::printf("left rank %d step %ld\n", s.rank(), step);
        s.exit(0);
    }
  }
}
