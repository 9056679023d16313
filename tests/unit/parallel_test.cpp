// Collectives against textbook cases, mapping validation, and the deployment model.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>

#include "catalog/efficiency.hpp"
#include "parallel/collectives.hpp"
#include "parallel/comm.hpp"
#include "parallel/parallel.hpp"
#include "test_catalogs.hpp"

namespace llmecon {
namespace {
using namespace units;

using testing_catalogs::hw;
using testing_catalogs::models;

TEST(Collectives, RingAllReduceMovesTwoNMinusOneOverN) {
  // Ring all-reduce of S bytes on n chips: reduce-scatter then all-gather, each (n-1)/n S per
  // chip, in 2(n-1) steps.
  for (int n : {2, 4, 8, 72}) {
    const double S = 1e9;
    EXPECT_DOUBLE_EQ(bytes_on_wire(Collective::kAllReduce, Algorithm::kRing, n, S), 2.0 * (n - 1) / n * S);
    EXPECT_DOUBLE_EQ(latency_steps(Collective::kAllReduce, Algorithm::kRing, n), 2.0 * (n - 1));
    EXPECT_DOUBLE_EQ(bytes_on_wire(Collective::kAllGather, Algorithm::kRing, n, S), (n - 1.0) / n * S);
    EXPECT_DOUBLE_EQ(bytes_on_wire(Collective::kReduceScatter, Algorithm::kRing, n, S), (n - 1.0) / n * S);
    EXPECT_DOUBLE_EQ(bytes_on_wire(Collective::kAllToAll, Algorithm::kDirect, n, S), (n - 1.0) / n * S);
  }
  // Tree: 2 ceil(log2 n) latency steps; one chip moves nothing.
  EXPECT_DOUBLE_EQ(latency_steps(Collective::kAllReduce, Algorithm::kTree, 72), 2.0 * 7);
  EXPECT_DOUBLE_EQ(bytes_on_wire(Collective::kAllReduce, Algorithm::kRing, 1, 1e9), 0.0);
}

TEST(Collectives, AlphaBetaTime) {
  // 8-way ring all-reduce of 16 MB over 450 GB/s, 2 us per step:
  // 14 x 2 us + 2 x 7/8 x 16 MB / 450 GB/s = 28 us + 62.2 us.
  const Link nvlink{gb_per_s(450), us(2)};
  const Seconds t = collective_time(Collective::kAllReduce, Algorithm::kRing, 8, mb(16), nvlink);
  EXPECT_NEAR(t.si(), 14 * 2e-6 + 2 * 7.0 / 8 * 16e6 / 450e9, 1e-15);
}

TEST(Collectives, HopperAllReduceAgainstMeasuredOneShotKernels) {
  // A tensor-parallel all-reduce inside one H100 node is the cheapest of ring, tree and direct
  // (model.md §15) at Hopper's comm fraction. Measured one-shot all-reduces of bf16 activations
  // on two H100s, in CUDA graphs: 7.0 us for 6 x 6144 and 13.0 us for 138 x 6144, fused with the
  // residual add and RMSNorm (FlagGems-vllm pull request 773), and 7 us for 32 x 8192 unfused (vLLM
  // pull request 24111). The chip's 5 us per step comes within 20% of each; the earlier 2 us was
  // 1.8-2.7x too fast.
  const Hardware& h100 = *hw().find("h100-sxm");
  const double comm = efficiency_for(h100, testing_catalogs::families()).comm;
  auto all_reduce = [&](double b) { return best_all_reduce(2, bytes(b), h100, 8).si() / comm; };
  EXPECT_NEAR(all_reduce(6 * 6144 * 2), 7.0e-6, 0.2 * 7.0e-6);
  EXPECT_NEAR(all_reduce(138 * 6144 * 2), 13.0e-6, 0.2 * 13.0e-6);
  EXPECT_NEAR(all_reduce(32 * 8192 * 2), 7.0e-6, 0.2 * 7.0e-6);
}

// A stage's collectives are objects (collectives.hpp), each adding its own term only: a dense
// model at TP8 pays the tensor all-reduce (after attention and the MLP, every layer) and nothing
// else, and that is the whole of the stage's communication as evaluate_decode reports it; expert
// parallelism adds the MoE exchange, context parallelism the ring, pipeline stages the send.
TEST(Collectives, EachTermIsOneCollectiveObject) {
  using parallel_internal::CommPass;
  const auto ops = parallel_internal::stage_collectives();
  ASSERT_EQ(ops.size(), 4U);
  EXPECT_EQ(ops[0]->name(), "tensor all-reduce");
  EXPECT_EQ(ops[1]->name(), "MoE dispatch and combine");
  EXPECT_EQ(ops[2]->name(), "ring attention");
  EXPECT_EQ(ops[3]->name(), "pipeline send");
  auto terms = [&](const DeploymentInput& in, double tokens) {
    const StepCost sc = step_cost(*in.model, Step{Phase::kDecode, tokens, 1, 4096}, in.precision);
    const CommPass pass(in, sc, tokens, 1, in.hw->domain_size);
    std::vector<double> t;
    for (const auto* op : ops) {
      Seconds one{};
      op->add(pass, one);
      t.push_back(one.si());
    }
    return t;
  };
  const ModelSpec llama = models().load("llama-3.1-70b").value();
  DeploymentInput in;
  in.model = &llama;
  in.hw = hw().find("h100-sxm");
  in.map = Mapping{8, 1, 1, 1, 1, 1};
  const std::vector<double> tp = terms(in, 64);
  const double layers = llama.n_layers();
  EXPECT_DOUBLE_EQ(tp[0], best_all_reduce(8, bytes(64.0 * llama.d_model * 2), *in.hw, 8).si() * 2 * layers);
  EXPECT_EQ(tp[1], 0);
  EXPECT_EQ(tp[2], 0);
  EXPECT_EQ(tp[3], 0);
  const PhaseResult decode = evaluate_decode(in, 64, 4095);
  EXPECT_NEAR(decode.stage.comm.si() * in.eff.comm, tp[0], 1e-12 * tp[0]);
  in.map = Mapping{4, 1, 1, 1, 2, 1};
  const std::vector<double> piped = terms(in, 64);
  EXPECT_GT(piped[3], 0);
  EXPECT_EQ(piped[2], 0);
  in.map = Mapping{4, 1, 1, 2, 1, 1};
  EXPECT_GT(terms(in, 64)[2], 0);
  const ModelSpec ds = models().load("deepseek-v3").value();
  in.model = &ds;
  in.map = Mapping{1, 8, 8, 1, 1, 1};
  const std::vector<double> ep = terms(in, 64);
  EXPECT_EQ(ep[0], 0);
  EXPECT_GT(ep[1], 0);
}

TEST(Collectives, HierarchicalAcrossDomains) {
  const Hardware& h800 = *hw().find("h800-sxm");
  // Inside one 8-GPU node: scale-up only.
  const Seconds in = group_collective_time(Collective::kAllToAll, Algorithm::kDirect, 8, mb(64), h800, 8);
  EXPECT_DOUBLE_EQ(in.si(), collective_time(Collective::kAllToAll, Algorithm::kDirect, 8, mb(64), h800.scale_up).si());
  // Across 144 GPUs in 18 nodes, 136/144 of all-to-all traffic leaves the node over 400 Gb/s.
  const Seconds out = group_collective_time(Collective::kAllToAll, Algorithm::kDirect, 144, mb(64), h800, 8);
  EXPECT_NEAR(out.si(), h800.scale_out.latency.si() + 136.0 / 144 * 64e6 / 50e9, 1e-12);
  EXPECT_GT(out, in);
}

TEST(Collectives, ExpertAllToAllAgainstMeasuredHybridEp) {
  // DeepSeek-V3's dispatch and combine (4,096 tokens per rank, hidden 7168 in bf16, top-8 of 256
  // experts) measured with HybridEP: NVIDIA, Scalable Training of Mixture-of-Experts Models with
  // Megatron Core (arXiv 2603.07685), Table 7, in us. A token goes once to each distinct rank that
  // holds one of its experts (model.md §16.4): 5.25 of 8 ranks, not 8 copies, inside a domain,
  // which the measured EP8 times need (8 copies would be 54-69% slow); across H100 nodes the
  // node-limited routing caps a token at 4 nodes.
  struct Case {
    const char* chip;
    int ep, per_domain;
    double dispatch_us, combine_us;
  };
  for (const Case& c : {Case{"gb200", 8, 8, 391, 353}, Case{"gb200", 64, 64, 675, 744},
                        Case{"h100-sxm", 8, 8, 661, 624}, Case{"h100-sxm", 64, 8, 4626, 4398}}) {
    const Hardware& chip = *hw().find(c.chip);
    const double comm = efficiency_for(chip, testing_catalogs::families()).comm;
    const double t = expert_all_to_all(c.ep, c.per_domain, 8, 4, 4096, 7168 * 2.0, chip).si() / comm * 1e6;
    EXPECT_NEAR(t, c.dispatch_us, 0.2 * c.dispatch_us) << c.chip << " ep" << c.ep;
    EXPECT_NEAR(t, c.combine_us, 0.2 * c.combine_us) << c.chip << " ep" << c.ep;
  }
  // One expert per token, or one rank: nothing to deduplicate, or nothing to send.
  const Hardware& h100 = *hw().find("h100-sxm");
  EXPECT_DOUBLE_EQ(
      expert_all_to_all(8, 8, 1, 0, 4096, 2048, h100).si(),
      group_collective_time(Collective::kAllToAll, Algorithm::kDirect, 8, bytes(4096 * 2048.0), h100, 8).si());
  EXPECT_DOUBLE_EQ(expert_all_to_all(1, 8, 8, 0, 4096, 2048, h100).si(), 0.0);
}

// A cluster's measured bus bandwidths (model.md §15.4): across nodes a collective moves its bytes
// on the wire at the busbw measured at its node count (log-linear between counts, held past the
// ends); inside one node, or for a collective nobody measured, there is no measured time.
TEST(Collectives, MeasuredBusBandwidthAcrossNodes) {
  const Hardware& efa = *hw().find("h100-sxm-efa");
  ASSERT_TRUE(efa.scale_out_measured);
  const MeasuredCollectives& m = *efa.scale_out_measured;
  const Bytes S = units::bytes(1e9);
  EXPECT_FALSE(measured_collective_time(Collective::kAllReduce, 8, S, efa, 8));
  EXPECT_FALSE(measured_collective_time(Collective::kAllToAll, 64, S, efa, 8));
  EXPECT_FALSE(measured_collective_time(Collective::kAllReduce, 64, S, *hw().find("h100-sxm"), 8));
  // 8 nodes: exactly the 8-node point.
  const double ar8 = measured_collective_time(Collective::kAllReduce, 64, S, efa, 8)->si();
  EXPECT_NEAR(ar8, 2.0 * 63 / 64 * 1e9 / m.all_reduce[3].si(), 1e-12);
  const double ag8 = measured_collective_time(Collective::kAllGather, 64, S, efa, 8)->si();
  EXPECT_NEAR(ag8, 63.0 / 64 * 1e9 / m.all_gather[3].si(), 1e-12);
  // 12 nodes: the geometric interpolation between 8 and 16.
  const double bw12 = 1e9 * 2.0 * 95 / 96 / measured_collective_time(Collective::kAllReduce, 96, S, efa, 8)->si();
  const double f = std::log(12.0 / 8) / std::log(2.0);
  EXPECT_NEAR(bw12, std::exp((1 - f) * std::log(m.all_reduce[3].si()) + f * std::log(m.all_reduce[4].si())), 1.0);
  // Past 64 nodes: held at the last point.
  const double ar128 = measured_collective_time(Collective::kAllReduce, 1024, S, efa, 8)->si();
  EXPECT_NEAR(ar128, 2.0 * 1023 / 1024 * 1e9 / m.all_reduce.back().si(), 1e-12);
}

TEST(Collectives, TopologyShapesTheScaleUpLink) {
  const Hardware& h100 = *hw().find("h100-sxm");  // switch
  const Hardware& mi = *hw().find("mi300x");      // full mesh of 8
  const Hardware& v5e = *hw().find("tpu-v5e");    // 2D torus, 256 chips
  EXPECT_EQ(scale_up_link(h100, Collective::kAllReduce, Algorithm::kRing, 8).bandwidth, h100.scale_up.bandwidth);
  EXPECT_DOUBLE_EQ(scale_up_link(mi, Collective::kAllReduce, Algorithm::kRing, 8).bandwidth.si(),
                   mi.scale_up.bandwidth.si() / 7);
  EXPECT_EQ(scale_up_link(mi, Collective::kAllToAll, Algorithm::kDirect, 8).bandwidth, mi.scale_up.bandwidth);
  // 256 chips as a 16 x 16 torus: all-to-all at 4/16 of the link bandwidth.
  EXPECT_DOUBLE_EQ(scale_up_link(v5e, Collective::kAllToAll, Algorithm::kDirect, 256).bandwidth.si(),
                   v5e.scale_up.bandwidth.si() / 4);
  EXPECT_EQ(scale_up_link(v5e, Collective::kAllToAll, Algorithm::kDirect, 16).bandwidth, v5e.scale_up.bandwidth);
}

TEST(Mapping, ValidationReasons) {
  const ModelSpec llama = models().load("llama-3.1-70b").value();
  EXPECT_FALSE(validate(Mapping{8, 1, 1, 1, 1, 1}, llama, 8));
  EXPECT_EQ(*validate(Mapping{8, 1, 1, 1, 1, 1}, llama, 16), "tp x dp_attn x cp x pp x dp = 8, not 16 chips");
  EXPECT_EQ(*validate(Mapping{3, 1, 1, 1, 1, 1}, llama, 3), "TP=3 does not divide 64 attention heads");
  EXPECT_EQ(*validate(Mapping{1, 1, 2, 1, 1, 1}, llama, 1), "EP=2 on a dense model");
  EXPECT_EQ(*validate(Mapping{1, 1, 1, 1, 128, 1}, llama, 128), "PP=128 exceeds 80 layers");
  const ModelSpec qwen = models().load("qwen3-235b-a22b").value();  // 64 heads, 4 KV heads
  EXPECT_FALSE(validate(Mapping{8, 1, 8, 1, 1, 1}, qwen, 8));       // KV heads replicated 2x
  const ModelSpec gemma = models().load("gemma-3-27b").value();     // 32 heads, 16 KV heads
  EXPECT_FALSE(validate(Mapping{32, 1, 1, 1, 1, 1}, gemma, 32));
  const ModelSpec ds = models().load("deepseek-v3").value();
  // EP144 leaves 32 redundant expert slots, as DeepSeek deploys it: valid.
  EXPECT_FALSE(validate(Mapping{1, 144, 144, 1, 1, 1}, ds, 144));
  EXPECT_EQ(*validate(Mapping{1, 8, 16, 1, 1, 1}, ds, 8), "EP=16 does not divide the 8-chip stage");
}

TEST(Deployment, MemoryShardsAndReason) {
  const ModelSpec m = models().load("llama-3.1-70b").value();
  DeploymentInput in;
  in.model = &m;
  in.hw = hw().find("h200-sxm");
  in.map = Mapping{8, 1, 1, 1, 1, 1};
  in.precision = Precision{};
  const PhaseResult ok = evaluate_decode(in, 16, 8192);
  EXPECT_TRUE(ok.feasible) << ok.reason;
  EXPECT_NEAR(ok.memory.weights.si(), m.weight_bytes(DType::kBf16, DType::kBf16).si() / 8, 1);
  EXPECT_NEAR(ok.memory.kv.si(), 16 * m.kv_bytes_sequence(8193, DType::kBf16).si() / 8, 1);
  // 512 sequences at 128K need ~2.8 TB of KV: far beyond 8 x 141 GB.
  const PhaseResult big = evaluate_decode(in, 512, 131072);
  EXPECT_FALSE(big.feasible);
  EXPECT_NE(big.reason.find("batch 512 at 131072 tokens needs"), std::string::npos) << big.reason;
  EXPECT_NE(big.reason.find("> 126.9 GB"), std::string::npos) << big.reason;  // 90% of 141 GB
}

TEST(Deployment, SingleChipEqualsTheRoofline) {
  // One chip, no communication: the deployment model is the single-domain roofline.
  EXPECT_TRUE(rc::check([] {
    const auto& names = models().names();
    const ModelSpec m = models().load(names[*rc::gen::inRange<std::size_t>(0, names.size())]).value();
    const auto& chips = hw().all();
    const Hardware& h = chips[*rc::gen::inRange<std::size_t>(0, chips.size())];
    const double batch = *rc::gen::inRange(1, 512);
    const double ctx = *rc::gen::inRange(0, 100000);
    DeploymentInput in;
    in.model = &m;
    in.hw = &h;
    in.precision = Precision::native(m);
    const PhaseResult d = evaluate_decode(in, batch, ctx);
    RooflineInput ri;
    ri.model = &m;
    ri.hw = &h;
    ri.chips = 1;
    ri.step = Step{Phase::kDecode, batch, 1, ctx};
    ri.precision = in.precision;
    const RooflineResult r = roofline_unchecked(ri);
    RC_ASSERT(d.stage.comm.si() == 0.0);
    RC_ASSERT(std::fabs(d.latency.si() - r.t_step.si()) <= 1e-12 * r.t_step.si());
  }));
}

TEST(Deployment, SpeculativeDecoding) {
  EXPECT_DOUBLE_EQ(speculative_tokens_per_step(0.0, 3), 1.0);
  EXPECT_DOUBLE_EQ(speculative_tokens_per_step(0.5, 1), 1.5);
  EXPECT_NEAR(speculative_tokens_per_step(0.8, 3), (1 - std::pow(0.8, 4)) / 0.2, 1e-12);
  // MTP with one draft at 80% acceptance: more tokens per user per second at small batch.
  const ModelSpec m = models().load("deepseek-v3").value();
  DeploymentInput in;
  in.model = &m;
  in.hw = hw().find("gb200");
  in.map = Mapping{1, 72, 72, 1, 1, 1};
  in.precision = Precision::native(m);
  const PhaseResult plain = evaluate_decode(in, 72, 4096);
  const PhaseResult mtp = evaluate_decode(in, 72, 4096, speculative_tokens_per_step(0.8, 1), 2);
  EXPECT_GT(mtp.tokens_per_s_per_user, plain.tokens_per_s_per_user);
}

TEST(Deployment, KvTransferForDisaggregation) {
  // 8K prompt of Llama 3.1 70B: 8192 x 327,680 B = 2.68 GB over 8 x 400 Gb/s.
  const ModelSpec m = models().load("llama-3.1-70b").value();
  const Seconds t = kv_transfer_time(m, 8192, DType::kBf16, *hw().find("h100-sxm"), 8);
  EXPECT_NEAR(t.si(), 5e-6 + 8192 * 327680.0 / (8 * 50e9), 1e-9);
}

}  // namespace
}  // namespace llmecon
