// A grid's columns, filled row by row and joined in point order (io/grid_table.hpp).
#include "io/grid_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <unordered_map>
#include <vector>

#include "units/json_text.hpp"

namespace llmecon {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct StringHash {
  using is_transparent = void;  // NOLINT(readability-identifier-naming): the standard library's name
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <class V>
using ByName = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

using Kind = GridColumn::Kind;

void push_absent(GridColumn& c) {
  c.present.push_back(0);
  switch (c.kind) {
    case Kind::kNumber:
    case Kind::kBool:
      c.numbers.push_back(kNaN);
      break;
    case Kind::kText:
      c.codes.push_back(-1);
      break;
    case Kind::kJson:
      c.cells.emplace_back(nullptr);
      break;
    case Kind::kEmpty:
      break;
  }
}

void pad(GridColumn& c, std::size_t rows) {
  while (c.present.size() < rows) push_absent(c);
}

void pop(GridColumn& c) {
  c.present.pop_back();
  if (c.kind == Kind::kNumber || c.kind == Kind::kBool) c.numbers.pop_back();
  if (c.kind == Kind::kText) c.codes.pop_back();
  if (c.kind == Kind::kJson) c.cells.pop_back();
}

// A column whose values' types differ between rows keeps each as JSON.
void to_json_kind(GridColumn& c) {
  std::vector<Json> cells;
  cells.reserve(c.present.size());
  for (std::size_t i = 0; i < c.present.size(); ++i) cells.push_back(c.cell(i));
  c.cells = std::move(cells);
  c.numbers.clear();
  c.codes.clear();
  c.dict.clear();
  c.kind = Kind::kJson;
}

Kind kind_of(Field::Kind k) {
  switch (k) {
    case Field::Kind::kBool:
      return Kind::kBool;
    case Field::Kind::kText:
      return Kind::kText;
    case Field::Kind::kNumber:
    case Field::Kind::kInteger:
      return Kind::kNumber;
    case Field::Kind::kNull:
      break;
  }
  return Kind::kEmpty;
}

// A column being filled, with its text values' codes.
struct Filling {
  GridColumn col;
  // The codes by text: open addressing over (hash, code), the text itself in col.dict.
  struct Slot {
    std::uint64_t hash = 0;
    std::int32_t code = -1;
  };
  std::vector<Slot> slots;
  std::size_t coded = 0;
  std::int32_t last = -1;

  std::int32_t code(std::string_view text) {
    if (last >= 0 && col.dict[static_cast<std::size_t>(last)] == text) return last;
    const std::uint64_t h = std::hash<std::string_view>{}(text);
    if (slots.empty()) slots.resize(64);
    std::size_t i = spread(h) & (slots.size() - 1);
    for (; slots[i].code >= 0; i = (i + 1) & (slots.size() - 1)) {
      if (slots[i].hash == h && col.dict[static_cast<std::size_t>(slots[i].code)] == text) return last = slots[i].code;
    }
    const auto c = static_cast<std::int32_t>(col.dict.size());
    col.dict.emplace_back(text);
    slots[i] = Slot{h, c};
    if (++coded * 2 > slots.size()) rehash();
    return last = c;
  }
  void forget_codes() {
    slots.clear();
    coded = 0;
    last = -1;
  }

 private:
  static std::size_t spread(std::uint64_t h) { return static_cast<std::size_t>((h * 0x9e3779b97f4a7c15ULL) >> 20); }
  void rehash() {
    std::vector<Slot> old(slots.size() * 2);
    old.swap(slots);
    for (const Slot& e : old) {
      if (e.code < 0) continue;
      std::size_t i = spread(e.hash) & (slots.size() - 1);
      while (slots[i].code >= 0) i = (i + 1) & (slots.size() - 1);
      slots[i] = e;
    }
  }

