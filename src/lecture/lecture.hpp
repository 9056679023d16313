// lecture/lecture.hpp: every claim of the lecture (C1-C24) as a computation with a verdict.
//
// Each claim is recomputed with the lecture's own inputs (the `blackboard` chip, the lecture's
// DeepSeek-like model) and, where quantitative, re-run on real catalog entries side by side.
// Where the lecture is inconsistent, its stated figure is reproduced from its stated inputs and
// the corrected figure is shown next to it.
//
//   auto claims = lecture_claims(hw_catalog, model_catalog);   // Result<std::vector<Claim>>
//   int off = 0;
//   for (const auto& c : *claims) off += c.pass ? 0 : 1;   // claims outside their tolerance
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "catalog/hardware.hpp"
#include "model/model.hpp"
#include "units/error.hpp"

namespace llmecon {

/// How a claim's computed value is judged against the expected one.
/// Every numeric check is two-sided, with its tolerance stated per claim (a one-sided rule would pass
/// a figure orders of magnitude from the claim).
enum class Check {
  kRelative,  ///< |computed - expected| <= tolerance x |expected|
  kLog10,     ///< |log10(computed / expected)| <= tolerance (order-of-magnitude claims)
  kEqual,     ///< categorical: computed_text == expected_text
};
std::string_view name(Check c);

/// The same quantity on a real deployment, with why it differs from the lecture.
struct RealComparison {
  std::string label;
  double computed = 0;
  std::string text;
  std::string why;
};

struct Claim {
  std::string id;
  std::string claim;
  std::string inputs;
  std::string unit;
  Check check = Check::kRelative;
  double expected = 0;
  double computed = 0;
  std::string expected_text;  ///< categorical claims
  std::string computed_text;
  double tolerance = 0;
  bool pass = false;
  std::optional<double> corrected;  ///< the figure with consistent inputs, where the lecture is not
  std::string corrected_note;
  std::vector<RealComparison> real;
  std::vector<std::string> derivation;
  std::string source;  ///< transcript time or flashcard
};

/// Evaluates every claim. Errors only if the catalog lacks an entry it needs.
Result<std::vector<Claim>> lecture_claims(const HardwareCatalog& hw, const ModelCatalog& models);

/// Feistel network (F34): (x, y) -> (x, y + f(x)) mod 2^32 with a non-invertible f, and its
/// inverse. Returns how many of `trials` pseudo-random inputs round-trip exactly.
int feistel_round_trips(int trials, unsigned seed);

}  // namespace llmecon
