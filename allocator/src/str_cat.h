// absl::StrCat without absl's string_view: Debian's abseil is built with its own string_view
// (ABSL_OPTION_USE_STD_STRING_VIEW 0), so StrCat rejects std::string_view arguments. fmt formats
// every argument; numbers come out in their shortest exact form. Private to the allocator.
#pragma once

#include <iterator>
#include <string>
#include <string_view>

#include "absl/strings/string_view.h"
#include "fmt/format.h"

namespace elastic::alloc {

namespace detail {
template <typename T>
const T& formattable(const T& value) {
  return value;
}
inline std::string_view formattable(absl::string_view value) {
  return {value.data(), value.size()};
}
}  // namespace detail

template <typename... Args>
std::string str_cat(const Args&... args) {
  std::string out;
  (fmt::format_to(std::back_inserter(out), "{}", detail::formattable(args)), ...);
  return out;
}

}  // namespace elastic::alloc
