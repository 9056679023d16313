// units/analysis.hpp: the value every blackboard analysis returns.
//
// An Analysis is an ordered list of named figures (a value in SI base units with its unit),
// tables, notes, and the derivation ("explain") written as the lecture would write it on the
// board, with values substituted. The io layer turns it into JSON (figures become top-level keys)
// and the CLI into text.
//
//   Analysis a{"batch"};
//   a.figure("b_star", 2400, "", "optimal batch (F6)");
//   a.explain("B* = R x S = 300 x 8 = 2400");
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "units/units.hpp"

namespace llmecon {

/// A number with its unit. Units are written the way JSON keys carry them: "s", "B", "B/s",
/// "FLOP/s", "$", "$/Mtok", "$/h", "tok", "tok/s", "B/tok", "x" (a ratio), "" (a count).
/// The unit string an analysis writes for a quantity type, and the factor from SI to it: money per
/// token is written per million tokens, money per second per hour (analysis.hpp's unit table).
template <class Q>
constexpr std::pair<const char*, double> analysis_unit() {
  if constexpr (std::is_same_v<Q, Seconds>) return {"s", 1.0};
  if constexpr (std::is_same_v<Q, Bytes>) return {"B", 1.0};
  if constexpr (std::is_same_v<Q, BytesPerSecond>) return {"B/s", 1.0};
  if constexpr (std::is_same_v<Q, Flops>) return {"FLOP", 1.0};
  if constexpr (std::is_same_v<Q, FlopsPerSecond>) return {"FLOP/s", 1.0};
  if constexpr (std::is_same_v<Q, Tokens>) return {"tok", 1.0};
  if constexpr (std::is_same_v<Q, TokensPerSecond>) return {"tok/s", 1.0};
  if constexpr (std::is_same_v<Q, BytesPerToken>) return {"B/tok", 1.0};
  if constexpr (std::is_same_v<Q, Dollars>) return {"$", 1.0};
  if constexpr (std::is_same_v<Q, DollarsPerToken>) return {"$/Mtok", 1e6};
  if constexpr (std::is_same_v<Q, DollarsPerSecond>) return {"$/h", 3600.0};
  if constexpr (std::is_same_v<Q, Watts>) return {"W", 1.0};
  if constexpr (std::is_same_v<Q, FlopsPerByte>) return {"FLOP/B", 1.0};
}

struct Figure {
  std::string key;
  double value = 0.0;
  std::string unit;
  std::string label;
  std::string reason = {};  ///< why there is no finite value (JSON: null with this reason), else empty
};

/// What a figure or column measures, as docs/quantities.md groups them. An infeasible result
/// (a configuration that does not fit, a plan with no feasible point) carries no price, throughput,
/// duration or energy: those kinds are withheld from it, and its reason leads.
enum class QuantityKind { kPrice, kThroughput, kDuration, kEnergy, kOther };

/// The kind a unit (as analyses write them: "$/Mtok", "tok/s", "s", "day", "J/tok", ...) measures;
/// a unitless key that names an achieved rate (mfu, hfu) is a throughput. Hardware capabilities
/// ("B/s", "FLOP/s") are kOther: they hold whether or not a configuration fits.
QuantityKind quantity_kind(std::string_view unit, std::string_view key = {});
/// The kind a JSON key names by its suffix (docs/quantities.md): `usd` anywhere is a price; `_per_s`
/// (tokens_per_s, requests_per_s) a throughput; `_s`, `_ms`, `days`, `hours` a duration;
/// `joules`, `mwh`, `kwh` an energy; mfu, hfu and hbm_utilization achieved rates.
QuantityKind key_kind(std::string_view key);
/// Whether an infeasible result withholds quantities of this kind.
constexpr bool withheld_when_infeasible(QuantityKind k) {
  return k != QuantityKind::kOther;
}

/// A table cell: a number, or text when `text` is set, or withheld (JSON null, text "-") when
/// its row is infeasible.
struct Cell {
  double value = 0.0;
  std::optional<std::string> text;
  Cell(double v) : value(v) {}                   // NOLINT(google-explicit-constructor)
  Cell(std::string t) : text(std::move(t)) {}    // NOLINT(google-explicit-constructor)
  Cell(const char* t) : text(std::string(t)) {}  // NOLINT(google-explicit-constructor)
  bool withheld = false;
  static Cell none() {
    Cell c(0.0);
    c.withheld = true;
    return c;
  }
};

struct Column {
  std::string key;
  std::string unit;
  std::string label = {};  ///< what a person reads in a table header; the key when empty
};

struct Table {
  std::string key;
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::string title = {};  ///< a table's heading in text; the key when empty
  /// Withholds row `i`'s cells of withheld kinds: an infeasible point in a curve keeps its inputs
  /// and memory, never a price, throughput or duration.
  void withhold_row(std::size_t i);
};

/// The step models an answer's times and prices come from (docs/quantities.md, "Step times"),
/// as its `step_model` names them.
inline constexpr const char* kStepIdealPooled = "ideal_pooled";            ///< the lecture's closed forms, chips pooled
inline constexpr const char* kStepCalibratedPooled = "calibrated_pooled";  ///< per-kernel rates, chips pooled
inline constexpr const char* kStepCalibratedMapped = "calibrated_mapped";  ///< a layout with its collectives

struct Analysis {
  std::string title;
  std::vector<Figure> figures;
  std::vector<Table> tables;
  std::vector<std::string> notes;
  std::vector<std::string> derivation;
  /// Why the configuration is infeasible; empty when it is feasible (set_infeasible()).
  std::string infeasible;
  /// The step its times and prices come from (kStep*): kStepIdealPooled for the lecture's closed
  /// forms over the pooled domain; empty when it prices no step.
  std::string step_model;
  /// Which derivation lines are facts (explain_fact), by index.
  std::vector<std::size_t> facts;

