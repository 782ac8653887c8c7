// The NCCL backend of elastic::coll on real GPUs, through the factory (device memory -> NCCL):
// allreduce of every dtype and op against a host oracle (sizes 0, 1, primes, ~3 MiB), broadcast
// from every root, a communicator rebuilt after a membership change (the FIRST rank leaves, so the
// survivors' local ranks shift, then everyone rejoins) on the GPU each rank chose, an explicit
// CreateOptions::device that leaves the caller's current device alone, two ranks on one GPU
// refused with FailedPrecondition, a caller stream that orders the collective without a host
// sync (and one that never gets there: timeout, abort), dropping a communicator while a peer
// still holds its own, an explicit abort that is sticky and local, and a peer that never joins a
// collective (the others time out, abort with ncclCommAbort and return; so does the late peer).
//
// Run under mpirun (ctest: -n 1 and -n 2). Each rank makes GPU (local rank % GPUs) current once at
// start, as an application does; the backend must keep using it. Tests skip, with the reason,
// when a rank has no CUDA device or a host has fewer GPUs than ranks (except the shared-GPU test,
// which needs that); when every test was skipped the program exits 77, which ctest reports as
// SKIPPED. NCCL_HOSTID (NCCL's own host identity) counts as the host where it is set, so that ranks
// given different ids share one GPU as if on different nodes (NCCL then connects them over its
// network transport).
#include <mpi.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "../mpi_gtest_main.h"
#include "../typed_values.h"
#include "elastic/collectives/factory.h"
#include "elastic/collectives/fusion.h"
#include "elastic/collectives/half.h"

