// The simulator's latency statistics (internal to src/simulate): a log histogram for
// inter-token gaps, and distributions of samples and counts (docs/model.md §23.6).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "simulate/simulate.hpp"

namespace llmecon::sim_internal {

/// `sum` after `n` additions of `x` (x >= 0, sum >= 0), each rounded as `sum += x` rounds: the
/// same number as the loop, in a few steps a binade. Within the binade [2^(e-1), 2^e) of the sum,
/// doubles are the multiples of u = 2^(e-53), so while sum + x stays below 2^e each addition adds
/// x rounded to a multiple of u, the same multiple every time unless x is exactly halfway (then
/// the rounding follows the sum's parity and is done one at a time).
inline double add_repeated(double sum, double x, long n) {
  while (n > 0) {
    if (!(sum >= 0x1p-1022) || !(x < sum) || !(x >= 0)) {  // zero, subnormal, NaN, large x: as is
      sum += x;
      --n;
      continue;
    }
    int e = 0;
    (void)std::frexp(sum, &e);
    const double scale = std::ldexp(1.0, 53 - e);  // 1 / u
    const double q = x * scale;                    // exact: a power-of-two scaling
    const double whole = std::floor(q), frac = q - whole;
    if (frac == 0.5) {
      sum += x;
      --n;
      continue;
    }
    const auto m = static_cast<std::int64_t>(whole);
    const std::int64_t d = frac < 0.5 ? m : m + 1;  // what one addition adds, in u
    if (d == 0) return sum;                         // below half a u: the sum no longer moves
    const auto S = static_cast<std::int64_t>(sum * scale);
    // Additions k = 0, 1, ... stay in the binade while S + k d + x / u < 2^53, that is
    // S + k d + m <= 2^53 - 1 (S, k, d and m whole, x / u - m in [0, 1)).
    constexpr std::int64_t kTop = std::int64_t{1} << 53;
    const std::int64_t room = kTop - 1 - S - m;
    const std::int64_t safe = room < 0 ? 0 : room / d + 1;
    const std::int64_t k = std::min<std::int64_t>(safe, n);
    sum = static_cast<double>(S + k * d) / scale;  // at most 2^53 u: exact
    n -= k;
    if (n > 0) {
      sum += x;  // the addition that leaves the binade, as rounded
      --n;
    }
  }
  return sum;
}

// ---- Latency histogram for inter-token gaps: 2^-30 s (1 ns) to 2^17 s, 1024 bins per octave ----

class LogHistogram {
 public:
  void add(double s) { add(s, 1); }
  /// The same gap `count` times (one iteration's tokens share it): the sum is the same number as
  /// `count` calls of add(s) give (add_repeated).
  void add(double s, long count) {
    n_ += count;
    sum_ = add_repeated(sum_, s, count);
    max_ = std::max(max_, s);
    // The bin from the exponent and mantissa bits: no logarithm per token (quantiles within
    // 0.05%). s = (1 + f) 2^(E - 1023): octave E - 1022 + kLowExp, step f's top 10 bits.
    const auto bits = std::bit_cast<std::uint64_t>(std::max(s, 0x1p-30));
    const int e = static_cast<int>((bits >> 52) & 0x7ff) - 1022;
    const auto octave = static_cast<std::size_t>(std::clamp(e + kLowExp, 0, kOctaves - 1));
    const auto step = static_cast<std::size_t>((bits >> 42) & 1023);
    bins_[octave * static_cast<std::size_t>(kPerOctave) + step] += count;
  }
  [[nodiscard]] double quantile(double q) const {
    if (n_ == 0) return 0;
    const auto target = std::max(1L, static_cast<long>(std::ceil(q * static_cast<double>(n_))));
    long seen = 0;
    for (std::size_t i = 0; i < bins_.size(); ++i) {
      seen += bins_[i];
      if (seen < target) continue;
      const auto per = static_cast<std::size_t>(kPerOctave);
      const double m = 0.5 * (1 + (static_cast<double>(i % per) + 0.5) / kPerOctave);
      return std::min(max_, std::ldexp(m, static_cast<int>(i / per) - kLowExp));
    }
    return max_;
  }
  [[nodiscard]] Distribution<double> dist() const {
    Distribution<double> d;
    d.n = n_;
    if (n_ == 0) return d;
    d.mean = sum_ / static_cast<double>(n_);
    d.p50 = quantile(0.5);
    d.p90 = quantile(0.9);
    d.p99 = quantile(0.99);
    d.max = max_;
    for (int i = 0; i <= 100; i += 5) {
      d.cdf_x.push_back(quantile(std::max(0.001, i / 100.0)));
      d.cdf_y.push_back(i / 100.0);
    }
    return d;
  }

 private:
  static constexpr int kLowExp = 29;  // 2^-30 s sits in octave 0
  static constexpr int kOctaves = 48;
  static constexpr double kPerOctave = 1024;
  std::vector<long> bins_ = std::vector<long>(static_cast<std::size_t>(kOctaves * kPerOctave), 0);
  long n_ = 0;
  double sum_ = 0, max_ = 0;
};

/// Mean, percentiles and a thinned CDF of samples.
Distribution<double> distribution(std::vector<double> v);
/// The same of a histogram of counts (counts[i] occurrences of the value i).
Distribution<double> count_distribution(const std::vector<long>& counts);
/// A distribution of samples in seconds, as Seconds.
Latency in_seconds(const Distribution<double>& d);

}  // namespace llmecon::sim_internal
