// Calibration: fitting a chip's efficiency to measurements (docs/model.md §19).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>
#include <optional>

#include "validate/validate.hpp"

namespace llmecon {

// ---------------------------------------------------------------------------------------------
// Calibration

namespace {

// The parameters calibration may fit (model.md §19), each in an unconstrained space: logit for
// fractions, log for positive quantities. The rest of an Efficiency (tile sizes, compute units,
// kernels per layer) describes the chip and the engine and is never fitted.
using Vec = std::vector<double>;

double logit(double p) {
  return std::log(p / (1 - p));
}
double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

// Each parameter moves only within what is physically plausible (model.md §19): a fit that
// needed a 7 ms fixed cost per step to match a row is absorbing something the model lacks, and
// should show that as error rather than hide it.
struct Param {
  const char* key;
  double lo, hi;  // the plausible range; log-scaled for times and sizes
  bool log;
  double (*get)(const Efficiency&);
  void (*set)(Efficiency&, double v);
};
const std::array<Param, 6> kParams{{
    {"compute", 0.3, 1.0, false, [](const Efficiency& e) { return e.compute; },
     [](Efficiency& e, double v) { e.compute = v; }},
    {"memory", 0.5, 1.0, false, [](const Efficiency& e) { return e.memory; },
     [](Efficiency& e, double v) { e.memory = v; }},
    {"memory_half", 1e5, 6.4e7, true, [](const Efficiency& e) { return e.memory_half.si(); },
     [](Efficiency& e, double v) { e.memory_half = units::bytes(v); }},
    {"comm", 0.3, 1.0, false, [](const Efficiency& e) { return e.comm; }, [](Efficiency& e, double v) { e.comm = v; }},
    {"step_overhead", 1e-5, 2e-3, true, [](const Efficiency& e) { return e.step_overhead.si(); },
     [](Efficiency& e, double v) { e.step_overhead = units::seconds(v); }},
    {"kernel_overhead", 5e-7, 1e-5, true, [](const Efficiency& e) { return e.kernel_overhead.si(); },
     [](Efficiency& e, double v) { e.kernel_overhead = units::seconds(v); }},
}};

// To and from an unconstrained coordinate: a logistic map onto [lo, hi], in log space for times
// and sizes.
double to_x(const Param& p, double v) {
  const double lo = p.log ? std::log(p.lo) : p.lo, hi = p.log ? std::log(p.hi) : p.hi;
  const double t = std::clamp(((p.log ? std::log(std::max(v, 1e-300)) : v) - lo) / (hi - lo), 0.02, 0.98);
  return logit(t);
}
double from_x(const Param& p, double x) {
  const double lo = p.log ? std::log(p.lo) : p.lo, hi = p.log ? std::log(p.hi) : p.hi;
  const double v = lo + (hi - lo) * sigmoid(x);
  return p.log ? std::exp(v) : v;
}

// The fitted parameters of `base` set from x.
Efficiency decode(const Efficiency& base, const std::vector<const Param*>& params, const Vec& x) {
  Efficiency e = base;
  for (std::size_t i = 0; i < params.size(); ++i) params[i]->set(e, from_x(*params[i], x[i]));
  return e;
}

Vec encode(const Efficiency& e, const std::vector<const Param*>& params) {
  Vec x;
  for (const Param* p : params) x.push_back(to_x(*p, p->get(e)));
  return x;
}

// Nelder-Mead on f over R^n.
Vec minimize(const std::function<double(const Vec&)>& f, const Vec& x0, int iters) {
  const std::size_t n = x0.size();
  std::vector<Vec> s(n + 1, x0);
  std::vector<double> fs(n + 1);
  for (std::size_t i = 0; i < n; ++i) s[i + 1][i] += 1.0;
  for (std::size_t i = 0; i <= n; ++i) fs[i] = f(s[i]);
  std::vector<std::size_t> idx(n + 1);
  for (int it = 0; it < iters && n > 0; ++it) {
    for (std::size_t i = 0; i <= n; ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return fs[a] < fs[b]; });
    const std::size_t best = idx[0], worst = idx[n], second = idx[n - 1];
    if (std::fabs(fs[worst] - fs[best]) < 1e-12) break;
    Vec c(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) c[j] += s[idx[i]][j] / static_cast<double>(n);
    auto along = [&](double t) {
      Vec v(n);
      for (std::size_t j = 0; j < n; ++j) v[j] = c[j] + t * (s[worst][j] - c[j]);
      return v;
    };
    const Vec xr = along(-1.0);
    const double fr = f(xr);
    if (fr < fs[best]) {
      const Vec xe = along(-2.0);
      const double fe = f(xe);
      if (fe < fr) {
        s[worst] = xe;
        fs[worst] = fe;
      } else {
        s[worst] = xr;
        fs[worst] = fr;
      }
    } else if (fr < fs[second]) {
      s[worst] = xr;
      fs[worst] = fr;
    } else {
      const Vec xc = along(0.5);
      const double fc = f(xc);
      if (fc < fs[worst]) {
        s[worst] = xc;
        fs[worst] = fc;
      } else {
        for (std::size_t i = 1; i <= n; ++i) {
          for (std::size_t j = 0; j < n; ++j) s[idx[i]][j] = s[best][j] + 0.5 * (s[idx[i]][j] - s[best][j]);
          fs[idx[i]] = f(s[idx[i]]);
        }
      }
    }
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i <= n; ++i)
    if (fs[i] < fs[best]) best = i;
  return s[best];
}

// p10, p50 and p90 of the absolute error of the speed metrics (zero when there is none).
Quantiles speed_ape(const ValidationReport& rep) {
  std::vector<double> v;
  for (const auto& r : rep.rows)
    if (r.error_pct && is_speed_metric(r.metric)) v.push_back(std::fabs(*r.error_pct));
  return v.empty() ? Quantiles{} : quantiles(std::move(v));
}

// How rows under traffic are predicted: by the one-step formula, which fits kernel costs and not
// a scheduler (model.md §19), or as `validate` predicts them (through the simulator, §19.1).
enum class Traffic { kOneStep, kAsValidate };

// The rows predicted with `eff` on every chip (unset: the context's own efficiency).
ValidationReport validate_with(const std::vector<Measurement>& rows, const ValidationContext& ctx,
                               const std::optional<Efficiency>& eff, Traffic traffic = Traffic::kOneStep) {
  ValidationContext c = ctx;
  if (eff) c.efficiency = [e = *eff](const Hardware&) { return e; };
  if (traffic == Traffic::kOneStep) c.simulate_traffic = false;
  c.fit_training = false;
  return validate(rows, c);
}

// Predicts `test` with `eff` and appends its rows to `into`.
void predict_into(const std::vector<Measurement>& test, const ValidationContext& ctx,
                  const std::optional<Efficiency>& eff, std::vector<RowResult>& into,
                  Traffic traffic = Traffic::kOneStep) {
  const ValidationReport r = validate_with(test, ctx, eff, traffic);
  into.insert(into.end(), r.rows.begin(), r.rows.end());
}

// The sources of `rows`, in order of first appearance.
std::vector<std::string> sources_of(const std::vector<Measurement>& rows) {
  std::vector<std::string> out;
  for (const auto& r : rows)
    if (std::find(out.begin(), out.end(), r.source) == out.end()) out.push_back(r.source);
  return out;
}

// Sum of squared log errors of the speed metrics, with a weak prior pulling towards x0.
double loss(const std::vector<Measurement>& rows, const ValidationContext& base, const Efficiency& start,
            const std::vector<const Param*>& params, const Vec& x, const Vec& x0) {
  const ValidationReport rep = validate_with(rows, base, decode(start, params, x));
  double sum = 0;
  for (const auto& r : rep.rows) {
    if (!r.predicted || !is_speed_metric(r.metric) || *r.predicted <= 0) continue;
    const double l = std::log(*r.predicted / r.measured);
    sum += l * l;
  }
  double prior = 0;
  for (std::size_t j = 0; j < x.size(); ++j) prior += (x[j] - x0[j]) * (x[j] - x0[j]);
  return sum + 1e-3 * prior;
}

// A --fit name that is none of the parameters, as the error that lists them.
std::optional<Error> unknown_parameter(const std::vector<std::string>& fit) {
  for (const auto& name : fit) {
    if (std::none_of(kParams.begin(), kParams.end(), [&](const Param& p) { return p.key == name; })) {
      std::string names;
      for (std::size_t i = 0; i < kParams.size(); ++i)
        names += (i == 0 ? "" : i + 1 == kParams.size() ? " or " : ", ") + std::string(kParams[i].key);
      return Error{"--fit", "", fmt::format("unknown parameter '{}'", name), names};
    }
  }
  return std::nullopt;
}

// Every row of the chip (fitted and unfitted) as `validate` predicts it, traffic simulated, under
// the defaults, the full fit, each k-fold fit and each leave-one-source-out fit.
void predict_held_out(const std::vector<Measurement>& rows, const std::vector<Measurement>& unfitted,
                      const ValidationContext& ctx, const std::vector<std::optional<Efficiency>>& fold_eff,
                      const std::map<std::string, Efficiency>& source_eff, CalibrationResult& out) {
  const int k = out.folds;
  auto fold_of = [k](std::size_t i) { return static_cast<int>(i % static_cast<std::size_t>(k)); };
  const std::vector<std::string> sources = sources_of(rows);
  // Every row of the chip as `validate` predicts it (traffic simulated), under each fit.
  std::vector<Measurement> eval = rows;
  eval.insert(eval.end(), unfitted.begin(), unfitted.end());
  auto predict = [&](const std::vector<Measurement>& test, const std::optional<Efficiency>& eff,
                     std::vector<RowResult>& into) { predict_into(test, ctx, eff, into, Traffic::kAsValidate); };
  predict(eval, std::nullopt, out.default_rows);
  predict(eval, out.eff, out.in_sample_rows);
  for (int f = 0; f < k; ++f) {
    const auto& eff = fold_eff[static_cast<std::size_t>(f)];
    std::vector<Measurement> test;
    for (std::size_t i = 0; i < eval.size(); ++i) {
      // Without a fit for the fold (a single fitted row: nothing left to fit on), its fitted row
      // cannot be held out and is left out; its unfitted rows take the full fit, which never saw them.
      if (fold_of(i) == f && (eff || i >= rows.size())) test.push_back(eval[i]);
    }
    predict(test, eff ? eff : out.eff, out.kfold_rows);
  }
  for (const auto& src : sources_of(eval)) {
    std::vector<Measurement> test;
    for (const auto& r : eval)
      if (r.source == src) test.push_back(r);
    const auto it = source_eff.find(src);
    if (it != source_eff.end()) {
      predict(test, it->second, out.loso_rows);
    } else if (std::find(sources.begin(), sources.end(), src) == sources.end()) {
      predict(test, out.eff, out.loso_rows);  // no fitted row from this source: the full fit never saw it
    }                                         // else the source holds every fitted row: nothing is left to fit
  }
}

// The overlay a user passes back with --hw-file: the fitted efficiency with how it was fitted.
std::string overlay_toml(const CalibrationResult& out, const std::string& hardware) {
  const int k = out.folds;
  std::string fitted;
  for (const auto& f : out.fitted) fitted += (fitted.empty() ? "\"" : ", \"") + f + "\"";
  std::string toml = fmt::format(
      "# Efficiency fitted by `llmecon calibrate` to {} rows measured on {}: in-sample median APE {:.1f}%, "
      "{}-fold cross-validated {:.1f}%, leave-one-source-out {}.\n# Fitted: {}; the rest as the family sets "
      "them.\nname = \"{}\"\n\n[efficiency]\n",
      out.rows, hardware, out.in_sample_median_ape, k, out.cv_median_ape,
      out.sources > 1 ? fmt::format("{:.1f}%", out.loso_median_ape) : std::string("not measurable (one source)"),
      fitted, hardware);
  // Every field the overlay can hold, in the form its reader takes; a number outside its range is
  // one the family leaves unset (attn_compute 0), which the overlay leaves out too.
  for (const EfficiencyField& f : efficiency_fields()) {
    const double v = f.si(out.eff);
    switch (f.kind) {
      case EfficiencyField::Kind::kBytes:
        toml += fmt::format("{} = \"{:.4g} MB\"\n", f.key, v / 1e6);
        break;
      case EfficiencyField::Kind::kSeconds:
        toml += fmt::format("{} = \"{:.3f} us\"\n", f.key, v * 1e6);
        break;
      case EfficiencyField::Kind::kNumber:
        if (v < f.lo || v > f.hi) break;
        toml += f.lo > 0 && f.hi == 1.0 ? fmt::format("{} = {:.4f}\n", f.key, v) : fmt::format("{} = {}\n", f.key, v);
        break;
    }
  }
  toml += fmt::format("source = \"llmecon calibrate, {} rows\"\n", out.rows);
  return toml;
}

}  // namespace

