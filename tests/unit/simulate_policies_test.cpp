// The serving simulator's engine policies and workload shapes (model.md §23.1, §23.4): KV
// admission rules under memory pressure, per-rank caps under attention data parallelism, shared
// prefixes, unstreamed answers and capped length distributions.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>

#include "catalog/serving_engine.hpp"
#include "parallel/parallel.hpp"
#include "simulate/policy.hpp"
#include "simulate/random.hpp"
#include "simulate/simulate.hpp"
#include "simulate_fixture.hpp"

namespace llmecon {
namespace {

SimConfig base() {
  return testing_catalogs::sim_base();
}

// The least engine profile with `line` added to its [batching] table.
std::string profile_with(const std::string& line) {
  std::string profile = testing_catalogs::minimal_engine_profile();
  const std::string chunked = "chunked_prefill = true\n";
  profile.insert(profile.find(chunked) + chunked.size(), line + "\n");
  return profile;
}

// A simulation of `c` is refused naming `flag`, with `listed` among the names its hint offers.
void expect_refused(const SimConfig& c, const std::string& flag, const std::string& listed) {
  const auto refused = simulate(c);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().where, flag);
  EXPECT_NE(refused.error().hint.find(listed), std::string::npos) << refused.error().hint;
}

// A replica with little KV room and long outputs (model.md §23.4): admitting on demand preempts
// (the newest request, recomputed); reserving the whole output never does; SGLang's token-ratio
// estimate admits fewer at once and so retracts less than on-demand admission. Every rule
// completes every request with exactly the tokens it asked for and frees every block.
TEST(SimulatePolicies, AdmissionRulesTradePreemptionsForConcurrency) {
  SimConfig c = testing_catalogs::sim_tight_kv(300);
  std::map<std::string, SimResult> by;
  for (const char* a : {"on-demand", "reserve", "token-ratio"}) {
    c.scheduler.admission = a;
    const SimResult r = simulate(c).value();
    EXPECT_EQ(r.completed, 300) << a;
    EXPECT_EQ(r.output_tokens, 300L * 2000);
    EXPECT_EQ(r.emitted_tokens, r.output_tokens);
    EXPECT_EQ(r.kv_blocks_end, 0);
    EXPECT_LE(r.kv_blocks_peak, r.kv_blocks_capacity);
    by.emplace(a, r);
  }
  EXPECT_GT(by["on-demand"].preemptions, 0);
  EXPECT_EQ(by["reserve"].preemptions, 0);
  EXPECT_LT(by["token-ratio"].preemptions, by["on-demand"].preemptions);
  // Preemption by recompute prefills the victims again; reserving never recomputes.
  EXPECT_GT(by["on-demand"].prefill_tokens, by["on-demand"].input_tokens);
  EXPECT_EQ(by["reserve"].prefill_tokens, by["reserve"].input_tokens);
  EXPECT_LT(by["token-ratio"].prefill_tokens, by["on-demand"].prefill_tokens);
}

// A policy added through the registry alone (policy.hpp), and chosen by an engine profile's TOML:
// one request at a time. Every iteration then holds one sequence and every request completes,
// queueing behind the one before (a longer wait than on-demand admission of the same traffic);
// the registry lists it after the built-in policies, and a name it does not hold is refused
// naming the flag.
class OneAtATime final : public AdmissionPolicy {
 public:
  bool admits(const RequestView& /*q*/, int /*chunk*/, ReplicaView& replica) override { return replica.running() == 0; }
};

TEST(SimulatePolicies, AToyAdmissionPolicyRunsFromAnEngineProfile) {
  register_admission("one-at-a-time", [](const Scheduler&) { return std::make_unique<OneAtATime>(); });
  const std::vector<std::string> names = admission_names();
  ASSERT_GE(names.size(), 4U);
  EXPECT_EQ(names[0], "on-demand");
  EXPECT_NE(std::find(names.begin(), names.end(), "one-at-a-time"), names.end());
  // The least profile, with the toy policy named in its [batching] table.
  const auto toy = parse_engine_toml(profile_with("kv_admission = \"one-at-a-time\""), "toy.toml");
  ASSERT_TRUE(toy) << toy.error().message();
  EXPECT_EQ(toy->admission, "one-at-a-time");
  SimConfig c = base();
  c.workload.requests = 200;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(4)};
  apply_engine(c.scheduler, *toy);
  const SimResult one = simulate(c).value();
  EXPECT_EQ(one.completed, 200);
  EXPECT_EQ(one.batch.max, 1);
  c.scheduler.admission = "on-demand";
  const SimResult many = simulate(c).value();
  EXPECT_EQ(many.completed, 200);
  EXPECT_GT(many.batch.max, 1);
  EXPECT_GT(one.queue.mean.si(), many.queue.mean.si());
  c.scheduler.admission = "no-such-policy";
  expect_refused(c, "--admission", "one-at-a-time");
}

