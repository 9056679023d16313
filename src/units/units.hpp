// units/units.hpp: physical quantities as types.
//
// Every quantity stores one double in SI base units (byte, FLOP, second, US dollar, token,
// joule, request). Its dimension is part of the type, so adding bytes to seconds does not compile and
// dividing FLOPs by FLOP/s yields seconds. Values enter only through named factories and leave
// only through a named unit (division by a unit value) or `si()`.
//
//   using namespace llmecon::units;
//   Bytes w = gb(140);                      // decimal: 140e9 bytes
//   Bytes h = gib(80);                      // binary: 80 * 2^30 bytes
//   BytesPerSecond bw = tb_per_s(3.35);
//   Seconds t = w / bw;                     // 41.8 ms
//   double ms_ = t / ms(1);                 // 41.79...
//   std::string s = format(t);              // "41.79 ms"
//
// See docs/model.md §0 for the notation.
#pragma once

#include <cmath>
#include <compare>
#include <string>

namespace llmecon {

/// Exponents of the seven base dimensions. A structural type, so it can be a template argument.
struct Dim {
  int byte = 0;
  int flop = 0;
  int second = 0;
  int usd = 0;
  int token = 0;
  int joule = 0;
  int request = 0;  ///< a served request (an API call), counted apart from its tokens

  constexpr bool operator==(const Dim&) const = default;
  constexpr Dim operator+(const Dim& o) const {
    return {byte + o.byte,   flop + o.flop,   second + o.second,  usd + o.usd,
            token + o.token, joule + o.joule, request + o.request};
  }
  constexpr Dim operator-(const Dim& o) const {
    return {byte - o.byte,   flop - o.flop,   second - o.second,  usd - o.usd,
            token - o.token, joule - o.joule, request - o.request};
  }
  constexpr bool dimensionless() const { return *this == Dim{}; }
};

template <Dim D>
class Quantity;

namespace detail {
struct RawTag {};
}  // namespace detail

/// A value of dimension D in SI base units. No implicit construction from double.
template <Dim D>
class Quantity {
 public:
  static constexpr Dim kDim = D;

  constexpr Quantity() = default;
  /// Raw construction in SI base units; use the named factories instead.
  constexpr Quantity(detail::RawTag, double value) : v_(value) {}

  /// The value in SI base units (byte, FLOP, s, $, token, J and their products).
  [[nodiscard]] constexpr double si() const { return v_; }

  constexpr Quantity& operator+=(Quantity o) {
    v_ += o.v_;
    return *this;
  }
  constexpr Quantity& operator-=(Quantity o) {
    v_ -= o.v_;
    return *this;
  }
  constexpr Quantity& operator*=(double k) {
    v_ *= k;
    return *this;
  }
  constexpr Quantity& operator/=(double k) {
    v_ /= k;
    return *this;
  }
  friend constexpr Quantity operator+(Quantity a, Quantity b) { return {detail::RawTag{}, a.v_ + b.v_}; }
  friend constexpr Quantity operator-(Quantity a, Quantity b) { return {detail::RawTag{}, a.v_ - b.v_}; }
  friend constexpr Quantity operator-(Quantity a) { return {detail::RawTag{}, -a.v_}; }
  friend constexpr Quantity operator*(Quantity a, double k) { return {detail::RawTag{}, a.v_ * k}; }
  friend constexpr Quantity operator*(double k, Quantity a) { return {detail::RawTag{}, a.v_ * k}; }
  friend constexpr Quantity operator/(Quantity a, double k) { return {detail::RawTag{}, a.v_ / k}; }
  friend constexpr auto operator<=>(Quantity a, Quantity b) { return a.v_ <=> b.v_; }
  friend constexpr bool operator==(Quantity a, Quantity b) { return a.v_ == b.v_; }

