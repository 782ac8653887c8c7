#include "nccl/communicator.h"

#include <mpi-ext.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "elastic/collectives/mpi_check.h"
#include "elastic/collectives/spread_plan.h"
#include "elastic/collectives/wait_meter.h"
#include "nccl/check.h"
#include "nccl/version.h"

namespace elastic::coll::nccl {
namespace {

ncclDataType_t nccl_type(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return ncclFloat32;
    case DataType::kFloat64:
      return ncclFloat64;
    case DataType::kBFloat16:
      return ncclBfloat16;
    case DataType::kFloat16:
      return ncclFloat16;
  }
  return ncclFloat32;
}

// What each rank tells the others in create(): where it runs and on which physical GPU (the PCI
// bus id, since ordinals depend on CUDA_VISIBLE_DEVICES), and whether it has one at all, so that
// every rank fails together rather than some waiting for a peer that already gave up.
struct Placement {
  std::array<char, 256> host{};
  std::array<char, 32> bus_id{};
  int device = -1;
  int usable = 0;
};

template <std::size_t N>
std::string text(const std::array<char, N>& a) {
  return std::string(a.data(), strnlen(a.data(), N));
}

// The host as NCCL tells hosts apart: NCCL_HOSTID where it is set (NCCL then treats ranks with
// different ids as different nodes, over its network transport), the host name otherwise.
void host_identity(Placement& p) {
  if (const char* id = std::getenv("NCCL_HOSTID"); id != nullptr && *id != '\0') {
    std::strncpy(p.host.data(), id, p.host.size() - 1);
  } else if (gethostname(p.host.data(), p.host.size() - 1) != 0) {
    std::strncpy(p.host.data(), "(unknown host)", p.host.size() - 1);
  }
}

// Resolves the device the caller asked for (kCurrentDevice: its current one); never selects one.
absl::Status resolve_device(int requested, Placement& p) {
  host_identity(p);
  int count = 0;
  ELASTIC_CUDA_CHECK(cudaGetDeviceCount(&count));
  if (count <= 0) return absl::FailedPreconditionError("NCCL backend: no CUDA device");
  int device = requested;
  if (device == kCurrentDevice) {
    ELASTIC_CUDA_CHECK(cudaGetDevice(&device));
  } else if (device < 0 || device >= count) {
    return absl::InvalidArgumentError(
        absl::StrCat("NCCL backend: CreateOptions::device ", device, " not in [0, ", count, ")"));
  }
  ELASTIC_CUDA_CHECK(
      cudaDeviceGetPCIBusId(p.bus_id.data(), static_cast<int>(p.bus_id.size()), device));
  p.device = device;
  p.usable = 1;
  return absl::OkStatus();
}

// The same verdict on every rank (all see the same table): a rank without a usable GPU, or two
// ranks on one host on one GPU, which NCCL does not support (it may hang).
absl::Status check_placements(const std::vector<Placement>& all) {
  for (std::size_t r = 0; r < all.size(); ++r) {
    if (all[r].usable == 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("NCCL backend: rank ", r, " on host ", text(all[r].host),
                       " has no usable CUDA device (that rank reports why)"));
    }
  }
  for (std::size_t a = 0; a < all.size(); ++a) {
    for (std::size_t b = a + 1; b < all.size(); ++b) {
      if (text(all[a].host) == text(all[b].host) && text(all[a].bus_id) == text(all[b].bus_id)) {
        return absl::FailedPreconditionError(absl::StrCat(
            "NCCL backend: ranks ", a, " and ", b, " on host ", text(all[a].host),
            " both use CUDA device ", all[a].device, " (PCI ", text(all[a].bus_id),
            "); NCCL needs one GPU per rank: give each rank its own device (cudaSetDevice before "
            "creating the communicator, or CreateOptions::device)"));
      }
    }
  }
  return absl::OkStatus();
}

// Waits for a bootstrap request; on failure revokes the private duplicate so peers return too.
absl::Status bounded(MPI_Comm mc, MPI_Request& req, Clock::time_point deadline, const char* what) {
  absl::Status st = coll::wait(req, deadline, what);
  if (!st.ok()) {
    MPIX_Comm_revoke(mc);
    coll::drain(req);
  }
  return st;
}

}  // namespace

