// llmecon/analysis.hpp: the value every blackboard analysis returns.
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
#include <vector>

namespace llmecon {

/// A number with its unit. Units are written the way JSON keys carry them: "s", "B", "B/s",
/// "FLOP/s", "$", "$/Mtok", "$/h", "tok", "tok/s", "B/tok", "x" (a ratio), "" (a count).
struct Figure {
  std::string key;
  double value = 0.0;
  std::string unit;
  std::string label;
};

/// A table cell: a number, or text when `text` is set.
struct Cell {
  double value = 0.0;
  std::optional<std::string> text;
  Cell(double v) : value(v) {}                   // NOLINT(google-explicit-constructor)
  Cell(std::string t) : text(std::move(t)) {}    // NOLINT(google-explicit-constructor)
  Cell(const char* t) : text(std::string(t)) {}  // NOLINT(google-explicit-constructor)
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
};

struct Analysis {
  std::string title;
  std::vector<Figure> figures;
  std::vector<Table> tables;
  std::vector<std::string> notes;
  std::vector<std::string> derivation;

  explicit Analysis(std::string t) : title(std::move(t)) {}
  void figure(std::string key, double value, std::string unit, std::string label) {
    figures.push_back(Figure{std::move(key), value, std::move(unit), std::move(label)});
  }
  void note(std::string n) { notes.push_back(std::move(n)); }
  void explain(std::string line) { derivation.push_back(std::move(line)); }
  /// The figure with this key; asserts in debug builds when absent.
  [[nodiscard]] double get(const std::string& key) const;
  [[nodiscard]] const Table* table(const std::string& key) const;
};

}  // namespace llmecon
