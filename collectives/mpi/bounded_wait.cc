// The bounded wait (elastic/collectives/bounded_wait.h).
#include "elastic/collectives/bounded_wait.h"

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/mpi_check.h"
#include "elastic/collectives/wait_meter.h"

namespace elastic::coll {
namespace {

// Open MPI's own answer to "are there more ranks than cores here?" (mpi_yield_when_idle turns on
// by itself when mpirun oversubscribes), read once through MPI_T. Only then does a spinning rank
// yield: on a core of its own a yield hands the core to unrelated processes for a time slice
// (measured at 2 ranks with a loaded machine: 0.6-0.9x of MPI_Allreduce with yields at 1-16 MiB,
// 0.7-1.26x without).
bool yield_when_idle() {
  static const bool yield = [] {
    int provided = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return true;
    bool on = true;  // unknown (another MPI): behave as if oversubscribed
    int index = -1;
    MPI_T_cvar_handle handle = MPI_T_CVAR_HANDLE_NULL;
    int count = 0;
    if (MPI_T_cvar_get_index("mpi_yield_when_idle", &index) == MPI_SUCCESS &&
        MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) == MPI_SUCCESS) {
      unsigned char value[16] = {};  // a C bool: zeroed storage wide enough for any scalar
      if (MPI_T_cvar_read(handle, value) == MPI_SUCCESS) on = value[0] != 0;
      MPI_T_cvar_handle_free(&handle);
    }
    MPI_T_finalize();
    return on;
  }();
  return yield;
}

// One test of every request: the MPI error of the first that failed, else MPI_SUCCESS.
int test_all(std::span<MPI_Request> reqs, std::vector<MPI_Status>& statuses, int& done) {
  if (reqs.size() == 1) {
    // An error shows in the return code (the request is then freed) or only in the status.
    statuses[0].MPI_ERROR = MPI_SUCCESS;
    const int rc = MPI_Test(reqs.data(), &done, statuses.data());
    return rc != MPI_SUCCESS || done == 0 ? rc : statuses[0].MPI_ERROR;
  }
  // MPI_Testall reports a failed request as MPI_ERR_IN_STATUS; its status has the real code
  // (MPIX_ERR_PROC_FAILED, ...), which decides between Aborted and Internal.
  const int rc = MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), &done, statuses.data());
  if (rc != MPI_ERR_IN_STATUS) return rc;
  for (const MPI_Status& st : statuses) {
    if (st.MPI_ERROR != MPI_SUCCESS && st.MPI_ERROR != MPI_ERR_PENDING) return st.MPI_ERROR;
  }
  return rc;
}

}  // namespace

absl::Status wait_all(std::span<MPI_Request> reqs, Clock::time_point deadline, const char* what,
                      const WaitPace& pace) {
  const MeteredWait metered;
  const auto spin_until = Clock::now() + pace.spin;
  std::vector<MPI_Status> statuses(reqs.size());
  for (unsigned tests = 1;; ++tests) {
    int done = 0;
    if (const int rc = test_all(reqs, statuses, done); rc != MPI_SUCCESS) {
      return mpi_status(rc, what, __FILE__, __LINE__);
    }
    if (done != 0) return absl::OkStatus();
    if (tests % pace.batch != 0) continue;
    const auto now = Clock::now();
    if (now >= deadline) return absl::DeadlineExceededError(absl::StrCat(what, ": timed out"));
    if (now < spin_until) {
      if (yield_when_idle()) std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(pace.sleep);
    }
  }
}

absl::StatusOr<bool> test(MPI_Request& req, const char* what) {
  std::vector<MPI_Status> statuses(1);
  int done = 0;
  if (const int rc = test_all(std::span(&req, 1), statuses, done); rc != MPI_SUCCESS) {
    return mpi_status(rc, what, __FILE__, __LINE__);
  }
  return done != 0;
}

absl::Status wait(MPI_Request& req, Clock::time_point deadline, const char* what,
                  const WaitPace& pace) {
  return wait_all(std::span(&req, 1), deadline, what, pace);
}

void drain(std::span<MPI_Request> reqs) {
  const auto until = Clock::now() + std::chrono::milliseconds(500);
  for (MPI_Request& req : reqs) {
    while (req != MPI_REQUEST_NULL && Clock::now() < until) {
      int done = 0;
      if (MPI_Test(&req, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS || done != 0) break;
      std::this_thread::yield();
    }
    req = MPI_REQUEST_NULL;
  }
}

void drain(MPI_Request& req) { drain(std::span(&req, 1)); }

}  // namespace elastic::coll
