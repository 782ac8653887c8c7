// How long a thread has been blocked in libelastic's collectives, for a watchdog that must tell a
// rank stuck in its own code from one that waits for a stuck peer (the run loop's stall_timeout,
// elastic/worker/run.h). The collectives' waits (bounded_wait.h, the NCCL backend's poll) count
// on the meter of the thread that waits, if it has one; everything else the thread does is its
// own time. LOCAL; a meter is read from other threads.
#pragma once

#include <chrono>
#include <mutex>

namespace elastic::coll {

class WaitMeter {
 public:
  using Clock = std::chrono::steady_clock;

  // The total time waited by the metered thread up to `now`, the wait in progress included.
  Clock::duration waited(Clock::time_point now) const;

 private:
  friend class MeteredWait;
  mutable std::mutex mu_;
  Clock::duration done_{};     // waits that ended
  Clock::time_point since_{};  // start of the wait in progress
  int depth_ = 0;              // nested waits count once
};

// The calling thread's meter (nullptr: none, the default); the meter must outlive the setting.
void set_thread_wait_meter(WaitMeter* meter);

// RAII: the calling thread waits for its peers between construction and destruction.
class MeteredWait {
 public:
  MeteredWait();
  ~MeteredWait();
  MeteredWait(const MeteredWait&) = delete;
  MeteredWait& operator=(const MeteredWait&) = delete;

 private:
  WaitMeter* meter_;
};

}  // namespace elastic::coll
