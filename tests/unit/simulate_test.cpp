// The serving simulator (model.md §23): queueing theory, conservation, limits against the step
// model, determinism, schedulers, prefix caching and the workload parsers.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "parallel/parallel.hpp"
#include "simulate/simulate.hpp"
#include "simulate_fixture.hpp"

namespace llmecon {
namespace {
using testing_catalogs::families;
using testing_catalogs::hw;
using testing_catalogs::llama70;
using testing_catalogs::models;
using testing_catalogs::sim_base;

SimConfig base(const ModelSpec& m = llama70(), const char* chip = "h100-sxm", int tp = 8) {
  return sim_base(m, chip, tp);
}

double unloaded_prefill(const SimConfig& c, double isl) {
  const SeqGroup g{Phase::kPrefill, 1, isl, 0};
  return iteration_time(c.decode, std::span<const SeqGroup>(&g, 1)).time.si();
}
double decode_step(const SimConfig& c, double batch, double context) {
  const SeqGroup g{Phase::kDecode, batch, 1, context};
  return iteration_time(c.decode, std::span<const SeqGroup>(&g, 1)).time.si();
}

TEST(Simulate, MD1WaitMatchesPollaczekKhinchine) {
  // One token out per request, one request at a time: each is a prefill of a fixed prompt, a
  // constant service time S. Poisson arrivals at rate λ give the M/D/1 mean wait
  // W = ρ S / (2 (1 - ρ)), ρ = λ S (Pollaczek-Khinchine).
  SimConfig c = base();
  c.scheduler.max_seqs = 1;
  c.workload.osl = LengthDist::fixed(1);
  c.workload.requests = 100000;
  const double s = unloaded_prefill(c, 1024);
  for (const double rho : {0.5, 0.8}) {
    c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(rho / s)};
    const SimResult r = simulate(c).value();
    const double w = rho * s / (2 * (1 - rho));
    EXPECT_NEAR(r.queue.mean.si(), w, 0.02 * w) << "rho " << rho << " service " << s;
    EXPECT_EQ(r.completed, 100000);
  }
}

TEST(Simulate, ClosedLoopObeysLittlesLaw) {
  // N clients, each waiting think seconds after an answer: X (R + Z) = N.
  SimConfig c = base();
  c.workload.requests = 20000;
  const int n = 32;
  const double think = 0.5;
  c.workload.arrivals = Arrivals{ArrivalKind::kClosed, units::requests_per_s(1), 1, n, units::seconds(think)};
  c.workload.isl = LengthDist{LengthKind::kUniform, 256, 2048};
  c.workload.osl = LengthDist{LengthKind::kUniform, 16, 256};
  const SimResult r = simulate(c).value();
  const double little = r.requests_per_s.si() * (r.e2e.mean.si() + think);
  EXPECT_NEAR(little, n, 0.01 * n);
}

TEST(Simulate, ConservesRequestsTokensAndBlocks) {
  SimConfig c = base();
  c.workload.requests = 3000;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(30)};
  c.workload.isl = LengthDist{LengthKind::kLognormal, 2000, 0.8};
  c.workload.osl = LengthDist{LengthKind::kLognormal, 300, 0.8};
  c.workload.prefix_hit = 0.5;
  c.workload.prefix_tokens = 1024;
  c.workload.prefix_groups = 4;
  c.replicas = 2;
  const SimResult r = simulate(c).value();
  EXPECT_EQ(r.arrived, 3000);
  EXPECT_EQ(r.completed + r.dropped, r.arrived);
  // Every output token a completed request asked for was emitted, and no more (no request was
  // dropped, so every token the iterations emitted belongs to one).
  EXPECT_EQ(r.dropped, 0);
  EXPECT_GT(r.output_tokens, 0);
  EXPECT_EQ(r.output_tokens, r.asked_output_tokens);
  EXPECT_EQ(r.emitted_tokens, r.output_tokens);
  // Prefill computed every prompt token the cache did not serve (more after recomputes).
  EXPECT_GE(r.prefill_tokens + r.cached_tokens, r.input_tokens);
  EXPECT_LE(r.kv_blocks_peak, r.kv_blocks_capacity);
  EXPECT_EQ(r.kv_blocks_end, 0);
  EXPECT_GT(r.prefix_hit_rate, 0.1);
}

