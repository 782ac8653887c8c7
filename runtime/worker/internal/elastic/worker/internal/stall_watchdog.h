// The run loop's stall_timeout (run.h, RunOptions): kills this process with SIGKILL when one call
// of the user's code (the step, on_epoch_end, on_reset) has spent longer than the limit in its own
// work. Its waits in libelastic's collectives do not count (coll::WaitMeter): a rank that waits
// there for a stuck peer is not stuck itself, and those waits have their own timeouts. A rank stuck
// in its own code (a deadlock, a hung device behind a host synchronisation) otherwise holds its
// job for ever: the others wait for it in a collective or at the step boundary, and the ULFM
// repair needs every live rank. Killed, it is a failed process like any other, and the survivors
// repair without it. LOCAL; one thread, started only when the limit is positive.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "elastic/collectives/wait_meter.h"

namespace elastic::rt {

class StallWatchdog {
 public:
  // `limit` 0: off. Turns the process's wait metering on for the watchdog's lifetime.
  explicit StallWatchdog(std::chrono::milliseconds limit);
  ~StallWatchdog();
  StallWatchdog(const StallWatchdog&) = delete;
  StallWatchdog& operator=(const StallWatchdog&) = delete;

  // RAII: the user's code runs from watch() to the Watch's destruction. Watches do not nest.
  class [[nodiscard]] Watch {
   public:
    ~Watch();
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;

   private:
    friend class StallWatchdog;
    explicit Watch(StallWatchdog* dog) : dog_(dog) {}
    StallWatchdog* dog_;
  };
  // `what` (a literal) and `step` name the call in the message, `rank` the process.
  Watch watch(const char* what, int rank, std::int64_t step);

 private:
  using Clock = coll::WaitMeter::Clock;
  void loop();
  [[noreturn]] void kill(Clock::duration own);

  const std::chrono::milliseconds limit_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool active_ = false;
  Clock::time_point started_;
  Clock::duration waited_at_start_{};
  const char* what_ = "";
  int rank_ = 0;
  std::int64_t step_ = 0;
  std::thread thread_;  // last: starts once the members above are ready
};

}  // namespace elastic::rt
