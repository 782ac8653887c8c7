// The membership-error policy (membership_error.h): which codes become Unavailable (a refused
// spawn: retry later, J intact) or Aborted (repair J), and that the message is kept.
#include "elastic/worker/internal/membership_error.h"

#include <gtest/gtest.h>

namespace elastic::rt {
namespace {

TEST(MembershipError, ARefusedSpawnIsUnavailableAndKeepsItsMessage) {
  const absl::Status st = spawn_error(absl::InternalError("MPI_Comm_spawn failed: no such host"));
  EXPECT_EQ(st.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(st.message(), "MPI_Comm_spawn failed: no such host");
}

TEST(MembershipError, AnyOtherMpiFailureDuringAChangeIsAborted) {
  const absl::Status st = membership_error(absl::InternalError("MPI_Intercomm_merge failed"));
  EXPECT_EQ(st.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(st.message(), "MPI_Intercomm_merge failed");
}

TEST(MembershipError, OtherCodesPassThrough) {
  for (const absl::Status& st :
       {absl::OkStatus(), absl::AbortedError("peer died"), absl::DeadlineExceededError("late"),
        absl::InvalidArgumentError("bad env"), absl::UnavailableError("refused")}) {
    EXPECT_EQ(spawn_error(st), st);
    EXPECT_EQ(membership_error(st), st);
  }
}

}  // namespace
}  // namespace elastic::rt
