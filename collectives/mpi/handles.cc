#include "mpi/handles.h"

#include <mpi-ext.h>

#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/mpi_check.h"

namespace elastic::coll::mpi {
namespace {

// Open MPI's own answer to "are there more ranks than cores here?" (mpi_yield_when_idle turns on
// by itself when mpirun oversubscribes), read once through MPI_T. Only then does a waiting rank
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

// Open MPI 5.0.7 reports a peer that dies during MPI_Comm_idup's context-id agreement as
// MPI_ERR_INTERN from the call itself (libnbc aborts the schedule with MPIX_ERR_PROC_FAILED and
// the code is lost: seen on the cluster in a box when the host the job had just grown onto was
// killed, tests/runtime/daemon/fmnist.sh churn_kill). When `comm` knows of a failed process, the
// error is that failure: Aborted, after a revoke so that every peer leaves the dup too.
absl::Status failure_aware(MPI_Comm comm, absl::Status st) {
  if (!absl::IsInternal(st)) return st;
  const int n = failed_processes(comm);
  if (n == 0) return st;
  MPIX_Comm_revoke(comm);
  return absl::AbortedError(
      absl::StrCat(st.message(), " (", n, " process(es) of the communicator failed)"));
}

}  // namespace

void CommHandle::reset() {
  if (comm_ == MPI_COMM_NULL) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized == 0) MPI_Comm_free(&comm_);
  comm_ = MPI_COMM_NULL;
}

absl::Status wait_all(std::span<MPI_Request> reqs, Clock::time_point deadline, const char* what) {
  // libnbc and ob1 progress only inside MPI_Test*, so the first stretch spins on it (yielding now
  // and then when oversubscribed, so that the peer we wait for can run); a wait longer than
  // kSpinFor is waiting for a slow or missing peer, not for the network, and backs off to sleeps.
  constexpr auto kSpinFor = std::chrono::milliseconds(50);
  constexpr auto kBackoff = std::chrono::microseconds(50);
  const auto spin_until = Clock::now() + kSpinFor;
  const int n = static_cast<int>(reqs.size());
  // MPI_Testall reports a failed request as MPI_ERR_IN_STATUS; its status has the real code
  // (MPIX_ERR_PROC_FAILED, ...), which decides between Aborted and Internal.
  std::vector<MPI_Status> statuses(n > 1 ? reqs.size() : 0);
  for (unsigned spins = 0;; ++spins) {
    int done = 0;
    int rc = n == 1 ? MPI_Test(reqs.data(), &done, MPI_STATUS_IGNORE)
                    : MPI_Testall(n, reqs.data(), &done, statuses.data());
    if (rc == MPI_ERR_IN_STATUS) {
      for (const MPI_Status& st : statuses) {
        if (st.MPI_ERROR != MPI_SUCCESS && st.MPI_ERROR != MPI_ERR_PENDING) {
          rc = st.MPI_ERROR;
          break;
        }
      }
    }
    if (rc != MPI_SUCCESS) return mpi_status(rc, what, __FILE__, __LINE__);
    if (done != 0) return absl::OkStatus();
    if ((spins & 255u) != 255u) continue;
    const auto now = Clock::now();
    if (now >= deadline) return absl::DeadlineExceededError(absl::StrCat(what, ": timed out"));
    if (now < spin_until) {
      if (yield_when_idle()) std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(kBackoff);
    }
  }
}

absl::Status wait(MPI_Request& req, Clock::time_point deadline, const char* what) {
  return wait_all(std::span(&req, 1), deadline, what);
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

absl::StatusOr<CommHandle> dup(MPI_Comm comm, Clock::time_point deadline) {
  MPI_Comm out = MPI_COMM_NULL;
  MPI_Request req = MPI_REQUEST_NULL;
  absl::Status st =
      mpi_status(MPI_Comm_idup(comm, &out, &req), "MPI_Comm_idup", __FILE__, __LINE__);
  if (st.ok()) st = wait(req, deadline, "MPI_Comm_idup");
  if (!st.ok()) {
    if (absl::IsDeadlineExceeded(st)) {
      MPIX_Comm_revoke(comm);  // release peers stuck in the same dup
      drain(req);
    }
    return failure_aware(comm, std::move(st));
  }
  CommHandle h(out);
  ELASTIC_MPI_CHECK(MPI_Comm_set_errhandler(out, MPI_ERRORS_RETURN));
  return h;
}

}  // namespace elastic::coll::mpi