// Energy (model.md §25.6): between every chip idle and every chip at TDP from the first arrival to
// the last completion, and less of it per token at a faster arrival rate.
TEST(Simulate, EnergyLiesBetweenIdleAndFullPower) {
  SimConfig c = base();
  c.decode.power.idle = units::watts(70);
  c.decode.power.host = units::watts(350);
  c.decode.power.pue = 1.25;
  c.workload.requests = 400;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(2)};
  const SimResult slow = simulate(c).value();
  const double idle = (70 + 350 * 0.5) * 1.25 * 8, full = (700 + 350 * 0.75) * 1.25 * 8;
  ASSERT_GT(slow.run.si(), 0);
  EXPECT_LE(slow.run.si(), slow.makespan.si());
  EXPECT_GT(slow.energy.si(), idle * slow.run.si());
  EXPECT_LT(slow.energy.si(), full * slow.run.si());
  EXPECT_NEAR(slow.energy_per_output_token.si() * static_cast<double>(slow.emitted_tokens), slow.energy.si(),
              1e-9 * slow.energy.si());
  EXPECT_LT(slow.energy_per_token.si(), slow.energy_per_output_token.si());
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(8)};
  const SimResult fast = simulate(c).value();
  EXPECT_LT(fast.energy_per_output_token.si(), slow.energy_per_output_token.si());
}

// A trace that starts late is not charged for the idle time before its first request: the same
// requests shifted by 1,000 s use the same energy.
TEST(Simulate, EnergySpansFirstArrivalToLastCompletion) {
  SimConfig c = base();
  c.decode.power.idle = units::watts(70);
  c.decode.power.host = units::watts(350);
  c.workload.arrivals = Arrivals{ArrivalKind::kTrace, units::requests_per_s(0)};
  for (int i = 0; i < 40; ++i) {
    TraceRequest r;
    r.t_s = 0.25 * i;
    r.input = 512;
    r.output = 64;
    c.workload.trace.requests.push_back(r);
  }
  const SimResult early = simulate(c).value();
  for (auto& r : c.workload.trace.requests) r.t_s += 1000;
  const SimResult late = simulate(c).value();
  EXPECT_NEAR(late.energy.si(), early.energy.si(), 1e-6 * early.energy.si());
  EXPECT_NEAR(late.run.si(), early.run.si(), 1e-6);
  EXPECT_GT(late.makespan.si(), 1000);
}

TEST(Simulate, TokensInEqualTokensOutUnderPreemption) {
  // A replica with little KV room: long outputs force preemptions, by recompute.
  const SimConfig c = testing_catalogs::sim_tight_kv(400);
  const SimResult r = simulate(c).value();
  EXPECT_GT(r.preemptions, 0);
  EXPECT_EQ(r.completed, 400);
  EXPECT_EQ(r.output_tokens, 400L * 2000);
  EXPECT_EQ(r.emitted_tokens, r.output_tokens);  // recomputed prompts emit no extra tokens
  EXPECT_EQ(r.input_tokens, 400L * 4000);
  EXPECT_GT(r.prefill_tokens, r.input_tokens);  // recomputed work
  EXPECT_LE(r.kv_blocks_peak, r.kv_blocks_capacity);
  EXPECT_EQ(r.kv_blocks_end, 0);
}

TEST(Simulate, LowRateGivesUnloadedPrefillAndBatchOneDecode) {
  SimConfig c = base();
  c.workload.requests = 200;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(0.01)};
  const SimResult r = simulate(c).value();
  EXPECT_NEAR(r.ttft.p50.si(), unloaded_prefill(c, 1024), 0.01 * unloaded_prefill(c, 1024));
  // TPOT: batch-1 steps over contexts 1024..1151.
  const double step = decode_step(c, 1, 1024 + 64);
  EXPECT_NEAR(r.tpot.p50.si(), step, 0.01 * step);
  EXPECT_EQ(r.preemptions, 0);
}

