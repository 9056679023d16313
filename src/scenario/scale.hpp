// scenario/scale.hpp: the two measured rates behind `scale` (model.md §24.6): what a FLOP costs
// in training, at the fastest layout of the reference model on the cluster, and in serving, as
// decode on one scale-up domain at the practical batch (2.5 B*, model.md §6).
//
//   TRY(ref, scale_reference(setup, 64));    // setup: model, chip, efficiency, price, sequence
//   ScaleInputs in = ref;                     // train_usd_per_flop, serve_usd_per_flop, ...
//   in.fit = find_loss_fit("epoch");
//   Analysis a = scale_analysis(in);
#pragma once

#include <functional>

#include "train/train.hpp"
#include "units/error.hpp"

namespace llmecon {

/// ScaleInputs with the training and serving rates, MFUs, the reference's active parameters and
/// where each rate comes from filled in; the fit, budget, loss and token counts are the caller's.
/// `s.global_batch` and `s.tokens` are set here (16M-token batches). An Error names --chips when
/// no layout of `chips` trains the model. `report(done, total)` follows the layout search.
Result<ScaleInputs> scale_reference(TrainSetup s, int chips,
                                    const std::function<void(double, double)>& report = nullptr);

}  // namespace llmecon
