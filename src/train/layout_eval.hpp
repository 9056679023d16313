// One training layout's evaluation as one object (internal to src/train): its sections are
// spread over train.cpp (FLOPs and time, §24.1 and §24.3), memory.cpp (§24.2) and failures.cpp
// (the whole run, §24.4-24.5).
#pragma once

#include <string>

#include "internal.hpp"
#include "train/train.hpp"

namespace llmecon::train_internal {

// One layout's evaluation as one object: each section (§24.1 FLOPs, §24.2 memory, §24.3 time, §24.4-24.5
// the whole run) is a member that reads what the sections before it worked out, in that order. Its
// state is the evaluation's working, named as model.md names it, so it stays a plain struct.
struct LayoutEval {
  LayoutEval(const TrainSetup& setup, const TrainLayout& layout, bool explain, TrainResult& result, SearchCache* passes)
      : s(setup),
        l(layout),
        m(*setup.model),
        hw(*setup.hw),
        explaining(explain),
        r(result),
        cache(passes),
        own_totals(passes != nullptr ? ModelTotals{} : train_internal::model_totals(*setup.model, setup.seq_len)),
        tot(passes != nullptr ? passes->totals : own_totals) {}
  void flops();          // §24.1
  void memory();         // §24.2
  void compute();        // §24.3: forward, backward, elementwise and recomputation
  void communication();  // §24.3: TP, EP, CP, PP, host time, offloading, the pipeline
  void data_parallel();  // §24.3: the gradient sync and the optimizer
  void step_time();      // §24.3: the step's terms, MFU
  /// §24.4-24.5: the run with checkpoints and failures, then the checks that make a layout
  /// infeasible (r.reason and r.issue); false when one fails.
  bool whole_run();
  /// §24.5: whether failures leave the run any progress (r.reason and r.issue when not).
  bool progresses();
  /// §24.2: the sums over the worst stage's layers that memory and the time terms read.
  [[nodiscard]] StageSet stage_set() const;
  /// The memory checks of whole_run: offloading's host tier, then HBM (r.reason and r.issue).
  bool fits();

  void say(std::string line) {
    if (explaining) r.derivation.push_back(std::move(line));
  }
  [[nodiscard]] bool recomputes(unsigned bit) const { return (mods & bit) != 0; }

  const TrainSetup& s;
  const TrainLayout& l;
  const ModelSpec& m;
  const Hardware& hw;
  bool explaining;
  TrainResult& r;
  SearchCache* cache;  ///< what the search's layouts share, or none
  ModelTotals own_totals;
  const ModelTotals& tot;
  // §24.1: the step, the batch (seq x b a micro-batch, `micro` of them per replica) and what
  // recomputation reruns (the whole forward, the MoE blocks', or the selective modules `mods`).
  int domain = 0;
  double L = 0, seq = 0, b = 0, micro = 0, chips = 0, h = 0, tokens_step = 0;
  bool refwd = false, refwd_moe = false;
  unsigned mods = 0;
  // §24.2: the stage's parameters per chip and their replicas, the optimizer's and gradients' bytes
  // per parameter, and what the stage's layers hold for the time terms: activation bytes touched
  // (bf16), routed token copies, the dense GEMMs' input and output widths, the MLPs' and shared
  // experts' widths and counts, MLA's latents, standalone norms, offloaded bytes.
  int etp = 0;
  double stage_layers = 0, dense_params = 0, expert_params = 0, dense_replicas = 0, expert_replicas = 0;
  double ob = 0, gb = 0;
  double opt_params = 0, host_opt = 0;  // the optimizer's parameters on this chip; host bytes of its offloaded share
  double touched = 0, routed = 0, cast_in = 0, cast_out = 0, mlp_width = 0, shared_width = 0, mlp_blocks = 0;
  double shared_blocks = 0, latents = 0, norms_rerun = 0, offloaded = 0, host_held = 0, tokens_chip = 0;
  // §24.3: one micro-batch's compute on the slowest stage.
  Forward fw{};
  BytesPerSecond hbm{};
  Seconds elementwise_fwd{}, elementwise_bwd{}, fwd{}, bwd{}, rec{};
  double attention_backward = 0;
  // §24.3: its communication (all, and exposed), host time, offloading, and the pipeline.
  double stage_moe = 0, local_experts = 0;
  Seconds tp_mb{}, ep_mb{}, cp_mb{}, pp_mb{}, compute_mb{}, tp_exp{}, cp_exp{}, ep_exp{}, host_mb{};
  const HostTier* tier = nullptr;  // the first host tier (set with the memory, §24.2)
  Seconds off_each{}, off_fwd{}, off_bwd{}, t_f{}, t_b{}, bubble{}, pipe{};
  // §24.3: data parallelism and the optimizer, per step.
  Seconds dp_total{}, dp_exp{}, opt{}, opt_host{};
};

}  // namespace llmecon::train_internal
