#include "gpu_check.h"

#include "absl/strings/str_cat.h"

namespace elastic::examples {

absl::Status cuda_status(cudaError_t rc, const char* call_text, const char* file, int line) {
  if (rc == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call_text, " failed at ", file, ":", line, ": ",
                                          cudaGetErrorName(rc), ": ", cudaGetErrorString(rc)));
}

absl::Status cublas_status(cublasStatus_t rc, const char* call_text, const char* file, int line) {
  if (rc == CUBLAS_STATUS_SUCCESS) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call_text, " failed at ", file, ":", line, ": ",
                                          cublasGetStatusName(rc), ": ",
                                          cublasGetStatusString(rc)));
}

}  // namespace elastic::examples
