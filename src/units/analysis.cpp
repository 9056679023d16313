// The Analysis value (analysis.hpp): lookups, and what an infeasible result withholds.
#include "units/analysis.hpp"

#include <algorithm>
#include <array>
#include <limits>

#include "units/error.hpp"

namespace llmecon {

namespace {
// Kinds a key names whatever its unit: achieved utilizations are throughputs over a peak; a run's
// goodput and its expected failures follow from its duration.
QuantityKind named_kind(std::string_view key) {
  if (key == "mfu" || key == "hfu" || key == "hbm_utilization" || key == "goodput") return QuantityKind::kThroughput;
  if (key == "failures") return QuantityKind::kDuration;
  return QuantityKind::kOther;
}
}  // namespace

QuantityKind quantity_kind(std::string_view unit, std::string_view key) {
  if (!unit.empty() && unit.front() == '$') return QuantityKind::kPrice;
  static constexpr std::array<std::string_view, 4> kRates{"tok/s", "req/s", "seq/s", "tok/s/chip"};
  if (std::find(kRates.begin(), kRates.end(), unit) != kRates.end()) return QuantityKind::kThroughput;
  static constexpr std::array<std::string_view, 7> kTimes{"s", "ms", "us", "h", "day", "days", "GPU-h"};
  if (std::find(kTimes.begin(), kTimes.end(), unit) != kTimes.end()) return QuantityKind::kDuration;
  static constexpr std::array<std::string_view, 4> kEnergy{"J/tok", "MWh", "kWh", "J"};
  if (std::find(kEnergy.begin(), kEnergy.end(), unit) != kEnergy.end()) return QuantityKind::kEnergy;
  return named_kind(key);
}

QuantityKind key_kind(std::string_view key) {
  auto has = [key](std::string_view part) { return key.find(part) != std::string_view::npos; };
  auto ends = [key](std::string_view tail) {
    return key.size() >= tail.size() && key.substr(key.size() - tail.size()) == tail;
  };
  if (has("usd")) return QuantityKind::kPrice;
  // `_per_s` ends the key or a word of it (tokens_per_s_per_mw), never `_per_step`.
  const std::size_t per_s = key.find("_per_s");
  const bool rate = per_s != std::string_view::npos && (per_s + 6 == key.size() || key[per_s + 6] == '_');
  if (rate) return QuantityKind::kThroughput;
  if (const QuantityKind k = named_kind(key); k != QuantityKind::kOther) return k;
  if (has("joules") || has("mwh") || has("kwh")) return QuantityKind::kEnergy;
  if (ends("_s") || ends("_ms") || ends("days") || ends("hours") || key == "days") return QuantityKind::kDuration;
  return QuantityKind::kOther;
}

double Analysis::get(const std::string& key) const {
  for (const auto& f : figures) {
    if (f.key == key) return f.value;
  }
  LLMECON_ASSERT(false, "Analysis::get: no such figure");
  return std::numeric_limits<double>::quiet_NaN();
}

const Table* Analysis::table(const std::string& key) const {
  for (const auto& t : tables) {
    if (t.key == key) return &t;
  }
  return nullptr;
}

void Table::withhold_row(std::size_t i) {
  LLMECON_ASSERT(i < rows.size(), "withhold_row: no such row");
  for (std::size_t c = 0; c < columns.size() && c < rows[i].size(); ++c) {
    if (withheld_when_infeasible(quantity_kind(columns[c].unit, columns[c].key))) rows[i][c] = Cell::none();
  }
}

void Analysis::set_infeasible(std::string reason) {
  LLMECON_ASSERT(!reason.empty(), "an infeasible result needs its reason");
  infeasible = std::move(reason);
  // The derivation keeps its facts (the work, the memory that does not fit); the rest explains
  // withheld numbers.
  std::vector<std::string> kept;
  kept.reserve(facts.size());
  for (std::size_t i : facts) {
    if (i < derivation.size()) kept.push_back(std::move(derivation[i]));
  }
  derivation = std::move(kept);
  facts.resize(derivation.size());
  for (std::size_t i = 0; i < facts.size(); ++i) facts[i] = i;
  std::erase_if(figures, [](const Figure& f) { return withheld_when_infeasible(quantity_kind(f.unit, f.key)); });
  // A table that loses its quantities and keeps nothing but names says nothing: it goes.
  std::vector<std::string> emptied;
  for (Table& t : tables) {
    std::vector<std::size_t> keep;
    for (std::size_t c = 0; c < t.columns.size(); ++c) {
      if (!withheld_when_infeasible(quantity_kind(t.columns[c].unit, t.columns[c].key))) keep.push_back(c);
    }
    if (keep.size() == t.columns.size()) continue;
    std::vector<Column> cols;
    cols.reserve(keep.size());
    for (std::size_t c : keep) cols.push_back(t.columns[c]);
    for (auto& row : t.rows) {
      std::vector<Cell> cells;
      cells.reserve(keep.size());
      for (std::size_t c : keep) cells.push_back(c < row.size() ? row[c] : Cell("-"));
      row = std::move(cells);
    }
    t.columns = std::move(cols);
    if (std::none_of(t.columns.begin(), t.columns.end(), [](const Column& c) { return !c.unit.empty(); })) {
      emptied.push_back(t.key);
    }
  }
  std::erase_if(
      tables, [&emptied](const Table& t) { return std::find(emptied.begin(), emptied.end(), t.key) != emptied.end(); });
}

}  // namespace llmecon
