#include "nccl/check.h"

#include <string>

#include "absl/strings/str_cat.h"

namespace elastic::coll::nccl {

absl::Status nccl_status(ncclResult_t rc, const char* call_text, const char* file, int line) {
  if (rc == ncclSuccess || rc == ncclInProgress) return absl::OkStatus();
  const char* last = ncclGetLastError(nullptr);
  std::string msg =
      absl::StrCat(call_text, " failed at ", file, ":", line, ": ", ncclGetErrorString(rc),
                   (last != nullptr && *last != '\0') ? " (" : "", last != nullptr ? last : "",
                   (last != nullptr && *last != '\0') ? ")" : "");
  if (rc == ncclRemoteError || rc == ncclSystemError) return absl::AbortedError(std::move(msg));
  return absl::InternalError(std::move(msg));
}

absl::Status cuda_status(cudaError_t rc, const char* call_text, const char* file, int line) {
  if (rc == cudaSuccess) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(call_text, " failed at ", file, ":", line, ": ",
                                          cudaGetErrorName(rc), ": ", cudaGetErrorString(rc)));
}

}  // namespace elastic::coll::nccl
