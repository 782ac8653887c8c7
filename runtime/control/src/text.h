// Small string helpers for the control plane. Debian's Abseil is built without
// absl::string_view == std::string_view, so absl's string functions do not accept the
// std::string_view this code uses everywhere; these do.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace elastic::rt {

template <typename... Args>
std::string cat(const Args&... args) {
  std::ostringstream out;
  (out << ... << args);
  return out.str();
}

template <typename... Args>
void str_append(std::string* out, const Args&... args) {
  *out += cat(args...);
}

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

inline bool is_space(char c) { return kSpaces.find(c) != std::string_view::npos; }
inline bool is_alnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace elastic::rt
