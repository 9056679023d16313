// parallel/collectives.hpp: a stage's communication as the collectives that make it (internal to
// src/parallel; docs/model.md §16.3-16.4).
//
// Like a pass's operators (ops/pass.hpp), each collective is an object (`CollectiveOp`) that adds
// its time per micro-batch, before the comm efficiency, to the stage's communication: the
// tensor-parallel all-reduces, the MoE exchange (expert-parallel dispatch and combine, or the
// all-reduce of experts split over the stage), ring attention over context parallelism, and the
// pipeline send. A `CommPass` holds what they read; `stage_comm` (parallel.cpp) sums them in the
// order stage_collectives() lists. A new collective's physics lands in one class of
// collectives.cpp and one entry of that list.
//
//   using namespace parallel_internal;
//   const CommPass pass(in, cost, tokens, head_split, domain);
//   Seconds comm{};
//   for (const CollectiveOp* op : stage_collectives()) op->add(pass, comm);
#pragma once

#include <span>
#include <string_view>

#include "parallel/parallel.hpp"

namespace llmecon::parallel_internal {

/// What every collective of one stage's micro-batch reads.
struct CommPass {
  CommPass(const DeploymentInput& in, const StepCost& sc, double tokens, double head_split, int domain);
  const DeploymentInput& in;
  const StepCost& sc;
  double T = 0;           ///< new tokens of the micro-batch
  double head_split = 1;  ///< how many ways a sequence's KV heads are split
  int domain = 1;         ///< chips per scale-up domain
  double g = 1, pp = 1;   ///< chips per stage, stages
  double ba = 2;          ///< bytes per activation element (the MoE all-to-all's format, both ways)
  /// Bytes per element of what GEMMs write, and so what all-reduces and pipeline sends carry:
  /// bf16 even when their inputs are fp8 (model.md §16.3).
  double bo = 2;
  double dm = 0;                                        ///< d_model
  double layers = 0, moe_layers = 0, dense_layers = 0;  ///< per stage
};

/// One collective of a stage: adds its time per micro-batch to `comm`.
class CollectiveOp {
 public:
  virtual ~CollectiveOp() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  virtual void add(const CommPass& p, Seconds& comm) const = 0;
};

/// The stage's collectives in the order their times are summed: tensor-parallel all-reduce, MoE
/// exchange, ring attention, pipeline send.
std::span<const CollectiveOp* const> stage_collectives();

}  // namespace llmecon::parallel_internal
