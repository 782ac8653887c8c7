#include "mpi/communicator.h"

#include <mpi-ext.h>

#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/mpi_check.h"
#include "elastic/collectives/spread_plan.h"
#include "mpi/allreduce_ordered.h"
#include "mpi/reduce_ops.h"

namespace elastic::coll::mpi {
namespace {
// Large payloads (a model snapshot) may exceed INT_MAX bytes: they travel in 1 GiB chunks.
constexpr std::size_t kChunk = std::size_t{1} << 30;
// spread()'s messages; allreduce_ordered's use tags 1 and 2 on the same private communicator.
constexpr int kTagSpread = 3;
}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> MpiCommunicator::create(MPI_Comm comm,
                                                                      CreateOptions opts) {
  absl::StatusOr<Comm> dup_comm = dup(comm, Clock::now() + opts.timeout);
  if (!dup_comm.ok()) return dup_comm.status();
  return adopt(*std::move(dup_comm));
}

std::unique_ptr<Communicator> MpiCommunicator::adopt(Comm own) {
  MPI_Comm_set_errhandler(own.get(), MPI_ERRORS_RETURN);
  const int rank = own.rank();
  const int size = own.size();
  return std::unique_ptr<Communicator>(new MpiCommunicator(std::move(own), rank, size));
}

MpiCommunicator::MpiCommunicator(Comm comm, int rank, int size)
    : comm_(std::move(comm)), rank_(rank), size_(size) {}

void MpiCommunicator::abort(std::string_view why) {
  if (sticky_.ok())
    sticky_ = absl::AbortedError(absl::StrCat("communicator aborted: ", std::string(why)));
  if (comm_.get() != MPI_COMM_NULL) MPIX_Comm_revoke(comm_.get());
}

absl::Status MpiCommunicator::posted(absl::Status st) {
  // Any failed collective leaves the communicator unusable. Stock Open MPI 5.0.7's libnbc can
  // report a revoke as MPI_ERR_OTHER rather than MPIX_ERR_REVOKED (our build's patch 0026 fixes
  // that; an MPI given by MPI_HOME may lack it): ask ULFM.
  int revoked = 0;
  if (!absl::IsAborted(st) && MPIX_Comm_is_revoked(comm_.get(), &revoked) == MPI_SUCCESS &&
      revoked != 0) {
    st = absl::AbortedError(
        absl::StrCat("communicator revoked by a peer: ", std::string(st.message())));
  }
  abort(std::string(st.message()));
  return st;
}

absl::Status MpiCommunicator::finish(MPI_Request& req, Clock::time_point deadline,
                                     const char* what) {
  absl::Status st = wait(req, deadline, what);
  if (st.ok()) return st;
  // Revoke so that peers blocked in the same collective return too; then the error is sticky.
  st = posted(std::move(st));
  drain(req);
  return st;
}

absl::Status MpiCommunicator::confirm(const char* what) {
  // Eager messages can complete our side of a collective from data that peers sent before they
  // gave up on it and revoked the communicator. Then the call is void on every rank, here too:
  // drive progress once (the revoke notice arrives through it) and ask ULFM.
  int flag = 0;
  int revoked = 0;
  const int rc = MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_.get(), &flag, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) return posted(mpi_status(rc, what, __FILE__, __LINE__));
  if (MPIX_Comm_is_revoked(comm_.get(), &revoked) == MPI_SUCCESS && revoked != 0) {
    return posted(absl::AbortedError(absl::StrCat(what, ": communicator revoked by a peer")));
  }
  return absl::OkStatus();
}

absl::Status MpiCommunicator::allreduce(Tensor t, ReduceOp op, CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  if (t.count > static_cast<std::size_t>(INT32_MAX)) {
    return absl::InvalidArgumentError(
        absl::StrCat("allreduce of ", t.count, " elements: more than INT_MAX"));
  }
  if (t.data == nullptr && t.count != 0) return absl::InvalidArgumentError("allreduce: null data");
  absl::Status st =
      allreduce_ordered(comm_.get(), rank_, size_, t, Clock::now() + opts.timeout, ordered_);
  if (!st.ok()) {
    st = posted(std::move(st));
    drain(std::span(ordered_.requests));
    return st;
  }
  if (st = confirm("allreduce"); !st.ok()) return st;
  if (op == ReduceOp::kAverage && size_ > 1) scale_down(t.data, t.count, t.dtype, size_);
  return absl::OkStatus();
}

