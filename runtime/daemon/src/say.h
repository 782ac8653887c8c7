// How elasticd reports: say() writes one line to stderr, msg() is a status's message as a string
// (Debian's Abseil has its own string_view). Shared by daemon.cc and daemon_jobs.cc.
#pragma once

#include <cstdio>
#include <string>

#include "absl/status/status.h"

namespace elastic::rt {

inline std::string msg(const absl::Status& s) { return std::string(s.message()); }

inline void say(const std::string& line) {
  std::fprintf(stderr, "elasticd: %s\n", line.c_str());
  std::fflush(stderr);
}

// A journal record that could not be written is said; the daemon goes on with what it knows.
inline void say_journal_error(const absl::Status& s) {
  if (!s.ok()) say("journal: " + msg(s));
}

}  // namespace elastic::rt
