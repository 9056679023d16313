// units/sums.hpp: sums whose rounding callers rely on.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace llmecon {

/// `sum` after `n` additions of `x` (x >= 0, sum >= 0), each rounded as `sum += x` rounds: the
/// same number as the loop, in a few steps a binade. Within the binade [2^(e-1), 2^e) of the sum,
/// doubles are the multiples of u = 2^(e-53), so while sum + x stays below 2^e each addition adds
/// x rounded to a multiple of u, the same multiple every time unless x is exactly halfway (then
/// the rounding follows the sum's parity and is done one at a time).
inline double add_repeated(double sum, double x, long n) {
  if (n <= 8) {  // a short run: the loop itself is cheaper than the binade arithmetic
    for (long i = 0; i < n; ++i) sum += x;
    return sum;
  }
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

}  // namespace llmecon
