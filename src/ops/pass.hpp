// ops/pass.hpp: one forward pass as the operators that make it (internal to src/ops; model.md §4).
//
// A pass (`Pass`) holds what every operator reads: the model, the sequence groups and their
// token counts, and the bytes per element of each tensor class. Each operator is an object
// (`Operator`) that adds its kernels for one layer, with their work (FLOPs), traffic (weight,
// KV and activation bytes) and shape (the GEMM's rows, columns and depth, from which the roofline
// takes its efficiency, model.md §18), to an `Accumulator`, which sums them and merges identical
// launches. step_cost (ops.cpp) picks a layer's token mixer and feed-forward operator and runs
// them over its groups of like layers; a new operator's physics lands in one class here.
//
//   using namespace ops_internal;
//   const Pass pass(model, groups, Precision::native(model), ExpertTouch::kExpected);
//   StepCost c;
//   Accumulator acc(c, false, pass.ba);
//   mixer_of(pass, layer).add(pass, layer, 0, acc);
#pragma once

#include <span>

#include "ops/ops.hpp"

namespace llmecon::ops_internal {

inline double d(int v) {
  return static_cast<double>(v);
}

/// Sums a pass's kernels into its StepCost: per compute class, per byte class, and (with detail)
/// per operator and layer.
class Accumulator {
 public:
  Accumulator(StepCost& c, bool detail, double act_bytes) : c_(c), detail_(detail), ba_(act_bytes) {}

  /// Later adds count `k` times: identical layers are costed once and multiplied.
  void set_repeat(double k) { k_ = k; }
  [[nodiscard]] double repeat() const { return k_; }
  [[nodiscard]] StepCost& cost() { return c_; }

  void add(OpKind kind, int layer, ComputeClass cls, Flops f, Bytes w, Bytes kv_r, Bytes kv_w, Bytes act,
           double rows = 0, double cols = 0, double depth = 0, bool split_k = false, double inner = 0);

  /// A GEMM of an (m x k) activation by a (k x n) weight: FLOPs, weight bytes, activation bytes.
  /// split_k: a row-parallel GEMM (the attention output, the MLP's down projection), whose depth k
  /// tensor parallelism splits while its n columns stay whole on each chip.
  void gemm(OpKind kind, int layer, ComputeClass cls, double m, double n, double k, double weight_bpe,
            double weight_fraction = 1.0, bool split_k = false) {
    add(kind, layer, cls, matmul_flops(m, n, k), units::bytes(n * k * weight_bpe * weight_fraction), Bytes{}, Bytes{},
        units::bytes((m * k + m * n) * ba_), m, n, k, split_k);
  }
  void gemm_rows(OpKind kind, int layer, ComputeClass cls, double m, double n, double k, double weight_bpe) {
    gemm(kind, layer, cls, m, n, k, weight_bpe, 1.0, true);
  }

 private:
  // Identical launches (the same operator in identical layers, alternating or not) merge into one
  // record with their count.
  void record(const Kernel& k);

  StepCost& c_;
  bool detail_;
  double ba_;
  double k_ = 1.0;
};

/// What every operator of one pass reads.
struct Pass {
  Pass(const ModelSpec& model, std::span<const SeqGroup> seq_groups, const Precision& p, ExpertTouch touch);
  const ModelSpec& m;
  std::span<const SeqGroup> groups;
  Precision precision;
  double B = 0;                           ///< sequences
  double T = 0;                           ///< tokens: every GEMM sees all of them at once (model.md §23.2)
  double logits = 0;                      ///< rows of the output head: prefill needs each sequence's last token only
  double bw = 0, be = 0, ba = 0, bk = 0;  ///< bytes per element: weights, experts, activations, KV
  double dm = 0;                          ///< d_model
  double H = 0;                           ///< query heads
  double touched = 0;                     ///< routed experts read per MoE layer (model.md §4.4)
};

/// One operator of a layer: adds its kernels for layer `li` (a run of acc.repeat() like layers).
class Operator {
 public:
  virtual ~Operator() = default;
  virtual void add(const Pass& p, const Layer& l, int li, Accumulator& acc) const = 0;
};

/// The layer's token mixer: linear attention, MLA or multi-head (grouped-query) attention.
const Operator& mixer_of(const Pass& p, const Layer& l);
/// The layer's feed-forward: routed experts (with their router and shared experts) or a dense MLP.
const Operator& ffn_of(const Layer& l);

/// The embedding lookup: T rows of the table.
void add_embedding(const Pass& p, Accumulator& acc);
/// The final norm and the output head.
void add_head(const Pass& p, Accumulator& acc);

}  // namespace llmecon::ops_internal
