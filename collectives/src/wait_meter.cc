#include "elastic/collectives/wait_meter.h"

namespace elastic::coll {
namespace {

thread_local WaitMeter* thread_meter = nullptr;

}  // namespace

WaitMeter::Clock::duration WaitMeter::waited(Clock::time_point now) const {
  const std::lock_guard lock(mu_);
  return depth_ > 0 ? done_ + (now - since_) : done_;
}

void set_thread_wait_meter(WaitMeter* meter) { thread_meter = meter; }

MeteredWait::MeteredWait() : meter_(thread_meter) {
  if (meter_ == nullptr) return;
  const std::lock_guard lock(meter_->mu_);
  if (meter_->depth_++ == 0) meter_->since_ = WaitMeter::Clock::now();
}

MeteredWait::~MeteredWait() {
  if (meter_ == nullptr) return;
  const std::lock_guard lock(meter_->mu_);
  if (--meter_->depth_ == 0) meter_->done_ += WaitMeter::Clock::now() - meter_->since_;
}

}  // namespace elastic::coll
