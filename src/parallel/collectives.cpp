// A stage's collectives (collectives.hpp, docs/model.md §16.3-16.4).
#include "parallel/collectives.hpp"

#include <algorithm>
#include <array>

#include "parallel/comm.hpp"

namespace llmecon::parallel_internal {

namespace {

double d(int v) {
  return static_cast<double>(v);
}

/// The attention output's all-reduce every layer, and the dense MLP's on dense layers, over the
/// tensor-parallel group, of each attention-DP and context-parallel group's tokens.
class TensorAllReduce final : public CollectiveOp {
 public:
  [[nodiscard]] std::string_view name() const override { return "tensor all-reduce"; }
  void add(const CommPass& p, Seconds& comm) const override {
    const Mapping& mp = p.in.map;
    if (mp.tp <= 1) return;
    const Bytes group_act = units::bytes(p.T / (d(mp.dp_attn) * d(mp.cp)) * p.dm * p.bo);
    const Seconds ar = best_all_reduce(mp.tp, group_act, *p.in.hw, p.domain);
    comm += ar * (p.layers + p.dense_layers);
  }
};

/// The routed experts' exchange on MoE layers (model.md §16.4): with expert parallelism, dispatch
/// (at the activation format) and combine over the EP group, a token once to each distinct rank
/// holding one of its experts, plus the all-reduce inside an expert split over etp chips; without
/// it, experts tensor-parallel over the stage gather tokens and reduce-scatter outputs.
class MoeExchange final : public CollectiveOp {
 public:
  [[nodiscard]] std::string_view name() const override { return "MoE dispatch and combine"; }
  void add(const CommPass& p, Seconds& comm) const override {
    if (p.moe_layers <= 0) return;
    const Mapping& mp = p.in.map;
    const ModelSpec& m = *p.in.model;
    const Hardware& hw = *p.in.hw;
    if (mp.ep > 1) {
      const Bytes per_chip_out = units::bytes(p.T / p.g * d(m.moe.top_k) * p.dm * p.bo);
      // With expert tensor parallelism (etp chips per EP rank) the ranks sit etp chips apart, so
      // only domain / etp of them share a scale-up domain.
      const int etp = mp.stage_chips() / mp.ep;
      const int ranks_per_domain = std::max(1, p.domain / etp);
      comm += expert_all_to_all(mp.ep, ranks_per_domain, m.moe.top_k, m.moe.group_limit, p.T / p.g, p.dm * p.ba, hw) *
              (2.0 * p.moe_layers);
      if (etp > 1) comm += best_all_reduce(etp, per_chip_out, hw, p.domain) * p.moe_layers;
    } else if (p.g > 1) {
      comm +=
          best_all_reduce(mp.stage_chips(), units::bytes(p.T / d(mp.cp) * p.dm * p.bo), hw, p.domain) * p.moe_layers;
    }
  }
};

/// Ring attention: each chip passes its KV chunk around the context-parallel ring, every layer.
class RingAttention final : public CollectiveOp {
 public:
  [[nodiscard]] std::string_view name() const override { return "ring attention"; }
  void add(const CommPass& p, Seconds& comm) const override {
    const Mapping& mp = p.in.map;
    if (mp.cp <= 1) return;
    const Bytes chunk = p.sc.kv_write / (p.pp * d(mp.dp_attn) * p.head_split * d(mp.cp));
    comm += collective_time(Collective::kAllGather, Algorithm::kRing, mp.cp, chunk * d(mp.cp), p.in.hw->scale_up);
  }
};

/// The activations sent to the next pipeline stage, on scale-up when the replica fits a domain.
class PipelineSend final : public CollectiveOp {
 public:
  [[nodiscard]] std::string_view name() const override { return "pipeline send"; }
  void add(const CommPass& p, Seconds& comm) const override {
    const Mapping& mp = p.in.map;
    if (mp.pp <= 1) return;
    const Link& link = mp.replica_chips() <= p.domain ? p.in.hw->scale_up : p.in.hw->scale_out;
    comm += collective_time(Collective::kSendRecv, Algorithm::kDirect, 2, units::bytes(p.T / p.g * p.dm * p.bo), link);
  }
};

}  // namespace

CommPass::CommPass(const DeploymentInput& deployment, const StepCost& cost, double tokens, double split, int chips)
    : in(deployment), sc(cost), T(tokens), head_split(split), domain(chips) {
  const ModelSpec& m = *in.model;
  g = in.map.stage_chips();
  pp = in.map.pp;
  ba = bytes_per_element(in.precision.act);
  bo = std::max(ba, bytes_per_element(DType::kBf16));
  dm = d(m.d_model);
  layers = d(m.n_layers()) / pp;
  for (const auto& l : m.layers) moe_layers += l.moe ? 1 : 0;
  moe_layers /= pp;
  dense_layers = layers - moe_layers;
}

std::span<const CollectiveOp* const> stage_collectives() {
  static const TensorAllReduce tensor;
  static const MoeExchange moe;
  static const RingAttention ring;
  static const PipelineSend send;
  static const std::array<const CollectiveOp*, 4> all{&tensor, &moe, &ring, &send};
  return all;
}

}  // namespace llmecon::parallel_internal
