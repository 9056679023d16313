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

#include "commands/commands.hpp"
#include "io/fields.hpp"
#include "io/grid_table.hpp"

namespace llmecon {
namespace {

constexpr double kMaxGridTotal = 1e12;  // points in the whole grid, every shard

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
      if (!v2.is_primitive()) continue;
      std::string dotted = k;
      dotted += '.';
      dotted += k2;
      out.put(dotted, Field::of(v2));
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

  void point(std::size_t i, GridBuilder& b) {
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

  void general(GridBuilder& b) {
    auto r = p_.e.run(p_.g.command, p_.args(idx_));
    if (!r) {
      refused(b, r.error());
      return;
    }
    b.stable(false);
    flatten(*r, b);
    if (!r->is_object() || !r->contains("feasible")) b.put("feasible", Field::boolean(true));
  }

  static void refused(GridBuilder& b, const Error& e) {
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

  bool fast(GridBuilder& b) {
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
    GridBuilder b((t + 1) * m / threads - t * m / threads);
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

Result<std::optional<Json>> axis_from_text(const ArgSpec& arg, std::string_view text) {
  switch (arg.type) {
    case ArgType::kNumber:
    case ArgType::kInteger: {
      if (text.find_first_of(",:") == std::string_view::npos) return std::optional<Json>{};
      TRY(xs, parse_number_list(text, arg.flag()));
      if (xs.size() < 2) return std::optional<Json>{};
      Json axis = Json::array();
      for (const double x : xs) axis.push_back(whole_json(x));
      return std::optional<Json>{std::move(axis)};
    }
    case ArgType::kChoice:
    case ArgType::kDType:
    case ArgType::kModel:
    case ArgType::kHardware: {
      if (text.find(',') == std::string_view::npos) return std::optional<Json>{};
      Json axis = Json::array();
      for (const std::string& item : cmd::split_list(std::string(text))) axis.push_back(item);
      if (axis.size() < 2) return std::optional<Json>{};
      return std::optional<Json>{std::move(axis)};
    }
    case ArgType::kString:
    case ArgType::kBool:
    case ArgType::kNumberList:
    case ArgType::kIntegerList:
    case ArgType::kDTypeList:
      break;
  }
  return std::optional<Json>{};
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