absl::StatusOr<std::unique_ptr<NcclCommunicator>> NcclCommunicator::boot(
    MPI_Comm comm, Clock::time_point deadline) {
  absl::StatusOr<coll::Comm> dup = coll::dup(comm, deadline);
  if (!dup.ok()) return dup.status();
  std::unique_ptr<NcclCommunicator> self(new NcclCommunicator());
  self->bootstrap_ = std::move(*dup);
  ELASTIC_MPI_CHECK(MPI_Comm_rank(self->bootstrap_.get(), &self->rank_));
  ELASTIC_MPI_CHECK(MPI_Comm_size(self->bootstrap_.get(), &self->size_));
  return self;
}

absl::StatusOr<std::unique_ptr<Communicator>> NcclCommunicator::create(MPI_Comm comm,
                                                                       CreateOptions opts) {
  const Clock::time_point deadline = Clock::now() + opts.timeout;
  Placement mine;
  const absl::Status local = resolve_device(opts.device, mine);

  absl::StatusOr<std::unique_ptr<NcclCommunicator>> booted = boot(comm, deadline);
  if (!booted.ok()) return booted.status();
  std::unique_ptr<NcclCommunicator> self = *std::move(booted);
  MPI_Comm mc = self->bootstrap_.get();

  std::vector<Placement> all(static_cast<std::size_t>(self->size_));
  MPI_Request req = MPI_REQUEST_NULL;
  ELASTIC_MPI_CHECK(MPI_Iallgather(&mine, sizeof(Placement), MPI_BYTE, all.data(),
                                   sizeof(Placement), MPI_BYTE, mc, &req));
  if (absl::Status st = bounded(mc, req, deadline, "MPI_Iallgather(host, GPU)"); !st.ok())
    return st;
  if (!local.ok()) return local;
  if (absl::Status st = check_placements(all); !st.ok()) return st;
  self->device_ = mine.device;

  ncclUniqueId id{};
  if (self->rank_ == 0) ELASTIC_NCCL_CHECK(ncclGetUniqueId(&id));
  ELASTIC_MPI_CHECK(MPI_Ibcast(&id, sizeof(id), MPI_BYTE, 0, mc, &req));
  if (absl::Status st = bounded(mc, req, deadline, "MPI_Ibcast(ncclUniqueId)"); !st.ok()) return st;

  // NCCL binds the communicator to the current device: make ours current for the rest of create()
  // only; the caller's current device is restored on return.
  const DeviceGuard guard(self->device_);
  ELASTIC_CUDA_CHECK(guard.status());
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;  // init returns at once; we poll it against the deadline below
  ncclComm_t raw = nullptr;
  const ncclResult_t init = ncclCommInitRankConfig(&raw, self->size_, id, self->rank_, &config);
  if (absl::Status st = self->adopt(raw, init, deadline, "ncclCommInitRankConfig"); !st.ok())
    return st;
  return std::unique_ptr<Communicator>(std::move(self));
}

