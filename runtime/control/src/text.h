// Splitting and trimming std::string_view for the control plane's text formats (hostfiles, sinfo
// and PBS output, PATH). absl::StrSplit / absl::StripAsciiWhitespace would do, but Debian's Abseil
// has its own absl::string_view (ABSL_OPTION_USE_STD_STRING_VIEW 0) that does not convert to or
// from the std::string_view used everywhere here. Formatting is fmt::format at the call sites.
#pragma once

#include <string_view>
#include <vector>

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

}  // namespace elastic::rt