Result<CalibrationResult> calibrate(const std::vector<Measurement>& all, const ValidationContext& ctx,
                                    const std::string& hardware, const CalibrateOptions& opt) {
  const std::vector<std::string>& fit = opt.fit;
  if (auto e = unknown_parameter(fit)) return *e;
  // Only rows that state their batch: where the engine chose it, the error measures the
  // scheduler, not the kernels, and fitting kernel costs to it would hide that (model.md §19).
  // Rows under load measure queueing and the scheduler as well (model.md §23): not fitted. Both
  // are still predicted for held-out errors (model.md §19.1).
  std::vector<Measurement> rows, unfitted;
  int unstated = 0;
  for (const auto& m : all) {
    if (m.hardware != hardware || !is_speed_metric(m.metric) || m.scenario == "training_step") continue;
    if (m.scenario == "online_load") {
      unfitted.push_back(m);
    } else if (m.batch) {
      rows.push_back(m);
    } else {
      ++unstated;
      unfitted.push_back(m);
    }
  }
  if (rows.empty()) {
    return Error{"--hw", "",
                 unstated > 0 ? fmt::format("none of the {} rows measured on '{}' states its batch", unstated, hardware)
                              : "no throughput or latency rows measured on '" + hardware + "'",
                 "calibrate needs rows of that chip with a published batch"};
  }
  auto hw = ctx.catalogs->hw.get(hardware, "--hw");
  if (!hw) return hw.error();
  // Without a family default, start from a generic GPU (model.md §18.3) and fit everything.
  Efficiency start = ctx.efficiency ? ctx.efficiency(**hw) : Efficiency{};
  if (start.ideal()) {
    start = Efficiency{0.7, 64, 128, 132, 0.85, units::bytes(2e6), 0.8, units::us(100), units::us(3), 4};
  }
  std::vector<const Param*> params;
  for (const Param& p : kParams) {
    if (fit.empty() || std::find(fit.begin(), fit.end(), p.key) != fit.end()) params.push_back(&p);
  }
  const Vec x0 = encode(start, params);
  auto fit_rows = [&](const std::vector<Measurement>& train) {
    return decode(start, params,
                  minimize([&](const Vec& x) { return loss(train, ctx, start, params, x, x0); }, x0, 400));
  };
  CalibrationResult out;
  out.hardware = hardware;
  out.rows = static_cast<int>(rows.size());
  out.unstated_batch = unstated;
  out.eff = fit_rows(rows);
  for (const Param* p : params) out.fitted.emplace_back(p->key);
  out.in_sample_median_ape = speed_ape(validate_with(rows, ctx, out.eff)).p50;
  // k-fold: fit on the other folds, predict the held-out rows. Row i is in fold i mod k; the
  // unfitted rows continue the count after the fitted ones.
  const int k = std::max(2, std::min(opt.folds, static_cast<int>(rows.size())));
  out.folds = k;
  auto fold_of = [k](std::size_t i) { return static_cast<int>(i % static_cast<std::size_t>(k)); };
  std::vector<std::optional<Efficiency>> fold_eff(static_cast<std::size_t>(k));
  ValidationReport held;
  for (int f = 0; f < k; ++f) {
    std::vector<Measurement> train, test;
    for (std::size_t i = 0; i < rows.size(); ++i) (fold_of(i) == f ? test : train).push_back(rows[i]);
    if (train.empty() || test.empty()) continue;
    fold_eff[static_cast<std::size_t>(f)] = fit_rows(train);
    predict_into(test, ctx, fold_eff[static_cast<std::size_t>(f)], held.rows);
  }
  out.cv_median_ape = speed_ape(held).p50;
  // Leave one source out: rows of one source share an engine and a methodology, so k-fold, which
  // mixes them, flatters the fit. Each source's rows are predicted by a fit to all the others.
  const std::vector<std::string> sources = sources_of(rows);
  out.sources = static_cast<int>(sources.size());
  std::map<std::string, Efficiency> source_eff;
  if (sources.size() > 1) {
    ValidationReport loso;
    for (const auto& src : sources) {
      std::vector<Measurement> train, test;
      for (const auto& r : rows) (r.source == src ? test : train).push_back(r);
      source_eff[src] = fit_rows(train);
      predict_into(test, ctx, source_eff[src], loso.rows);
    }
    const Quantiles q = speed_ape(loso);
    out.loso_median_ape = q.p50;
    out.loso_p90_ape = q.p90;
  }
  if (opt.held_out_rows) predict_held_out(rows, unfitted, ctx, fold_eff, source_eff, out);
  out.toml = overlay_toml(out, hardware);
  return out;
}