 public:
  void push(const Field& v) {
    const Kind want = kind_of(v.kind);
    if (want == Kind::kEmpty) {
      push_absent(col);
      return;
    }
    if (col.kind == Kind::kEmpty) {
      col.kind = want;  // every earlier row is absent: `present` holds their zeros
      const std::size_t n = col.present.size();
      if (want == Kind::kText) {
        col.codes.reserve(col.present.capacity());
        col.codes.assign(n, -1);
      } else {
        col.numbers.reserve(col.present.capacity());
        col.numbers.assign(n, kNaN);
      }
    } else if (col.kind != want && col.kind != Kind::kJson) {
      to_json_kind(col);
      forget_codes();
    }
    col.present.push_back(1);
    switch (col.kind) {
      case Kind::kNumber:
        col.integral = col.integral && v.kind == Field::Kind::kInteger;
        col.numbers.push_back(v.number);
        break;
      case Kind::kBool:
        col.numbers.push_back(v.number);
        break;
      case Kind::kText:
        col.codes.push_back(code(v.text));
        break;
      case Kind::kJson:
        col.cells.push_back(v.json());
        break;
      case Kind::kEmpty:
        break;
    }
  }
};

// `from`'s rows after `into`'s (both typed alike: in bulk; otherwise value by value as JSON).
void append(GridColumn& into, const GridColumn& from) {
  if (from.kind == Kind::kEmpty) {
    pad(into, into.present.size() + from.present.size());
    return;
  }
  if (into.kind == Kind::kEmpty) {
    const std::size_t n = into.present.size();
    into.kind = from.kind;  // every earlier row is absent: `present` holds their zeros
    into.numbers.assign(from.kind == Kind::kNumber || from.kind == Kind::kBool ? n : 0, kNaN);
    into.codes.assign(from.kind == Kind::kText ? n : 0, -1);
    into.cells.assign(from.kind == Kind::kJson ? n : 0, Json());
  }
  if (into.kind != from.kind) {
    if (into.kind != Kind::kJson) to_json_kind(into);
    for (std::size_t i = 0; i < from.present.size(); ++i) {
      into.present.push_back(from.present[i]);
      into.cells.push_back(from.cell(i));
    }
    return;
  }
  into.present.insert(into.present.end(), from.present.begin(), from.present.end());
  into.integral = into.integral && from.integral;
  into.numbers.insert(into.numbers.end(), from.numbers.begin(), from.numbers.end());
  into.cells.insert(into.cells.end(), from.cells.begin(), from.cells.end());
  if (into.kind != Kind::kText) return;
  ByName<std::int32_t> known;
  for (std::size_t d = 0; d < into.dict.size(); ++d) known.emplace(into.dict[d], static_cast<std::int32_t>(d));
  std::vector<std::int32_t> remap(from.dict.size());
  for (std::size_t d = 0; d < from.dict.size(); ++d) {
    const auto [it, fresh] = known.emplace(from.dict[d], static_cast<std::int32_t>(into.dict.size()));
    if (fresh) into.dict.push_back(from.dict[d]);
    remap[d] = it->second;
  }
  for (const std::int32_t c : from.codes) into.codes.push_back(c < 0 ? -1 : remap[static_cast<std::size_t>(c)]);
}

}  // namespace

class GridBuilder::State {
 public:
  explicit State(std::size_t rows) : rows_(rows) {}

  void begin(std::size_t point) {
    prev_.swap(row_);
    row_.clear();
    prev_key_.swap(row_key_);
    row_key_.clear();
    stable_ = true;
    point_.push_back(point);
    nonfinite_.clear();
  }

  void put(std::string_view key, const Field& v) {
    const std::size_t row = point_.size() - 1;
    const std::size_t c = slot(key);
    Filling& f = cols_[c];
    const bool again = f.col.present.size() == row + 1;
    if (again) pop(f.col);  // the row gives this field again (an answer field an axis names): the later wins
    if (!again) anchor_ = c;
    pad(f.col, row);
    const bool number = v.kind == Field::Kind::kNumber || v.kind == Field::Kind::kInteger;
    if (number && !std::isfinite(v.number)) {
      if (nonfinite_.empty()) nonfinite_ = std::string(key);
      push_absent(f.col);
    } else {
      f.push(v);
    }
    row_.push_back(c);
    row_key_.push_back(stable_ ? key.data() : nullptr);
  }

  /// Whether the keys put next live, unchanged, as long as the builder (an encoder's literals, the
  /// axes' names): then a key's address names its column. A flattened answer's keys do not.
  void stable(bool keys) { stable_ = keys; }

  /// The first field of this row that was not a finite number ("" when none).
  [[nodiscard]] const std::string& nonfinite() const { return nonfinite_; }

  GridTable table() && {
    GridTable t;
    for (const std::size_t c : order_) {
      pad(cols_[c].col, point_.size());
      t.columns.push_back(std::move(cols_[c].col));
    }
    t.point = std::move(point_);
    return t;
  }