  explicit Analysis(std::string t) : title(std::move(t)) {}
  /// Marks the result infeasible: its reason leads, every figure and table column of a withheld
  /// kind (price, throughput, duration, energy) is dropped, a table left with no quantity is
  /// dropped, and the derivation keeps only its facts (explain_fact).
  void set_infeasible(std::string reason);
  [[nodiscard]] bool feasible() const { return infeasible.empty(); }
  void figure(std::string key, double value, std::string unit, std::string label) {
    figures.push_back(Figure{std::move(key), value, std::move(unit), std::move(label)});
  }
  /// A figure that may have no finite value; when it has none, `reason` says why (never a bare null).
  void figure(std::string key, double value, std::string unit, std::string label, std::string reason) {
    figures.push_back(Figure{std::move(key), value, std::move(unit), std::move(label), std::move(reason)});
  }
  /// A figure whose unit comes from its type: a.figure("drain_time_s", t_drain, "the step interval").
  template <class Q, class = decltype(Q::kDim)>
  void figure(std::string key, Q q, std::string label) {
    constexpr auto kUnit = analysis_unit<Q>();
    static_assert(kUnit.first != nullptr, "add this quantity type to analysis_unit()");
    figure(std::move(key), q.si() * kUnit.second, kUnit.first, std::move(label));
  }
  void note(std::string n) { notes.push_back(std::move(n)); }
  void explain(std::string line) { derivation.push_back(std::move(line)); }
  /// A derivation line that states what the configuration is (its model, its work, its memory)
  /// rather than a number an infeasible answer withholds: it stays after set_infeasible().
  void explain_fact(std::string line) {
    facts.push_back(derivation.size());
    derivation.push_back(std::move(line));
  }
  /// The figure with this key; asserts in debug builds when absent.
  [[nodiscard]] double get(const std::string& key) const;
  [[nodiscard]] const Table* table(const std::string& key) const;
};

}  // namespace llmecon
