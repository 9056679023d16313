// train/train_args.hpp: the `train` command's arguments, and how they set up a training run.
//
// The training model declares its own arguments (names, units, bounds, choices); the command
// table lists them for the CLI, the API and Python, and `validate` reads a training row's notes
// (`zero=1; recompute=selective; schedule=dualpipe`) through the same declarations and readers.
//
//   const std::vector<ArgSpec> spec = train_arguments();
//   TrainSetup s;                                            // model, chip, sequence, batch set
//   TRY_STATUS(read_train_settings(args, s));               // formats, overlaps, MoE, offload
//   auto l = read_train_layout(args, *s.model);              // zero, recompute, schedule, micro-batch
#pragma once

#include <vector>

#include "args/args.hpp"
#include "train/train.hpp"
#include "units/error.hpp"

namespace llmecon {

/// Every argument of `train`, in the order the CLI lists them.
std::vector<ArgSpec> train_arguments();
/// Every argument of `scale`: the reference run (model, chip, chips, sequence length), the loss
/// fit, the budget or target loss, lifetime inference tokens and the RL multiplier.
std::vector<ArgSpec> scale_arguments();

/// The run's settings the arguments state, onto `s`: the GEMM and attention formats, optimizer
/// and gradient formats, overlaps, the MoE all-to-all and imbalance, the expert host time (none
/// under `ideal`), offloaded modules and the failure model. Absent arguments take the table's
/// defaults. Errors name the flag.
Status read_train_settings(const Args& a, TrainSetup& s);

/// The layout details the arguments state: ZeRO stage (1), recomputation (selective) and its
/// modules, schedule (1F1B), chunks and micro-batch (1); the degrees are left at 1. Recompute
/// modules are normalised to what `m` has. Errors name the flag.
Result<TrainLayout> read_train_layout(const Args& a, const ModelSpec& m);

}  // namespace llmecon