TEST(Simulate, SaturationMatchesLargestBatchThroughput) {
  // Offline, short prompts and long outputs: the replica runs at max_seqs, and its throughput is
  // the step model's at that batch and the mean context.
  SimConfig c = base();
  c.scheduler.max_seqs = 128;
  c.workload.requests = 2048;
  c.workload.arrivals = Arrivals{ArrivalKind::kOffline};
  c.workload.isl = LengthDist::fixed(128);
  c.workload.osl = LengthDist::fixed(1024);
  const SimResult r = simulate(c).value();
  const double step = decode_step(c, 128, 128 + 512);
  const double expect = 128 / step;
  EXPECT_NEAR(r.output_throughput.si(), expect, 0.05 * expect);
  EXPECT_EQ(r.batch.p50, 128);
}

TEST(Simulate, SameSeedSameResultOtherSeedOther) {
  SimConfig c = base();
  c.workload.requests = 2000;
  c.workload.arrivals = Arrivals{ArrivalKind::kGamma, units::requests_per_s(20), 3};
  c.workload.isl = LengthDist{LengthKind::kNormal, 1500, 500};
  const SimResult a = simulate(c).value();
  const SimResult b = simulate(c).value();
  EXPECT_EQ(a.ttft.p99.si(), b.ttft.p99.si());
  EXPECT_EQ(a.iterations, b.iterations);
  EXPECT_EQ(a.output_throughput.si(), b.output_throughput.si());
  c.workload.seed = 2;
  const SimResult d = simulate(c).value();
  EXPECT_NE(a.ttft.p99.si(), d.ttft.p99.si());
}

TEST(Simulate, QueueingAppearsNearSaturation) {
  SimConfig c = base();
  c.workload.requests = 4000;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(1)};
  const SimResult light = simulate(c).value();
  c.workload.arrivals.rate = units::requests_per_s(200);
  const SimResult heavy = simulate(c).value();
  EXPECT_GT(heavy.ttft.p99.si(), 10 * light.ttft.p99.si());
  EXPECT_GT(heavy.tpot.p50.si(), light.tpot.p50.si());
  EXPECT_GT(heavy.batch.mean, light.batch.mean);
}

// Offered against served (model.md §23.6): below capacity every arrival is served and nothing is
// flagged; at several times the saturated rate the served rate stays at capacity, the system
// grows, latencies climb across the run, and the run says it is overloaded.
TEST(Simulate, OverloadIsReportedAndSteadyLoadIsNot) {
  SimConfig c = base();
  c.workload.requests = 3000;
  c.workload.arrivals = Arrivals{ArrivalKind::kOffline};
  const double capacity = simulate(c).value().requests_per_s.si();  // every request at once: saturated
  EXPECT_FALSE(simulate(c).value().load.has_value());               // offline: no offered rate
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(capacity / 4)};
  const SimResult light = simulate(c).value();
  ASSERT_TRUE(light.load);
  EXPECT_NEAR(light.load->offered_requests_per_s.si(), capacity / 4, 0.1 * capacity / 4);
  EXPECT_NEAR(light.load->served_requests_per_s.si(), light.load->offered_requests_per_s.si(),
              0.05 * light.load->offered_requests_per_s.si());
  EXPECT_FALSE(light.load->overloaded);
  // At three times capacity, and with arrivals far faster than one answer (the arrival window
  // ends before anything completes), the served rate is the service rate, not what the window saw
  // complete.
  for (const double times : {3.0, 1000.0}) {
    c.workload.arrivals.rate = units::requests_per_s(times * capacity);
    const SimResult heavy = simulate(c).value();
    ASSERT_TRUE(heavy.load);
    EXPECT_TRUE(heavy.load->overloaded) << times;
    EXPECT_LT(heavy.load->served_requests_per_s.si(), 1.1 * capacity) << times;
    EXPECT_GT(heavy.load->served_requests_per_s.si(), 0.8 * capacity) << times;
    EXPECT_NEAR(heavy.requests_per_s.si(), heavy.load->served_requests_per_s.si(), 1e-9) << times;
    EXPECT_GT(heavy.output_throughput.si(), 0) << times;
    if (times < 10) {
      EXPECT_GT(heavy.load->e2e_late.si(), 1.5 * heavy.load->e2e_early.si());
    }
  }
  // A closed loop offers what it is served: no offered rate of its own.
  c.workload.arrivals = Arrivals{ArrivalKind::kClosed};
  c.workload.arrivals.clients = 16;
  EXPECT_FALSE(simulate(c).value().load.has_value());
}

