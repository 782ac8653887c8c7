#include "elastic/collectives/wait_meter.h"

namespace elastic::coll {

WaitMeter::Clock::duration WaitMeter::waited(Clock::time_point now) const {
  const std::lock_guard lock(mu_);
  return depth_ > 0 ? done_ + (now - since_) : done_;
}

WaitMeter& wait_meter() {
  static WaitMeter* const meter = new WaitMeter;  // never destroyed: waits may end at exit
  return *meter;
}

MeteredWait::MeteredWait() : meter_(&wait_meter()) {
  if (meter_->users_.load(std::memory_order_relaxed) == 0) {
    meter_ = nullptr;
    return;
  }
  const std::lock_guard lock(meter_->mu_);
  if (meter_->depth_++ == 0) meter_->since_ = WaitMeter::Clock::now();
}

MeteredWait::~MeteredWait() {
  if (meter_ == nullptr) return;
  const std::lock_guard lock(meter_->mu_);
  if (--meter_->depth_ == 0) meter_->done_ += WaitMeter::Clock::now() - meter_->since_;
}

}  // namespace elastic::coll