// A schedule added through the registry alone (policy.hpp), and named by an engine profile's
// TOML: no prompt joins an iteration that decodes, and a prompt goes in chunks of at most 256
// tokens. One 2048-token prompt then takes 8 prefill iterations where decode-first with an
// 8192-token budget takes one, and under steady traffic a new request waits for the running
// decodes to end, so its first token comes later.
class ExclusiveChunks final : public SchedulePolicy {
 public:
  void form(IterationBuilder& it) override {
    it.decodes();
    if (it.empty()) it.prefills();
  }
  [[nodiscard]] int chunk(const ChunkAsk& a) const override { return std::min(256, SchedulePolicy::chunk(a)); }
};

TEST(SimulatePolicies, AToyScheduleRunsFromAnEngineProfile) {
  register_schedule("exclusive-256", [](const Scheduler&) { return std::make_unique<ExclusiveChunks>(); });
  const std::vector<std::string> names = schedule_names();
  ASSERT_GE(names.size(), 3U);
  EXPECT_EQ(names[0], "decode-first");
  EXPECT_EQ(names[1], "prefill-first");
  EXPECT_NE(std::find(names.begin(), names.end(), "exclusive-256"), names.end());
  const auto toy = parse_engine_toml(profile_with("schedule = \"exclusive-256\""), "toy.toml");
  ASSERT_TRUE(toy) << toy.error().message();
  EXPECT_EQ(toy->schedule, "exclusive-256");
  SimConfig c = base();
  c.workload.requests = 1;
  c.workload.isl = LengthDist::fixed(2048);
  c.workload.osl = LengthDist::fixed(10);
  c.workload.arrivals = Arrivals{ArrivalKind::kOffline};
  const SimResult whole = simulate(c).value();
  apply_engine(c.scheduler, *toy);
  const SimResult chunks = simulate(c).value();
  EXPECT_EQ(whole.iterations, 1 + 9);
  EXPECT_EQ(chunks.iterations, 8 + 9);
  EXPECT_EQ(chunks.prefill_tokens, 2048);
  c.workload.requests = 300;
  c.workload.isl = LengthDist::fixed(1024);
  c.workload.osl = LengthDist::fixed(128);
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(4)};
  const SimResult toy_run = simulate(c).value();
  c.scheduler.schedule = "decode-first";
  const SimResult mixed = simulate(c).value();
  EXPECT_EQ(toy_run.completed, 300);
  EXPECT_EQ(toy_run.output_tokens, 300L * 128);
  EXPECT_EQ(toy_run.kv_blocks_end, 0);
  EXPECT_GT(toy_run.ttft.mean.si(), mixed.ttft.mean.si());
  c.scheduler.schedule = "no-such-schedule";
  expect_refused(c, "--priority", "exclusive-256");
}

// A preemption policy added through the registry alone: every victim swapped. With a host tier
// the victims' KV comes back from it, so no prompt is prefilled twice (recompute prefills each
// victim again); without one every victim is recomputed. A name the registry does not hold is
// refused naming the flag.
class SwapAll final : public PreemptionPolicy {
 public:
  [[nodiscard]] bool swaps(const RequestView& /*victim*/) const override { return true; }
};

TEST(SimulatePolicies, AToyPreemptionPolicySwapsThroughTheHostTier) {
  register_preemption("swap-all", [](const Scheduler&) { return std::make_unique<SwapAll>(); });
  EXPECT_EQ(preemption_names()[0], "recompute");
  SimConfig c = testing_catalogs::sim_tight_kv(120);
  const SimResult recompute = simulate(c).value();
  ASSERT_GT(recompute.preemptions, 0);
  EXPECT_GT(recompute.prefill_tokens, recompute.input_tokens);
  c.scheduler.preemption = "swap-all";
  const SimResult no_tier = simulate(c).value();
  EXPECT_EQ(no_tier.prefill_tokens, recompute.prefill_tokens);
  c.scheduler.host_tier = "ddr";
  const SimResult swapped = simulate(c).value();
  EXPECT_GT(swapped.preemptions, 0);
  EXPECT_EQ(swapped.completed, 120);
  EXPECT_EQ(swapped.output_tokens, 120L * 2000);
  EXPECT_EQ(swapped.prefill_tokens, swapped.input_tokens);
  c.scheduler.preemption = "no-such-preemption";
  expect_refused(c, "--preemption", "swap-all");
}

