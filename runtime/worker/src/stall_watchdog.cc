#include "elastic/worker/internal/stall_watchdog.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace elastic::rt {

StallWatchdog::StallWatchdog(std::chrono::milliseconds limit) : limit_(limit) {
  if (limit_.count() <= 0) return;
  coll::wait_meter().on();
  thread_ = std::thread([this] { loop(); });
}

StallWatchdog::~StallWatchdog() {
  if (!thread_.joinable()) return;
  coll::wait_meter().off();
  {
    const std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

StallWatchdog::Watch StallWatchdog::watch(const char* what, int rank, std::int64_t step) {
  if (!thread_.joinable()) return Watch(nullptr);
  const Clock::time_point now = Clock::now();
  {
    const std::lock_guard lock(mu_);
    active_ = true;
    started_ = now;
    waited_at_start_ = coll::wait_meter().waited(now);
    what_ = what;
    rank_ = rank;
    step_ = step;
  }
  cv_.notify_one();
  return Watch(this);
}

StallWatchdog::Watch::~Watch() {
  if (dog_ == nullptr) return;
  const std::lock_guard lock(dog_->mu_);
  dog_->active_ = false;
}

void StallWatchdog::loop() {
  // Own time grows at most as fast as the clock: nothing can trip before `limit - own` from now.
  // While the thread waits in a collective own time stands still; the floor keeps those checks
  // few (a trip comes at most limit/20 late).
  const Clock::duration floor =
      std::max<Clock::duration>(limit_ / 20, std::chrono::milliseconds(1));
  std::unique_lock lock(mu_);
  while (!stop_) {
    if (!active_) {
      cv_.wait(lock);
      continue;
    }
    const Clock::time_point now = Clock::now();
    const Clock::duration own =
        (now - started_) - (coll::wait_meter().waited(now) - waited_at_start_);
    if (own >= limit_) kill(own);
    cv_.wait_for(lock, std::max(limit_ - own, floor));
  }
}

void StallWatchdog::kill(Clock::duration own) {
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  // write(2), not stdio: the stuck thread may hold stderr's lock (a write blocked on a full pipe).
  char line[512];
  const int n = std::snprintf(
      line, sizeof line,
      "elastic::run: rank %d is stuck in its %s (step %lld): %.1f s in its own code, "
      "past RunOptions::stall_timeout (%.1f s; waits in libelastic's collectives do not "
      "count). Killing this process (pid %d on %s) so that the other ranks repair "
      "without it.\n",
      rank_, what_, static_cast<long long>(step_), std::chrono::duration<double>(own).count(),
      std::chrono::duration<double>(limit_).count(), static_cast<int>(getpid()), host);
  if (n > 0)
    (void)!write(STDERR_FILENO, line,
                 std::min<std::size_t>(static_cast<std::size_t>(n), sizeof line - 1));
  raise(SIGKILL);
  _exit(137);  // not reached
}

}  // namespace elastic::rt
