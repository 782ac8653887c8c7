// Option checks for numbers that say what is wanted. CLI11 2.1's PositiveNumber and
// NonNegativeNumber report a bad value as "Value -1 not in range 0.000000 to 1797693...", the
// whole range of a double in 309 digits. Every check refuses inf and nan: a value that passes is
// finite. Durations and sizes have an upper bound as well, so that the conversions the programs do
// (seconds to std::chrono durations or milliseconds in a long, MB to bytes) cannot overflow: an
// `--every inf` busy-looped, `--max-wait-s inf` waited not at all. Header-only; the program links
// CLI11 itself.
#pragma once

#include <cmath>
#include <string>

#include "CLI/CLI.hpp"

namespace elastic::cli {

// The most seconds a duration option takes: about 116 days, the allocator's own bound on its
// horizon and stalls (elastic/allocator/input_limits.h). Within it seconds * 1000 fits a long of
// milliseconds and seconds * 1e9 the int64 nanoseconds of std::chrono's clocks, with room for
// now() + it.
inline constexpr double kMaxSeconds = 1e7;
// The most MB a size option takes (about 1 TB): times 1024 * 1024 it fits a 64-bit size.
inline constexpr double kMaxMegabytes = 1e6;

namespace detail {

// A check of lo < x (lo <= x when `closed`), x finite and x <= hi; `wanted` says the lower bound
// ("must be > 0"), `too_big` the upper one.
inline CLI::Validator number_check(double lo, bool closed, const char* wanted, double hi,
                                   const char* too_big, const char* description) {
  return CLI::Validator(
      [=](std::string& in) -> std::string {
        double x = 0;
        if (!CLI::detail::lexical_cast(in, x)) return "'" + in + "' is not a number";
        if (!(closed ? x >= lo : x > lo)) return std::string(wanted) + ", got " + in;
        if (!std::isfinite(x)) return "must be a finite number, got " + in;
        if (x > hi) return std::string(too_big) + ", got " + in;
        return std::string();
      },
      description);
}

}  // namespace detail

// 0 < x < inf (help: POSITIVE)
inline CLI::Validator positive() {
  return detail::number_check(0, false, "must be > 0", HUGE_VAL, "", "POSITIVE");
}

// 0 <= x < inf (help: NONNEGATIVE)
inline CLI::Validator non_negative() {
  return detail::number_check(0, true, "must be >= 0", HUGE_VAL, "", "NONNEGATIVE");
}

// Seconds: 0 < x <= kMaxSeconds (help: SECONDS>0)
inline CLI::Validator positive_seconds() {
  return detail::number_check(0, false, "must be > 0", kMaxSeconds,
                              "must be at most 1e7 seconds (about 116 days)", "SECONDS>0");
}

// Seconds: 0 <= x <= kMaxSeconds (help: SECONDS>=0)
inline CLI::Validator non_negative_seconds() {
  return detail::number_check(0, true, "must be >= 0", kMaxSeconds,
                              "must be at most 1e7 seconds (about 116 days)", "SECONDS>=0");
}

// MB: 0 < x <= kMaxMegabytes (help: MB>0)
inline CLI::Validator positive_megabytes() {
  return detail::number_check(0, false, "must be > 0", kMaxMegabytes,
                              "must be at most 1e6 MB (about 1 TB)", "MB>0");
}

// MB: 0 <= x <= kMaxMegabytes (help: MB>=0)
inline CLI::Validator non_negative_megabytes() {
  return detail::number_check(0, true, "must be >= 0", kMaxMegabytes,
                              "must be at most 1e6 MB (about 1 TB)", "MB>=0");
}

}  // namespace elastic::cli