absl::StatusOr<std::unique_ptr<Communicator>> NcclCommunicator::shrink(NcclCommunicator& old,
                                                                       MPI_Comm survivors,
                                                                       CreateOptions opts) {
  const Clock::time_point deadline = Clock::now() + opts.timeout;
  absl::StatusOr<std::unique_ptr<NcclCommunicator>> booted = boot(survivors, deadline);
  if (!booted.ok()) return booted.status();
  std::unique_ptr<NcclCommunicator> self = *std::move(booted);
  MPI_Comm mc = self->bootstrap_.get();

  // Every survivor's rank in the old membership, and whether every survivor can shrink: all take
  // the same path. The new ranks follow the old order (ncclCommShrink fills the gaps that way), so
  // the caller's `survivors` must order them alike (MPIX_Comm_shrink and MPI_Comm_split with the
  // old rank as key do).
  const int can = old.comm_.get() != nullptr && can_shrink() ? 1 : 0;
  std::vector<int> mine{old.rank_, can};
  std::vector<int> all(2 * static_cast<std::size_t>(self->size_));
  MPI_Request req = MPI_REQUEST_NULL;
  ELASTIC_MPI_CHECK(MPI_Iallgather(mine.data(), 2, MPI_INT, all.data(), 2, MPI_INT, mc, &req));
  if (absl::Status st = bounded(mc, req, deadline, "MPI_Iallgather(old rank)"); !st.ok()) return st;
  std::vector<bool> kept(static_cast<std::size_t>(old.size_), false);
  bool everyone_can = true;
  for (int r = 0; r < self->size_; ++r) {
    const int was = all[2 * static_cast<std::size_t>(r)];
    if (was < 0 || was >= old.size_ || kept[static_cast<std::size_t>(was)] ||
        (r > 0 && was < all[2 * static_cast<std::size_t>(r - 1)])) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shrink_communicator: survivor ", r, " was rank ", was, " of ", old.size_,
          ": the survivors must be distinct ranks of the old membership, in their old order"));
    }
    kept[static_cast<std::size_t>(was)] = true;
    everyone_can = everyone_can && all[2 * static_cast<std::size_t>(r) + 1] != 0;
  }
  opts.device = old.device_;
  if (!everyone_can) {
    old.abort("replaced by a new communicator (shrink unavailable)");
    // What is left of this call's time, not a new timeout.
    opts.timeout =
        std::max(std::chrono::milliseconds(0),
                 std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    return create(survivors, opts);
  }
  std::vector<int> excluded;
  for (int r = 0; r < old.size_; ++r) {
    if (!kept[static_cast<std::size_t>(r)]) excluded.push_back(r);
  }
  self->device_ = old.device_;
  const DeviceGuard guard(self->device_);
  ELASTIC_CUDA_CHECK(guard.status());
  if (old.revoked_ && !old.quiesce(deadline)) {
    return absl::DeadlineExceededError(
        "shrink_communicator: the revoked communicator never quiesced");
  }
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  // NCCL publishes a child communicator (split or shrink) through `*cell` only when its
  // initialisation ends (its async job stores it on exit, success or failure), so the cell must
  // outlive that job: on a deadline it is deliberately leaked (one pointer), NCCL may still write it.
  // Nobody excluded (the same ranks, e.g. after a failed collective): ncclCommSplit, since
  // ncclCommShrink needs at least one rank to exclude. NCCL_SHRINK_ABORT only where a collective
  // failed and was not revoked: it stops operations in flight first; on a communicator that saw no
  // failure (ranks left on notice, or died while it was idle) the default mode is enough.
  auto* cell = new ncclComm_t(nullptr);
  const char* what = excluded.empty() ? "ncclCommSplit" : "ncclCommShrink";
  const ncclResult_t rc =
      excluded.empty()
          ? ncclCommSplit(old.comm_.get(), 0, old.rank_, cell, &config)
          : nccl::shrink(old.comm_.get(), excluded.data(), static_cast<int>(excluded.size()), cell,
                         &config, /*abort_ongoing=*/!old.revoked_ && !old.sticky_.ok());
  ncclComm_t raw = nullptr;
  if (rc == ncclSuccess || rc == ncclInProgress) {
    while ((raw = __atomic_load_n(cell, __ATOMIC_ACQUIRE)) == nullptr && Clock::now() < deadline) {
      std::this_thread::yield();
    }
  }
  if (raw == nullptr) {
    old.abort("shrinking it failed");  // also stops the child's initialisation, if any
    if (rc != ncclSuccess && rc != ncclInProgress) {
      delete cell;  // failed before any job started: NCCL has already cleared it
      return nccl_status(rc, what, __FILE__, __LINE__);
    }
    return absl::DeadlineExceededError(absl::StrCat(what, ": timed out"));
  }
  delete cell;
  // `old` keeps its ncclComm until it is dropped: aborting it here would put NCCL's teardown of
  // the parent (hundreds of ms, measured) on the path to the new membership's first collective.
  if (old.sticky_.ok()) old.sticky_ = absl::AbortedError("NCCL communicator shrunk into a new one");
  absl::Status st = self->adopt(raw, ncclInProgress, deadline, what);
  if (!st.ok()) return st;
  return std::unique_ptr<Communicator>(std::move(self));
}

absl::Status NcclCommunicator::adopt(ncclComm_t raw, ncclResult_t init, Clock::time_point deadline,
                                     const char* what) {
  comm_ = CommHandle(raw);  // owned before the result is read: a failed init is aborted too
  if (init != ncclSuccess && init != ncclInProgress) {
    return nccl_status(init, what, __FILE__, __LINE__);
  }
  for (;;) {
    ncclResult_t state = ncclSuccess;
    ELASTIC_NCCL_CHECK(ncclCommGetAsyncError(raw, &state));
    if (state == ncclSuccess) break;
    if (state != ncclInProgress) {
      return nccl_status(state, absl::StrCat(what, " (async)").c_str(), __FILE__, __LINE__);
    }
    if (Clock::now() >= deadline) {
      return absl::DeadlineExceededError(absl::StrCat(what, ": timed out"));
    }
    std::this_thread::yield();
  }
  cudaStream_t stream = nullptr;
  ELASTIC_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  stream_ = StreamHandle(stream);
  for (EventHandle* e : {&ready_, &done_}) {
    cudaEvent_t ev = nullptr;
    ELASTIC_CUDA_CHECK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    *e = EventHandle(ev);
  }
  return absl::OkStatus();
}