namespace elastic::coll {
namespace {

using std::chrono::milliseconds;

// The host as the backend and NCCL tell hosts apart: NCCL_HOSTID where set, else the host name.
std::string host_name() {
  if (const char* id = std::getenv("NCCL_HOSTID"); id != nullptr && *id != '\0') return id;
  std::array<char, 256> h{};
  gethostname(h.data(), h.size() - 1);
  return h.data();
}

// Whether (and why not) this run can use NCCL; decided once, identically on every rank, because
// every test is collective. Also makes this rank's GPU current, as an application does at start.
struct GpuEnv {
  bool ok = false;  // every rank has a GPU of its own
  std::string why;
  bool any_gpu = false;     // every rank has at least one GPU
  int devices = 0;          // on this rank
  int device = -1;          // this rank's GPU: local rank % devices
  int local = 0;            // rank among the ranks on this host
  int on_host = 0;          // ranks on this host
  int max_on_host = 0;      // over all hosts
  bool spare_gpus = false;  // every host has at least twice as many GPUs as ranks
};

const GpuEnv& gpu_env() {
  static const GpuEnv env = [] {
    GpuEnv e;
    const cudaError_t rc = cudaGetDeviceCount(&e.devices);
    if (rc != cudaSuccess) e.devices = 0;
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::array<char, MPI_MAX_PROCESSOR_NAME> mine{};
    const std::string host = host_name();
    std::strncpy(mine.data(), host.c_str(), mine.size() - 1);
    std::vector<char> all(static_cast<std::size_t>(size) * mine.size());
    MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                  static_cast<int>(mine.size()), MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r) {
      if (std::strncmp(all.data() + static_cast<std::size_t>(r) * mine.size(), mine.data(),
                       mine.size()) == 0) {
        e.on_host += 1;
        if (r < rank) e.local += 1;
      }
    }
    // One MPI_MIN for: min devices, -(max ranks on one host), min(devices - 2 * ranks on host).
    std::array<int, 3> v{e.devices, -e.on_host, e.devices - 2 * e.on_host};
    MPI_Allreduce(MPI_IN_PLACE, v.data(), 3, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    e.any_gpu = v[0] > 0;
    e.max_on_host = -v[1];
    e.spare_gpus = v[2] >= 0;
    if (e.devices > 0) {
      e.device = e.local % e.devices;
      if (cudaSetDevice(e.device) != cudaSuccess) e.device = -1;
    }
    if (v[0] == 0) {
      e.why = rc != cudaSuccess ? std::string("no CUDA device (cudaGetDeviceCount: ") +
                                      cudaGetErrorString(rc) + ")"
                                : "no CUDA device on some rank (cudaGetDeviceCount returned 0)";
    } else if (v[0] < e.max_on_host) {
      e.why = "NCCL needs one GPU per rank: " + std::to_string(e.max_on_host) +
              " ranks share a host with " + std::to_string(v[0]) + " GPU(s); run with fewer ranks";
    } else {
      e.ok = true;
    }
    return e;
  }();
  return env;
}

#define SKIP_WITHOUT_GPUS()                           \
  do {                                                \
    if (!gpu_env().ok) GTEST_SKIP() << gpu_env().why; \
  } while (0)

int current_device() {
  int d = -1;
  EXPECT_EQ(cudaGetDevice(&d), cudaSuccess);
  return d;
}

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

std::unique_ptr<Communicator> make_nccl(MPI_Comm base, void* device_ptr, CreateOptions opts = {}) {
  EXPECT_EQ(memory_kind(device_ptr), MemoryKind::kDevice);
  auto c = create_communicator(base, memory_kind(device_ptr), opts);
  EXPECT_TRUE(c.ok()) << c.status();
  return c.ok() ? std::move(*c) : nullptr;
}

// A device buffer that frees itself; on `device`, or on the current device when it is -1.
struct DeviceBytes {
  void* p = nullptr;
  int device = -1;
  explicit DeviceBytes(std::size_t bytes, int on = -1) : device(on) {
    const int before = current_device();
    if (on >= 0) {
      EXPECT_EQ(cudaSetDevice(on), cudaSuccess);
    }
    EXPECT_EQ(cudaMalloc(&p, bytes == 0 ? 1 : bytes), cudaSuccess);
    if (on >= 0) {
      EXPECT_EQ(cudaSetDevice(before), cudaSuccess);
    }
  }
  ~DeviceBytes() { cudaFree(p); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
};

// Page-locked host memory, so that cudaMemcpyAsync really is asynchronous.
struct PinnedFloats {
  float* p = nullptr;
  explicit PinnedFloats(std::size_t n) {
    EXPECT_EQ(cudaMallocHost(reinterpret_cast<void**>(&p), n * sizeof(float)), cudaSuccess);
  }
  ~PinnedFloats() { cudaFreeHost(p); }
  PinnedFloats(const PinnedFloats&) = delete;
  PinnedFloats& operator=(const PinnedFloats&) = delete;
};

struct Stream {
  cudaStream_t s = nullptr;
  Stream() { EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess); }
  ~Stream() { cudaStreamDestroy(s); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
};

// Holds the caller's stream back for `ms` (a host callback), like a slow producer kernel would.
void delay_stream(cudaStream_t s, int ms) {
  EXPECT_EQ(cudaLaunchHostFunc(
                s,
                [](void* arg) {
                  std::this_thread::sleep_for(
                      std::chrono::milliseconds(reinterpret_cast<std::intptr_t>(arg)));
                },
                reinterpret_cast<void*>(static_cast<std::intptr_t>(ms))),
            cudaSuccess);
}

double epsilon(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return 0x1p-23;
    case DataType::kFloat64:
      return 0x1p-52;
    case DataType::kBFloat16:
      return 0x1p-7;
    case DataType::kFloat16:
      return 0x1p-10;
  }
  return 1;
}

// Allreduces rank-dependent values of `count` elements over `comm` (whose ranks are `members`, in
// order, by world rank) and checks them against the host oracle.
void check_allreduce(Communicator& comm, const std::vector<int>& members, std::size_t count,
                     DataType t, ReduceOp op, int device = -1) {
  std::vector<double> mine(count);
  const int me = members[static_cast<std::size_t>(comm.rank())];
  for (std::size_t i = 0; i < count; ++i) mine[i] = value(me, i);
  std::vector<std::byte> host = encode(mine, t);
  DeviceBytes dev(host.size(), device);
  // EXPECT, not ASSERT: returning early would leave the peers waiting in a collective.
  EXPECT_EQ(cudaMemcpy(dev.p, host.data(), host.size(), cudaMemcpyHostToDevice), cudaSuccess);
  const absl::Status st = comm.allreduce(Tensor{dev.p, count, t}, op);
  EXPECT_TRUE(st.ok()) << st;
  EXPECT_EQ(cudaMemcpy(host.data(), dev.p, host.size(), cudaMemcpyDeviceToHost), cudaSuccess);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < count; ++i) {
    double want = 0;
    for (int r : members) want += value(r, i);
    if (op == ReduceOp::kAverage) want /= static_cast<double>(members.size());
    // Sums are exact; an average is a pre-scaled sum in the element type (a few roundings).
    const double tol = op == ReduceOp::kSum ? 0
                                            : (static_cast<double>(members.size()) + 1) *
                                                  epsilon(t) * std::max(1.0, want);
    const double got = decode(host, t, i);
    if (!(std::fabs(got - want) <= tol) && bad++ < 5) {
      ADD_FAILURE() << dtype_name(t) << " count " << count << " element " << i << ": got " << got
                    << " want " << want;
    }
  }
  EXPECT_EQ(bad, 0u);
  // Every rank must hold the same bits (the model stays identical across ranks). Checked over
  // MPI_COMM_WORLD, so only when the membership is the whole world.
  if (members.size() == static_cast<std::size_t>(world_size())) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::byte b : host) h = (h ^ static_cast<std::uint64_t>(b)) * 1099511628211ull;
    std::array<std::uint64_t, 2> mm{h, ~h};
    MPI_Allreduce(MPI_IN_PLACE, mm.data(), 2, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    EXPECT_EQ(mm[0], ~mm[1]) << "ranks disagree";
  }
}

