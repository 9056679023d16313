// The training rows' fit (docs/model.md §24.3): k_t and c_e, in-sample, k-fold and leaving each
// source out.
#include "validate/validate.hpp"

#include "notes.hpp"

#include "plan/plan.hpp"
#include "simulate/simulate.hpp"
#include "train/train.hpp"
#include "train/train_args.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <functional>
#include <set>

#define TOML_EXCEPTIONS 1
#include <toml++/toml.h>

#include "parallel/comm.hpp"
#include "parallel/parallel.hpp"
#include "units/embedded.hpp"
#include "units/units_parse.hpp"

#include "rows.hpp"

namespace llmecon::validate_internal {

// model.md §24.3: the training kernel efficiency k_t and the MoE host time per local expert c_e,
// fitted together. A row's step is its kernels' time over k_t plus its host time, units x c_e
// (units: local experts x MoE layers x micro-batches on the critical path, read off two
// predictions a step of c_e apart). k_t is the median over the rows of their kernels' time at
// k_t = 1 over the measured step less the host time; c_e is the median over the MoE rows of the
// host time that would make each exact. The two alternate until they settle (each round starts at
// the last one's fit, so the search picks its layouts there); the
// k-fold and leave-one-source-out errors refit both on the rows they keep.
namespace {

using Take = std::function<bool(std::size_t)>;

double median(const std::vector<double>& v) {
  return v.empty() ? std::nan("") : quantiles(v).p50;
}

// The two constants at one point of the alternation, and what the rows said there.
struct Fit {
  double k = 1, host = 0;
  int moe = 0;
  bool settled = false;
  std::vector<double> units;  ///< each row's seconds of step per second of c_e (0: no routed experts)
};

// The training rows and the fit over any subset of them (`take` selects rows by index).
class TrainingFitter {
 public:
  TrainingFitter(std::vector<Measurement> rows, const ValidationContext& ctx) : tr_(std::move(rows)), c_(ctx) {
    c_.fit_training = false;
  }
  [[nodiscard]] const std::vector<Measurement>& rows() const { return tr_; }

  /// The prediction of each row `take` selects at (k, host); NaN for the rest and where none.
  std::vector<double> predictions(double k, double host, const Take& take) const {
    ValidationContext ck = c_;
    ck.train_kernel_efficiency = k;
    ck.train_expert_host = host;
    std::vector<Measurement> part;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < tr_.size(); ++i) {
      if (!take(i)) continue;
      part.push_back(tr_[i]);
      at.push_back(i);
    }
    std::vector<double> p(tr_.size(), std::nan(""));
    const ValidationReport r = validate(part, ck);
    for (std::size_t j = 0; j < at.size(); ++j)
      if (r.rows[j].predicted && *r.rows[j].predicted > 0) p[at[j]] = *r.rows[j].predicted;
    return p;
  }

  /// A metric proportional to the step time (GPU-hours) or to its inverse (throughput, MFU).
  [[nodiscard]] double step_of(std::size_t i, double v) const {
    return tr_[i].metric == "training_gpu_hours" ? v : 1.0 / v;
  }

  /// The alternation from `f` over the rows `take` selects, until it settles.
  Fit fit(const Take& take, Fit f) const {
    constexpr int kMaxRounds = 40;
    for (int round = 0; round < kMaxRounds; ++round) {
      const Fit before = f;
      std::vector<double> units;
      const double ratio = kernel_ratio(take, f, units);
      f.k *= ratio;
      if (!std::isfinite(f.k)) return f;
      const std::vector<double> p0 = predictions(f.k, f.host, take);
      std::vector<double> implied;
      for (std::size_t i = 0; i < tr_.size(); ++i) {
        if (!(units[i] > 0) || !std::isfinite(p0[i])) continue;  // no routed experts
        implied.push_back(f.host + (step_of(i, tr_[i].value) - step_of(i, p0[i])) / units[i]);
      }
      f.moe = static_cast<int>(implied.size());
      f.units = units;
      f.host = implied.empty() ? 0.0 : std::max(0.0, median(implied));
      f.settled = std::fabs(f.k - before.k) <= 1e-5 * f.k && std::fabs(f.host - before.host) <= 1e-5 * f.host + 1e-9;
      if (f.settled) break;
    }
    return f;
  }

  /// The absolute errors of rows `take` at a fit.
  std::vector<double> errors_at(const Fit& f, const Take& take) const {
    std::vector<double> out;
    if (!std::isfinite(f.k)) return out;
    const std::vector<double> p = predictions(f.k, f.host, take);
    for (std::size_t i = 0; i < tr_.size(); ++i)
      if (std::isfinite(p[i])) out.push_back(std::fabs(100.0 * (p[i] - tr_[i].value) / tr_[i].value));
    return out;
  }

