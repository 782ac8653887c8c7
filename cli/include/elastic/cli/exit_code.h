// The exit code of every libelastic command (elastic-alloc, elastic-replay, elastic, elasticd) for
// the status it ends with, written once (STYLE.md: one helper for one policy):
//   0  OK.
//   2  bad input, the user must change the command line, a file or the state dir:
//      InvalidArgument (malformed or out-of-range input; the message names the file, line and
//      field), NotFound (no such file or job), AlreadyExists (a job id taken), FailedPrecondition
//      (an unsafe state dir, a job already finished), OutOfRange.
//   1  the run failed: Internal, DataLoss (a file could not be read back: a damaged journal, an
//      I/O error), Unavailable (another elasticd holds the state dir), Aborted, DeadlineExceeded
//      and every other code.
// Command-line parse errors (CLI11) exit 2 as well; --help exits 0.
#pragma once

#include "absl/status/status.h"

namespace elastic::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

int exit_code(const absl::Status& status);

}  // namespace elastic::cli
