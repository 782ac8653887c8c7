// What it costs to get the next membership's NCCL communicator: a new one (create_communicator:
// unique id, ncclCommInitRankConfig, topology search, connections) against ncclCommShrink of the one
// the ranks had (shrink_communicator), on the same GPUs in the same run:
//   same ranks     after a failed collective (revoked, then shrunk; nobody lost), median of samples;
//   without last   the last rank leaves on notice (np >= 2), median of samples;
//   after kill     the last rank is SIGKILLed (np >= 2, mpirun --with-ft ulfm): the survivors take
//                  MPIX_Comm_shrink of the world, then shrink the NCCL communicator, then build a
//                  new one over the same survivors for comparison; once, at the end.
// Rank 0 prints one line per case: milliseconds of create and of shrink (slowest rank) and their
// ratio, and whether the loaded NCCL can shrink at all (else shrink_communicator falls back to a
// new communicator and the two columns measure the same thing).
//
//   mpirun --with-ft ulfm -n N bench_nccl_rebuild [samples=10]
// Exits 77 without a CUDA device.
#include <mpi.h>
#include <cuda_runtime.h>
#include <mpi-ext.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "../world.h"
#include "elastic/cli/number_checks.h"
#include "elastic/collectives/factory.h"
#include "require_gpu.h"

namespace coll = elastic::coll;
using Clock = std::chrono::steady_clock;

