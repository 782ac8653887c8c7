// Check macros for the CUDA runtime and cuBLAS calls of example 03: a failed call becomes an
// absl::Status naming the call, file:line and the library's error string, so that the training loop
// can stop with a message instead of a crash. (collectives/ has its own, private ones for NCCL.)
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include "absl/status/status.h"

namespace elastic::examples {

absl::Status cuda_status(cudaError_t rc, const char* call_text, const char* file, int line);
absl::Status cublas_status(cublasStatus_t rc, const char* call_text, const char* file, int line);

}  // namespace elastic::examples

#define EX_CUDA_CHECK(call)                                                            \
  do {                                                                                 \
    if (const cudaError_t ex_cuda_rc_ = (call); ex_cuda_rc_ != cudaSuccess) {          \
      return ::elastic::examples::cuda_status(ex_cuda_rc_, #call, __FILE__, __LINE__); \
    }                                                                                  \
  } while (0)

#define EX_CUBLAS_CHECK(call)                                                                  \
  do {                                                                                         \
    if (const cublasStatus_t ex_cublas_rc_ = (call); ex_cublas_rc_ != CUBLAS_STATUS_SUCCESS) { \
      return ::elastic::examples::cublas_status(ex_cublas_rc_, #call, __FILE__, __LINE__);     \
    }                                                                                          \
  } while (0)
