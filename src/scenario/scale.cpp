// The training and serving rates behind `scale` (scale.hpp, model.md §24.6).
#include "scenario/scale.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "roofline/roofline.hpp"

namespace llmecon {

Result<ScaleInputs> scale_reference(TrainSetup s, int chips, const std::function<void(double, double)>& report) {
  // The reference run: the fastest layout of the reference model on the chips, at 16M-token batches.
  s.global_batch = std::max(1.0, std::round(16777216.0 / s.seq_len));
  s.tokens = 0;
  const ModelSpec& model = *s.model;
  const Hardware& hw = *s.hw;
  const TrainSearch found = search_training(s, chips, TrainObjective::kTime, TrainSearchSpace{}, 1, report);
  if (found.over_cap > 0) return layouts_over_cap(found, chips);
  if (found.ranked.empty()) {
    return Error{"--chips", "", fmt::format("no layout of {} chips trains {}", chips, model.name),
                 "give more chips or a smaller reference model"};
  }
  const TrainResult& best = found.ranked.front();
  ScaleInputs in;
  const Dollars step_usd = s.price * best.time.step * static_cast<double>(chips);
  in.train_usd_per_flop = step_usd / best.model_flops;
  in.train_rate = units::flop_per_s(best.model_flops.si() / best.time.step.si());
  in.train_mfu = best.mfu;
  in.train_basis =
      fmt::format("{} on {} x {}, {}, MFU {:.1f}%", model.name, chips, hw.name, best.layout.str(), 100 * best.mfu);
  // Serving: decode on one scale-up domain at the practical batch (2.5 B*), model.md §6.
  RooflineInput ri;
  ri.model = &model;
  ri.hw = &hw;
  ri.chips = hw.domain_size;
  ri.precision = Precision::native(model);
  ri.eff = s.eff;
  ri.usable_hbm = 0.9;
  ri.step = Step{Phase::kDecode, 1, 1, 4096};
  const double bstar = balance_batch(ri).value_or(256.0);
  ri.step.batch = std::max(1.0, std::min(kPracticalBatchFactor * bstar, max_fitting_batch(ri)));
  const RooflineResult rr = roofline_unchecked(ri);
  const double n_active = model.params_active_matmul();
  in.serve_usd_per_flop = rr.usd_per_token / (units::flops(2.0 * n_active) / units::tokens(1));
  in.serve_mfu = rr.mfu;
  in.reference_params = n_active;
  in.serve_basis = fmt::format("{} decode on {} x {} at batch {} and 4096 tokens of context, {}/Mtok, MFU {:.1f}%",
                               model.name, ri.chips, hw.name, format_number(ri.step.batch),
                               format(units::usd(rr.usd_per_token.si() * 1e6)), 100 * rr.mfu);
  return in;
}

}  // namespace llmecon
