// Calibration: fitting a chip's efficiency to measurements (docs/model.md §19).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>

#include "llmecon/validate.hpp"

namespace llmecon {

// ---------------------------------------------------------------------------------------------
// Calibration

namespace {

// Parameters in an unconstrained space: logit for fractions, log for positive quantities.
constexpr int kParams = 6;
using Vec = std::array<double, kParams>;

double logit(double p) {
  return std::log(p / (1 - p));
}
double sigmoid(double x) {
  return 1 / (1 + std::exp(-x));
}

Efficiency decode(const Vec& x) {
  Efficiency e;
  e.compute = std::clamp(sigmoid(x[0]), 1e-3, 1.0);
  e.gemm_half_m = std::exp(x[1]);
  e.memory = std::clamp(sigmoid(x[2]), 1e-3, 1.0);
  e.comm = std::clamp(sigmoid(x[3]), 1e-3, 1.0);
  e.step_overhead = units::seconds(std::exp(x[4]));
  e.layer_overhead = units::seconds(std::exp(x[5]));
  return e;
}

Vec encode(const Efficiency& e) {
  auto clampf = [](double v) { return std::clamp(v, 0.02, 0.98); };
  return Vec{logit(clampf(e.compute)),
             std::log(std::max(e.gemm_half_m, 1.0)),
             logit(clampf(e.memory)),
             logit(clampf(e.comm)),
             std::log(std::max(e.step_overhead.si(), 1e-6)),
             std::log(std::max(e.layer_overhead.si(), 1e-8))};
}

// Nelder-Mead on f over R^6.
Vec minimize(const std::function<double(const Vec&)>& f, Vec x0, int iters) {
  std::array<Vec, kParams + 1> s;
  std::array<double, kParams + 1> fs{};
  s[0] = x0;
  for (std::size_t i = 0; i < kParams; ++i) {
    s[i + 1] = x0;
    s[i + 1][i] += 1.0;
  }
  for (std::size_t i = 0; i <= kParams; ++i) fs[i] = f(s[i]);
  for (int it = 0; it < iters; ++it) {
    std::array<std::size_t, kParams + 1> idx{};
    for (std::size_t i = 0; i <= kParams; ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return fs[a] < fs[b]; });
    const std::size_t best = idx[0], worst = idx[kParams], second = idx[kParams - 1];
    if (std::fabs(fs[worst] - fs[best]) < 1e-12) break;
    Vec c{};
    for (std::size_t i = 0; i < kParams; ++i)
      for (std::size_t j = 0; j < kParams; ++j) c[j] += s[idx[i]][j] / kParams;
    auto along = [&](double t) {
      Vec v{};
      for (std::size_t j = 0; j < kParams; ++j) v[j] = c[j] + t * (s[worst][j] - c[j]);
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
        for (std::size_t i = 1; i <= kParams; ++i) {
          for (std::size_t j = 0; j < kParams; ++j) s[idx[i]][j] = s[best][j] + 0.5 * (s[idx[i]][j] - s[best][j]);
          fs[idx[i]] = f(s[idx[i]]);
        }
      }
    }
  }
  std::size_t best = 0;
  for (std::size_t i = 1; i <= kParams; ++i)
    if (fs[i] < fs[best]) best = i;
  return s[best];
}

double median_ape(const ValidationReport& rep) {
  std::vector<double> v;
  for (const auto& r : rep.rows)
    if (r.error_pct && is_speed_metric(r.metric)) v.push_back(std::fabs(*r.error_pct));
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

// Sum of squared log errors of the speed metrics, with a weak prior pulling towards x0.
double loss(const std::vector<Measurement>& rows, const ValidationContext& base, const Vec& x, const Vec& x0) {
  ValidationContext c = base;
  const Efficiency e = decode(x);
  c.efficiency = [e](const Hardware&) { return e; };
  const ValidationReport rep = validate(rows, c);
  double sum = 0;
  for (const auto& r : rep.rows) {
    if (!r.predicted || !is_speed_metric(r.metric) || *r.predicted <= 0) continue;
    const double l = std::log(*r.predicted / r.measured);
    sum += l * l;
  }
  double prior = 0;
  for (std::size_t j = 0; j < kParams; ++j) prior += (x[j] - x0[j]) * (x[j] - x0[j]);
  return sum + 1e-3 * prior;
}

}  // namespace

Result<CalibrationResult> calibrate(const std::vector<Measurement>& all, const ValidationContext& ctx,
                                    const std::string& hardware, int folds) {
  std::vector<Measurement> rows;
  for (const auto& m : all)
    if (m.hardware == hardware && is_speed_metric(m.metric) && m.scenario != "training_step") rows.push_back(m);
  if (rows.empty()) {
    return Error{"--hw", "", "no throughput or latency rows measured on '" + hardware + "'",
                 "calibrate needs rows of that chip in the CSV"};
  }
  auto hw = ctx.hw->get(hardware, "--hw");
  if (!hw) return hw.error();
  const Efficiency start =
      ctx.efficiency ? ctx.efficiency(**hw) : Efficiency{0.7, 64, 0.85, 0.8, units::ms(1), units::us(10)};
  const Vec x0 = encode(start.ideal() ? Efficiency{0.7, 64, 0.85, 0.8, units::ms(1), units::us(10)} : start);
  auto fit = [&](const std::vector<Measurement>& train) {
    return minimize([&](const Vec& x) { return loss(train, ctx, x, x0); }, x0, 400);
  };
  CalibrationResult out;
  out.hardware = hardware;
  out.rows = static_cast<int>(rows.size());
  const Vec best = fit(rows);
  out.eff = decode(best);
  ValidationContext c = ctx;
  const Efficiency e = out.eff;
  c.efficiency = [e](const Hardware&) { return e; };
  out.in_sample_median_ape = median_ape(validate(rows, c));
  // k-fold: fit on the other folds, predict the held-out rows.
  const int k = std::max(2, std::min(folds, static_cast<int>(rows.size())));
  out.folds = k;
  ValidationReport held;
  for (int f = 0; f < k; ++f) {
    std::vector<Measurement> train, test;
    for (std::size_t i = 0; i < rows.size(); ++i)
      (static_cast<int>(i % static_cast<std::size_t>(k)) == f ? test : train).push_back(rows[i]);
    if (train.empty() || test.empty()) continue;
    const Efficiency ef = decode(fit(train));
    ValidationContext cf = ctx;
    cf.efficiency = [ef](const Hardware&) { return ef; };
    const ValidationReport r = validate(test, cf);
    held.rows.insert(held.rows.end(), r.rows.begin(), r.rows.end());
  }
  out.cv_median_ape = median_ape(held);
  out.toml = fmt::format(
      "# Efficiency fitted by `llmecon calibrate` to {} rows measured on {}: in-sample median APE {:.1f}%, "
      "{}-fold cross-validated {:.1f}%.\nname = \"{}\"\n\n[efficiency]\ncompute = {:.4f}\ngemm_half_m = {:.2f}\n"
      "memory = {:.4f}\ncomm = {:.4f}\nstep_overhead = \"{:.3f} us\"\nlayer_overhead = \"{:.3f} us\"\n"
      "source = \"llmecon calibrate, {} rows\"\n",
      out.rows, hardware, out.in_sample_median_ape, k, out.cv_median_ape, hardware, out.eff.compute,
      out.eff.gemm_half_m, out.eff.memory, out.eff.comm, out.eff.step_overhead.si() * 1e6,
      out.eff.layer_overhead.si() * 1e6, out.rows);
  return out;
}

}  // namespace llmecon