bool NcclCommunicator::quiesce(Clock::time_point deadline) const {
  for (;;) {
    ncclResult_t state = ncclSuccess;
    if (ncclCommGetAsyncError(comm_.get(), &state) != ncclSuccess) return false;
    if (state != ncclInProgress) return true;
    if (Clock::now() >= deadline) return false;
    std::this_thread::yield();
  }
}

NcclCommunicator::~NcclCommunicator() {
  if (device_ < 0) return;
  // Abort first (kernels in flight exit), then release the rest on the communicator's device.
  const DeviceGuard guard(device_);
  // A revoked communicator is aborted only once quiescent (version.h: revoke's cleanup would race
  // with the abort); bounded, so a destructor never hangs on NCCL.
  if (revoked_) quiesce(Clock::now() + std::chrono::seconds(10));
  comm_.abort();
  stream_ = StreamHandle();
  done_ = EventHandle();
  ready_ = EventHandle();
  scratch_ = DeviceBuffer();
}

void NcclCommunicator::abort(std::string_view why) {
  if (sticky_.ok())
    sticky_ = absl::AbortedError(absl::StrCat("NCCL communicator aborted: ", std::string(why)));
  if (comm_.get() == nullptr) return;
  // ncclCommAbort alone: it stops in-flight work itself (a revoke first would race with it; see
  // version.h). Local, never waits for peers.
  const DeviceGuard guard(device_);
  if (revoked_) quiesce(Clock::now() + std::chrono::seconds(10));
  comm_.abort();
}

absl::Status NcclCommunicator::fail(absl::Status st) {
  if (comm_.get() != nullptr && !revoked_ && can_revoke()) {
    // Revoke stops the operations in flight like an abort but keeps the communicator, so that the
    // survivors of a failure can shrink it instead of building a new one (shrink_communicator).
    if (sticky_.ok())
      sticky_ = absl::AbortedError(absl::StrCat("NCCL communicator revoked: ", st.message()));
    const DeviceGuard guard(device_);
    revoked_ = revoke(comm_.get());
    if (revoked_) return st;
  }
  abort(std::string(st.message()));
  return st;
}

absl::Status NcclCommunicator::poll(Clock::time_point deadline, const char* what,
                                    cudaEvent_t event) {
  // Waiting for the peers, as far as a watchdog can tell (wait_meter.h): the event also covers the
  // caller's own work before the collective, which this wait's deadline bounds.
  const MeteredWait metered;
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
      if (event == nullptr) return absl::OkStatus();
      const cudaError_t q = cudaEventQuery(event);
      if (q == cudaSuccess) return absl::OkStatus();
      if (q != cudaErrorNotReady) return fail(cuda_status(q, "cudaEventQuery", __FILE__, __LINE__));
    }
    if (Clock::now() >= deadline) {
      return fail(absl::DeadlineExceededError(absl::StrCat(what, ": timed out")));
    }
    std::this_thread::yield();
  }
}

template <typename Enqueue>
absl::Status NcclCommunicator::run(const CallOptions& opts, const char* what, Enqueue&& op) {
  const Clock::time_point deadline = Clock::now() + opts.timeout;
  const DeviceGuard guard(device_);
  ELASTIC_CUDA_CHECK(guard.status());
  auto* caller = static_cast<cudaStream_t>(opts.stream);
  // Nothing is enqueued yet if these fail (e.g. a stream of another device): not sticky.
  ELASTIC_CUDA_CHECK(cudaEventRecord(ready_.get(), caller));
  ELASTIC_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), ready_.get(), 0));
  if (const ncclResult_t rc = op(stream_.get()); rc != ncclSuccess && rc != ncclInProgress) {
    return fail(nccl_status(rc, what, __FILE__, __LINE__));
  }
  // A non-blocking communicator may still be launching the operation in the background
  // (ncclInProgress); it is on the stream, and done_ can be recorded behind it, only after that.
  if (absl::Status st = poll(deadline, what, nullptr); !st.ok()) return st;
  if (const cudaError_t rc = cudaEventRecord(done_.get(), stream_.get()); rc != cudaSuccess) {
    return fail(cuda_status(rc, "cudaEventRecord(done)", __FILE__, __LINE__));
  }
  if (const cudaError_t rc = cudaStreamWaitEvent(caller, done_.get(), 0); rc != cudaSuccess) {
    return fail(cuda_status(rc, "cudaStreamWaitEvent(caller stream)", __FILE__, __LINE__));
  }
  return poll(deadline, what, done_.get());
}

