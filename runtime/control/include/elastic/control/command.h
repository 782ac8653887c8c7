// Running a scheduler's command-line client (sinfo, squeue, sbatch, pbsnodes) through the shell
// and capturing its standard output. LOCAL; blocks until the command exits.
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace elastic::rt {

// Unavailable (naming the command and its exit status) when it does not exit 0; its standard
// error passes through to ours.
absl::StatusOr<std::string> run_capture(std::string_view command);

// `text` quoted for a POSIX shell (single quotes).
std::string shell_quote(std::string_view text);

}  // namespace elastic::rt
