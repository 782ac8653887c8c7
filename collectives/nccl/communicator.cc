#include "nccl/communicator.h"

#include <mpi-ext.h>

#include <array>
#include <cstring>
#include <thread>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/mpi_check.h"
#include "nccl/check.h"
#include "nccl/version.h"

namespace elastic::coll::nccl {
namespace {

using mpi::Clock;

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::kFloat32: return ncclFloat32;
    case DataType::kFloat64: return ncclFloat64;
    case DataType::kBFloat16: return ncclBfloat16;
    case DataType::kFloat16: return ncclFloat16;
  }
  return ncclFloat32;
}

// Rank among the ranks of `comm` on the same host (for one-GPU-per-rank placement). Bounded:
// MPI_Comm_split_type has no timeout, so host names are exchanged with MPI_Iallgather instead.
absl::StatusOr<int> local_rank(MPI_Comm comm, int rank, int size, Clock::time_point deadline) {
  std::array<char, MPI_MAX_PROCESSOR_NAME> mine{};
  int len = 0;
  ELASTIC_MPI_CHECK(MPI_Get_processor_name(mine.data(), &len));
  std::vector<char> all(static_cast<std::size_t>(size) * mine.size());
  MPI_Request req = MPI_REQUEST_NULL;
  ELASTIC_MPI_CHECK(MPI_Iallgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                                   static_cast<int>(mine.size()), MPI_CHAR, comm, &req));
  if (absl::Status st = mpi::wait(req, deadline, "MPI_Iallgather(host names)"); !st.ok()) {
    MPIX_Comm_revoke(comm);
    mpi::drain(req);
    return st;
  }
  int local = 0;
  for (int r = 0; r < rank; ++r) {
    if (std::strncmp(all.data() + static_cast<std::size_t>(r) * mine.size(), mine.data(), mine.size()) == 0) {
      ++local;
    }
  }
  return local;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Communicator>> NcclCommunicator::create(MPI_Comm comm,
                                                                      CreateOptions opts) {
  const Clock::time_point deadline = Clock::now() + opts.timeout;
  absl::StatusOr<mpi::CommHandle> boot = mpi::dup(comm, deadline);
  if (!boot.ok()) return boot.status();
  std::unique_ptr<NcclCommunicator> self(new NcclCommunicator());
  self->bootstrap_ = std::move(*boot);
  MPI_Comm mc = self->bootstrap_.get();
  ELASTIC_MPI_CHECK(MPI_Comm_rank(mc, &self->rank_));
  ELASTIC_MPI_CHECK(MPI_Comm_size(mc, &self->size_));

  absl::StatusOr<int> local = local_rank(mc, self->rank_, self->size_, deadline);
  if (!local.ok()) return local.status();
  int devices = 0;
  ELASTIC_CUDA_CHECK(cudaGetDeviceCount(&devices));
  if (devices <= 0) return absl::FailedPreconditionError("NCCL backend: no CUDA device");
  self->device_ = *local % devices;
  ELASTIC_CUDA_CHECK(cudaSetDevice(self->device_));

  ncclUniqueId id{};
  if (self->rank_ == 0) ELASTIC_NCCL_CHECK(ncclGetUniqueId(&id));
  MPI_Request req = MPI_REQUEST_NULL;
  ELASTIC_MPI_CHECK(MPI_Ibcast(&id, sizeof(id), MPI_BYTE, 0, mc, &req));
  if (absl::Status st = mpi::wait(req, deadline, "MPI_Ibcast(ncclUniqueId)"); !st.ok()) {
    MPIX_Comm_revoke(mc);
    mpi::drain(req);
    return st;
  }

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // init returns at once; we poll it against the deadline below
  ncclComm_t raw = nullptr;
  ELASTIC_NCCL_CHECK(ncclCommInitRankConfig(&raw, self->size_, id, self->rank_, &config));
  self->comm_ = CommHandle(raw);
  for (;;) {
    ncclResult_t state = ncclSuccess;
    ELASTIC_NCCL_CHECK(ncclCommGetAsyncError(raw, &state));
    if (state == ncclSuccess) break;
    if (state != ncclInProgress) {
      self->comm_.mark_unhealthy();
      return nccl_status(state, "ncclCommInitRankConfig (async)", __FILE__, __LINE__);
    }
    if (Clock::now() >= deadline) {
      self->comm_.mark_unhealthy();
      return absl::DeadlineExceededError("ncclCommInitRankConfig: timed out");
    }
    std::this_thread::yield();
  }
  cudaStream_t stream = nullptr;
  ELASTIC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  self->stream_ = StreamHandle(stream);
  return std::unique_ptr<Communicator>(std::move(self));
}

