// The text of the lecture's claims (text.hpp).
#include <fmt/format.h>

#include "io/text.hpp"

namespace llmecon {

std::string text(const std::vector<Claim>& claims, bool explain) {
  // A count of sequences reads as a plain number.
  auto value = [](double v, const std::string& unit) { return format_unit(v, unit == "sequences" ? "" : unit); };
  std::vector<std::vector<std::string>> rows;
  int passed = 0;
  for (const Claim& c : claims) {
    const bool categorical = c.check == Check::kEqual;
    passed += c.pass ? 1 : 0;
    rows.push_back({c.id, c.pass ? "pass" : "FAIL", categorical ? c.expected_text : value(c.expected, c.unit),
                    categorical ? c.computed_text : value(c.computed, c.unit),
                    std::string(name(c.check)) + " " + format_number(c.tolerance), c.claim});
  }
  std::string out = text_table({"id", "verdict", "lecture", "llmecon", "check", "claim"}, rows);
  out += fmt::format("\n{} of {} claims reproduced\n", passed, claims.size());
  for (const Claim& c : claims) {
    if (!explain && c.real.empty() && c.corrected_note.empty()) continue;
    out += fmt::format("\n{} {}\n  inputs: {}\n", c.id, c.claim, c.inputs);
    if (!c.corrected_note.empty()) out += "  corrected: " + c.corrected_note + "\n";
    for (const RealComparison& r : c.real) {
      out += fmt::format("  real: {} = {} ({})\n", r.label, r.text.empty() ? value(r.computed, c.unit) : r.text, r.why);
    }
    if (explain) out += text_lines("", c.derivation, "    ");
  }
  return out;
}

}  // namespace llmecon
