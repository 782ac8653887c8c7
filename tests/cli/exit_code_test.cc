// The status -> exit code mapping shared by every command (exit_code.h).
#include "elastic/cli/exit_code.h"

#include <gtest/gtest.h>

namespace elastic::cli {
namespace {

TEST(ExitCode, OkIsZero) { EXPECT_EQ(exit_code(absl::OkStatus()), 0); }

TEST(ExitCode, BadInputIsTwo) {
  for (const absl::Status& st :
       {absl::InvalidArgumentError("jobs[0].max_nodes: ..."), absl::NotFoundError("no file"),
        absl::AlreadyExistsError("job 'a' is already queued"),
        absl::FailedPreconditionError("state dir is group-writable"),
        absl::OutOfRangeError("--nodes")}) {
    EXPECT_EQ(exit_code(st), 2) << st;
  }
}

TEST(ExitCode, FailuresOfTheRunAreOne) {
  for (const absl::Status& st :
       {absl::InternalError("lp_solve"), absl::DataLossError("journal.jsonl:2: bad record"),
        absl::UnavailableError("another elasticd"), absl::AbortedError("peer died"),
        absl::DeadlineExceededError("spawn"), absl::UnknownError("?")}) {
    EXPECT_EQ(exit_code(st), 1) << st;
  }
}

}  // namespace
}  // namespace elastic::cli
