// Distributions of the simulator's samples (docs/model.md §23.6).
#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace llmecon::sim_internal {

Distribution<double> distribution(std::vector<double> v) {
  Distribution<double> d;
  d.n = static_cast<long>(v.size());
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / static_cast<double>(v.size());
  // Nearest rank: the smallest value with at least p% of the sample at or below it.
  auto rank = [&](double p) {
    const auto k = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, k == 0 ? 0 : k - 1)];
  };
  d.p50 = rank(50);
  d.p90 = rank(90);
  d.p99 = rank(99);
  d.max = v.back();
  const std::size_t points = std::min<std::size_t>(101, v.size());
  for (std::size_t i = 0; i < points; ++i) {
    const double q = points == 1 ? 1.0 : static_cast<double>(i) / static_cast<double>(points - 1);
    d.cdf_x.push_back(v[std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size() - 1)))]);
    d.cdf_y.push_back(q);
  }
  return d;
}

// The distribution of a whole-number quantity from its counts (value i seen counts[i] times).
Distribution<double> count_distribution(const std::vector<long>& counts) {
  Distribution<double> d;
  double sum = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    d.n += counts[i];
    sum += static_cast<double>(i) * static_cast<double>(counts[i]);
  }
  if (d.n == 0) return d;
  d.mean = sum / static_cast<double>(d.n);
  auto rank = [&](double p) {
    const auto k = std::max(1L, static_cast<long>(std::ceil(p / 100.0 * static_cast<double>(d.n))));
    long seen = 0;
    for (std::size_t i = 0; i < counts.size(); ++i) {
      seen += counts[i];
      if (seen >= k) return static_cast<double>(i);
    }
    return static_cast<double>(counts.size() - 1);
  };
  d.p50 = rank(50);
  d.p90 = rank(90);
  d.p99 = rank(99);
  d.max = rank(100);
  return d;
}

Latency in_seconds(const Distribution<double>& d) {
  Latency out;
  out.mean = units::seconds(d.mean);
  out.p50 = units::seconds(d.p50);
  out.p90 = units::seconds(d.p90);
  out.p99 = units::seconds(d.p99);
  out.max = units::seconds(d.max);
  out.n = d.n;
  out.cdf_x.reserve(d.cdf_x.size());
  for (const double x : d.cdf_x) out.cdf_x.push_back(units::seconds(x));
  out.cdf_y = d.cdf_y;
  return out;
}

}  // namespace llmecon::sim_internal
