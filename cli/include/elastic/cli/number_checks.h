// Option checks for numbers that say what is wanted. CLI11 2.1's PositiveNumber and
// NonNegativeNumber report a bad value as "Value -1 not in range 0.000000 to 1797693...", the
// whole range of a double in 309 digits. Header-only; the program links CLI11 itself.
#pragma once

#include <string>

#include "CLI/CLI.hpp"

namespace elastic::cli {
namespace detail {

template <typename Ok>
CLI::Validator number_check(Ok ok, const char* wanted, const char* description) {
  return CLI::Validator(
      [ok, wanted](std::string& in) -> std::string {
        double x = 0;
        if (!CLI::detail::lexical_cast(in, x)) return "'" + in + "' is not a number";
        return ok(x) ? std::string() : std::string(wanted) + ", got " + in;
      },
      description);
}

}  // namespace detail

// x > 0 (help: POSITIVE)
inline CLI::Validator positive() {
  return detail::number_check([](double x) { return x > 0; }, "must be > 0", "POSITIVE");
}

// x >= 0 (help: NONNEGATIVE)
inline CLI::Validator non_negative() {
  return detail::number_check([](double x) { return x >= 0; }, "must be >= 0", "NONNEGATIVE");
}

}  // namespace elastic::cli