// vLLM's V0 engine (model.md §23.4) runs waiting prompts before the decodes when it does not chunk
// them, and the decodes first when it does; an engine with one order keeps it either way.
TEST(Simulate, TheUnchunkedOrderFollowsTheEngine) {
  const auto engines = builtin_engines().value();
  const ServingEngine& v0 = *find_engine(engines, "vllm-v0");
  Scheduler s;
  apply_engine(s, v0);
  apply_unchunked(s, v0, 131072, false);
  EXPECT_EQ(s.schedule, "decode-first");
  EXPECT_EQ(s.max_batched_tokens, 512);  // chunked: the profile's budget
  s.chunked_prefill = false;
  apply_unchunked(s, v0, 131072, false);
  EXPECT_EQ(s.schedule, "prefill-first");
  // Whole prompts: V0's budget is max(max_model_len, 2048), unless one was told.
  EXPECT_EQ(s.max_batched_tokens, 131072);
  apply_engine(s, v0);
  s.chunked_prefill = false;
  apply_unchunked(s, v0, 1024, false);
  EXPECT_EQ(s.max_batched_tokens, 2048);
  s.max_batched_tokens = 4000;
  apply_unchunked(s, v0, 131072, true);
  EXPECT_EQ(s.max_batched_tokens, 4000);
  const ServingEngine& v1 = *find_engine(engines, "vllm");
  apply_engine(s, v1);
  s.chunked_prefill = false;
  const double budget = s.max_batched_tokens;
  apply_unchunked(s, v1, 131072, false);
  EXPECT_EQ(s.schedule, "decode-first");
  EXPECT_EQ(s.max_batched_tokens, budget);
}

// vLLM V0's multi-step scheduling (model.md §23.4): a decode batch runs its steps with no request
// admitted, so a request arriving a step and a half into a window waits out the rest of it (about
// N - 1.5 decode steps more than with a scheduling every step); and a sequence that ends inside
// the window stays in the batch as padding until the window ends.
TEST(Simulate, MultiStepWindowsHoldAdmissionsAndPadFinishedSequences) {
  SimConfig c = base();
  c.warmup_fraction = 0;
  c.workload.arrivals = Arrivals{ArrivalKind::kTrace, units::requests_per_s(0)};
  const double p = unloaded_prefill(c, 512);
  const double d = decode_step(c, 1, 513);
  for (const double t : {0.0, p + 1.5 * d}) {
    TraceRequest r;
    r.t_s = t;
    r.input = 512;
    r.output = 200;
    c.workload.trace.requests.push_back(r);
  }
  const double every = simulate(c).value().ttft.max.si();
  c.scheduler.decode_steps = 8;
  const double windowed = simulate(c).value().ttft.max.si();
  EXPECT_NEAR(windowed - every, 6 * d, 0.5 * d) << "decode step " << d;

  // Outputs of 3 and 40 tokens, both at t = 0: the first prefills alone, the second beside its
  // first decode. Every step scheduled: 1 + 2 + 2 sequences, then 38 iterations of 1. In windows of
  // 16: 1, 2, then a window of 16 at 2 (the short one padding after its last token), then 23 of 1.
  SimConfig o = base();
  o.workload.arrivals = Arrivals{ArrivalKind::kTrace, units::requests_per_s(0)};
  for (const int out : {3, 40}) {
    TraceRequest r;
    r.input = 256;
    r.output = out;
    o.workload.trace.requests.push_back(r);
  }
  const SimResult one = simulate(o).value();
  o.scheduler.decode_steps = 16;
  const SimResult multi = simulate(o).value();
  EXPECT_EQ(one.iterations, 41);
  EXPECT_EQ(multi.iterations, 41);
  EXPECT_NEAR(one.batch.mean, 43.0 / 41, 1e-9);
  EXPECT_NEAR(multi.batch.mean, 58.0 / 41, 1e-9);
  EXPECT_EQ(multi.output_tokens, 43);
}