 private:
  // At the fit `f`: each row's units of host time (its step's rise per second of c_e, read off two
  // predictions a step of c_e apart), and the median over the rows of the kernels' predicted over
  // measured time, by which k moves (the kernels' share scales as 1/k, the host's does not).
  double kernel_ratio(const Take& take, const Fit& f, std::vector<double>& units) const {
    constexpr double kDelta = 10e-6;
    const std::vector<double> p = predictions(f.k, f.host, take), pd = predictions(f.k, f.host + kDelta, take);
    units.assign(tr_.size(), 0.0);
    std::vector<double> ratio;
    for (std::size_t i = 0; i < tr_.size(); ++i) {
      if (!std::isfinite(p[i]) || !std::isfinite(pd[i])) continue;
      units[i] = std::max(0.0, (step_of(i, pd[i]) - step_of(i, p[i])) / kDelta);
      const double host = f.host * units[i], measured = step_of(i, tr_[i].value) - host;
      const double r = (step_of(i, p[i]) - host) / measured;
      if (measured > 0 && std::isfinite(r) && r > 0) ratio.push_back(r);
    }
    return median(ratio);
  }

  std::vector<Measurement> tr_;
  ValidationContext c_;
};

// Leave each source out: each held-out row's error, and its measured step over the predicted one,
// the MoE rows (those the full fit found host time in) apart.
void leave_sources_out(const TrainingFitter& t, const Fit& all, ValidationReport::TrainingFit& f) {
  const std::vector<Measurement>& tr = t.rows();
  std::set<std::string> sources;
  for (const auto& m : tr) sources.insert(m.source);
  f.sources = static_cast<int>(sources.size());
  std::vector<double> loso, ratio_dense, ratio_moe;
  for (const auto& src : sources) {
    const Fit kept = t.fit([&](std::size_t i) { return tr[i].source != src; }, all);  // from the full fit
    if (!std::isfinite(kept.k)) continue;
    const std::vector<double> p = t.predictions(kept.k, kept.host, [&](std::size_t i) { return tr[i].source == src; });
    for (std::size_t i = 0; i < tr.size(); ++i) {
      if (!std::isfinite(p[i])) continue;
      loso.push_back(std::fabs(100.0 * (p[i] - tr[i].value) / tr[i].value));
      const bool moe = i < all.units.size() && all.units[i] > 0;
      (moe ? ratio_moe : ratio_dense).push_back(t.step_of(i, tr[i].value) / t.step_of(i, p[i]));
    }
  }
  if (!loso.empty()) {
    const Quantiles q = quantiles(loso);
    f.loso_median_ape = q.p50;
    f.loso_p90_ape = q.p90;
    f.loso_max_ape = *std::max_element(loso.begin(), loso.end());
  }
  if (!ratio_dense.empty()) f.loso_step_ratio_dense = quantiles(ratio_dense);
  if (!ratio_moe.empty()) f.loso_step_ratio_moe = quantiles(ratio_moe);
  f.dense_rows = static_cast<int>(ratio_dense.size());
}

}  // namespace

std::optional<ValidationReport::TrainingFit> fit_training(const std::vector<Measurement>& rows,
                                                          const ValidationContext& ctx) {
  std::vector<Measurement> tr;
  for (const auto& m : rows)
    if (m.scenario == "training_step") tr.push_back(m);
  if (tr.empty()) return std::nullopt;
  const TrainingFitter t(std::move(tr), ctx);
  ValidationReport::TrainingFit f;
  const Fit all = t.fit([](std::size_t) { return true; }, Fit{});
  f.fitted = all.k;
  f.expert_host = all.host;
  f.moe_rows = all.moe;
  f.settled = all.settled;
  std::vector<double> in = t.errors_at(all, [](std::size_t) { return true; });
  if (in.empty()) return std::nullopt;
  f.rows = static_cast<int>(in.size());
  f.in_sample_median_ape = quantiles(in).p50;
  f.in_sample_max_ape = *std::max_element(in.begin(), in.end());
  leave_sources_out(t, all, f);
  std::vector<double> kfold;
  for (std::size_t fold = 0; fold < 5; ++fold) {
    const Fit kept = t.fit([&](std::size_t i) { return i % 5 != fold; }, all);
    for (double e : t.errors_at(kept, [&](std::size_t i) { return i % 5 == fold; })) kfold.push_back(e);
  }
  if (!kfold.empty()) f.kfold_median_ape = quantiles(kfold).p50;
  return f;
}

}  // namespace llmecon::validate_internal
