// How a Session repairs its communicators after a process failure (the ULFM repair itself is
// internal: elastic/worker/internal/repair.h).
#pragma once

#include <chrono>

namespace elastic::rt {

struct RepairOptions {
  int max_attempts = 5;
  // Bounds each agreement (MPIX_Comm_iagree + test loop). MPIX_Comm_shrink has no non-blocking
  // form in Open MPI 5.0.7; it completes once every survivor has entered it, which the agreement
  // before it checks within this bound (a live member that never joins => DeadlineExceeded).
  std::chrono::milliseconds agree_timeout{std::chrono::seconds(60)};
};

}  // namespace elastic::rt
