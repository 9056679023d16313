// io/grid.hpp: one command over the cartesian product of argument lists, answered as columns
// (docs/scale-out.md). The Python module's llmecon.grid and the CLI's --grid read the same table.
//
//   GridRequest g{"roofline", {{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}},
//                 {{"batch", Json{1, 64, 512}}, {"context", Json{4096, 32768}}}};
//   TRY(t, run_grid(engine, g));          // 6 rows: batch, context, model, ..., feasible, reason
//   std::string lines = grid_json_lines(t);
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/facade.hpp"

namespace llmecon {

/// The most points one grid (or one shard of it) may hold.
inline constexpr double kMaxGridPoints = 1e7;

/// A grid: `command` at every point of the axes' product (the last axis varies fastest), each
/// point's arguments `fixed` with the axes' values added.
struct GridRequest {
  std::string command;
  Json fixed = Json::object();
  std::vector<std::pair<std::string, Json>> axes;  ///< each a non-empty array of values
  /// Runs only the points i with i mod shard_n == shard_k - 1 (1 <= shard_k <= shard_n), as
  /// simulate's --shard does: shards together hold every point once.
  std::size_t shard_k = 1, shard_n = 1;
  int threads = 1;  ///< 0: every core
};

/// One column: a value per row, or none (`present` 0) where that row's answer has no such field.
struct GridColumn {
  enum class Kind : std::uint8_t { kEmpty, kNumber, kBool, kText, kJson };
  std::string name;
  Kind kind = Kind::kEmpty;
  bool integral = true;               ///< kNumber: every value a JSON integer
  std::vector<std::uint8_t> present;  ///< per row
  std::vector<double> numbers;        ///< kNumber, kBool (0 or 1); NaN where absent
  std::vector<std::int32_t> codes;    ///< kText: the index in `dict`, -1 where absent
  std::vector<std::string> dict;      ///< kText: each distinct value once, in order of first use
  std::vector<Json> cells;            ///< kJson (a field whose type differs between rows)
  /// Row i's value as the answer wrote it (null where absent).
  [[nodiscard]] Json cell(std::size_t i) const;
};

/// The answers: one row per point run, in point order. Columns: the axes, then each scalar field
/// of the answers (an object's one level down as "a.b") in the answers' order, with `feasible`
/// on every row and `reason` on every infeasible one (a point the engine refuses is infeasible,
/// its reason the engine's message).
struct GridTable {
  std::size_t points = 0;          ///< in the whole grid, every shard
  std::vector<std::size_t> point;  ///< each row's index in the grid
  std::vector<GridColumn> columns;
  [[nodiscard]] std::size_t rows() const { return point.size(); }
  [[nodiscard]] const GridColumn* column(std::string_view name) const;
};

/// Runs the grid on `threads` threads. A bad grid (an unknown command, an empty axis, more than
/// kMaxGridPoints points, a bad shard) is an Error; a bad point is an infeasible row.
Result<GridTable> run_grid(const Engine& e, const GridRequest& g, const Cancel& cancel = {});

/// Row i as an object: "point", then the row's fields in column order.
Json grid_row(const GridTable& t, std::size_t i);
/// One JSON object per row and line (grid_row).
std::string grid_json_lines(const GridTable& t);
/// A header line ("point" and every column), then one line per row; an absent value is empty.
std::string grid_csv(const GridTable& t);
/// A flag's text as an axis: for an argument that takes one number, a list or range of them
/// ("1,8,64", "1:4096:x2", "0:8192:+1024"); for one that takes one name (a model, a chip, a
/// choice, a format), names separated by commas. nullopt when the text is one value, or the
/// argument takes free text or a list of its own (those commas belong to the value).
Result<std::optional<Json>> axis_from_text(const ArgSpec& arg, std::string_view text);
/// "K/N" as a shard (1 <= K <= N <= 10^6), or an Error naming `flag`.
Result<std::pair<std::size_t, std::size_t>> parse_shard(std::string_view text, const std::string& flag);

}  // namespace llmecon
