// Little helpers to append/read fixed-size values to/from byte vectors (native byte order: the
// snapshots and checkpoints are read back by the same build on the same kind of machine).
#pragma once

#include <cstddef>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace elastic::rt {

template <typename T, typename A>
void put(std::vector<std::byte, A>& out, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  const auto* p = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

template <typename A>
void put_bytes(std::vector<std::byte, A>& out, const void* p, std::size_t n) {
  const auto* b = static_cast<const std::byte*>(p);
  out.insert(out.end(), b, b + n);
}

// Reads sequentially from a byte span; every read is bounds-checked.
class Reader {
 public:
  explicit Reader(std::span<const std::byte> in) : in_(in) {}
  template <typename T>
  std::optional<T> get() {
    static_assert(std::is_trivially_copyable_v<T>);
    if (in_.size() - pos_ < sizeof(T)) return std::nullopt;
    T v;
    std::memcpy(&v, in_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }
  std::optional<std::span<const std::byte>> take(std::size_t n) {
    if (in_.size() - pos_ < n) return std::nullopt;
    auto s = in_.subspan(pos_, n);
    pos_ += n;
    return s;
  }
  std::size_t left() const { return in_.size() - pos_; }

 private:
  std::span<const std::byte> in_;
  std::size_t pos_ = 0;
};

}  // namespace elastic::rt
