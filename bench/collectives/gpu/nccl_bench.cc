// The NCCL path of elastic::coll against calling ncclAllReduce directly, on the same GPUs in the
// same run: float32 sum, 1 KiB to 256 MiB, one rank per GPU (the target: <= 5% overhead
// from 1 MiB up, one rank). Both sides are blocking calls (the raw one is ncclAllReduce +
// cudaStreamSynchronize, since elastic::coll's allreduce returns only when the result is there), on
// their own communicators over the same ranks. A sample is one barrier-aligned call timed on the
// slowest rank; the median of the samples is reported (../timing.h).
//
//   mpirun -n 1 bench_nccl [max_MiB=256] [samples=30] [min_KiB=1]
// Exits 77 without a CUDA device.
#include <mpi.h>
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../timing.h"
#include "../world.h"
#include "elastic/cli/number_checks.h"
#include "elastic/collectives/factory.h"
#include "require_gpu.h"

namespace coll = elastic::coll;

namespace {

[[noreturn]] void die(const char* what, const char* detail) {
  std::fprintf(stderr, "bench_nccl: %s: %s\n", what, detail);
  MPI_Abort(MPI_COMM_WORLD, 1);
  std::abort();
}

void check_cuda(cudaError_t rc, const char* what) {
  if (rc != cudaSuccess) die(what, cudaGetErrorString(rc));
}
void check_nccl(ncclResult_t rc, const char* what) {
  if (rc != ncclSuccess) die(what, ncclGetErrorString(rc));
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t max_mib = 256;
  int samples = 30;
  std::size_t min_kib = 1;
  CLI::App app{
      "elastic::coll's NCCL allreduce against ncclAllReduce called directly (run under "
      "mpirun; exits 77 without a CUDA device)"};
  app.add_option("max_MiB", max_mib, "The largest message")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 20))
      ->capture_default_str();
  app.add_option("samples", samples, "Samples per size")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  app.add_option("min_KiB", min_kib, "The smallest message")
      ->check(elastic::cli::positive())
      ->capture_default_str();
  const auto [rank, size] = elastic::bench::start_mpi(&argc, &argv, app);

  if (!elastic::bench::require_gpu_or_finalize(rank)) return 77;

  // The factory picks this rank's GPU (local rank % devices) and makes it current; the raw
  // communicator then uses the same one.
  void* buf = nullptr;
  auto elastic_comm = coll::create_communicator(MPI_COMM_WORLD, coll::Backend::kNccl);
  if (!elastic_comm.ok()) die("create_communicator", elastic_comm.status().ToString().c_str());
  const std::size_t max_bytes = max_mib << 20;
  check_cuda(cudaMalloc(&buf, max_bytes), "cudaMalloc");
  check_cuda(cudaMemset(buf, 0, max_bytes), "cudaMemset");
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

  ncclUniqueId id{};
  if (rank == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
  ncclComm_t raw = nullptr;
  check_nccl(ncclCommInitRank(&raw, size, id, rank), "ncclCommInitRank");
  cudaStream_t stream = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

  if (rank == 0) {
    std::printf("# %d rank(s), float32 sum, median of %d samples\n", size, samples);
    std::printf("%10s %12s %12s %12s %12s %10s\n", "bytes", "raw_us", "elastic_us", "raw_GB/s",
                "elastic_GB/s", "overhead%");
  }
  for (std::size_t bytes = min_kib << 10; bytes <= max_bytes; bytes *= 4) {
    const std::size_t count = bytes / sizeof(float);
    auto run_raw = [&] {
      check_nccl(ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, raw, stream),
                 "ncclAllReduce");
      check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
    };
    auto run_elastic = [&] {
      const absl::Status st =
          (*elastic_comm)
              ->allreduce(coll::Tensor{buf, count, coll::DataType::kFloat32}, coll::ReduceOp::kSum);
      if (!st.ok()) die("elastic allreduce", st.ToString().c_str());
    };
    for (int w = 0; w < 3; ++w) run_raw(), run_elastic();  // warm both paths up
    const auto [raw_s, ela_s] = elastic::bench::median_seconds<2>(samples, {run_raw, run_elastic});
    if (rank == 0) {
      std::printf("%10zu %12.1f %12.1f %12.2f %12.2f %10.2f\n", bytes, raw_s * 1e6, ela_s * 1e6,
                  static_cast<double>(bytes) / raw_s / 1e9,
                  static_cast<double>(bytes) / ela_s / 1e9, (ela_s / raw_s - 1.0) * 100.0);
      std::fflush(stdout);
    }
  }
  cudaStreamDestroy(stream);
  ncclCommDestroy(raw);
  elastic_comm->reset();
  cudaFree(buf);
  MPI_Finalize();
  return 0;
}
