// Formatting and parsing of quantities: the one place that knows unit names.
#include <fmt/format.h>

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>
#include <system_error>

#include "units/units.hpp"
#include "units/units_parse.hpp"

namespace llmecon {

std::string format_number(double v, int sig) {
  if (v == 0.0) return "0";
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  const double a = std::fabs(v);
  if (a >= 1e15 || a < 1e-4) return fmt::format("{:.{}g}", v, sig);
  // Fixed notation with `sig` significant digits, trailing zeros removed.
  const int int_digits = a >= 1.0 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
  int decimals = sig - int_digits;
  if (a < 1.0) decimals = sig - static_cast<int>(std::floor(std::log10(a))) - 1;
  if (decimals < 0) decimals = 0;
  // Correctly rounded, as fmt's and printf's "%.*f" are (below 1e15, at most 16 + 20 digits).
  std::array<char, 64> buf{};
  const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::fixed, decimals);
  if (ec != std::errc{}) return fmt::format("{:.{}f}", v, decimals);
  std::string_view s(buf.data(), static_cast<std::size_t>(end - buf.data()));
  if (decimals > 0) {  // a point was written: drop the zeros after it, and it when nothing is left
    while (s.back() == '0') s.remove_suffix(1);
    if (s.back() == '.') s.remove_suffix(1);
  }
  return std::string(s);
}

namespace {

struct Prefix {
  double scale;
  const char* name;
};

// Picks the largest prefix not above |v|, so 1.5e12 B/s -> "1.5 TB/s".
std::string with_prefix(double v, const char* unit, const Prefix* prefixes, std::size_t n) {
  const double a = std::fabs(v);
  const Prefix* best = &prefixes[0];
  for (std::size_t i = 0; i < n; ++i) {
    if (a >= prefixes[i].scale) best = &prefixes[i];
  }
  std::string out = format_number(v / best->scale);
  out.reserve(out.size() + 8);
  out += ' ';
  out += best->name;
  out += unit;
  return out;
}

constexpr std::array<Prefix, 7> kDecimal{
    {{1.0, ""}, {1e3, "k"}, {1e6, "M"}, {1e9, "G"}, {1e12, "T"}, {1e15, "P"}, {1e18, "E"}}};
constexpr std::array<Prefix, 6> kBinary{{{1.0, ""},
                                         {1024.0, "Ki"},
                                         {1048576.0, "Mi"},
                                         {1073741824.0, "Gi"},
                                         {1099511627776.0, "Ti"},
                                         {1125899906842624.0, "Pi"}}};

std::string dec(double v, const char* unit) {
  return with_prefix(v, unit, kDecimal.data(), kDecimal.size());
}

}  // namespace

std::string format(Bytes v) {
  return dec(v.si(), "B");
}
std::string format_binary(Bytes v) {
  return with_prefix(v.si(), "B", kBinary.data(), kBinary.size());
}
std::string format(Flops v) {
  return dec(v.si(), "FLOP");
}
std::string format(Seconds v) {
  const double s = v.si();
  const double a = std::fabs(s);
  if (a == 0.0) return "0 s";
  if (a < 1e-6) return format_number(s * 1e9) + " ns";
  if (a < 1e-3) return format_number(s * 1e6) + " us";
  if (a < 1.0) return format_number(s * 1e3) + " ms";
  if (a < 120.0) return format_number(s) + " s";
  if (a < 7200.0) return format_number(s / 60.0) + " min";
  if (a < 3.0 * 86400.0) return format_number(s / 3600.0) + " h";
  return format_number(s / 86400.0) + " days";
}
std::string format(Dollars v) {
  const double a = std::fabs(v.si());
  if (a >= 0.01 && a < 1e6) return fmt::format("${:.2f}", v.si());
  return "$" + format_number(v.si());
}
std::string format(Tokens v) {
  return dec(v.si(), "tok");
}
std::string format(BytesPerSecond v) {
  return dec(v.si(), "B/s");
}
std::string format(FlopsPerSecond v) {
  return dec(v.si(), "FLOP/s");
}
std::string format(DollarsPerSecond v) {
  const double per_hour = v.si() * 3600.0;
  return (std::fabs(per_hour) >= 0.01 ? fmt::format("${:.2f}", per_hour) : "$" + format_number(per_hour)) + "/h";
}
std::string format(TokensPerSecond v) {
  return dec(v.si(), "tok/s");
}
std::string format(RequestsPerSecond v) {
  return dec(v.si(), "req/s");
}
std::string format(Watts v) {
  return dec(v.si(), "W");
}
std::string format(FlopsPerByte v) {
  return format_number(v.si()) + " FLOP/B";
}
std::string format(BytesPerToken v) {
  return dec(v.si(), "B/tok");
}
std::string format(DollarsPerToken v) {
  return "$" + format_number(v.si() * 1e6) + "/Mtok";
}
std::string format(Joules v) {
  return dec(v.si(), "J");
}
std::string format(JoulesPerToken v) {
  return dec(v.si(), "J/tok");
}

