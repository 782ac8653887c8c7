#include "elastic/cli/exit_code.h"

namespace elastic::cli {

int exit_code(const absl::Status& status) {
  switch (status.code()) {
    case absl::StatusCode::kOk:
      return kExitOk;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return kExitBadInput;
    default:
      return kExitFailure;
  }
}

}  // namespace elastic::cli
