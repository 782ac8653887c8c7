#include "elastic/worker/internal/membership_error.h"

namespace elastic::rt {

absl::Status spawn_error(const absl::Status& st) {
  return absl::IsInternal(st) ? absl::UnavailableError(st.message()) : st;
}

absl::Status membership_error(const absl::Status& st) {
  return absl::IsInternal(st) ? absl::AbortedError(st.message()) : st;
}

}  // namespace elastic::rt