// A KV pool the engine was told (model.md §23.4; TurboMind's block count, TensorRT-LLM's token cap)
// replaces its memory rule's: smaller, the replica holds exactly it; larger than the rule allows
// but within HBM, it is honoured; past what all of HBM leaves, it stops there.
TEST(Simulate, AToldKvPoolReplacesTheMemoryRule) {
  SimConfig c = testing_catalogs::sim_tight_kv(8);  // usable HBM 0.55
  const long tight = simulate(c).value().kv_blocks_capacity;
  c.decode.usable_hbm = 1.0;
  const long all = simulate(c).value().kv_blocks_capacity;
  ASSERT_GT(all, 2 * tight);
  c.decode.usable_hbm = 0.55;
  c.scheduler.kv_tokens = 16.0 * static_cast<double>(tight / 2);
  EXPECT_EQ(simulate(c).value().kv_blocks_capacity, tight / 2);
  c.scheduler.kv_tokens = 16.0 * static_cast<double>(2 * tight);
  EXPECT_EQ(simulate(c).value().kv_blocks_capacity, 2 * tight);
  c.scheduler.kv_tokens = 16.0 * static_cast<double>(10 * all);
  EXPECT_EQ(simulate(c).value().kv_blocks_capacity, all);
}

// Staged load (model.md §23.1): arrivals at each stage's rate for its seconds; the statistics
// describe the reported stage, every request that arrived in it.
TEST(Simulate, StagedLoadReportsOneStage) {
  SimConfig c = base();
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(1)};
  c.workload.arrivals.stages = {{units::requests_per_s(2), units::seconds(200)},
                                {units::requests_per_s(6), units::seconds(200)}};
  const SimResult last = simulate(c).value();
  // 400 and 1200 expected: within four standard deviations of a Poisson count.
  EXPECT_NEAR(static_cast<double>(last.arrived), 1600, 4 * std::sqrt(1600.0));
  EXPECT_NEAR(static_cast<double>(last.counted), 1200, 4 * std::sqrt(1200.0));
  ASSERT_TRUE(last.load);
  EXPECT_NEAR(last.load->offered_requests_per_s.si(), 6, 0.6);
  c.workload.arrivals.report_stage = 1;
  const SimResult first = simulate(c).value();
  EXPECT_EQ(first.arrived, last.arrived);  // the same arrivals, another stage reported
  EXPECT_EQ(first.counted + last.counted, first.arrived);
  ASSERT_TRUE(first.load);
  EXPECT_NEAR(first.load->offered_requests_per_s.si(), 2, 0.3);
  EXPECT_LT(first.ttft.p99.si(), last.ttft.p99.si() * 1.5);
  c.workload.arrivals.report_stage = 3;
  EXPECT_FALSE(simulate(c).ok());
}

// Exact count: rate x seconds Poisson gaps rescaled to fill the stage, so the count is exact and
// the arrivals span the stage.
TEST(Simulate, ExactCountFillsTheStage) {
  SimConfig c = base();
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(1)};
  c.workload.arrivals.exact_count = true;
  c.workload.arrivals.stages = {{units::requests_per_s(3), units::seconds(100)}};
  const SimResult r = simulate(c).value();
  EXPECT_EQ(r.arrived, 300);
  EXPECT_EQ(r.counted, 300);  // a stage counts every request that arrives in it
  EXPECT_LE(r.window.si(), 100 + 1e-6);
  EXPECT_GT(r.window.si(), 90);
  // Without stages: --requests at --rate over exactly requests / rate seconds.
  c.workload.arrivals.stages.clear();
  c.workload.requests = 500;
  EXPECT_EQ(simulate(c).value().arrived, 500);
}

