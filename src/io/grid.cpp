// One command over the cartesian product of argument lists, as columns (docs/scale-out.md).
//
// Each thread fills its own columns over a contiguous run of the shard's points, and the runs are
// joined in order, so the table does not depend on the thread count. roofline with no --explain,
// --range or --ops resolves its scenario once per combination of the other axes and writes each
// point's fields straight into the columns (roofline_fields); every other command answers each
// point through Engine::run and its JSON is flattened.
#include "io/grid.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <thread>
#include <unordered_map>

#include "commands/commands.hpp"
#include "io/fields.hpp"
#include "units/json_text.hpp"

namespace llmecon {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMaxGridTotal = 1e12;  // points in the whole grid, every shard

struct StringHash {
  using is_transparent = void;
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
  ByName<std::int32_t> codes;
  std::int32_t last = -1;

  std::int32_t code(std::string_view text) {
    if (last >= 0 && col.dict[static_cast<std::size_t>(last)] == text) return last;
    auto it = codes.find(text);
    if (it == codes.end()) {
      it = codes.emplace(std::string(text), static_cast<std::int32_t>(col.dict.size())).first;
      col.dict.emplace_back(text);
    }
    return last = it->second;
  }

  void push(const Field& v) {
    const Kind want = kind_of(v.kind);
    if (want == Kind::kEmpty) {
      push_absent(col);
      return;
    }
    if (col.kind == Kind::kEmpty) {
      col.kind = want;
      const std::size_t n = col.present.size();
      col.present.assign(n, 0);
      if (want == Kind::kText) {
        col.codes.reserve(col.present.capacity());
        col.codes.assign(n, -1);
      } else {
        col.numbers.reserve(col.present.capacity());
        col.numbers.assign(n, kNaN);
      }
    } else if (col.kind != want && col.kind != Kind::kJson) {
      to_json_kind(col);
      codes.clear();
      last = -1;
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

// Rows of fields into columns. A column first met in a row goes right after the column that row
// put before it, so every row's own field order is the columns' order restricted to its fields:
// a row's JSON line does not depend on the other rows (shards give the same lines).
class Builder final : public FieldSink {
 public:
  explicit Builder(std::size_t rows) : rows_(rows) {}

  void begin(std::size_t point) {
    prev_.swap(row_);
    row_.clear();
    prev_key_.swap(row_key_);
    row_key_.clear();
    stable_ = true;
    point_.push_back(point);
    nonfinite_.clear();
  }

  void put(std::string_view key, const Field& v) override {
    const std::size_t row = point_.size() - 1;
    const std::size_t c = slot(key);
    Filling& f = cols_[c];
    if (f.col.present.size() == row + 1) pop(f.col);  // the row gives this field again: the later wins
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
    if (auto it = index_.find(key); it != index_.end()) return it->second;
    const std::size_t c = cols_.size();
    cols_.emplace_back();
    cols_.back().col.name = std::string(key);
    cols_.back().col.present.reserve(rows_);
    index_.emplace(std::string(key), c);
    auto at = row_.empty() ? order_.begin() : std::find(order_.begin(), order_.end(), row_.back()) + 1;
    order_.insert(at, c);
    return c;
  }

  std::vector<Filling> cols_;
  std::vector<std::size_t> order_;  // output order, indices into cols_
  ByName<std::size_t> index_;
  std::size_t rows_;                             // expected, reserved in each column
  std::vector<std::size_t> prev_, row_;          // the columns the previous and this row put, in order
  std::vector<const char*> prev_key_, row_key_;  // and the addresses of their keys
  std::vector<std::size_t> point_;
  std::string nonfinite_;
  bool stable_ = true;
};

// `from`'s rows after `into`'s (both typed alike: in bulk; otherwise value by value as JSON).
void append(GridColumn& into, const GridColumn& from) {
  if (from.kind == Kind::kEmpty) {
    pad(into, into.present.size() + from.present.size());
    return;
  }
  if (into.kind == Kind::kEmpty) {
    const std::size_t n = into.present.size();
    into.kind = from.kind;
    into.present.assign(n, 0);
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

// `from`'s rows after `into`'s; a column new to `into` goes after the one `from` has before it.
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

// What every thread reads: the command, the axes and where batch and context are among them.
struct Plan {
  const Engine& e;
  const CommandSpec& spec;
  const GridRequest& g;
  std::vector<std::size_t> sizes;
  bool roofline = false;  // the fast path may apply
  std::ptrdiff_t batch_axis = -1, context_axis = -1;

  void indices(std::size_t i, std::vector<std::size_t>& idx) const {
    idx.resize(sizes.size());
    for (std::size_t a = sizes.size(); a-- > 0;) {
      idx[a] = i % sizes[a];
      i /= sizes[a];
    }
  }
  // `fixed` with each axis's value at `idx`, except the axes `skip` says to leave out.
  Json args(const std::vector<std::size_t>& idx, const std::function<bool(std::size_t)>& skip = {}) const {
    Json out = g.fixed;
    for (std::size_t a = 0; a < sizes.size(); ++a) {
      if (!skip || !skip(a)) out[g.axes[a].first] = g.axes[a].second[idx[a]];
    }
    return out;
  }
};

// An answer's scalars: top-level ones, and an object's one level down as "a.b".
void flatten(const Json& answer, FieldSink& out) {
  if (!answer.is_object()) return;
  for (const auto& [k, v] : answer.items()) {
    if (v.is_primitive()) out.put(k, Field::of(v));
    if (!v.is_object()) continue;
    for (const auto& [k2, v2] : v.items()) {
      if (v2.is_primitive()) out.put(k + "." + k2, Field::of(v2));
    }
  }
}

// One thread's run of points, with its fast path's scenario (resolved once per combination of
// the axes other than batch and context) and the batch and context values it has checked.
class Runner {
 public:
  explicit Runner(const Plan& p) : p_(p) {
    if (p.batch_axis >= 0) batch_.assign(p.sizes[static_cast<std::size_t>(p.batch_axis)], kUnchecked);
    if (p.context_axis >= 0) context_.assign(p.sizes[static_cast<std::size_t>(p.context_axis)], kUnchecked);
  }

  void point(std::size_t i, Builder& b) {
    p_.indices(i, idx_);
    b.begin(i);
    for (std::size_t a = 0; a < idx_.size(); ++a) b.put(p_.g.axes[a].first, Field::of(p_.g.axes[a].second[idx_[a]]));
    if (!(p_.roofline && fast(b))) general(b);
    if (!b.nonfinite().empty()) {
      const Error bug{p_.g.command, b.nonfinite(), "internal error: this figure is not finite",
                      "a bug in llmecon; please report the command line that gave it"};
      b.put("feasible", Field::boolean(false));
      b.put("reason", Field::text_of(bug.message()));
    }
  }

 private:
  static constexpr double kUnchecked = -1, kBad = -2;

  void general(Builder& b) {
    auto r = p_.e.run(p_.g.command, p_.args(idx_));
    if (!r) {
      refused(b, r.error());
      return;
    }
    b.stable(false);
    flatten(*r, b);
    if (!r->is_object() || !r->contains("feasible")) b.put("feasible", Field::boolean(true));
  }

  static void refused(Builder& b, const Error& e) {
    const std::string why = e.message();
    b.put("feasible", Field::boolean(false));
    b.put("reason", Field::text_of(why));
  }

  bool step_axis(std::size_t a) const {
    return static_cast<std::ptrdiff_t>(a) == p_.batch_axis || static_cast<std::ptrdiff_t>(a) == p_.context_axis;
  }

  // The checked number of batch or context at this point: the axis's value (checked once), else
  // the scenario's own; nullopt when the value is bad (the general path reports it).
  std::optional<double> step_value(std::ptrdiff_t axis, std::vector<double>& checked, const char* key) {
    if (axis < 0) return scenario_args_->number(key);
    const std::size_t v = idx_[static_cast<std::size_t>(axis)];
    if (checked[v] == kUnchecked) {
      auto c = Args::check(*p_.spec.arg(key), p_.g.axes[static_cast<std::size_t>(axis)].second[v]);
      checked[v] = c && c->is_number() && c->get<double>() >= 0 ? c->get<double>() : kBad;
    }
    if (checked[v] == kBad) return std::nullopt;
    return checked[v];
  }

  bool fast(Builder& b) {
    bool same = scenario_ready_;
    for (std::size_t a = 0; a < idx_.size() && same; ++a) same = step_axis(a) || key_[a] == idx_[a];
    if (!same) {
      key_ = idx_;
      scenario_ready_ = true;
      points_.reset();
      scenario_args_.reset();
      auto a = Args::parse(p_.spec, p_.args(idx_, [this](std::size_t ax) { return step_axis(ax); }));
      if (a && cmd::RooflinePoints::plain(*a)) {
        auto pts = cmd::RooflinePoints::open(p_.e, *a);
        if (pts) {
          points_ = std::move(pts).value();
          scenario_args_ = std::move(a).value();
        }
      }
    }
    if (!points_) return false;
    const auto batch = step_value(p_.batch_axis, batch_, "batch");
    const auto context = step_value(p_.context_axis, context_, "context");
    if (!batch || !context) return false;
    auto r = points_->at(*batch, *context);
    if (!r) {
      refused(b, r.error());
      return true;
    }
    roofline_fields(*r, b);
    b.put("price_source", Field::text_of(points_->price_source()));
    return true;
  }

  const Plan& p_;
  std::vector<std::size_t> idx_, key_;
  bool scenario_ready_ = false;
  std::optional<cmd::RooflinePoints> points_;
  std::optional<Args> scenario_args_;
  std::vector<double> batch_, context_;
};

Result<Plan> plan_of(const Engine& e, const GridRequest& g, std::size_t& total) {
  const CommandSpec* spec = find_command(g.command);
  if (spec == nullptr || !Engine::implements(g.command)) return unknown_command(g.command);
  if (!g.fixed.is_object()) return Error{"grid", "", "the fixed arguments are not an object", ""};
  if (g.axes.empty()) {
    return Error{"grid", "", "no axis", "give at least one argument a list of values (--batch 1,8,64 or 1:4096:x2)"};
  }
  Plan p{e, *spec, g, {}, false, -1, -1};
  double n = 1;
  for (std::size_t a = 0; a < g.axes.size(); ++a) {
    const auto& [key, values] = g.axes[a];
    if (spec->arg(key) == nullptr) return unknown_argument(*spec, key);
    if (!values.is_array() || values.empty()) {
      return Error{flag_of(key), "", "an axis needs a non-empty list of values", "e.g. [1, 8, 64]"};
    }
    for (std::size_t b = 0; b < a; ++b) {
      if (g.axes[b].first == key) return Error{flag_of(key), "", "is two axes", "give each argument one list"};
    }
    p.sizes.push_back(values.size());
    n *= static_cast<double>(values.size());
    if (key == "batch") p.batch_axis = static_cast<std::ptrdiff_t>(a);
    if (key == "context") p.context_axis = static_cast<std::ptrdiff_t>(a);
  }
  if (g.shard_n < 1 || g.shard_k < 1 || g.shard_k > g.shard_n) {
    return Error{"--shard", "", fmt::format("{}/{} is not a shard", g.shard_k, g.shard_n), "K/N with 1 <= K <= N"};
  }
  const double run = std::ceil(n / static_cast<double>(g.shard_n));
  if (n > kMaxGridTotal || run > kMaxGridPoints) {
    return Error{"grid", "",
                 fmt::format("{} points{} exceed the cap of {} per run", format_number(n),
                             g.shard_n > 1 ? fmt::format(" ({} in this shard)", format_number(run)) : "",
                             format_number(kMaxGridPoints)),
                 "narrow an axis, or split the grid into shards (--shard K/N, or an executor in Python)"};
  }
  total = static_cast<std::size_t>(n);
  p.roofline = g.command == "roofline";
  return p;
}

}  // namespace

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

Result<GridTable> run_grid(const Engine& e, const GridRequest& g, const Cancel& cancel) {
  std::size_t total = 0;
  TRY(plan, plan_of(e, g, total));
  const std::size_t first = g.shard_k - 1;
  const std::size_t m = total > first ? (total - first + g.shard_n - 1) / g.shard_n : 0;
  const unsigned hw = std::max(1U, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::max<std::size_t>(1, std::min<std::size_t>(m, g.threads > 0 ? static_cast<std::size_t>(g.threads) : hw));
  std::vector<GridTable> parts(threads);
  std::atomic<bool> stop{false};
  auto work = [&](std::size_t t) {
    Builder b((t + 1) * m / threads - t * m / threads);
    Runner r(plan);
    for (std::size_t j = t * m / threads; j < (t + 1) * m / threads; ++j) {
      if (cancel && j % 256 == 0 && (stop || cancel())) {
        stop = true;
        break;
      }
      r.point(first + j * g.shard_n, b);
    }
    parts[t] = std::move(b).table();
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& t : pool) t.join();
  if (stop) return cmd::cancelled_error();
  GridTable out = std::move(parts[0]);
  for (std::size_t t = 1; t < threads; ++t) join(out, std::move(parts[t]));
  out.points = total;
  return out;
}

std::string grid_json_lines(const GridTable& t) {
  std::string out;
  for (std::size_t i = 0; i < t.rows(); ++i) {
    Json row = Json::object();
    row["point"] = t.point[i];
    for (const GridColumn& c : t.columns) {
      if (c.present[i] != 0) row[c.name] = c.cell(i);
    }
    out += json_text(row);
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

Result<std::pair<std::size_t, std::size_t>> parse_shard(std::string_view text, const std::string& flag) {
  const auto slash = text.find('/');
  const auto k = slash == std::string::npos ? std::nullopt : parse_number_text(text.substr(0, slash));
  const auto n = slash == std::string::npos ? std::nullopt : parse_number_text(text.substr(slash + 1));
  if (!k || !n || *n < 1 || *n > 1e6 || *k < 1 || *k > *n || *k != std::floor(*k) || *n != std::floor(*n)) {
    return Error{flag, "", "'" + std::string(text) + "' is not a shard", "K/N with 1 <= K <= N <= 10^6, e.g. 3/8"};
  }
  return std::pair{static_cast<std::size_t>(*k), static_cast<std::size_t>(*n)};
}

}  // namespace llmecon
