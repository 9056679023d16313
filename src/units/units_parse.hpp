// units/units_parse.hpp: strict parsing of quantities written with units ("3.35 TB/s").
//
//   auto bw = parse_quantity<BytesPerSecond>("3.35 TB/s");   // Result<BytesPerSecond>
//   auto c  = parse_quantity<Bytes>("32 GiB");                // binary prefix
//   auto p  = parse_quantity<DollarsPerSecond>("$2.50/h");
//
// A missing unit, an unknown unit or a unit of the wrong dimension is an Error whose `what`
// says so and whose hint lists units that would fit.
#pragma once

#include <string_view>

#include "units/error.hpp"
#include "units/units.hpp"

namespace llmecon {

/// A value in SI base units with its runtime dimension.
struct ParsedQuantity {
  double si = 0.0;
  Dim dim;
};

/// Parses "<number> <unit>" or "$<number>/<time>"; the error's `where`/`field` are left empty
/// for the caller to fill.
Result<ParsedQuantity> parse_quantity_any(std::string_view text);

/// Example units for a dimension, for hints: "B, kB, MB, GB, TB, KiB, MiB, GiB, TiB".
std::string example_units(Dim d);

/// Parses and checks the dimension against Q.
template <class Q>
Result<Q> parse_quantity(std::string_view text) {
  auto r = parse_quantity_any(text);
  if (!r) return r.error();
  if (!(r->dim == Q::kDim)) {
    return Error{"", "", "'" + std::string(text) + "' has the wrong unit", "use one of: " + example_units(Q::kDim)};
  }
  return Q(detail::RawTag{}, r->si);
}

}  // namespace llmecon