absl::Status MpiCommunicator::broadcast(void* data, std::size_t bytes, int root, CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  if (root < 0 || root >= size_) {
    return absl::InvalidArgumentError(
        absl::StrCat("broadcast root ", root, " not in [0, ", size_, ")"));
  }
  // One deadline for the whole call, not one per chunk (8 GiB is 8 chunks).
  const Clock::time_point deadline = Clock::now() + opts.timeout;
  auto* p = static_cast<std::byte*>(data);
  std::size_t off = 0;
  do {
    const std::size_t n = std::min(kChunk, bytes - off);
    MPI_Request req = MPI_REQUEST_NULL;
    const int rc = MPI_Ibcast(p + off, static_cast<int>(n), MPI_BYTE, root, comm_.get(), &req);
    if (rc != MPI_SUCCESS) return posted(mpi_status(rc, "MPI_Ibcast", __FILE__, __LINE__));
    if (absl::Status st = finish(req, deadline, "MPI_Ibcast"); !st.ok()) return st;
    off += n;
  } while (off < bytes);
  return confirm("broadcast");
}

absl::Status MpiCommunicator::spread(void* data, std::size_t bytes,
                                     std::span<const std::uint8_t> holds, CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  absl::StatusOr<std::vector<std::vector<Transfer>>> plan = spread_plan(holds, size_);
  if (!plan.ok()) return plan.status();
  if (data == nullptr && bytes != 0) return absl::InvalidArgumentError("spread: null data");
  const Clock::time_point deadline = Clock::now() + opts.timeout;
  auto* p = static_cast<std::byte*>(data);
  std::vector<MPI_Request> reqs;
  for (const std::vector<Transfer>& round : *plan) {
    const std::optional<Transfer> mine = transfer_of(round, rank_);
    if (!mine) continue;
    reqs.clear();
    for (std::size_t off = 0; off < bytes; off += kChunk) {
      const int n = static_cast<int>(std::min(kChunk, bytes - off));
      MPI_Request req = MPI_REQUEST_NULL;
      const int rc =
          mine->to == rank_
              ? MPI_Irecv(p + off, n, MPI_BYTE, mine->from, kTagSpread, comm_.get(), &req)
              : MPI_Isend(p + off, n, MPI_BYTE, mine->to, kTagSpread, comm_.get(), &req);
      if (rc != MPI_SUCCESS) {
        absl::Status st = posted(mpi_status(rc, "MPI_Isend/Irecv(spread)", __FILE__, __LINE__));
        drain(std::span(reqs));
        return st;
      }
      reqs.push_back(req);
    }
    if (absl::Status st = wait_all(std::span(reqs), deadline, "spread"); !st.ok()) {
      st = posted(std::move(st));
      drain(std::span(reqs));
      return st;
    }
  }
  return confirm("spread");
}

absl::Status MpiCommunicator::barrier(CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  MPI_Request req = MPI_REQUEST_NULL;
  const int rc = MPI_Ibarrier(comm_.get(), &req);
  if (rc != MPI_SUCCESS) return posted(mpi_status(rc, "MPI_Ibarrier", __FILE__, __LINE__));
  return finish(req, Clock::now() + opts.timeout, "MPI_Ibarrier");
}

absl::StatusOr<std::span<std::byte>> MpiCommunicator::scratch(std::size_t bytes) {
  if (scratch_.size() < bytes) scratch_.resize(bytes);
  return std::span<std::byte>(scratch_.data(), bytes);
}

absl::Status MpiCommunicator::copy(void* dst, const void* src, std::size_t bytes,
                                   const CallOptions& /*opts*/) {
  if (bytes != 0) std::memcpy(dst, src, bytes);
  return absl::OkStatus();
}

}  // namespace elastic::coll::mpi