// ---------------------------------------------------------------------------------------------
// Parsing

namespace {

struct UnitDef {
  std::string_view name;
  double scale;
  Dim dim;
};

// Every accepted unit. Case matters: "Gb" is gigabits, "GB" gigabytes.
constexpr Dim kB = dims::kByte;
constexpr Dim kF = dims::kFlop;
constexpr Dim kS = dims::kSecond;
constexpr Dim kJ = dims::kJoule;
constexpr Dim kT = dims::kToken;
constexpr std::array<UnitDef, 56> kUnits{{
    {"B", 1.0, kB},
    {"kB", 1e3, kB},
    {"KB", 1e3, kB},
    {"MB", 1e6, kB},
    {"GB", 1e9, kB},
    {"TB", 1e12, kB},
    {"PB", 1e15, kB},
    {"KiB", 1024.0, kB},
    {"MiB", 1048576.0, kB},
    {"GiB", 1073741824.0, kB},
    {"TiB", 1099511627776.0, kB},
    {"PiB", 1125899906842624.0, kB},
    {"b", 0.125, kB},
    {"Kb", 125.0, kB},
    {"kb", 125.0, kB},
    {"Mb", 1.25e5, kB},
    {"Gb", 1.25e8, kB},
    {"Tb", 1.25e11, kB},
    {"FLOP", 1.0, kF},
    {"kFLOP", 1e3, kF},
    {"MFLOP", 1e6, kF},
    {"GFLOP", 1e9, kF},
    {"TFLOP", 1e12, kF},
    {"PFLOP", 1e15, kF},
    {"EFLOP", 1e18, kF},
    {"FLOPs", 1.0, kF},
    {"GFLOPs", 1e9, kF},
    {"TFLOPs", 1e12, kF},
    {"PFLOPs", 1e15, kF},
    {"s", 1.0, kS},
    {"ms", 1e-3, kS},
    {"us", 1e-6, kS},
    {"ns", 1e-9, kS},
    {"min", 60.0, kS},
    {"h", 3600.0, kS},
    {"hour", 3600.0, kS},
    {"day", 86400.0, kS},
    {"month", 2629800.0, kS},  // a twelfth of a year of 365.25 days
    {"y", 31557600.0, kS},     // 365.25 days
    {"year", 31557600.0, kS},
    {"J", 1.0, kJ},
    {"kJ", 1e3, kJ},
    {"kWh", 3.6e6, kJ},
    {"MWh", 3.6e9, kJ},
    {"GWh", 3.6e12, kJ},
    {"W", 1.0, kJ - kS},
    {"kW", 1e3, kJ - kS},
    {"MW", 1e6, kJ - kS},
    {"tok", 1.0, kT},
    {"token", 1.0, kT},
    {"tokens", 1.0, kT},
    {"ktok", 1e3, kT},
    {"Mtok", 1e6, kT},
    {"Btok", 1e9, kT},
    {"$", 1.0, dims::kUsd},
    {"req", 1.0, dims::kRequest},
}};

const UnitDef* find_unit(std::string_view name) {
  for (const auto& u : kUnits) {
    if (u.name == name) return &u;
  }
  return nullptr;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Parses "A/B/C" (each a unit from the table) into one scale and dimension.
bool parse_unit_expr(std::string_view expr, double& scale, Dim& dim) {
  scale = 1.0;
  dim = Dim{};
  bool first = true;
  while (!expr.empty()) {
    const auto slash = expr.find('/');
    const std::string_view part = trim(expr.substr(0, slash));
    const UnitDef* u = find_unit(part);
    if (u == nullptr) return false;
    if (first) {
      scale *= u->scale;
      dim = dim + u->dim;
    } else {
      scale /= u->scale;
      dim = dim - u->dim;
    }
    first = false;
    if (slash == std::string_view::npos) break;
    expr.remove_prefix(slash + 1);
  }
  return !first;
}

}  // namespace

std::string example_units(Dim d) {
  if (d == dims::kByte) return "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB (bits: Gb)";
  if (d == dims::kByte - dims::kSecond) return "GB/s, TB/s, GiB/s, Gb/s (gigabits)";
  if (d == dims::kFlop - dims::kSecond) return "GFLOP/s, TFLOP/s, PFLOP/s";
  if (d == dims::kFlop) return "FLOP, GFLOP, TFLOP, PFLOP";
  if (d == dims::kSecond) return "ns, us, ms, s, min, h, day, month, y";
  if (d == dims::kUsd - dims::kSecond) return "$2.50/h, $0.001/s";
  if (d == dims::kUsd) return "$1.00";
  if (d == dims::kUsd - dims::kJoule) return "$0.08/kWh";
  if (d == dims::kUsd - dims::kByte) return "$17.5/GB";
  if (d == dims::kJoule - dims::kSecond) return "W, kW";
  if (d == dims::kToken) return "tok, ktok, Mtok";
  if (d == dims::kRequest - dims::kSecond) return "req/s, req/min, req/h";
  return "a unit of the right dimension";
}

Result<ParsedQuantity> parse_quantity_any(std::string_view text) {
  std::string_view s = trim(text);
  const std::string quoted = "'" + std::string(text) + "'";
  bool dollar = false;
  if (!s.empty() && s.front() == '$') {
    dollar = true;
    s.remove_prefix(1);
  }
  double number = 0.0;
  const char* begin = s.data();
  const char* end = s.data() + s.size();
  auto [ptr, ec] = std::from_chars(begin, end, number);
  if (ec != std::errc() || ptr == begin) {
    return Error{"", "", quoted + " does not start with a number",
                 "write a value with its unit, e.g. \"3.35 TB/s\" or \"$2.50/h\""};
  }
  if (!std::isfinite(number)) {
    return Error{"", "", quoted + " is not finite", "write a finite number"};
  }
  std::string_view rest = trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)));
  double scale = 1.0;
  Dim dim{};
  if (dollar) {
    dim = dims::kUsd;
    if (!rest.empty()) {
      if (rest.front() != '/') {
        return Error{"", "", quoted + " has text after the dollar amount", "write \"$2.50/h\""};
      }
      double s2 = 1.0;
      Dim d2{};
      if (!parse_unit_expr(rest.substr(1), s2, d2)) {
        return Error{"", "", quoted + " has an unknown unit after '/'", "write \"$2.50/h\""};
      }
      scale /= s2;
      dim = dim - d2;
    }
  } else {
    if (rest.empty()) {
      return Error{"", "", quoted + " has no unit",
                   "every value carries its unit, e.g. \"80 GB\", \"3.35 TB/s\", \"989 TFLOP/s\""};
    }
    if (!parse_unit_expr(rest, scale, dim)) {
      return Error{"", "", quoted + " has an unknown unit '" + std::string(rest) + "'",
                   "known units include GB, GiB, TB/s, Gb/s, TFLOP/s, ms, W, $/h"};
    }
  }
  // "1e308 PB/s" overflows to inf, "1e-320 B/s" is a denormal: neither is a physical value.
  const double si = number * scale;
  if (!std::isfinite(si) || (si != 0 && std::fabs(si) < 1e-200)) {
    return Error{"", "", quoted + " is out of range", "write a physical value, e.g. \"3.35 TB/s\""};
  }
  return ParsedQuantity{si, dim};
}

}  // namespace llmecon
