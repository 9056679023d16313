// io/grid_table.hpp (internal to src/io): a grid's columns, filled row by row from an answer's
// fields and joined in point order (io/grid.cpp runs the points).
//
//   GridBuilder b(2);
//   b.begin(0);
//   b.put("batch", Field::integer(64));
//   GridTable t = std::move(b).table();
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "io/fields.hpp"
#include "io/grid.hpp"

namespace llmecon {

/// Rows of fields into columns. A column first met in a row goes right after the column that row
/// put before it (a field given again, an answer's field an axis names, keeps its place), so every
/// row's own field order is the columns' order restricted to its fields: a row's JSON line does not
/// depend on the other rows (shards give the same lines).
class GridBuilder final : public FieldSink {
 public:
  explicit GridBuilder(std::size_t rows);  ///< rows expected: reserved in each column
  ~GridBuilder() override;

  /// Starts the row of this point.
  void begin(std::size_t point);
  void put(std::string_view key, const Field& v) override;
  /// Whether the keys put next live, unchanged, as long as the builder (an encoder's literals, the
  /// axes' names): then a key's address names its column. A flattened answer's keys do not.
  void stable(bool keys);
  /// The first field of this row that was not a finite number ("" when none).
  [[nodiscard]] const std::string& nonfinite() const;
  /// The columns (every row padded), in order.
  GridTable table() &&;

 private:
  class State;
  std::unique_ptr<State> s_;
};

/// `from`'s rows after `into`'s; a column new to `into` goes after the one `from` has before it.
void join(GridTable& into, GridTable&& from);

}  // namespace llmecon
