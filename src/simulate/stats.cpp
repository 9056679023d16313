// Distributions of the simulator's samples (docs/model.md §23.6).
#include "stats.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

namespace llmecon::sim_internal {

namespace {

// Sorts values that are all +0 or positive (not NaN) by their bits, which order such doubles as
// their values do: an LSD radix sort, 11 bits a pass, passes where every value shares its digit
// skipped. Anything else goes to std::sort. The result is the same sorted array either way.
void sort_values(std::vector<double>& v) {
  constexpr int kBits = 11, kPasses = 6;  // 66 bits cover 64
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  const bool plain =
      v.size() >= 4096 && std::all_of(v.begin(), v.end(), [](double x) { return !std::signbit(x) && !std::isnan(x); });
  if (!plain) {
    std::sort(v.begin(), v.end());
    return;
  }
  std::vector<std::uint64_t> a(v.size()), b(v.size());
  std::vector<std::array<std::size_t, kBuckets>> counts(kPasses);
  for (auto& c : counts) c.fill(0);
  for (std::size_t i = 0; i < v.size(); ++i) {
    const auto x = std::bit_cast<std::uint64_t>(v[i]);
    a[i] = x;
    for (int p = 0; p < kPasses; ++p) ++counts[static_cast<std::size_t>(p)][(x >> (p * kBits)) & (kBuckets - 1)];
  }
  for (int p = 0; p < kPasses; ++p) {
    auto& c = counts[static_cast<std::size_t>(p)];
    if (std::find(c.begin(), c.end(), v.size()) != c.end()) continue;  // one digit for all
    std::size_t start = 0;
    for (std::size_t& n : c) start += std::exchange(n, start);
    for (const std::uint64_t x : a) b[c[(x >> (p * kBits)) & (kBuckets - 1)]++] = x;
    a.swap(b);
  }
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = std::bit_cast<double>(a[i]);
}

}  // namespace

Distribution<double> distribution(std::vector<double> v) {
  Distribution<double> d;
  d.n = static_cast<long>(v.size());
  if (v.empty()) return d;
  sort_values(v);
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
