#include "elastic/allocator/input_limits.h"

#include "fmt/format.h"

namespace elastic::alloc {

std::string echo_token(std::string_view token) {
  if (token.size() <= kEchoedChars) return std::string(token);
  return fmt::format("{}... ({} bytes)", token.substr(0, kEchoedChars), token.size());
}

}  // namespace elastic::alloc
