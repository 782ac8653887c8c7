// How long this process has been blocked in libelastic's collectives, for a watchdog that must
// tell a rank stuck in its own code from one that waits for a stuck peer (the run loop's
// stall_timeout, elastic/worker/run.h). The collectives' waits (bounded_wait.h, the NCCL backend's
// poll) count while metering is on, whichever thread waits: LibTorch runs a CUDA backward's hooks,
// and so a GradientReducer's allreduces, on its own threads while the training thread waits in
// backward(). Time in which no thread waits there is the process's own. LOCAL.
#pragma once

#include <atomic>
#include <chrono>
#include <mutex>

namespace elastic::coll {

class WaitMeter {
 public:
  using Clock = std::chrono::steady_clock;

  // The time up to `now` in which some thread waited while metering was on, the waits in
  // progress included.
  Clock::duration waited(Clock::time_point now) const;
  // Metering is on from on() to its off() (calls nest); off, a wait costs one atomic load.
  void on() { users_.fetch_add(1); }
  void off() { users_.fetch_sub(1); }

 private:
  friend class MeteredWait;
  std::atomic<int> users_{0};
  mutable std::mutex mu_;
  Clock::duration done_{};     // waits that ended
  Clock::time_point since_{};  // start of the waits in progress
  int depth_ = 0;              // waits in progress: overlapping ones count once
};

// The process's meter; it lives as long as the process.
WaitMeter& wait_meter();

// RAII: the calling thread waits for its peers between construction and destruction.
class MeteredWait {
 public:
  MeteredWait();
  ~MeteredWait();
  MeteredWait(const MeteredWait&) = delete;
  MeteredWait& operator=(const MeteredWait&) = delete;

 private:
  WaitMeter* meter_;  // null: metering was off when the wait began
};

}  // namespace elastic::coll
