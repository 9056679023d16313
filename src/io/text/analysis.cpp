// The text of an analysis (text.hpp): the blackboard analyses, train, scale and tco.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "io/text.hpp"

namespace llmecon {
namespace {

// A key read as words: '_' as spaces.
std::string words(std::string s) {
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

std::string cell_text(const Cell& c, const std::string& unit) {
  if (c.withheld) return "-";
  if (c.text) return *c.text;
  return format_unit(c.value, unit);
}

std::string tables_text(const Analysis& a) {
  std::string out;
  for (const Table& t : a.tables) {
    if (t.rows.empty()) continue;
    out += "\n" + (t.title.empty() ? words(t.key) : t.title) + ":\n";
    // The columns the first row fills; a shorter row reads "-" past its end.
    const std::size_t n = std::min(t.columns.size(), t.rows.front().size());
    std::vector<std::string> header;
    for (std::size_t i = 0; i < n; ++i) {
      header.push_back(t.columns[i].label.empty() ? words(t.columns[i].key) : t.columns[i].label);
    }
    std::vector<std::vector<std::string>> rows;
    for (const auto& r : t.rows) {
      std::vector<std::string> row;
      row.reserve(n);
      for (std::size_t i = 0; i < n; ++i) row.push_back(i < r.size() ? cell_text(r[i], t.columns[i].unit) : "-");
      rows.push_back(std::move(row));
    }
    out += text_table(header, rows);
  }
  return out;
}

// --range: each quantity's p10/p50/p90, in the unit its key names.
std::string range_text(const RangeText& g) {
  auto unit_of = [](const std::string& key) -> std::string {
    if (key == "usd") return "$";
    if (key == "days") return "day";
    if (key.rfind("usd_per_gpu_hour", 0) == 0) return "$/h";
    if (key.size() > 2 && key.compare(key.size() - 2, 2, "_s") == 0) return "s";
    return "";
  };
  std::string out = fmt::format("\nrange ({} samples over spec ranges and priors):\n", g.samples);
  std::vector<std::vector<std::string>> rows;
  std::string off_centre;
  for (const RangeRow& r : g.rows) {
    const std::string unit = unit_of(r.key);
    const std::string name = words(unit == "s" ? r.key.substr(0, r.key.size() - 2) : r.key);  // step_s reads "step"
    std::vector<std::string> row{name, format_unit(r.q.p10, unit), format_unit(r.q.p50, unit),
                                 format_unit(r.q.p90, unit)};
    if (r.q.point && r.q.point_rank) {
      const double pct = 100.0 * *r.q.point_rank;
      row.push_back(fmt::format("{} (p{:.0f})", format_unit(*r.q.point, unit), pct));
      if ((pct < 10 || pct > 90) && off_centre.empty()) {
        off_centre = fmt::format(
            "{} sits at p{:.0f}: the draws land {} it more often, the inputs' ranges reaching "
            "further {} than {} from their defaults",
            name, pct, pct < 10 ? "above" : "below", pct < 10 ? "up" : "down", pct < 10 ? "down" : "up");
      }
    }
    rows.push_back(std::move(row));
  }
  const bool points = !g.rows.empty() && g.rows.front().q.point.has_value();
  out += text_table(points ? std::vector<std::string>{"", "p10", "p50", "p90", "headline"}
                           : std::vector<std::string>{"", "p10", "p50", "p90"},
                    rows);
  if (!off_centre.empty()) {
    out += "the headline takes every input at its sourced default (each range's mode); " + off_centre + "\n";
  }
  return out;
}

}  // namespace

std::string text(const Analysis& a, const TextHead& head, bool explain, const std::optional<RangeText>& range,
                 const std::vector<Analysis>& parts) {
  std::string out = a.title;
  if (!head.model.empty() && !head.hardware.empty()) {
    out += fmt::format(": {} on {} x {}", head.model, static_cast<long long>(head.chips.value_or(1)), head.hardware);
  } else if (!head.model.empty()) {
    out += ": " + head.model;
  } else if (!head.hardware.empty() && head.chips) {
    out += fmt::format(": {} x {}", format_number(*head.chips), head.hardware);
  }
  out += "\n\n";
  // An infeasible result says so first; it carries no price, throughput or duration.
  if (!a.feasible()) out += "  INFEASIBLE: " + a.infeasible + "\n\n";
  std::size_t w = 0;
  for (const Figure& f : a.figures) w = std::max(w, (f.label.empty() ? f.key : f.label).size());
  for (const Figure& f : a.figures) {
    out += fmt::format("  {:<{}}  {}\n", f.label.empty() ? f.key : f.label, w,
                       std::isfinite(f.value) ? format_unit(f.value, f.unit)
                       : f.reason.empty()     ? std::string("infinite")
                                              : "none: " + f.reason);
  }
  out += tables_text(a);
  if (range) out += range_text(*range);
  for (const std::string& n : a.notes) out += "\nnote: " + n + "\n";
  for (const Analysis& part : parts) out += "\n" + text(part, TextHead{}, explain);
  if (explain) out += text_lines("\nderivation (docs/model.md):\n", a.derivation, "  ");
  return out;
}

}  // namespace llmecon