void NcclCommunicator::abort(std::string_view why) {
  if (sticky_.ok()) sticky_ = absl::AbortedError(absl::StrCat("NCCL communicator aborted: ", std::string(why)));
  // Stop in-flight operations first where NCCL can, then abort (local, never waits for peers).
  if (comm_.get() != nullptr) revoke(comm_.get());
  comm_.abort();
}

absl::Status NcclCommunicator::fail(absl::Status st) {
  abort(std::string(st.message()));
  return st;
}

absl::Status NcclCommunicator::finish(std::chrono::milliseconds timeout, const char* what) {
  const Clock::time_point deadline = Clock::now() + timeout;
  for (;;) {
    ncclResult_t async = ncclSuccess;
    if (const ncclResult_t rc = ncclCommGetAsyncError(comm_.get(), &async); rc != ncclSuccess) {
      return fail(nccl_status(rc, "ncclCommGetAsyncError", __FILE__, __LINE__));
    }
    if (async != ncclSuccess && async != ncclInProgress) {
      absl::Status st = nccl_status(async, what, __FILE__, __LINE__);
      return fail(absl::AbortedError(st.message()));
    }
    if (async == ncclSuccess) {
      const cudaError_t q = cudaStreamQuery(stream_.get());
      if (q == cudaSuccess) return absl::OkStatus();
      if (q != cudaErrorNotReady) return fail(cuda_status(q, "cudaStreamQuery", __FILE__, __LINE__));
    }
    if (Clock::now() >= deadline) {
      return fail(absl::DeadlineExceededError(absl::StrCat(what, ": timed out")));
    }
    std::this_thread::yield();
  }
}

absl::Status NcclCommunicator::allreduce(Tensor t, ReduceOp op, CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  if (t.count == 0) return absl::OkStatus();
  const ncclRedOp_t nop = op == ReduceOp::kAverage ? ncclAvg : ncclSum;
  const ncclResult_t rc =
      ncclAllReduce(t.data, t.data, t.count, nccl_type(t.dtype), nop, comm_.get(), stream_.get());
  if (rc != ncclSuccess && rc != ncclInProgress) return fail(nccl_status(rc, "ncclAllReduce", __FILE__, __LINE__));
  return finish(opts.timeout, "ncclAllReduce");
}

absl::Status NcclCommunicator::broadcast(void* data, std::size_t bytes, int root, CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  if (root < 0 || root >= size_) {
    return absl::InvalidArgumentError(absl::StrCat("broadcast root ", root, " not in [0, ", size_, ")"));
  }
  if (bytes == 0) return absl::OkStatus();
  const ncclResult_t rc = ncclBroadcast(data, data, bytes, ncclUint8, root, comm_.get(), stream_.get());
  if (rc != ncclSuccess && rc != ncclInProgress) return fail(nccl_status(rc, "ncclBroadcast", __FILE__, __LINE__));
  return finish(opts.timeout, "ncclBroadcast");
}

absl::Status NcclCommunicator::barrier(CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  absl::StatusOr<std::span<std::byte>> one = scratch(sizeof(float));
  if (!one.ok()) return one.status();
  ELASTIC_CUDA_CHECK(cudaMemsetAsync(one->data(), 0, sizeof(float), stream_.get()));
  return allreduce(Tensor{one->data(), 1, DataType::kFloat32}, ReduceOp::kSum, opts);
}

absl::StatusOr<std::span<std::byte>> NcclCommunicator::scratch(std::size_t bytes) {
  ELASTIC_CUDA_CHECK(scratch_.reserve(bytes));
  return std::span<std::byte>(scratch_.data(), bytes);
}

absl::Status NcclCommunicator::copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return absl::OkStatus();
  ELASTIC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_.get()));
  return absl::OkStatus();
}

}  // namespace elastic::coll::nccl
