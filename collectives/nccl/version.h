// The ONE place that knows which elastic verbs the NCCL we compile against has (nccl.h:
// ncclCommShrink from 2.27.3, ncclCommRevoke from 2.28.7, ncclCommGrow from 2.29.2). The rest of
// the backend calls these wrappers and never tests NCCL_VERSION_CODE itself.
#pragma once

#include <nccl.h>

namespace elastic::coll::nccl {

inline constexpr bool kHasCommShrink = NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 3);
inline constexpr bool kHasCommRevoke = NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 7);
inline constexpr bool kHasCommGrow = NCCL_VERSION_CODE >= NCCL_VERSION(2, 29, 2);

// Stops in-flight operations on `comm` (local). Returns false where this NCCL has no revoke; the
// caller then relies on ncclCommAbort alone.
inline bool revoke(ncclComm_t comm) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 7)
  return ncclCommRevoke(comm, NCCL_REVOKE_DEFAULT) == ncclSuccess;
#else
  (void)comm;
  return false;
#endif
}

// Builds `*out` from `comm` without the ranks in `exclude` (collective over the survivors,
// non-blocking with `config`). ncclInvalidUsage where this NCCL has no shrink: rebuild instead.
inline ncclResult_t shrink(ncclComm_t comm, int* exclude, int n_exclude, ncclComm_t* out,
                           ncclConfig_t* config) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 3)
  return ncclCommShrink(comm, exclude, n_exclude, out, config, NCCL_SHRINK_ABORT);
#else
  (void)comm, (void)exclude, (void)n_exclude, (void)out, (void)config;
  return ncclInvalidUsage;
#endif
}

}  // namespace elastic::coll::nccl
