// The stuck-rank watchdog (elastic/worker/internal/stall_watchdog.h), one process, no MPI: each
// case runs in a child process (a death test), which the watchdog kills with SIGKILL or leaves to
// exit 0. The limits are a second and more and the healthy calls stay far below them, so a loaded
// machine cannot turn a pass into a kill.
#include "elastic/worker/internal/stall_watchdog.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "elastic/collectives/wait_meter.h"

namespace elastic::rt {
namespace {

using std::chrono::milliseconds;
using ::testing::ExitedWithCode;
using ::testing::KilledBySignal;

void busy(milliseconds d) { std::this_thread::sleep_for(d); }  // the thread's own work

void in_collective(milliseconds d) {
  const coll::MeteredWait wait;
  std::this_thread::sleep_for(d);
}

class StallWatchdogTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(StallWatchdogTest, KillsACallStuckInItsOwnCode) {
  EXPECT_EXIT(
      {
        StallWatchdog dog(milliseconds(1000));
        const StallWatchdog::Watch watch = dog.watch("step", 3, 41);
        for (int i = 0; i < 100; ++i) busy(milliseconds(100));  // 10 s, then a failure
        std::_Exit(0);
      },
      KilledBySignal(SIGKILL),
      "rank 3 is stuck in its step \\(step 41\\): 1\\.[0-9] s in its own code, past "
      "RunOptions::stall_timeout \\(1\\.0 s");
}

TEST_F(StallWatchdogTest, WaitsInCollectivesDoNotCount) {
  EXPECT_EXIT(
      {
        StallWatchdog dog(milliseconds(1000));
        {
          const StallWatchdog::Watch watch = dog.watch("step", 0, 7);
          in_collective(milliseconds(3000));  // a peer is slow: three times the limit
        }
        std::_Exit(0);
      },
      ExitedWithCode(0), "");
}

TEST_F(StallWatchdogTest, EachCallHasItsOwnBound) {
  EXPECT_EXIT(
      {
        StallWatchdog dog(milliseconds(1000));
        for (int step = 0; step < 10; ++step) {  // 2 s of own work over ten calls
          const StallWatchdog::Watch watch = dog.watch("step", 0, step);
          busy(milliseconds(200));
        }
        std::_Exit(0);
      },
      ExitedWithCode(0), "");
}

// Own time before and after a wait adds up: the kill comes in the second part, not in the wait.
TEST_F(StallWatchdogTest, OwnTimeAroundAWaitAddsUp) {
  EXPECT_EXIT(
      {
        StallWatchdog dog(milliseconds(1000));
        const StallWatchdog::Watch watch = dog.watch("on_epoch_end", 1, 99);
        busy(milliseconds(600));
        in_collective(milliseconds(1500));
        std::fprintf(stderr, "after the wait\n");
        for (int i = 0; i < 100; ++i) busy(milliseconds(100));  // 10 s, then a failure
        std::_Exit(0);
      },
      KilledBySignal(SIGKILL),
      "after the wait\n.*rank 1 is stuck in its on_epoch_end \\(step 99\\)");
}

TEST_F(StallWatchdogTest, ZeroIsOff) {
  EXPECT_EXIT(
      {
        StallWatchdog dog(milliseconds(0));
        {
          const StallWatchdog::Watch watch = dog.watch("step", 0, 0);
          busy(milliseconds(300));
        }
        std::_Exit(0);
      },
      ExitedWithCode(0), "");
}

}  // namespace
}  // namespace elastic::rt