 private:
  std::size_t slot(std::string_view key) {
    // The previous row's field at this place, by its key's address (an encoder's literal) or text.
    const std::size_t j = row_.size();
    if (j < prev_.size() && ((stable_ && prev_key_[j] == key.data() && cols_[prev_[j]].col.name.size() == key.size()) ||
                             cols_[prev_[j]].col.name == key)) {
      return prev_[j];
    }
    if (stable_) {
      // An encoder's literal seen before, by its address (no hashing of its text).
      const auto it = by_address_.find(key.data());
      if (it != by_address_.end() && cols_[it->second].col.name.size() == key.size()) return it->second;
    }
    if (auto it = index_.find(key); it != index_.end()) {
      if (stable_) by_address_[key.data()] = it->second;
      return it->second;
    }
    const std::size_t c = cols_.size();
    if (stable_) by_address_[key.data()] = c;
    cols_.emplace_back();
    cols_.back().col.name = std::string(key);
    cols_.back().col.present.reserve(rows_);
    index_.emplace(std::string(key), c);
    auto at = row_.empty() ? order_.begin() : std::find(order_.begin(), order_.end(), anchor_) + 1;
    order_.insert(at, c);
    return c;
  }

  std::vector<Filling> cols_;
  std::vector<std::size_t> order_;  // output order, indices into cols_
  ByName<std::size_t> index_;
  std::unordered_map<const char*, std::size_t> by_address_;  // stable keys' columns by address
  std::size_t rows_;                                         // expected, reserved in each column
  std::vector<std::size_t> prev_, row_;                      // the columns the previous and this row put, in order
  std::vector<const char*> prev_key_, row_key_;              // and the addresses of their keys
  std::vector<std::size_t> point_;
  std::string nonfinite_;
  bool stable_ = true;
  std::size_t anchor_ = 0;  // the last column this row put a first value in: a new column goes after it
};

GridBuilder::GridBuilder(std::size_t rows) : s_(std::make_unique<State>(rows)) {}
GridBuilder::~GridBuilder() = default;
void GridBuilder::begin(std::size_t point) {
  s_->begin(point);
}
void GridBuilder::put(std::string_view key, const Field& v) {
  s_->put(key, v);
}
void GridBuilder::stable(bool keys) {
  s_->stable(keys);
}
const std::string& GridBuilder::nonfinite() const {
  return s_->nonfinite();
}
GridTable GridBuilder::table() && {
  return std::move(*s_).table();
}

void join(GridTable& into, GridTable&& from) {
  const std::size_t before = into.rows();
  std::size_t pred = 0;  // where the next new column goes
  std::vector<std::uint8_t> touched(into.columns.size(), 0);
  for (GridColumn& f : from.columns) {
    auto it =
        std::find_if(into.columns.begin(), into.columns.end(), [&](const GridColumn& c) { return c.name == f.name; });
    if (it == into.columns.end()) {
      GridColumn fresh;
      fresh.name = f.name;
      pad(fresh, before);
      it = into.columns.insert(into.columns.begin() + static_cast<std::ptrdiff_t>(pred), std::move(fresh));
      touched.insert(touched.begin() + static_cast<std::ptrdiff_t>(pred), 0);
    }
    const auto at = static_cast<std::size_t>(it - into.columns.begin());
    append(*it, f);
    touched[at] = 1;
    pred = at + 1;
  }
  const std::size_t after = before + from.rows();
  for (std::size_t c = 0; c < into.columns.size(); ++c) {
    if (touched[c] == 0) pad(into.columns[c], after);
  }
  into.point.insert(into.point.end(), from.point.begin(), from.point.end());
}

Json GridColumn::cell(std::size_t i) const {
  if (present[i] == 0) return nullptr;
  switch (kind) {
    case Kind::kNumber:
      return integral ? whole_json(numbers[i]) : Json(numbers[i]);
    case Kind::kBool:
      return numbers[i] != 0;
    case Kind::kText:
      return dict[static_cast<std::size_t>(codes[i])];
    case Kind::kJson:
      return cells[i];
    case Kind::kEmpty:
      break;
  }
  return nullptr;
}

const GridColumn* GridTable::column(std::string_view name) const {
  for (const GridColumn& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Json grid_row(const GridTable& t, std::size_t i) {
  Json row = Json::object();
  row["point"] = t.point[i];
  for (const GridColumn& c : t.columns) {
    if (c.present[i] != 0) row[c.name] = c.cell(i);
  }
  return row;
}

std::string grid_json_lines(const GridTable& t) {
  std::string out;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    out += json_text(grid_row(t, i));
    out += '\n';
  }
  return out;
}

std::string grid_csv(const GridTable& t) {
  std::string out = "point";
  for (const GridColumn& c : t.columns) out += "," + csv_cell(Json(c.name));
  out += '\n';
  for (std::size_t i = 0; i < t.rows(); ++i) {
    out += std::to_string(t.point[i]);
    for (const GridColumn& c : t.columns) {
      out += ',';
      out += csv_cell(c.cell(i));
    }
    out += '\n';
  }
  return out;
}

}  // namespace llmecon
