// Splitting and trimming std::string_view for the control plane's text formats (hostfiles, sinfo
// and PBS output, PATH), their counts, and the error that points into them. absl::StrSplit /
// absl::StripAsciiWhitespace would do, but Debian's Abseil has its own absl::string_view
// (ABSL_OPTION_USE_STD_STRING_VIEW 0) that does not convert to or from the std::string_view used
// everywhere here. Formatting is fmt::format at the call sites.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "elastic/allocator/input_limits.h"
#include "fmt/format.h"

namespace elastic::rt {

// Splits at any of `delims`; empty pieces are kept unless `skip_empty`.
inline std::vector<std::string_view> split(std::string_view text, std::string_view delims,
                                           bool skip_empty = false) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = text.find_first_of(delims, start);
    const std::string_view piece =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (!(skip_empty && piece.empty())) out.push_back(piece);
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

inline constexpr std::string_view kSpaces = " \t\r\n\v\f";

inline std::string_view trim_left(std::string_view s) {
  const std::size_t i = s.find_first_not_of(kSpaces);
  return i == std::string_view::npos ? std::string_view() : s.substr(i);
}
inline std::string_view trim_right(std::string_view s) {
  const std::size_t i = s.find_last_not_of(kSpaces);
  return i == std::string_view::npos ? std::string_view() : s.substr(0, i + 1);
}
inline std::string_view trim(std::string_view s) { return trim_left(trim_right(s)); }

// A count field (CPUs, slots): a whole positive int and nothing else.
inline std::optional<int> positive_int(std::string_view s) {
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || v < 1) return std::nullopt;
  return v;
}

// InvalidArgument "<source>:<line>: <what> '<token>'", the token cut short when long.
inline absl::Status line_error(std::string_view source, int line, std::string_view what,
                               std::string_view token) {
  return absl::InvalidArgumentError(
      fmt::format("{}:{}: {} '{}'", source, line, what, alloc::echo_token(token)));
}

}  // namespace elastic::rt