std::vector<int> all_ranks() {
  std::vector<int> v(static_cast<std::size_t>(world_size()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int>(i);
  return v;
}

// One communicator over MPI_COMM_WORLD shared by the parametrised cases (built at first use, which
// is the same test on every rank; released by main before MPI_Finalize).
std::unique_ptr<Communicator>& shared_comm() {
  static std::unique_ptr<Communicator> c;
  return c;
}

using Case = std::tuple<DataType, ReduceOp, std::size_t>;
class NcclAllreduce : public ::testing::TestWithParam<Case> {};

TEST_P(NcclAllreduce, MatchesHostOracle) {
  SKIP_WITHOUT_GPUS();
  const auto [t, op, count] = GetParam();
  if (shared_comm() == nullptr) {
    DeviceBytes probe(4);
    shared_comm() = make_nccl(MPI_COMM_WORLD, probe.p);
    ASSERT_NE(shared_comm(), nullptr);
    EXPECT_EQ(shared_comm()->backend_name(), "nccl");
    EXPECT_EQ(shared_comm()->memory(), MemoryKind::kDevice);
    EXPECT_EQ(shared_comm()->rank(), world_rank());
    EXPECT_EQ(shared_comm()->size(), world_size());
  }
  check_allreduce(*shared_comm(), all_ranks(), count, t, op);
  EXPECT_TRUE(shared_comm()->health().ok());
}

// 0, 1, primes, and 786433 (a prime: 3 MiB of float32, 6 MiB of float64).
INSTANTIATE_TEST_SUITE_P(
    Sizes, NcclAllreduce,
    ::testing::Combine(::testing::Values(DataType::kFloat32, DataType::kFloat64,
                                         DataType::kBFloat16, DataType::kFloat16),
                       ::testing::Values(ReduceOp::kSum, ReduceOp::kAverage),
                       ::testing::Values(std::size_t{0}, std::size_t{1}, std::size_t{2},
                                         std::size_t{3}, std::size_t{7}, std::size_t{13},
                                         std::size_t{1021}, std::size_t{65537},
                                         std::size_t{786433})),
    [](const ::testing::TestParamInfo<Case>& p) {
      return std::string(dtype_name(std::get<0>(p.param))) +
             (std::get<1>(p.param) == ReduceOp::kSum ? "_sum_" : "_avg_") +
             std::to_string(std::get<2>(p.param));
    });

TEST(Nccl, MemoryKindFollowsThePointer) {
  SKIP_WITHOUT_GPUS();
  DeviceBytes dev(64);
  std::vector<float> host(16);
  EXPECT_EQ(memory_kind(dev.p), MemoryKind::kDevice);
  EXPECT_EQ(memory_kind(host.data()), MemoryKind::kHost);
  EXPECT_TRUE(backend_available(Backend::kNccl));
}

TEST(Nccl, BroadcastFromEveryRootIsBitExact) {
  SKIP_WITHOUT_GPUS();
  DeviceBytes dev(4099);
  auto comm = make_nccl(MPI_COMM_WORLD, dev.p);
  ASSERT_NE(comm, nullptr);
  for (int root = 0; root < comm->size(); ++root) {
    for (const std::size_t bytes : {std::size_t{1}, std::size_t{4099}}) {
      std::vector<unsigned char> buf(bytes);
      for (std::size_t i = 0; i < bytes; ++i)
        buf[i] = static_cast<unsigned char>((i * 31 + static_cast<std::size_t>(comm->rank()) * 17) &
                                            0xff);
      ASSERT_EQ(cudaMemcpy(dev.p, buf.data(), bytes, cudaMemcpyHostToDevice), cudaSuccess);
      ASSERT_TRUE(comm->broadcast(dev.p, bytes, root).ok());
      ASSERT_EQ(cudaMemcpy(buf.data(), dev.p, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      for (std::size_t i = 0; i < bytes; ++i) {
        ASSERT_EQ(buf[i],
                  static_cast<unsigned char>((i * 31 + static_cast<std::size_t>(root) * 17) & 0xff))
            << "root " << root;
      }
    }
  }
  EXPECT_EQ(comm->broadcast(dev.p, 1, comm->size()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(comm->barrier().ok());
}

// A membership change: the FIRST rank leaves (MPI_Comm_split), so every survivor's local rank
// drops by one; the survivors abort the old NCCL communicator and build one for the new membership,
// which must stay on the GPU each of them chose (a backend that recomputed local rank % GPUs would
// move them off their buffers, or onto a GPU a peer uses). Then everyone rejoins (grow) and builds
// again.
TEST(Nccl, RebuiltAfterMembershipChangeOnTheSameGpus) {
  SKIP_WITHOUT_GPUS();
  const int mine = gpu_env().device;
  DeviceBytes probe(4);
  auto old_comm = make_nccl(MPI_COMM_WORLD, probe.p);
  ASSERT_NE(old_comm, nullptr);
  EXPECT_EQ(current_device(), mine);
  check_allreduce(*old_comm, all_ranks(), 1021, DataType::kFloat32, ReduceOp::kSum);

  const int n = world_size();
  const bool leaves = n > 1 && world_rank() == 0;
  MPI_Comm survivors = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, leaves ? MPI_UNDEFINED : 0, world_rank(), &survivors),
            MPI_SUCCESS);
  old_comm->abort("membership changed");
  EXPECT_EQ(old_comm->health().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(old_comm->allreduce(Tensor{probe.p, 1, DataType::kFloat32}, ReduceOp::kSum).code(),
            absl::StatusCode::kAborted);
  old_comm.reset();
  if (!leaves) {
    auto shrunk = make_nccl(survivors, probe.p);
    ASSERT_NE(shrunk, nullptr);
    EXPECT_EQ(current_device(), mine) << "the backend switched this rank's GPU";
    const std::vector<int> members = [&] {
      std::vector<int> v = all_ranks();
      if (n > 1) v.erase(v.begin());
      return v;
    }();
    EXPECT_EQ(shrunk->size(), static_cast<int>(members.size()));
    check_allreduce(*shrunk, members, 65537, DataType::kFloat32, ReduceOp::kSum);
    check_allreduce(*shrunk, members, 1021, DataType::kBFloat16, ReduceOp::kAverage);
    EXPECT_EQ(current_device(), mine);
    MPI_Comm_free(&survivors);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  auto grown = make_nccl(MPI_COMM_WORLD, probe.p);
  ASSERT_NE(grown, nullptr);
  EXPECT_EQ(current_device(), mine);
  check_allreduce(*grown, all_ranks(), 65537, DataType::kFloat16, ReduceOp::kSum);
}

// CreateOptions::device puts the communicator on another GPU than the current one; creating and
// using it leaves the caller's current device as it was.
TEST(Nccl, ExplicitDeviceLeavesTheCurrentDeviceAlone) {
  SKIP_WITHOUT_GPUS();
  if (!gpu_env().spare_gpus) GTEST_SKIP() << "needs two GPUs per rank on every host";
  const int mine = gpu_env().device;
  const int other = gpu_env().local + gpu_env().on_host;  // distinct per rank, never `mine`
  DeviceBytes probe(4, other);
  auto comm = make_nccl(MPI_COMM_WORLD, probe.p, CreateOptions{.device = other});
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(current_device(), mine);
  check_allreduce(*comm, all_ranks(), 65537, DataType::kFloat32, ReduceOp::kSum, other);
  EXPECT_TRUE(comm->barrier().ok());
  EXPECT_EQ(current_device(), mine);
  comm.reset();
  EXPECT_EQ(current_device(), mine);
}

// Two ranks on one host on one GPU: NCCL does not support it (it may hang), so create() must
// refuse it on every rank, naming the host and the device, without changing the current device.
TEST(Nccl, RanksSharingAGpuAreRefused) {
  if (!gpu_env().any_gpu) GTEST_SKIP() << gpu_env().why;
  if (gpu_env().max_on_host < 2) GTEST_SKIP() << "needs 2 ranks on one host";
  // The oracle: do two ranks on one host see the same physical GPU as device 0?
  std::array<char, 32> bus{};
  EXPECT_EQ(cudaDeviceGetPCIBusId(bus.data(), static_cast<int>(bus.size()), 0), cudaSuccess);
  const std::string key = host_name() + "/" + bus.data();
  std::array<char, 300> mine{};
  std::strncpy(mine.data(), key.c_str(), mine.size() - 1);
  std::vector<char> all(static_cast<std::size_t>(world_size()) * mine.size());
  MPI_Allgather(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, all.data(),
                static_cast<int>(mine.size()), MPI_CHAR, MPI_COMM_WORLD);
  bool clash = false;
  for (int a = 0; a < world_size(); ++a) {
    for (int b = a + 1; b < world_size(); ++b) {
      clash = clash || std::strncmp(all.data() + static_cast<std::size_t>(a) * mine.size(),
                                    all.data() + static_cast<std::size_t>(b) * mine.size(),
                                    mine.size()) == 0;
    }
  }
  if (!clash) GTEST_SKIP() << "the ranks of each host see different GPUs as device 0";
  const bool one_host = gpu_env().on_host == world_size();
  const int before = current_device();

  // Named explicitly.
  auto named = create_communicator(MPI_COMM_WORLD, Backend::kNccl, CreateOptions{.device = 0});
  ASSERT_FALSE(named.ok());
  EXPECT_EQ(named.status().code(), absl::StatusCode::kFailedPrecondition) << named.status();
  EXPECT_NE(named.status().message().find("device 0"), std::string::npos) << named.status();
  if (one_host) {
    EXPECT_NE(named.status().message().find(host_name()), std::string::npos) << named.status();
  }
  EXPECT_EQ(current_device(), before);

  // Through the current device, as most callers do.
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  auto current = create_communicator(MPI_COMM_WORLD, Backend::kNccl);
  EXPECT_EQ(current.status().code(), absl::StatusCode::kFailedPrecondition) << current.status();
  EXPECT_EQ(current_device(), 0);
  ASSERT_EQ(cudaSetDevice(before), cudaSuccess);
}

// The collective is ordered after the caller's stream by an event, not by a host sync: the
// upload of this rank's values is held back on the caller's stream (a 300 ms host callback, then
// an async copy over a NaN-filled buffer) and the allreduce is called at once. Without the
// ordering NCCL would reduce the NaNs.
TEST(Nccl, CallerStreamOrdersTheCollectiveWithoutHostSync) {
  SKIP_WITHOUT_GPUS();
  constexpr std::size_t kCount = 1 << 20;
  DeviceBytes dev(kCount * sizeof(float));
  auto comm = make_nccl(MPI_COMM_WORLD, dev.p);
  ASSERT_NE(comm, nullptr);
  PinnedFloats in(kCount), out(kCount);
  for (std::size_t i = 0; i < kCount; ++i) in.p[i] = static_cast<float>(value(world_rank(), i));
  ASSERT_EQ(cudaMemset(dev.p, 0xff, kCount * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  Stream s;
  delay_stream(s.s, 300);
  ASSERT_EQ(cudaMemcpyAsync(dev.p, in.p, kCount * sizeof(float), cudaMemcpyHostToDevice, s.s),
            cudaSuccess);
  const absl::Status st = comm->allreduce(Tensor{dev.p, kCount, DataType::kFloat32}, ReduceOp::kSum,
                                          CallOptions{.stream = s.s});
  EXPECT_TRUE(st.ok()) << st;
  ASSERT_EQ(cudaMemcpyAsync(out.p, dev.p, kCount * sizeof(float), cudaMemcpyDeviceToHost, s.s),
            cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(s.s), cudaSuccess);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < kCount; ++i) {
    double want = 0;
    for (int r = 0; r < world_size(); ++r) want += value(r, i);
    if (static_cast<double>(out.p[i]) != want && bad++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << out.p[i] << " want " << want;
    }
  }
  EXPECT_EQ(bad, 0u);
}

// The same for a fused allreduce of two tensors: packing them into the fusion buffer waits for the
// caller's stream too. It copied on the backend's stream at once and reduced the NaNs it found.
TEST(Nccl, CallerStreamOrdersAFusedAllreduce) {
  SKIP_WITHOUT_GPUS();
  constexpr std::size_t kCount = 1 << 19;
  std::array<DeviceBytes, 2> dev{DeviceBytes(kCount * sizeof(float)),
                                 DeviceBytes(kCount * sizeof(float))};
  auto comm = make_nccl(MPI_COMM_WORLD, dev[0].p);
  ASSERT_NE(comm, nullptr);
  PinnedFloats in(2 * kCount), out(2 * kCount);
  for (std::size_t i = 0; i < 2 * kCount; ++i) in.p[i] = static_cast<float>(value(world_rank(), i));
  for (DeviceBytes& d : dev) ASSERT_EQ(cudaMemset(d.p, 0xff, kCount * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  Stream s;
  delay_stream(s.s, 300);
  for (std::size_t t = 0; t < 2; ++t) {
    ASSERT_EQ(cudaMemcpyAsync(dev[t].p, in.p + t * kCount, kCount * sizeof(float),
                              cudaMemcpyHostToDevice, s.s),
              cudaSuccess);
  }
  const Tensor tensors[] = {Tensor{dev[0].p, kCount, DataType::kFloat32},
                            Tensor{dev[1].p, kCount, DataType::kFloat32}};
  const absl::Status st =
      allreduce_fused(*comm, tensors, ReduceOp::kSum, FusionOptions{.call = {.stream = s.s}});
  EXPECT_TRUE(st.ok()) << st;
  for (std::size_t t = 0; t < 2; ++t) {
    ASSERT_EQ(cudaMemcpyAsync(out.p + t * kCount, dev[t].p, kCount * sizeof(float),
                              cudaMemcpyDeviceToHost, s.s),
              cudaSuccess);
  }
  ASSERT_EQ(cudaStreamSynchronize(s.s), cudaSuccess);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < 2 * kCount; ++i) {
    double want = 0;
    for (int r = 0; r < world_size(); ++r) want += value(r, i);
    if (static_cast<double>(out.p[i]) != want && bad++ < 5) {
      ADD_FAILURE() << "element " << i << ": got " << out.p[i] << " want " << want;
    }
  }
  EXPECT_EQ(bad, 0u);
}

// A communicator is dropped (aborted) without waiting for its peers: rank 0 drops its own while
// the others still hold theirs and wait, over MPI, to hear that rank 0's drop returned. With a
// destroy that waits for the other ranks of the host (ncclCommDestroy without finalize) the
// message would never come; the wait is bounded so that the test fails instead of hanging.
TEST(Nccl, DroppingACommunicatorDoesNotWaitForPeers) {
  SKIP_WITHOUT_GPUS();
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks (one GPU each)";
  DeviceBytes probe(4);
  auto comm = make_nccl(MPI_COMM_WORLD, probe.p);
  ASSERT_NE(comm, nullptr);
  check_allreduce(*comm, all_ranks(), 1021, DataType::kFloat32, ReduceOp::kSum);
  int token = 0;
  if (world_rank() == 0) {
    comm.reset();
    token = 1;
    for (int r = 1; r < world_size(); ++r) MPI_Send(&token, 1, MPI_INT, r, 7, MPI_COMM_WORLD);
  } else {
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Irecv(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, &req);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    int done = 0;
    while (done == 0 && std::chrono::steady_clock::now() < deadline) {
      MPI_Test(&req, &done, MPI_STATUS_IGNORE);
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(done, 1) << "rank 0's communicator drop waited for this rank";
    comm.reset();  // now rank 0 (if it is stuck) is released too
    if (done == 0) MPI_Wait(&req, MPI_STATUS_IGNORE);
    EXPECT_EQ(token, 1);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST(Nccl, AbortIsStickyAndLocal) {
  SKIP_WITHOUT_GPUS();
  DeviceBytes dev(64);
  auto comm = make_nccl(MPI_COMM_WORLD, dev.p);
  ASSERT_NE(comm, nullptr);
  comm->abort("test");  // local: no peer takes part, none is waited for
  EXPECT_EQ(comm->health().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(comm->allreduce(Tensor{dev.p, 4, DataType::kFloat32}, ReduceOp::kSum).code(),
            absl::StatusCode::kAborted);
  EXPECT_EQ(comm->broadcast(dev.p, 4, 0).code(), absl::StatusCode::kAborted);
  EXPECT_EQ(comm->barrier().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(comm->allreduce(Tensor{dev.p, 0, DataType::kFloat32}, ReduceOp::kSum).code(),
            absl::StatusCode::kAborted);  // also when there is nothing to reduce
  comm.reset();                           // an aborted communicator is released without blocking
}

// count 0 returns at once without communicating (as Open MPI and NCCL do): rank 0 alone calls it;
// no peer takes part, and the communicator stays healthy for the next collective.
TEST(Nccl, EmptyAllreduceIsLocal) {
  SKIP_WITHOUT_GPUS();
  DeviceBytes dev(64);
  auto comm = make_nccl(MPI_COMM_WORLD, dev.p);
  ASSERT_NE(comm, nullptr);
  if (world_rank() == 0) {
    EXPECT_TRUE(comm->allreduce(Tensor{dev.p, 0, DataType::kFloat32}, ReduceOp::kSum).ok());
    EXPECT_TRUE(comm->allreduce(Tensor{nullptr, 0, DataType::kFloat64}, ReduceOp::kAverage).ok());
    EXPECT_TRUE(comm->broadcast(dev.p, 0, 0).ok());
  }
  EXPECT_EQ(comm->allreduce(Tensor{nullptr, 4, DataType::kFloat32}, ReduceOp::kSum).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(comm->health().ok());
  check_allreduce(*comm, all_ranks(), 13, DataType::kFloat32, ReduceOp::kSum);
}

// The last rank never enters the allreduce: the others must return DeadlineExceeded (or Aborted)
// after their timeout with the communicator aborted, every later call Aborted at once; the late
// rank, entering after they gave up, must return too.
TEST(Nccl, MissingPeerTimesOutAndAborts) {
  SKIP_WITHOUT_GPUS();
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks (one GPU each)";
  DeviceBytes dev(1 << 20);
  auto comm = make_nccl(MPI_COMM_WORLD, dev.p);
  ASSERT_NE(comm, nullptr);
  const Tensor t{dev.p, (1 << 20) / 4, DataType::kFloat32};
  const CallOptions shortly{milliseconds(1500)};
  const bool late = world_rank() == world_size() - 1;
  if (!late) {
    const absl::Status st = comm->allreduce(t, ReduceOp::kSum, shortly);
    EXPECT_TRUE(absl::IsDeadlineExceeded(st) || absl::IsAborted(st)) << st;
    EXPECT_FALSE(comm->health().ok());
    EXPECT_EQ(comm->allreduce(t, ReduceOp::kSum, shortly).code(), absl::StatusCode::kAborted);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (late) {
    const absl::Status st = comm->allreduce(t, ReduceOp::kSum, shortly);
    EXPECT_TRUE(absl::IsDeadlineExceeded(st) || absl::IsAborted(st)) << st;
    EXPECT_FALSE(comm->health().ok());
  }
  comm.reset();
  // The GPU and NCCL are usable again: a fresh communicator works.
  auto fresh = make_nccl(MPI_COMM_WORLD, dev.p);
  ASSERT_NE(fresh, nullptr);
  check_allreduce(*fresh, all_ranks(), 13, DataType::kFloat32, ReduceOp::kAverage);
}

// The caller's stream never gets to the collective in time (a 3 s host callback, 500 ms timeout):
// every rank returns DeadlineExceeded with the communicator aborted, the caller's stream, which
// waits for the aborted collective, still drains, and the GPU takes a fresh communicator after.
TEST(Nccl, StuckCallerStreamTimesOutAndAborts) {
  SKIP_WITHOUT_GPUS();
  DeviceBytes dev(1 << 20);
  auto comm = make_nccl(MPI_COMM_WORLD, dev.p);
  ASSERT_NE(comm, nullptr);
  Stream s;
  delay_stream(s.s, 3000);
  const absl::Status st =
      comm->allreduce(Tensor{dev.p, (1 << 20) / 4, DataType::kFloat32}, ReduceOp::kSum,
                      CallOptions{.timeout = milliseconds(500), .stream = s.s});
  EXPECT_TRUE(absl::IsDeadlineExceeded(st)) << st;
  EXPECT_EQ(comm->health().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(cudaStreamSynchronize(s.s), cudaSuccess);
  comm.reset();
  MPI_Barrier(MPI_COMM_WORLD);
  auto fresh = make_nccl(MPI_COMM_WORLD, dev.p);
  ASSERT_NE(fresh, nullptr);
  check_allreduce(*fresh, all_ranks(), 7, DataType::kFloat32, ReduceOp::kSum);
}

// A collective fails (the caller's stream is stuck past the timeout) and the communicator is then
// SHRUNK (to the same ranks here) rather than rebuilt: the new one works on the same GPU, and the
// failed one is aborted. Where NCCL has ncclCommRevoke/ncclCommShrink this is the revoke + shrink
// path; elsewhere shrink_communicator falls back to a new communicator, which must work the same.
TEST(Nccl, ShrinkAfterAFailedCollectiveKeepsTheGpu) {
  SKIP_WITHOUT_GPUS();
  const int mine = gpu_env().device;
  DeviceBytes dev(1 << 20);
  auto comm = make_nccl(MPI_COMM_WORLD, dev.p);
  ASSERT_NE(comm, nullptr);
  Stream s;
  delay_stream(s.s, 2000);
  const absl::Status st =
      comm->allreduce(Tensor{dev.p, (1 << 20) / 4, DataType::kFloat32}, ReduceOp::kSum,
                      CallOptions{.timeout = milliseconds(300), .stream = s.s});
  EXPECT_TRUE(absl::IsDeadlineExceeded(st)) << st;
  EXPECT_EQ(comm->health().code(), absl::StatusCode::kAborted);
  EXPECT_EQ(cudaStreamSynchronize(s.s), cudaSuccess);
  auto shrunk = shrink_communicator(*comm, MPI_COMM_WORLD);
  ASSERT_TRUE(shrunk.ok()) << shrunk.status();
  EXPECT_EQ((*shrunk)->backend_name(), "nccl");
  EXPECT_EQ((*shrunk)->size(), world_size());
  EXPECT_EQ(current_device(), mine);
  check_allreduce(**shrunk, all_ranks(), 65537, DataType::kFloat32, ReduceOp::kSum);
  EXPECT_EQ(comm->allreduce(Tensor{dev.p, 1, DataType::kFloat32}, ReduceOp::kSum).code(),
            absl::StatusCode::kAborted);
  comm.reset();
}

// The first rank leaves on notice; the others shrink the communicator they had (their local ranks
// shift down by one), on the same GPUs, and it reduces over them alone.
TEST(Nccl, ShrinkWithoutTheFirstRank) {
  SKIP_WITHOUT_GPUS();
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks (one GPU each)";
  DeviceBytes probe(4);
  auto old_comm = make_nccl(MPI_COMM_WORLD, probe.p);
  ASSERT_NE(old_comm, nullptr);
  check_allreduce(*old_comm, all_ranks(), 1021, DataType::kFloat32, ReduceOp::kSum);
  const bool leaves = world_rank() == 0;
  MPI_Comm survivors = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, leaves ? MPI_UNDEFINED : 0, world_rank(), &survivors),
            MPI_SUCCESS);
  if (!leaves) {
    auto shrunk = shrink_communicator(*old_comm, survivors);
    ASSERT_TRUE(shrunk.ok()) << shrunk.status();
    std::vector<int> members = all_ranks();
    members.erase(members.begin());
    EXPECT_EQ((*shrunk)->rank(), world_rank() - 1);
    check_allreduce(**shrunk, members, 65537, DataType::kFloat32, ReduceOp::kSum);
    MPI_Comm_free(&survivors);
  }
  old_comm.reset();
  MPI_Barrier(MPI_COMM_WORLD);
}

// Survivors that are not ranks of the old membership in their old order are refused on every
// survivor, before NCCL is asked.
TEST(Nccl, ShrinkRefusesReorderedSurvivors) {
  SKIP_WITHOUT_GPUS();
  if (world_size() < 2) GTEST_SKIP() << "needs 2 ranks (one GPU each)";
  DeviceBytes probe(4);
  auto old_comm = make_nccl(MPI_COMM_WORLD, probe.p);
  ASSERT_NE(old_comm, nullptr);
  MPI_Comm reversed = MPI_COMM_NULL;
  ASSERT_EQ(MPI_Comm_split(MPI_COMM_WORLD, 0, world_size() - world_rank(), &reversed), MPI_SUCCESS);
  auto shrunk = shrink_communicator(*old_comm, reversed);
  EXPECT_TRUE(absl::IsInvalidArgument(shrunk.status())) << shrunk.status();
  MPI_Comm_free(&reversed);
}

}  // namespace
}  // namespace elastic::coll

int main(int argc, char** argv) {
  return run_mpi_gtest(argc, argv, [] { elastic::coll::shared_comm().reset(); });
}