// With memory to spare the token-ratio rule admits like the others: no retraction, the same
// requests in the same order, and the same latencies within the step model's rounding.
TEST(SimulatePolicies, TokenRatioWithRoomMatchesOnDemand) {
  SimConfig c = base();
  c.workload.requests = 400;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(4)};
  const SimResult on_demand = simulate(c).value();
  c.scheduler.admission = "token-ratio";
  const SimResult ratio = simulate(c).value();
  EXPECT_EQ(ratio.preemptions, 0);
  EXPECT_EQ(ratio.completed, on_demand.completed);
  EXPECT_NEAR(ratio.ttft.mean.si(), on_demand.ttft.mean.si(), 1e-9);
  EXPECT_NEAR(ratio.tpot.mean.si(), on_demand.tpot.mean.si(), 1e-9);
}

TEST(SimulatePolicies, PerRankCapsScaleWithAttentionDataParallelism) {
  ServingEngine e;
  Scheduler s;
  s.max_seqs = 384;
  s.max_batched_tokens = 1536;
  e.caps_per_rank = true;
  scale_caps_to_ranks(s, e, 8);
  EXPECT_EQ(s.max_seqs, 3072);
  EXPECT_EQ(s.max_batched_tokens, 12288);
  scale_caps_to_ranks(s, e, 1);
  EXPECT_EQ(s.max_seqs, 3072);
  e.caps_per_rank = false;  // SGLang: the instance's caps, divided over its ranks
  scale_caps_to_ranks(s, e, 8);
  EXPECT_EQ(s.max_seqs, 3072);
}

// inference-perf's shared_prefix: every request starts with one of the group prompts, so after the
// first request of each group the prompt's shared part comes from the prefix cache.
TEST(SimulatePolicies, SharedPrefixServesGroupPromptsFromTheCache) {
  SimConfig c = base();
  const SharedPrefix sp = parse_shared_prefix("4:2048:256:50", "--shared-prefix").value();
  EXPECT_EQ(sp.groups, 4);
  EXPECT_EQ(sp.prefix, 2048);
  EXPECT_EQ(sp.question, 256);
  EXPECT_EQ(sp.users, 50);
  sp.apply(c.workload);
  EXPECT_EQ(c.workload.requests, 200);
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(2)};
  const SimResult r = simulate(c).value();
  EXPECT_EQ(r.completed, 200);
  EXPECT_EQ(r.input_tokens, 200L * (2048 + 256));
  // All but each group's first request find its 2048 shared tokens (blocks of 16 divide them).
  const double expected = (200.0 - 4) / 200 * 2048 / (2048 + 256);
  EXPECT_NEAR(r.prefix_hit_rate, expected, 0.01);
  EXPECT_GE(r.prefill_tokens + r.cached_tokens, r.input_tokens);
}

TEST(SimulatePolicies, SharedPrefixRejectsMalformedShapes) {
  EXPECT_FALSE(parse_shared_prefix("4:2048", "--shared-prefix"));
  EXPECT_FALSE(parse_shared_prefix("0:2048:10", "--shared-prefix"));
  EXPECT_FALSE(parse_shared_prefix("4:0:10", "--shared-prefix"));
  EXPECT_FALSE(parse_shared_prefix("4:2048:10:0", "--shared-prefix"));
  EXPECT_FALSE(parse_shared_prefix("4:2048:1.5", "--shared-prefix"));
  const auto e = parse_shared_prefix("4:x:10", "--shared-prefix");
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().where, "--shared-prefix");
}

// Unstreamed, the client sees the whole answer at once: its TTFT is the end-to-end latency, and
// no TPOT or ITL is observed; the server's work is the same.
TEST(SimulatePolicies, UnstreamedTtftIsTheEndToEndTime) {
  SimConfig c = base();
  c.workload.requests = 300;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(3)};
  const SimResult streamed = simulate(c).value();
  c.workload.stream = false;
  const SimResult whole = simulate(c).value();
  EXPECT_DOUBLE_EQ(whole.ttft.mean.si(), whole.e2e.mean.si());
  EXPECT_DOUBLE_EQ(whole.ttft.p99.si(), whole.e2e.p99.si());
  EXPECT_EQ(whole.tpot.n, 0);
  EXPECT_EQ(whole.itl.n, 0);
  EXPECT_GT(streamed.tpot.n, 0);
  EXPECT_DOUBLE_EQ(whole.e2e.mean.si(), streamed.e2e.mean.si());
  EXPECT_LT(streamed.ttft.mean.si(), whole.ttft.mean.si());
}