std::map<std::string, CrossValidatedScenario> cross_validated_by_scenario(const std::vector<CalibrationResult>& chips) {
  constexpr const char* kThree = "decode, prefill and offline";
  std::map<std::string, std::array<std::vector<double>, 4>> ape;
  auto add = [&](const std::vector<RowResult>& rows, std::size_t column) {
    for (const auto& r : rows) {
      if (!r.error_pct || !is_speed_metric(r.metric)) continue;
      ape[r.scenario][column].push_back(std::fabs(*r.error_pct));
      if (const std::string family = serving_family(r.metric); r.scenario == "online_load" && !family.empty())
        ape[r.scenario + ": " + family][column].push_back(std::fabs(*r.error_pct));
      if (r.scenario == "decode_fixed_batch" || r.scenario == "prefill" || r.scenario == "offline_throughput")
        ape[kThree][column].push_back(std::fabs(*r.error_pct));
    }
  };
  for (const auto& c : chips) {
    add(c.default_rows, 0);
    add(c.in_sample_rows, 1);
    add(c.kfold_rows, 2);
    add(c.loso_rows, 3);
  }
  auto cell = [](std::vector<double> v) {
    ErrorCell e;
    e.n = static_cast<int>(v.size());
    if (v.empty()) return e;
    const Quantiles q = quantiles(std::move(v));
    e.median_ape = q.p50;
    e.p90_ape = q.p90;
    return e;
  };
  std::map<std::string, CrossValidatedScenario> out;
  for (auto& [scenario, cols] : ape) {
    out[scenario] = CrossValidatedScenario{cell(cols[0]), cell(cols[1]), cell(cols[2]), cell(cols[3])};
  }
  return out;
}

}  // namespace llmecon
