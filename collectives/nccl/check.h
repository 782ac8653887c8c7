// Check macros for NCCL and CUDA calls: an error becomes an absl::Status naming the call,
// file:line and the library's error string (plus ncclGetLastError's detail). Asynchronous NCCL
// errors (a peer vanished, remote error) map to Aborted; anything else is Internal.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include "absl/status/status.h"

namespace elastic::coll::nccl {

absl::Status nccl_status(ncclResult_t rc, const char* call_text, const char* file, int line);
absl::Status cuda_status(cudaError_t rc, const char* call_text, const char* file, int line);

}  // namespace elastic::coll::nccl

#define ELASTIC_NCCL_CHECK(call)                                                              \
  do {                                                                                        \
    if (const ncclResult_t elastic_nccl_rc_ = (call);                                         \
        elastic_nccl_rc_ != ncclSuccess && elastic_nccl_rc_ != ncclInProgress) {              \
      return ::elastic::coll::nccl::nccl_status(elastic_nccl_rc_, #call, __FILE__, __LINE__); \
    }                                                                                         \
  } while (0)

#define ELASTIC_CUDA_CHECK(call)                                                              \
  do {                                                                                        \
    if (const cudaError_t elastic_cuda_rc_ = (call); elastic_cuda_rc_ != cudaSuccess) {       \
      return ::elastic::coll::nccl::cuda_status(elastic_cuda_rc_, #call, __FILE__, __LINE__); \
    }                                                                                         \
  } while (0)