// A length's quantile is the draws' own: exact for fixed and uniform lengths, and within a few
// percent of a large sample's for lognormal (the same mean-and-sigma parameterization).
TEST(SimulatePolicies, LengthQuantilesMatchTheDraws) {
  EXPECT_EQ(LengthDist::fixed(2048).quantile(0.999), 2048);
  const LengthDist u = parse_length_dist("uniform:100,300", "--isl").value();
  EXPECT_EQ(u.quantile(0.5), 200);
  EXPECT_EQ(u.quantile(1.0), 300);
  const LengthDist l = parse_length_dist("lognormal:1000,0.8", "--isl").value();
  EXPECT_EQ(l.quantile(0.5), std::round(std::exp(std::log(1000.0) - 0.32)));                    // the median, 726
  EXPECT_EQ(parse_length_dist("lognormal:1000,0.8,900", "--isl").value().quantile(0.99), 900);  // capped
  std::vector<double> drawn;
  sim_internal::Stream s(7);
  for (int i = 0; i < 20000; ++i) drawn.push_back(sim_internal::draw(l, s));
  std::sort(drawn.begin(), drawn.end());
  EXPECT_NEAR(drawn[static_cast<std::size_t>(0.99 * 20000)] / l.quantile(0.99), 1.0, 0.05);
}

// A capped distribution never draws past its cap; the cap prints and parses back.
TEST(SimulatePolicies, LengthCapsBoundTheDraws) {
  const LengthDist d = parse_length_dist("lognormal:161,1.75,300", "--isl").value();
  EXPECT_EQ(d.cap, 300);
  EXPECT_EQ(parse_length_dist(d.str(), "--isl").value().cap, 300);
  EXPECT_EQ(parse_length_dist("normal:2588,945,4096", "--isl").value().cap, 4096);
  EXPECT_FALSE(parse_length_dist("lognormal:161,1.75,0", "--isl"));
  EXPECT_FALSE(parse_length_dist("uniform:1,10,5", "--isl"));
  SimConfig c = base();
  c.workload.requests = 2000;
  c.workload.arrivals = Arrivals{ArrivalKind::kOffline};
  c.workload.isl = d;
  c.workload.osl = LengthDist::fixed(1);
  const SimResult r = simulate(c).value();
  EXPECT_EQ(r.completed, 2000);
  EXPECT_LE(r.input_tokens, 2000L * 300);
  // The lognormal's heavy tail is clipped, so the mean lies below the unclipped 161.
  EXPECT_LT(static_cast<double>(r.input_tokens) / 2000, 161);
}

// The shipped dataset presets carry their published shapes.
TEST(SimulatePolicies, DatasetPresetsAreShipped) {
  const auto presets = builtin_workloads().value();
  std::map<std::string, WorkloadPreset> by;
  for (const auto& p : presets) by[p.name] = p;
  for (const char* name : {"sharegpt", "sharegpt-vllm-paper", "lmsys-chat-4k", "arxiv-summarization-4k"}) {
    ASSERT_TRUE(by.count(name)) << name;
    ASSERT_TRUE(by[name].isl && by[name].osl) << name;
    EXPECT_FALSE(by[name].sources.empty()) << name;
  }
  // The serving benchmarks' sampler (Llama 3 tokenizer) and the vLLM paper's draw (OPT tokenizer).
  EXPECT_NEAR(by["sharegpt"].isl->mean(), 202.0, 1e-9);
  EXPECT_NEAR(by["sharegpt"].osl->mean(), 210.0, 1e-9);
  EXPECT_EQ(by["sharegpt"].isl->cap, 1024);
  EXPECT_EQ(by["sharegpt"].osl->cap, 2048);
  EXPECT_NEAR(by["sharegpt-vllm-paper"].isl->mean(), 161.31, 1e-9);
  EXPECT_NEAR(by["sharegpt-vllm-paper"].osl->mean(), 337.99, 1e-9);
  EXPECT_EQ(by["arxiv-summarization-4k"].isl->kind, LengthKind::kNormal);
}

}  // namespace
}  // namespace llmecon
