// Repeated addition (src/units/sums.hpp) and the simulator's ITL histogram (src/simulate/stats.hpp).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "simulate/stats.hpp"

namespace llmecon::sim_internal {
namespace {

double add_one_at_a_time(double sum, double x, long n) {
  for (long i = 0; i < n; ++i) sum += x;
  return sum;
}

void expect_same(double sum, double x, long n) {
  const double fast = add_repeated(sum, x, n), slow = add_one_at_a_time(sum, x, n);
  EXPECT_EQ(std::bit_cast<std::uint64_t>(fast), std::bit_cast<std::uint64_t>(slow))
      << "sum " << sum << " x " << x << " n " << n << ": " << fast << " vs " << slow;
}

TEST(AddRepeated, EqualsAddingOneAtATimeBitForBit) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-40, 20), mantissa(1, 2);
  std::uniform_int_distribution<long> count(0, 5000);
  for (int i = 0; i < 20000; ++i) {
    const double sum = i % 10 == 0 ? 0.0 : std::ldexp(mantissa(rng), static_cast<int>(exponent(rng)));
    const double x = std::ldexp(mantissa(rng), static_cast<int>(exponent(rng)));
    expect_same(sum, x, count(rng));
  }
}

TEST(AddRepeated, CrossesBinadesTiesAndNegligibleTerms) {
  // Sums crossing many binades, gaps like the simulator's (tick multiples of seconds).
  expect_same(0.0, 0.021, 1'000'000);
  expect_same(1e3, 0.0173, 2'000'000);
  // Exactly half a unit in the last place: rounding follows the sum's parity, one at a time.
  const double u = std::ldexp(1.0, -52);  // the spacing of [1, 2)
  expect_same(1.0, u / 2, 1000);
  expect_same(1.0 + u, u / 2, 1000);
  expect_same(1.0, 3 * u / 2, 1000);
  // Below half a unit: the sum does not move.
  expect_same(1.0, u / 4, 1000);
  EXPECT_EQ(add_repeated(1.0, u / 4, 1'000'000'000'000L), 1.0);
  // Zero terms, zero count, and terms larger than the sum.
  expect_same(5.0, 0.0, 100);
  expect_same(5.0, 1.0, 0);
  expect_same(1e-3, 7.0, 300);
}

TEST(LogHistogram, CountsAndSumsRunsAsSingleAdds) {
  LogHistogram a, b;
  a.add(0.02, 500);
  a.add(0.03, 7);
  for (int i = 0; i < 500; ++i) b.add(0.02);
  for (int i = 0; i < 7; ++i) b.add(0.03);
  const Distribution<double> da = a.dist(), db = b.dist();
  EXPECT_EQ(da.n, 507);
  EXPECT_EQ(da.n, db.n);
  EXPECT_EQ(da.mean, db.mean);
  EXPECT_EQ(da.p50, db.p50);
  EXPECT_EQ(da.p99, db.p99);
  EXPECT_NEAR(da.p99, 0.03, 0.03 * 1e-3);
}

}  // namespace
}  // namespace llmecon::sim_internal
