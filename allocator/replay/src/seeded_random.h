// Draws for the synthetic traces and workloads that are the same on every platform: the bits of
// std::mt19937_64 are fixed by the standard, its distributions are not, so these are our own.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace elastic::replay {

class SeededRandom {
 public:
  explicit SeededRandom(std::uint64_t seed) : bits_(seed) {}

  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(bits_() >> 11) * 0x1.0p-53; }
  // Exponential with the given mean.
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  // Standard normal (Box-Muller; the second value of each pair is discarded for simplicity).
  double normal() {
    const double u = 1.0 - uniform();  // (0, 1]: log(u) is finite
    return std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * std::numbers::pi * uniform());
  }

 private:
  std::mt19937_64 bits_;
};

}  // namespace elastic::replay
