// The simulator's random streams and length draws (internal to src/simulate): owned by the run,
// so the same seed gives the same draws everywhere (docs/model.md §23.1).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "simulate/simulate.hpp"

namespace llmecon::sim_internal {

// ---- Random streams (owned by the run; the same seed gives the same draws everywhere) ----

inline std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

class Stream {
 public:
  explicit Stream(std::uint64_t seed) : g_(splitmix(seed)) {}
  double uniform() { return static_cast<double>(g_() >> 11) * 0x1.0p-53; }  // [0, 1)
  double exponential(double mean) { return -mean * std::log1p(-uniform()); }
  double normal() {
    // Box-Muller, written out so every platform draws the same numbers.
    const double u1 = 1.0 - uniform(), u2 = uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  // Marsaglia-Tsang; shape < 1 through the boost x U^(1/shape).
  double gamma(double shape, double scale) {
    if (shape < 1) return gamma(shape + 1, scale) * std::pow(1.0 - uniform(), 1.0 / shape);
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    while (true) {
      double x = 0, v = 0;
      do {
        x = normal();
        v = 1.0 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const double u = 1.0 - uniform();
      if (std::log(u) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v * scale;
    }
  }
  std::uint64_t next() { return g_(); }

 private:
  std::mt19937_64 g_;
};

inline int draw(const LengthDist& d, Stream& s) {
  double v = d.a;
  switch (d.kind) {
    case LengthKind::kFixed:
      break;
    case LengthKind::kUniform:
      v = d.a + (d.b - d.a) * s.uniform();
      break;
    case LengthKind::kNormal:
      v = d.a + d.b * s.normal();
      break;
    case LengthKind::kLognormal:
      v = std::exp(std::log(d.a) - d.b * d.b / 2 + d.b * s.normal());
      break;
  }
  return static_cast<int>(std::clamp(std::round(v), 1.0, d.cap));
}

}  // namespace llmecon::sim_internal
