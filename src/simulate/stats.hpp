// The simulator's latency statistics (internal to src/simulate): a log histogram for
// inter-token gaps, and distributions of samples and counts (docs/model.md §23.6).
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "simulate/simulate.hpp"
#include "units/sums.hpp"

namespace llmecon::sim_internal {

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