namespace {

[[noreturn]] void die(const char* what, const std::string& detail) {
  std::fprintf(stderr, "bench_nccl_rebuild: %s: %s\n", what, detail.c_str());
  std::fflush(stderr);
  std::abort();
}

std::unique_ptr<coll::Communicator> must(absl::StatusOr<std::unique_ptr<coll::Communicator>> c,
                                         const char* what) {
  if (!c.ok()) die(what, c.status().ToString());
  return std::move(*c);
}

// Seconds of `f` on the slowest rank of `comm` (barrier-aligned).
double timed(MPI_Comm comm, const std::function<void()>& f) {
  MPI_Barrier(comm);
  const auto t0 = Clock::now();
  f();
  double dt = std::chrono::duration<double>(Clock::now() - t0).count();
  MPI_Allreduce(MPI_IN_PLACE, &dt, 1, MPI_DOUBLE, MPI_MAX, comm);
  return dt;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

// The membership's sum over its ranks of 1.0f must be its size: the new communicator works.
void verify(coll::Communicator& c, float* dev) {
  const float one = 1.0f;
  cudaMemcpy(dev, &one, sizeof one, cudaMemcpyHostToDevice);
  const absl::Status st =
      c.allreduce(coll::Tensor{dev, 1, coll::DataType::kFloat32}, coll::ReduceOp::kSum);
  if (!st.ok()) die("allreduce on the new communicator", st.ToString());
  float sum = 0;
  cudaMemcpy(&sum, dev, sizeof sum, cudaMemcpyDeviceToHost);
  if (sum != static_cast<float>(c.size())) die("allreduce on the new communicator", "wrong sum");
}

// A collective that cannot finish in time: the caller's stream is held by a 200 ms host callback
// and the call has 20 ms. The communicator fails (revoked where NCCL can).
void fail_a_collective(coll::Communicator& c, float* dev) {
  cudaStream_t s = nullptr;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaLaunchHostFunc(
      s, [](void*) { std::this_thread::sleep_for(std::chrono::milliseconds(200)); }, nullptr);
  const absl::Status st =
      c.allreduce(coll::Tensor{dev, 1, coll::DataType::kFloat32}, coll::ReduceOp::kSum,
                  coll::CallOptions{.timeout = std::chrono::milliseconds(20), .stream = s});
  if (st.ok()) die("failing a collective", "it succeeded");
  cudaStreamSynchronize(s);
  cudaStreamDestroy(s);
}

void report(int rank, const char* what, int from, int to, double create_s, double shrink_s) {
  if (rank != 0) return;
  std::printf("%-14s %4d %4d %12.2f %12.2f %8.2f\n", what, from, to, create_s * 1e3, shrink_s * 1e3,
              create_s / shrink_s);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  int samples = 10;
  CLI::App app{
      "A new NCCL communicator against ncclCommShrink of the old one (run under mpirun "
      "--with-ft ulfm; exits 77 without a CUDA device)"};
  app.add_option("samples", samples, "Samples per case")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  const auto [rank, size] = elastic::bench::start_mpi(&argc, &argv, app);
  if (!elastic::bench::require_gpu_or_finalize(rank)) return 77;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  float* dev = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&dev), 4096) != cudaSuccess) die("cudaMalloc", "failed");
  int version = 0;
  ncclGetVersion(&version);
  if (rank == 0) {
    std::printf("# NCCL %d loaded (built against %d); shrink %s; median of %d samples\n", version,
                NCCL_VERSION_CODE,
                version >= NCCL_VERSION(2, 27, 3) && NCCL_VERSION_CODE >= NCCL_VERSION(2, 27, 3)
                    ? "available"
                    : "NOT available (both columns are a new communicator)",
                samples);
    std::printf("%-14s %4s %4s %12s %12s %8s\n", "case", "from", "to", "create_ms", "shrink_ms",
                "ratio");
  }
  auto warm = must(coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kNccl), "warm-up");
  verify(*warm, dev);
  warm.reset();

  std::vector<double> create_s, shrink_s;
  for (int i = 0; i < samples; ++i) {
    std::unique_ptr<coll::Communicator> c;
    create_s.push_back(timed(MPI_COMM_WORLD, [&] {
      c = must(coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kNccl), "create");
    }));
    verify(*c, dev);
    fail_a_collective(*c, dev);
    std::unique_ptr<coll::Communicator> next;
    shrink_s.push_back(timed(MPI_COMM_WORLD, [&] {
      next = must(coll::shrink_communicator(*c, MPI_COMM_WORLD), "shrink after a failure");
    }));
    verify(*next, dev);
  }
  report(rank, "same_ranks", size, size, median(create_s), median(shrink_s));
  if (size < 2) {
    cudaFree(dev);
    MPI_Finalize();
    return 0;
  }

  const bool last = rank == size - 1;
  MPI_Comm rest = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, last ? MPI_UNDEFINED : 0, rank, &rest);
  create_s.clear(), shrink_s.clear();
  for (int i = 0; i < samples; ++i) {
    auto c = must(coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kNccl), "create");
    verify(*c, dev);
    if (!last) {
      std::unique_ptr<coll::Communicator> next;
      shrink_s.push_back(timed(rest, [&] {
        next = must(coll::shrink_communicator(*c, rest), "shrink without the last rank");
      }));
      verify(*next, dev);
      next.reset();
      create_s.push_back(timed(rest, [&] {
        next = must(coll::create_communicator(rest, coll::Backend::kNccl), "create on the rest");
      }));
      verify(*next, dev);
    }
    c.reset();
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (!last) report(rank, "without_last", size, size - 1, median(create_s), median(shrink_s));

  // The last rank dies with the communicator built and idle.
  auto c = must(coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kNccl), "create");
  verify(*c, dev);
  MPI_Barrier(MPI_COMM_WORLD);
  if (last) std::raise(SIGKILL);
  MPI_Comm survivors = MPI_COMM_NULL;
  // The failure is noticed by a collective on the world (ULFM), which is then revoked and shrunk.
  if (MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS) MPI_Barrier(MPI_COMM_WORLD);
  MPIX_Comm_revoke(MPI_COMM_WORLD);
  if (MPIX_Comm_shrink(MPI_COMM_WORLD, &survivors) != MPI_SUCCESS)
    die("MPIX_Comm_shrink", "failed");
  std::unique_ptr<coll::Communicator> next;
  const double shrink_kill = timed(survivors, [&] {
    next = must(coll::shrink_communicator(*c, survivors), "shrink after the kill");
  });
  verify(*next, dev);
  next.reset();
  const double create_kill = timed(survivors, [&] {
    next =
        must(coll::create_communicator(survivors, coll::Backend::kNccl), "create after the kill");
  });
  verify(*next, dev);
  report(rank, "after_kill", size, size - 1, create_kill, shrink_kill);
  next.reset();
  c.reset();
  cudaFree(dev);
  MPI_Comm_free(&survivors);
  if (rest != MPI_COMM_NULL) MPI_Comm_free(&rest);
  MPI_Finalize();
  return 0;
}