TEST(Simulate, ChunkedPrefillSlowsDecodesItRidesWith) {
  // Prefill-first (vLLM V0) stalls decodes behind whole prompts; decode-first with chunks keeps
  // them flowing but each carries prefill work: p99 inter-token gaps differ.
  SimConfig c = base();
  c.workload.requests = 2000;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(8)};
  c.workload.isl = LengthDist::fixed(6000);
  c.scheduler.max_batched_tokens = 512;
  const SimResult chunked = simulate(c).value();
  c.scheduler.schedule = "prefill-first";
  c.scheduler.chunked_prefill = false;
  const SimResult stall = simulate(c).value();
  EXPECT_GT(stall.itl.max.si(), chunked.itl.max.si());
}

TEST(Simulate, AWholePromptPastTheBudgetRunsBesideTheDecodes) {
  // Offline prompts three times the token budget, without chunking: an engine that does not chunk
  // sizes its budget to the longest prompt, so each prompt joins the running decodes as the
  // iteration's only prefill. Were it to wait for an iteration with no decodes, every prompt would
  // run alone and the batch would drain between them (about ten times slower).
  SimConfig c = base();
  c.workload.requests = 400;
  c.workload.arrivals = Arrivals{ArrivalKind::kOffline};
  c.workload.isl = LengthDist::fixed(6000);
  c.workload.osl = LengthDist::fixed(400);
  c.scheduler.max_batched_tokens = 2048;
  const SimResult chunked = simulate(c).value();
  c.scheduler.chunked_prefill = false;
  const SimResult whole = simulate(c).value();
  EXPECT_EQ(whole.completed, 400);
  EXPECT_GT(whole.batch.mean, 0.5 * chunked.batch.mean);
  EXPECT_GT(whole.output_throughput.si(), 0.7 * chunked.output_throughput.si());
}

TEST(Simulate, StaticBatchingWaitsForTheLongest) {
  SimConfig c = base();
  c.workload.requests = 512;
  c.workload.arrivals = Arrivals{ArrivalKind::kOffline};
  c.workload.osl = LengthDist{LengthKind::kUniform, 16, 1024};
  const SimResult cont = simulate(c).value();
  c.scheduler.kind = SchedulerKind::kStatic;
  c.scheduler.max_seqs = 64;
  const SimResult stat = simulate(c).value();
  EXPECT_EQ(stat.completed, 512);
  EXPECT_LT(stat.output_throughput.si(), cont.output_throughput.si());
}

TEST(Simulate, DisaggregatedPoolsMoveKv) {
  SimConfig c = base();
  c.scheduler.kind = SchedulerKind::kDisaggregated;
  c.prefill = c.decode;
  c.workload.requests = 1000;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(5)};
  const SimResult r = simulate(c).value();
  EXPECT_EQ(r.completed, 1000);
  EXPECT_EQ(r.chips, 16);
  EXPECT_EQ(r.kv_blocks_end, 0);
  // TTFT is the prefill pool's; TPOT starts after the KV moved.
  EXPECT_NEAR(r.ttft.p50.si(), unloaded_prefill(c, 1024), 0.2 * unloaded_prefill(c, 1024));
}

TEST(Simulate, PrefixAffinityRoutesToTheCache) {
  SimConfig c = base();
  c.replicas = 4;
  c.workload.requests = 4000;
  c.workload.arrivals = Arrivals{ArrivalKind::kPoisson, units::requests_per_s(20)};
  c.workload.prefix_hit = 1;
  c.workload.prefix_tokens = 800;
  c.workload.prefix_groups = 8;
  c.router = Router::kRoundRobin;
  const SimResult rr = simulate(c).value();
  c.router = Router::kPrefixAffinity;
  const SimResult aff = simulate(c).value();
  EXPECT_GE(aff.prefix_hit_rate, rr.prefix_hit_rate);
  EXPECT_GT(aff.saved_by_cache.si(), 0);
  EXPECT_EQ(aff.replica_completed.size(), 4U);
}

