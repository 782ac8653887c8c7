// Integers read from the runtime's JSON records (the journal, status.json). nlohmann's get<int>()
// converts any number: a float out of int's range is undefined behaviour, 2.5 becomes 2, 2^32
// wraps. These take only an integer within the type's range and
// otherwise throw nlohmann::json::type_error, as get<>() does for a value of the wrong type, so
// that the readers' existing handlers turn it into an error naming the record.
#pragma once

#include <concepts>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>

#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace elastic::rt {

// `value`, the JSON field `field`, as a T.
template <std::integral T>
T json_integer(const nlohmann::json& value, std::string_view field) {
  if (value.is_number_unsigned() && std::in_range<T>(value.get<std::uint64_t>())) {
    return static_cast<T>(value.get<std::uint64_t>());
  }
  if (value.is_number_integer() && !value.is_number_unsigned() &&
      std::in_range<T>(value.get<std::int64_t>())) {
    return static_cast<T>(value.get<std::int64_t>());
  }
  throw nlohmann::json::type_error::create(
      302,
      fmt::format("field '{}': expected an integer in [{}, {}], got {}", field,
                  std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), value.dump()),
      &value);
}

// object[key] as a T; nlohmann's out_of_range when the object has no such key.
template <std::integral T>
T json_integer_at(const nlohmann::json& object, std::string_view key) {
  return json_integer<T>(object.at(key), key);
}

// object[key] as a T, or `fallback` when the object has no such key.
template <std::integral T>
T json_integer_or(const nlohmann::json& object, std::string_view key, T fallback) {
  const auto it = object.find(key);
  return it == object.end() ? fallback : json_integer<T>(*it, key);
}

}  // namespace elastic::rt
