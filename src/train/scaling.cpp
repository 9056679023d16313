// Scaling laws tied to dollars (docs/model.md §24.7) and a layout's uncertainty band.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "internal.hpp"
#include "train/train.hpp"

namespace llmecon {

using train_internal::num;

// ---- model.md §24.7: scaling laws ----

double LossFit::loss(double n, double dd) const {
  return E + A / std::pow(n, alpha) + B / std::pow(dd, beta);
}
std::optional<double> LossFit::tokens_for(double n, double target) const {
  const double rest = target - E - A / std::pow(n, alpha);
  if (rest <= 0) return std::nullopt;
  return std::pow(B / rest, 1.0 / beta);
}
double LossFit::optimal_params(double flops) const {
  // Minimising L(N, C / 6N): N_opt = G (C/6)^(beta/(alpha+beta)), G = (alpha A / (beta B))^(1/(alpha+beta)).
  const double g = std::pow(alpha * A / (beta * B), 1.0 / (alpha + beta));
  return g * std::pow(flops / 6.0, beta / (alpha + beta));
}

const std::vector<LossFit>& loss_fits() {
  static const std::vector<LossFit> fits{
      {"hoffmann", 1.69, 406.4, 410.7, 0.34, 0.28,
       "Hoffmann et al. 2022, Training Compute-Optimal Large Language Models, eq. 10 (approach 3), "
       "https://arxiv.org/abs/2203.15556"},
      {"epoch", 1.8172, 482.01, 2085.43, 0.3478, 0.3658,
       "Besiroglu et al. 2024, Chinchilla Scaling: A replication attempt, eq. 4, https://arxiv.org/abs/2404.10102"},
  };
  return fits;
}
const LossFit* find_loss_fit(std::string_view n) {
  for (const auto& f : loss_fits())
    if (f.name == n) return &f;
  return nullptr;
}

Analysis scale_analysis(const ScaleInputs& in) {
  Analysis a("scale");
  const LossFit& f = *in.fit;
  a.note("fit: " + f.name + ": " + f.source);
  a.explain(fmt::format("L(N, D) = {} + {} / N^{} + {} / D^{} ({})", num(f.E), num(f.A), num(f.alpha), num(f.B),
                        num(f.beta), f.name));
  double target = in.target_loss;
  double n_c = 0, d_c = 0;
  if (in.budget_flops > 0) {
    n_c = f.optimal_params(in.budget_flops);
    d_c = in.budget_flops / (6.0 * n_c);
    if (target <= 0) target = f.loss(n_c, d_c);
    a.explain(fmt::format("compute-optimal for C = {} FLOP: N = G (C/6)^(b/(a+b)) = {}, D = C / 6N = {}, L = {}",
                          num(in.budget_flops), num(n_c), num(d_c), num(f.loss(n_c, d_c))));
  }
  a.figure("target_loss", target, "", "the loss both optima reach");
  // Scan N on a log grid from where the target is first reachable.
  const double n_floor = std::pow(f.A / std::max(1e-12, target - f.E), 1.0 / f.alpha);
  struct Point {
    double n, dd, train, serve;
  };
  std::vector<Point> pts;
  for (int i = 1; i <= 240; ++i) {
    const double n = n_floor * std::pow(10.0, 4.0 * i / 240.0);
    const auto dd = f.tokens_for(n, target);
    if (!dd) continue;
    pts.push_back(Point{n, *dd, (units::flops(6.0 * n * *dd) * in.train_usd_per_flop).si(),
                        (units::flops(2.0 * n * in.inference_tokens) * in.serve_usd_per_flop).si()});
  }
  if (pts.empty()) {
    a.figure("params", std::nan(""), "param", "inference-aware optimum", "no N reaches the target loss");
    return a;
  }
  auto total = [](const Point& p) { return p.train + p.serve; };
  const Point best = *std::min_element(pts.begin(), pts.end(), [&](auto& x, auto& y) { return total(x) < total(y); });
  const Point chin =
      *std::min_element(pts.begin(), pts.end(), [](auto& x, auto& y) { return x.n * x.dd < y.n * y.dd; });
  a.figure("params", best.n, "param", "N minimising training + lifetime inference cost (Sardana et al. 2024)");
  a.figure("train_tokens", best.dd, "tok", "D at that N for the target loss");
  a.figure("tokens_per_param", best.dd / best.n, "", "D / N");
  a.figure("overtraining", best.dd / (20.0 * best.n), "x", "D / 20 N (Chinchilla's rule, F30)");
  a.figure("overtraining_vs_optimal", best.dd / chin.dd, "x", "D over the compute-optimal D at the same loss");
  a.figure("train_flops", 6.0 * best.n * best.dd, "FLOP", "6 N D");
  a.figure("train_usd", best.train, "$", "6 N D x training $/FLOP");
  a.figure("train_days", in.train_rate.si() > 0 ? 6.0 * best.n * best.dd / in.train_rate.si() / 86400.0 : 0.0, "day",
           "6 N D / the cluster's achieved FLOP/s");
  a.figure("inference_usd_per_mtok", (units::flops(2.0 * best.n) * in.serve_usd_per_flop).si() * 1e6, "$/Mtok",
           "2 N x serving $/FLOP, per million tokens");
  a.figure("inference_usd", best.serve, "$", "2 N D_inf x serving $/FLOP");
  a.figure("total_usd", total(best), "$", "training + lifetime inference");
  a.figure("chinchilla_params", chin.n, "param", "compute-optimal N at the same loss");
  a.figure("chinchilla_train_tokens", chin.dd, "tok", "compute-optimal D at the same loss");
  a.figure("chinchilla_total_usd", total(chin), "$", "training + inference at the compute-optimal N");
  a.figure("saving", 1.0 - total(best) / total(chin), "", "share of the compute-optimal total saved");
  a.explain(fmt::format("training $/FLOP = {} ({}); serving $/FLOP = {} ({})", num(in.train_usd_per_flop.si()),
                        in.train_basis, num(in.serve_usd_per_flop.si()), in.serve_basis));
  a.explain(
      fmt::format("minimise 6 N D(N) x {} + 2 N x {} x {} with L(N, D(N)) = {}: N = {}, D = {} ({} tokens per "
                  "parameter), total ${}",
                  num(in.train_usd_per_flop.si()), num(in.inference_tokens), num(in.serve_usd_per_flop.si()),
                  num(target), num(best.n), num(best.dd), num(best.dd / best.n), num(total(best))));
  // The lecture's equal-cost split (F28) at the real MFUs: 6 D_pre / MFU_train = 2 D_inf / MFU_serve
  // = r D_RL / MFU_serve (RL rollouts priced as decode).
  if (in.train_mfu > 0 && in.serve_mfu > 0 && in.inference_tokens > 0) {
    const double d_pre = 2.0 * in.inference_tokens / in.serve_mfu * in.train_mfu / 6.0;
    const double d_rl = 2.0 * in.inference_tokens / in.rl_multiplier;
    a.figure("lecture_pretrain_tokens", d_pre, "tok", "equal thirds: 6 D_pre / MFU_train = 2 D_inf / MFU_serve (F28)");
    a.figure("lecture_rl_tokens", d_rl, "tok", "equal thirds: RL rollouts priced as decode");
    if (in.reference_params > 0)
      a.figure("lecture_overtraining", d_pre / (20.0 * in.reference_params), "x",
               "D_pre / 20 N for the reference model (F30)");
    a.explain(fmt::format("lecture split: D_pre = 2 x {} / {:.3f} x {:.3f} / 6 = {}; D_RL = 2 D_inf / {} = {}",
                          num(in.inference_tokens), in.serve_mfu, in.train_mfu, num(d_pre), num(in.rl_multiplier),
                          num(d_rl)));
  }
  Table t{"cost_vs_n",
          {{"params", "param", "N"},
           {"train_tokens", "tok", "D"},
           {"train_usd", "$", "training $"},
           {"inference_usd", "$", "inference $"},
           {"total_usd", "$", "total $"}},
          {},
          "total cost against N at the target loss"};
  for (std::size_t i = 0; i < pts.size(); i += 12) {
    const Point& p = pts[i];
    t.rows.push_back({p.n, p.dd, p.train, p.serve, total(p)});
  }
  a.tables.push_back(std::move(t));
  return a;
}

TrainRange train_range(const TrainSetup& s, const TrainLayout& l, const Uncertainty& u, int samples) {
  std::mt19937_64 rng(12345);
  std::vector<double> step, mfu, days, usd;
  for (int i = 0; i < samples; ++i) {
    const Hardware hw = sample_hardware(*s.hw, u, rng);
    TrainSetup x = s;
    x.hw = &hw;
    x.eff = sample_efficiency(s.eff, u, rng);
    // The MoE host time is launch overhead too: it moves with the kernel overhead's draw.
    if (s.eff.kernel_overhead.si() > 0) x.expert_host = s.expert_host * (x.eff.kernel_overhead / s.eff.kernel_overhead);
    x.price = hw.price.value;
    if (s.price.si() != s.hw->price.value.si()) x.price = s.price;  // the user's own price stays
    const TrainResult r = evaluate_training(x, l, false);
    if (r.run.wall.si() <= 0) continue;
    step.push_back(r.time.step.si());
    mfu.push_back(r.mfu);
    days.push_back(r.run.wall.si() / 86400.0);
    usd.push_back(r.run.usd.si());
  }
  TrainRange out;
  out.samples = static_cast<int>(step.size());
  if (out.samples > 0) {
    // The headline (the chip and efficiency at their defaults) placed among the draws.
    const TrainResult p = evaluate_training(s, l, false);
    out.step_s = quantiles(std::move(step), p.time.step.si());
    out.mfu = quantiles(std::move(mfu), p.mfu);
    out.days = quantiles(std::move(days), p.run.wall.si() / 86400.0);
    out.usd = quantiles(std::move(usd), p.run.usd.si());
  }
  return out;
}

}  // namespace llmecon