TEST(Simulate, FindRateMeetsTheSlo) {
  SimConfig c = base();
  c.workload.requests = 1500;
  c.slo = parse_slo("ttft_p99=2s,tpot_p99=60ms", "--slo").value();
  const RateSearch s = find_rate(c).value();
  EXPECT_GT(s.rate.si(), 0);
  EXPECT_TRUE(s.at.slo_met);
  bool failed_above = false;
  for (const auto& [rate, met] : s.tried) failed_above = failed_above || (!met && rate > s.rate.si());
  EXPECT_TRUE(failed_above);
}

TEST(SimulateInput, ParsesTheTraceFormats) {
  auto csv = parse_trace("timestamp_s,input_tokens,output_tokens\n0,100,10\n0.5,200,20\n", "t.csv").value();
  ASSERT_EQ(csv.requests.size(), 2U);
  EXPECT_EQ(csv.requests[1].input, 200);
  EXPECT_EQ(csv.format, "csv");
  auto az = parse_trace(
                "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46.6805900,4808,10\n"
                "2023-11-16 18:15:50.9951690,3180,8\n",
                "azure.csv")
                .value();
  EXPECT_EQ(az.format, "azure");
  EXPECT_NEAR(az.requests[1].t_s, 4.314579, 1e-6);
  auto mc = parse_trace(
                "{\"timestamp\": 27482, \"input_length\": 6955, \"output_length\": 52, \"hash_ids\": [46, 47]}\n"
                "{\"timestamp\": 30535, \"input_length\": 6472, \"output_length\": 26, \"hash_ids\": [46, 52]}\n",
                "mooncake.jsonl")
                .value();
  EXPECT_EQ(mc.format, "mooncake");
  EXPECT_NEAR(mc.requests[1].t_s, 30.535, 1e-9);
  EXPECT_EQ(mc.requests[0].hashes.size(), 2U);
}

TEST(SimulateInput, BadTracesNameTheLineAndColumn) {
  auto e1 = parse_trace("timestamp_s,input_tokens,output_tokens\n1,100,10\n0.5,200,20\n", "t.csv");
  ASSERT_FALSE(e1);
  EXPECT_EQ(e1.error().field, "line 3, column timestamp_s");
  auto e2 = parse_trace("timestamp_s,input_tokens,output_tokens\n-1,100,10\n", "t.csv");
  ASSERT_FALSE(e2);
  EXPECT_NE(e2.error().what.find("negative"), std::string::npos);
  auto e3 = parse_trace("timestamp_s,input_tokens,output_tokens\n0,abc,10\n", "t.csv");
  ASSERT_FALSE(e3);
  EXPECT_EQ(e3.error().field, "line 2, column input_tokens");
  EXPECT_FALSE(parse_trace("", "t.csv"));
  auto e5 = parse_trace("timestamp_s,output_tokens\n0,10\n", "t.csv");
  ASSERT_FALSE(e5);
  EXPECT_EQ(e5.error().field, "line 1, column input_tokens");
  EXPECT_FALSE(parse_trace("{\"timestamp_s\": 0, \"input_tokens\": 5}\n", "t.jsonl"));
}

TEST(SimulateInput, LengthDistributionsAndSlos) {
  EXPECT_EQ(parse_length_dist("2048", "--isl")->a, 2048);
  EXPECT_EQ(parse_length_dist("lognormal:1000,0.8", "--isl")->kind, LengthKind::kLognormal);
  EXPECT_FALSE(parse_length_dist("uniform:10", "--isl"));
  EXPECT_FALSE(parse_length_dist("zipf:1", "--isl"));
  EXPECT_FALSE(parse_length_dist("0", "--isl"));
  const Slo s = parse_slo("ttft_p99=2s,tpot_p90=50ms", "--slo").value();
  EXPECT_EQ(*s.ttft_s, 2);
  EXPECT_NEAR(*s.tpot_s, 0.05, 1e-12);
  EXPECT_EQ(s.tpot_pct, 90);
  EXPECT_FALSE(parse_slo("ttft_p99=2", "--slo"));
  EXPECT_FALSE(parse_slo("ttft=2s", "--slo"));
}

}  // namespace
}  // namespace llmecon