 private:
  double v_ = 0.0;
};

/// Multiplying quantities adds exponents; a dimensionless result decays to double.
template <Dim A, Dim B>
constexpr auto operator*(Quantity<A> a, Quantity<B> b) {
  if constexpr ((A + B).dimensionless()) {
    return a.si() * b.si();
  } else {
    return Quantity<A + B>(detail::RawTag{}, a.si() * b.si());
  }
}

/// Dividing quantities subtracts exponents; a dimensionless result (a ratio) decays to double.
template <Dim A, Dim B>
constexpr auto operator/(Quantity<A> a, Quantity<B> b) {
  if constexpr ((A - B).dimensionless()) {
    return a.si() / b.si();
  } else {
    return Quantity<A - B>(detail::RawTag{}, a.si() / b.si());
  }
}

/// 1 / quantity.
template <Dim A>
constexpr Quantity<Dim{} - A> operator/(double k, Quantity<A> a) {
  return Quantity<Dim{} - A>(detail::RawTag{}, k / a.si());
}

template <Dim D>
constexpr Quantity<D> max(Quantity<D> a, Quantity<D> b) {
  return a.si() >= b.si() ? a : b;
}
template <Dim D>
constexpr Quantity<D> min(Quantity<D> a, Quantity<D> b) {
  return a.si() <= b.si() ? a : b;
}

namespace dims {
inline constexpr Dim kByte{1, 0, 0, 0, 0, 0};
inline constexpr Dim kFlop{0, 1, 0, 0, 0, 0};
inline constexpr Dim kSecond{0, 0, 1, 0, 0, 0};
inline constexpr Dim kUsd{0, 0, 0, 1, 0, 0};
inline constexpr Dim kToken{0, 0, 0, 0, 1, 0};
inline constexpr Dim kJoule{0, 0, 0, 0, 0, 1};
inline constexpr Dim kRequest{0, 0, 0, 0, 0, 0, 1};
}  // namespace dims

using Bytes = Quantity<dims::kByte>;
using Flops = Quantity<dims::kFlop>;
using Seconds = Quantity<dims::kSecond>;
using Dollars = Quantity<dims::kUsd>;
using Tokens = Quantity<dims::kToken>;
using Joules = Quantity<dims::kJoule>;
using BytesPerSecond = Quantity<dims::kByte - dims::kSecond>;
using FlopsPerSecond = Quantity<dims::kFlop - dims::kSecond>;
using DollarsPerSecond = Quantity<dims::kUsd - dims::kSecond>;
using TokensPerSecond = Quantity<dims::kToken - dims::kSecond>;
using Watts = Quantity<dims::kJoule - dims::kSecond>;
using FlopsPerByte = Quantity<dims::kFlop - dims::kByte>;
using BytesPerToken = Quantity<dims::kByte - dims::kToken>;
using FlopsPerToken = Quantity<dims::kFlop - dims::kToken>;
using DollarsPerToken = Quantity<dims::kUsd - dims::kToken>;
using DollarsPerFlop = Quantity<dims::kUsd - dims::kFlop>;
using SecondsPerToken = Quantity<dims::kSecond - dims::kToken>;
using JoulesPerToken = Quantity<dims::kJoule - dims::kToken>;
using Requests = Quantity<dims::kRequest>;
using RequestsPerSecond = Quantity<dims::kRequest - dims::kSecond>;

namespace units {
namespace internal {
template <class Q>
constexpr Q make(double v, double scale) {
  return Q(detail::RawTag{}, v * scale);
}
}  // namespace internal

// Bytes: decimal (kB = 1e3) and binary (KiB = 2^10) prefixes are distinct functions.
constexpr Bytes bytes(double v) {
  return internal::make<Bytes>(v, 1.0);
}
constexpr Bytes kb(double v) {
  return internal::make<Bytes>(v, 1e3);
}
constexpr Bytes mb(double v) {
  return internal::make<Bytes>(v, 1e6);
}
constexpr Bytes gb(double v) {
  return internal::make<Bytes>(v, 1e9);
}
constexpr Bytes tb(double v) {
  return internal::make<Bytes>(v, 1e12);
}
constexpr Bytes kib(double v) {
  return internal::make<Bytes>(v, 1024.0);
}
constexpr Bytes mib(double v) {
  return internal::make<Bytes>(v, 1048576.0);
}
constexpr Bytes gib(double v) {
  return internal::make<Bytes>(v, 1073741824.0);
}
constexpr Bytes tib(double v) {
  return internal::make<Bytes>(v, 1099511627776.0);
}

constexpr Flops flops(double v) {
  return internal::make<Flops>(v, 1.0);
}
constexpr Flops gflops(double v) {
  return internal::make<Flops>(v, 1e9);
}
constexpr Flops tflops(double v) {
  return internal::make<Flops>(v, 1e12);
}
constexpr Flops pflops(double v) {
  return internal::make<Flops>(v, 1e15);
}

constexpr Seconds seconds(double v) {
  return internal::make<Seconds>(v, 1.0);
}
constexpr Seconds ms(double v) {
  return internal::make<Seconds>(v, 1e-3);
}
constexpr Seconds us(double v) {
  return internal::make<Seconds>(v, 1e-6);
}
constexpr Seconds ns(double v) {
  return internal::make<Seconds>(v, 1e-9);
}
constexpr Seconds minutes(double v) {
  return internal::make<Seconds>(v, 60.0);
}
constexpr Seconds hours(double v) {
  return internal::make<Seconds>(v, 3600.0);
}

constexpr Dollars usd(double v) {
  return internal::make<Dollars>(v, 1.0);
}
constexpr Tokens tokens(double v) {
  return internal::make<Tokens>(v, 1.0);
}
constexpr Joules joules(double v) {
  return internal::make<Joules>(v, 1.0);
}
constexpr Watts watts(double v) {
  return internal::make<Watts>(v, 1.0);
}

constexpr BytesPerSecond bytes_per_s(double v) {
  return internal::make<BytesPerSecond>(v, 1.0);
}
constexpr BytesPerSecond gb_per_s(double v) {
  return internal::make<BytesPerSecond>(v, 1e9);
}
constexpr BytesPerSecond tb_per_s(double v) {
  return internal::make<BytesPerSecond>(v, 1e12);
}
constexpr BytesPerSecond gib_per_s(double v) {
  return internal::make<BytesPerSecond>(v, 1073741824.0);
}
/// Gigabits per second (network links): 1 Gb/s = 1.25e8 bytes/s.
constexpr BytesPerSecond gbit_per_s(double v) {
  return internal::make<BytesPerSecond>(v, 1.25e8);
}

constexpr FlopsPerSecond flop_per_s(double v) {
  return internal::make<FlopsPerSecond>(v, 1.0);
}
constexpr FlopsPerSecond tflop_per_s(double v) {
  return internal::make<FlopsPerSecond>(v, 1e12);
}
constexpr FlopsPerSecond pflop_per_s(double v) {
  return internal::make<FlopsPerSecond>(v, 1e15);
}

constexpr DollarsPerSecond usd_per_s(double v) {
  return internal::make<DollarsPerSecond>(v, 1.0);
}
constexpr DollarsPerSecond usd_per_hour(double v) {
  return internal::make<DollarsPerSecond>(v, 1.0 / 3600.0);
}
constexpr BytesPerToken bytes_per_token(double v) {
  return internal::make<BytesPerToken>(v, 1.0);
}
constexpr TokensPerSecond tokens_per_s(double v) {
  return internal::make<TokensPerSecond>(v, 1.0);
}
constexpr RequestsPerSecond requests_per_s(double v) {
  return internal::make<RequestsPerSecond>(v, 1.0);
}
constexpr DollarsPerToken usd_per_token(double v) {
  return internal::make<DollarsPerToken>(v, 1.0);
}
constexpr DollarsPerToken usd_per_mtok(double v) {
  return internal::make<DollarsPerToken>(v, 1e-6);
}
}  // namespace units

/// Human-readable text with a unit and an SI prefix chosen for the magnitude, e.g. "41.79 ms",
/// "140 GB", "3.35 TB/s", "989.4 TFLOP/s", "$2.50/h". Byte sizes use decimal prefixes.
std::string format(Bytes v);
std::string format(Flops v);
std::string format(Seconds v);
std::string format(Dollars v);
std::string format(Tokens v);
std::string format(BytesPerSecond v);
std::string format(FlopsPerSecond v);
std::string format(DollarsPerSecond v);
std::string format(TokensPerSecond v);
std::string format(Watts v);
std::string format(FlopsPerByte v);
std::string format(BytesPerToken v);
std::string format(DollarsPerToken v);
std::string format(Joules v);
std::string format(JoulesPerToken v);
std::string format(RequestsPerSecond v);
/// Byte size with binary prefixes: "80 GiB".
std::string format_binary(Bytes v);

/// A number with `sig` significant digits and no trailing zeros: 989.4, 0.00123, 1.2e+15.
std::string format_number(double v, int sig = 4);

}  // namespace llmecon
