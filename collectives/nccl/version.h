// The ONE place that knows which elastic verbs the NCCL we compile against has (nccl.h:
// ncclCommShrink from 2.27.3, ncclCommRevoke from 2.28.7, ncclCommGrow from 2.29.2). The rest of
// the backend calls these wrappers and never tests NCCL_VERSION_CODE itself. A binary may load an
// older libnccl than the headers it was built against (e.g. the one a PyTorch install brings), so
// can_shrink() / can_revoke() also ask the library itself (ncclGetVersion).
//
// The backend revokes a communicator whose collective failed (so that it can still be shrunk) and
// builds the next membership's communicator with ncclCommShrink when the membership only lost
// ranks (coll::shrink_communicator); it re-initialises (ncclCommInitRankConfig) otherwise.
#pragma once

#include <nccl.h>

namespace elastic::coll::nccl {

inline constexpr bool kHasCommShrink = NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 3);
inline constexpr bool kHasCommRevoke = NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 7);
inline constexpr bool kHasCommGrow = NCCL_VERSION_CODE >= NCCL_VERSION(2, 29, 2);

// The version of the libnccl loaded at run time (0 if it cannot say).
inline int runtime_version() {
  int v = 0;
  return ncclGetVersion(&v) == ncclSuccess ? v : 0;
}
inline bool can_shrink() { return kHasCommShrink && runtime_version() >= NCCL_VERSION(2, 27, 3); }
inline bool can_revoke() { return kHasCommRevoke && runtime_version() >= NCCL_VERSION(2, 28, 7); }

// Stops in-flight operations on `comm` (local) and keeps the communicator for ncclCommShrink /
// ncclCommSplit / ncclCommDestroy. Returns false where this NCCL has no revoke. Per nccl.h (2.28)
// the state is ncclInProgress until the communicator is quiescent: on a non-blocking communicator
// poll ncclCommGetAsyncError until it leaves ncclInProgress before any of those calls. Do NOT call
// it just before ncclCommAbort: abort stops in-flight work by itself, and revoke's asynchronous
// cleanup (which clears the abort flags when it ends) would then race with the abort.
// ncclCommFinalize after revoke is invalid.
inline bool revoke(ncclComm_t comm) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 28, 7)
  const ncclResult_t rc = ncclCommRevoke(comm, NCCL_REVOKE_DEFAULT);
  return rc == ncclSuccess || rc == ncclInProgress;
#else
  (void)comm;
  return false;
#endif
}

// Builds `*out` from `comm` without the ranks in `exclude` (collective over the survivors,
// non-blocking with `config`). `abort_ongoing`: NCCL_SHRINK_ABORT, which first terminates the
// parent's operations still in flight (a peer died in one); not for a revoked parent, whose
// operations revoke already stopped. ncclInvalidUsage where this NCCL has no shrink (check
// can_shrink() first): rebuild instead.
inline ncclResult_t shrink(ncclComm_t comm, int* exclude, int n_exclude, ncclComm_t* out,
                           ncclConfig_t* config, bool abort_ongoing) {
#if NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 3)
  return ncclCommShrink(comm, exclude, n_exclude, out, config,
                        abort_ongoing ? NCCL_SHRINK_ABORT : NCCL_SHRINK_DEFAULT);
#else
  (void)comm, (void)exclude, (void)n_exclude, (void)out, (void)config, (void)abort_ongoing;
  return ncclInvalidUsage;
#endif
}

}  // namespace elastic::coll::nccl