absl::Status NcclCommunicator::allreduce(Tensor t, ReduceOp op, CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  // As Open MPI and NCCL itself: an empty reduction returns at once (communicator.h).
  if (t.count == 0) return absl::OkStatus();
  if (t.data == nullptr) return absl::InvalidArgumentError("allreduce: null data");
  const ncclRedOp_t nop = op == ReduceOp::kAverage ? ncclAvg : ncclSum;
  return run(opts, "ncclAllReduce", [&](cudaStream_t s) {
    return ncclAllReduce(t.data, t.data, t.count, nccl_type(t.dtype), nop, comm_.get(), s);
  });
}

absl::Status NcclCommunicator::broadcast(void* data, std::size_t bytes, int root,
                                         CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  if (root < 0 || root >= size_) {
    return absl::InvalidArgumentError(
        absl::StrCat("broadcast root ", root, " not in [0, ", size_, ")"));
  }
  if (bytes == 0) return absl::OkStatus();
  if (data == nullptr) return absl::InvalidArgumentError("broadcast: null data");
  return run(opts, "ncclBroadcast", [&](cudaStream_t s) {
    return ncclBroadcast(data, data, bytes, ncclUint8, root, comm_.get(), s);
  });
}

absl::Status NcclCommunicator::spread(void* data, std::size_t bytes,
                                      std::span<const std::uint8_t> holds, CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  absl::StatusOr<std::vector<std::vector<Transfer>>> plan = spread_plan(holds, size_);
  if (!plan.ok()) return plan.status();
  if (bytes == 0) return absl::OkStatus();
  if (data == nullptr) return absl::InvalidArgumentError("spread: null data");
  const Clock::time_point deadline = Clock::now() + opts.timeout;
  for (const std::vector<Transfer>& round : *plan) {
    const std::optional<Transfer> mine = transfer_of(round, rank_);
    if (!mine) continue;
    // One deadline for all rounds.
    CallOptions round_opts = opts;
    round_opts.timeout =
        std::max(std::chrono::milliseconds(0),
                 std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()));
    absl::Status st = run(round_opts, "ncclSend/ncclRecv(spread)", [&](cudaStream_t s) {
      return mine->to == rank_ ? ncclRecv(data, bytes, ncclUint8, mine->from, comm_.get(), s)
                               : ncclSend(data, bytes, ncclUint8, mine->to, comm_.get(), s);
    });
    if (!st.ok()) return st;
  }
  return absl::OkStatus();
}

absl::Status NcclCommunicator::barrier(CallOptions opts) {
  if (!sticky_.ok()) return sticky_;
  absl::StatusOr<std::span<std::byte>> one = scratch(sizeof(float));
  if (!one.ok()) return one.status();
  {
    const DeviceGuard guard(device_);
    ELASTIC_CUDA_CHECK(guard.status());
    ELASTIC_CUDA_CHECK(cudaMemsetAsync(one->data(), 0, sizeof(float), stream_.get()));
  }
  return allreduce(Tensor{one->data(), 1, DataType::kFloat32}, ReduceOp::kSum, opts);
}

absl::StatusOr<std::span<std::byte>> NcclCommunicator::scratch(std::size_t bytes) {
  const DeviceGuard guard(device_);  // cudaMalloc allocates on the current device
  ELASTIC_CUDA_CHECK(guard.status());
  ELASTIC_CUDA_CHECK(scratch_.reserve(bytes));
  return std::span<std::byte>(scratch_.data(), bytes);
}

absl::Status NcclCommunicator::copy(void* dst, const void* src, std::size_t bytes,
                                    const CallOptions& opts) {
  if (!sticky_.ok()) return sticky_;
  if (bytes == 0) return absl::OkStatus();
  const Clock::time_point deadline = Clock::now() + opts.timeout;
  const DeviceGuard guard(device_);
  ELASTIC_CUDA_CHECK(guard.status());
  // The source may still be written by kernels queued on the caller's stream (the gradients a
  // fused allreduce packs): the private stream waits for them, as run() does for a collective.
  ELASTIC_CUDA_CHECK(cudaEventRecord(ready_.get(), static_cast<cudaStream_t>(opts.stream)));
  ELASTIC_CUDA_CHECK(cudaStreamWaitEvent(stream_.get(), ready_.get(), 0));
  ELASTIC_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream_.get()));
  ELASTIC_CUDA_CHECK(cudaEventRecord(done_.get(), stream_.get()));
  // Finished before returning, so whatever stream the caller reads `dst` on sees the bytes.
  return poll(deadline, "cudaMemcpyAsync (copy)", done_.get());
}

}  // namespace elastic::coll::nccl
