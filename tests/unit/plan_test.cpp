// The planner: frontier properties, SLO handling, and the layouts deployers published
// (../shared/validation/dev.csv).
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>

#include "io/facade.hpp"
#include "plan/plan.hpp"
#include "test_catalogs.hpp"

namespace llmecon {
namespace {
using namespace units;

using testing_catalogs::hw;
using testing_catalogs::models;

PlanRequest request(const ModelSpec& m, const char* chip, int chips, double isl, double osl) {
  PlanRequest rq;
  rq.model = &m;
  rq.hw = hw().find(chip);
  rq.chips = chips;
  rq.isl = isl;
  rq.osl = osl;
  return rq;
}

TEST(Plan, FrontierIsMutuallyNonDominated) {
  const ModelSpec m = models().load("mixtral-8x7b").value();
  const PlanResult r = plan(request(m, "h100-sxm", 8, 2048, 256));
  ASSERT_GE(r.frontier.size(), 3u);
  for (const auto& a : r.frontier)
    for (const auto& b : r.frontier) EXPECT_FALSE(dominates(a, b)) << a.map.str() << " vs " << b.map.str();
  // Every feasible point is dominated by or on the frontier: the best per-chip point is on it.
  ASSERT_TRUE(r.best.has_value());
  EXPECT_DOUBLE_EQ(r.frontier.front().decode.tokens_per_s_per_chip.si(), r.best->decode.tokens_per_s_per_chip.si());
}

TEST(Plan, MoreChipsNeverLowerBestSpeedPerUser) {
  for (const char* name : {"llama-3.1-8b", "qwen3-30b-a3b"}) {
    const ModelSpec m = models().load(name).value();
    double last = 0;
    for (int chips : {1, 2, 4, 8}) {
      const PlanResult r = plan(request(m, "h100-sxm", chips, 1024, 128));
      double fastest = 0;
      for (const auto& p : r.frontier) fastest = std::max(fastest, p.decode.tokens_per_s_per_user.si());
      EXPECT_GE(fastest, last * (1 - 1e-12)) << name << " at " << chips << " chips";
      last = fastest;
    }
  }
}

TEST(Plan, SloFiltersAndEmptyAnswers) {
  const ModelSpec m = models().load("llama-3.1-70b").value();
  PlanRequest rq = request(m, "h100-sxm", 8, 2048, 256);
  rq.tpot = ms(20);
  const PlanResult r = plan(rq);
  ASSERT_TRUE(r.best.has_value());
  EXPECT_LE(r.best->decode.latency, ms(20));
  EXPECT_GT(r.rejected.at("slo: TPOT above 20 ms"), 0);
  // An SLO no deployment can meet is a normal, explained answer.
  rq.tpot = us(1);
  const PlanResult none = plan(rq);
  EXPECT_FALSE(none.best.has_value());
  EXPECT_EQ(none.empty_reason, "no feasible point meets the SLO");
  EXPECT_FALSE(none.frontier.empty());
  // A model that fits nowhere.
  const ModelSpec big = models().load("llama-3.1-405b").value();
  PlanRequest tiny = request(big, "l40s", 1, 2048, 256);
  const PlanResult nofit = plan(tiny);
  EXPECT_FALSE(nofit.best.has_value());
  EXPECT_EQ(nofit.empty_reason, "no mapping and batch fits in HBM");
}

// Ranking by cost or by energy puts the cheapest or the most frugal SLO-meeting point first; the
// points meeting the SLO are the same whatever the rank.
TEST(Plan, RanksByCostOrEnergy) {
  const ModelSpec m = models().load("llama-3.1-70b").value();
  PlanRequest rq = request(m, "h100-sxm", 8, 2048, 256);
  rq.tpot = ms(50);
  rq.power.idle = watts(70);
  rq.power.host = watts(350);
  rq.power.pue = 1.25;
  const PlanResult speed = plan(rq);
  rq.rank = PlanRank::kCost;
  const PlanResult cost = plan(rq);
  rq.rank = PlanRank::kEnergy;
  const PlanResult energy = plan(rq);
  ASSERT_TRUE(speed.best && cost.best && energy.best);
  EXPECT_EQ(speed.meeting_slo, cost.meeting_slo);
  EXPECT_EQ(speed.meeting_slo, energy.meeting_slo);
  for (const auto& p : cost.ranked) EXPECT_GE(p.usd_per_token, cost.best->usd_per_token);
  for (const auto& p : energy.ranked) EXPECT_GE(p.energy_per_token, energy.best->energy_per_token);
  EXPECT_GT(energy.best->energy_per_token.si(), 0);
  EXPECT_LE(cost.best->usd_per_token, speed.best->usd_per_token);
  // Blended as the dollars are: input and output weighted by isl and osl.
  const PlanPoint& b = *energy.best;
  EXPECT_NEAR(b.energy_per_token.si(),
              (b.input_energy_per_token.si() * 2048 + b.decode.energy_per_token.si() * 256) / (2048 + 256),
              1e-12 * b.energy_per_token.si());
}

TEST(Plan, DisaggregatedPrefillAddsKvTransfer) {
  const ModelSpec m = models().load("llama-3.1-70b").value();
  PlanRequest rq = request(m, "h100-sxm", 8, 8192, 256);
  rq.prefill_hw = hw().find("h200-sxm");
  rq.prefill_chips = 8;
  rq.kv_dtypes = {DType::kBf16};
  const PlanResult r = plan(rq);
  ASSERT_TRUE(r.best.has_value());
  ASSERT_TRUE(r.best->prefill_map.has_value());
  // 8K prompt KV (2.68 GB at bf16) over the prefill replica's NICs.
  const double replica = r.best->prefill_map->replica_chips();
  EXPECT_NEAR(r.best->kv_transfer.si(), 5e-6 + 8192 * 327680.0 / (replica * 50e9), 1e-9);
  EXPECT_GT(r.best->prefill.latency, r.best->kv_transfer);
}

TEST(Plan, ThreadsGiveTheSameAnswer) {
  const ModelSpec m = models().load("deepseek-v3").value();
  PlanRequest rq = request(m, "gb200", 72, 2048, 256);
  const PlanResult one = plan(rq);
  rq.threads = 2;
  const PlanResult two = plan(rq);
  EXPECT_EQ(one.evaluated, two.evaluated);
  EXPECT_EQ(one.feasible, two.feasible);
  ASSERT_TRUE(one.best && two.best);
  EXPECT_DOUBLE_EQ(one.best->decode.tokens_per_s_per_chip.si(), two.best->decode.tokens_per_s_per_chip.si());
  EXPECT_EQ(one.frontier.size(), two.frontier.size());
}

// DeepSeek's decode unit (DS6-02/03, https://github.com/deepseek-ai/open-infra-index): 144 H800
// (18 nodes of 8), attention data-parallel 144, EP144 with 32 redundant experts, TPOT ~48 ms.
TEST(PublishedLayouts, DeepSeekDecodeEp144RanksFirst) {
  const ModelSpec m = models().load("deepseek-v3").value();
  PlanRequest rq = request(m, "h800-sxm", 144, 4096, 1024);
  rq.tpot = ms(50);
  rq.weight_dtypes = {DType::kFp8};
  rq.kv_dtypes = {DType::kBf16};
  const PlanResult r = plan(rq);
  const long rank = rank_of(r, Mapping{1, 144, 144, 1, 1, 1});
  EXPECT_GE(rank, 0);
  EXPECT_LE(rank, 2) << "published EP144 should be among the top three mappings";
}

// DeepSeek's prefill unit (DS6-01): 32 H800, attention DP32 with EP32, computation and
// all-to-all overlapped with two micro-batches (DeepSeek-V3 report; open-infra-index profile
// data), so overlap = 1. Rank = how many mappings beat it by more than 1% in prefill tokens/s
// per chip (compute-bound layouts tie).
TEST(PublishedLayouts, DeepSeekPrefillEp32AmongTopChoices) {
  const ModelSpec m = models().load("deepseek-v3").value();
  const auto maps = candidate_mappings(m, 32, 4096);
  std::vector<std::pair<double, std::string>> ranked;
  for (const auto& mp : maps) {
    DeploymentInput in;
    in.model = &m;
    in.hw = hw().find("h800-sxm");
    in.map = mp;
    in.precision = Precision::native(m);
    in.overlap = 1.0;
    const PhaseResult pre = evaluate_prefill(in, 2.0 * mp.dp_attn, 4096);
    if (pre.feasible) ranked.emplace_back(pre.tokens_per_s_per_chip.si(), mp.str());
  }
  double published = 0;
  for (const auto& [v, name] : ranked)
    if (name == "tp1 dpa32 ep32") published = v;
  ASSERT_GT(published, 0);
  long better = 0;
  for (const auto& [v, name] : ranked) better += v > 1.01 * published ? 1 : 0;
  EXPECT_LT(better, 10) << "of " << ranked.size() << " feasible mappings";
}

// SGLang's 96 x H100 deployment (SGL-04, https://lmsys.org/blog/2025-05-05-large-scale-ep/):
// decode on 72 H100 (9 nodes) with DP attention and EP72, batch 18,432 at 2,000 input tokens.
TEST(PublishedLayouts, SglangDecodeEp72AmongTopChoices) {
  const ModelSpec m = models().load("deepseek-v3").value();
  PlanRequest rq = request(m, "h100-sxm", 72, 2000, 100);
  rq.batches = {18432};
  rq.weight_dtypes = {DType::kFp8};
  rq.kv_dtypes = {DType::kBf16};
  const PlanResult r = plan(rq);
  const long rank = rank_of(r, Mapping{1, 72, 72, 1, 1, 1});
  EXPECT_GE(rank, 0);
  EXPECT_LT(rank, 10);
}

// Pope et al. 2022 (POPE-*, https://arxiv.org/abs/2211.05102): PaLM 540B on 64 TPU v4 with
// 64-way model partitioning. PaLM has 48 heads, so TP=64 is rejected as given; the paper padded
// the heads to 64, and with that padding the published layout is the fastest per user.
TEST(PublishedLayouts, PalmTp64NeedsHeadPadding) {
  const ModelSpec palm = models().load("palm-540b").value();
  PlanRequest rq = request(palm, "tpu-v4", 64, 2048, 64);
  rq.weight_dtypes = {DType::kInt8};
  const PlanResult r = plan(rq);
  EXPECT_EQ(r.rejected.count("mapping: TP=64 does not divide 48 attention heads"), 1u);
  ModelSpec padded = palm;
  padded.attn.heads = 64;
  PlanRequest pq = request(padded, "tpu-v4", 64, 2048, 64);
  pq.weight_dtypes = {DType::kInt8};
  pq.kv_dtypes = {DType::kBf16, DType::kFp8};
  pq.batches = {64};
  const PlanResult pr = plan(pq);
  ASSERT_FALSE(pr.frontier.empty());
  const PlanPoint& fastest = pr.frontier.back();  // most tokens/s per user
  EXPECT_EQ(fastest.map.tp, 64) << fastest.map.str();
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

// plan --emit: the launch text for each engine equals its golden file (tests/data/emit), which was
// checked against each engine's documented flags (data/engines cites them).
TEST(Emit, LaunchTextMatchesTheGoldenFiles) {
  static const Engine engine = Engine::open({}).value();
  const Json qwen{{"model", "qwen3-30b-a3b"}, {"hw", "b200"}, {"isl", 8192}, {"osl", 256}, {"tpot_ms", 20}};
  auto with = [](Json j, const Json& more) {
    for (const auto& [k, v] : more.items()) j[k] = v;
    return j;
  };
  const std::vector<std::pair<Json, std::string>> cases{
      {with(qwen, {{"emit", "vllm"}}), "qwen3-30b-a3b-b200-vllm.sh"},
      {with(qwen, {{"emit", "sglang"}}), "qwen3-30b-a3b-b200-sglang.sh"},
      {with(qwen, {{"emit", "trtllm"}}), "qwen3-30b-a3b-b200-trtllm.sh"},
      {Json{{"model", "deepseek-v3"}, {"hw", "h100-sxm"}, {"chips", 32}, {"formats", "search"}, {"emit", "trtllm"}},
       "deepseek-v3-h100x32-trtllm.sh"},
      {Json{{"model", "llama-3.1-70b"},
            {"hw", "h100-sxm"},
            {"chips", 16},
            {"prefill_hw", "h100-sxm"},
            {"prefill_chips", 8},
            {"emit", "sglang"}},
       "llama-3.1-70b-disaggregated-sglang.sh"},
      // Instances wider than a host: SGLang's node ranks, TensorRT-LLM's MPI job over GB200 trays,
      // vLLM's Ray cluster for a pipeline over two servers.
      {Json{{"model", "deepseek-r1"}, {"hw", "h200-sxm"}, {"chips", 16}, {"emit", "sglang"}},
       "deepseek-r1-h200x16-sglang.sh"},
      {Json{{"model", "deepseek-r1"}, {"hw", "gb200"}, {"chips", 72}, {"emit", "trtllm"}},
       "deepseek-r1-gb200x72-trtllm.sh"},
      {Json{{"model", "llama-3.1-405b"}, {"hw", "h100-sxm"}, {"chips", 16}, {"tpot_ms", 200}, {"emit", "vllm"}},
       "llama-3.1-405b-h100x16-vllm.sh"}};
  for (const auto& [args, file] : cases) {
    auto r = engine.run("plan", args);
    ASSERT_TRUE(r) << file << ": " << r.error().message();
    auto golden = read_text_file(std::string(LLMECON_TEST_DATA) + "/emit/" + file, "");
    ASSERT_TRUE(golden) << golden.error().message();
    EXPECT_EQ((*r)["launch"]["text"].get<std::string>(), *golden) << file;
  }
  // The engine's own limits shape the plan it launches: vLLM holds at most 1024 sequences.
  auto v = engine.run("plan", Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"emit", "vllm"}});
  ASSERT_TRUE(v);
  EXPECT_LE((*v)["best"]["batch"].get<double>(), 1024);
  EXPECT_EQ((*v)["engine"], "vllm");
  // A point past the frontier is refused with the count.
  auto bad = engine.run("plan", with(qwen, {{"emit", "vllm"}, {"point", 999}}));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "--point");
}

// Every flag an emitted command passes is one the engine documents (model.md §17.4): vLLM 0.11's
// `vllm serve` (vllm/engine/arg_utils.py, entrypoints/cli), SGLang's server arguments
// (srt/server_args.py), trtllm-serve's options and Slurm's srun for TensorRT-LLM's multi-node job.
TEST(Emit, EveryFlagIsOneTheEngineDocuments) {
  static const Engine engine = Engine::open({}).value();
  const std::map<std::string, std::set<std::string>> documented{
      {"vllm",
       {"--tensor-parallel-size", "--pipeline-parallel-size", "--data-parallel-size", "--enable-expert-parallel",
        "--quantization", "--kv-cache-dtype", "--max-num-seqs", "--max-num-batched-tokens", "--enable-chunked-prefill",
        "--gpu-memory-utilization", "--max-model-len", "--data-parallel-size-local", "--data-parallel-address",
        "--data-parallel-start-rank", "--headless", "--distributed-executor-backend"}},
      {"sglang",
       {"--model-path", "--tp-size", "--pp-size", "--dp-size", "--enable-dp-attention", "--ep-size", "--quantization",
        "--kv-cache-dtype", "--max-running-requests", "--chunked-prefill-size", "--mem-fraction-static",
        "--context-length", "--nnodes", "--node-rank", "--dist-init-addr"}},
      {"trtllm",
       {"--tp_size", "--pp_size", "--ep_size", "--max_batch_size", "--max_num_tokens", "--max_seq_len",
        "--kv_cache_free_gpu_memory_fraction", "--extra_llm_api_options", "--ntasks", "--ntasks-per-node",
        "--mpi=pmix"}}};
  const std::vector<Json> plans{
      Json{{"model", "qwen3-30b-a3b"}, {"hw", "b200"}, {"isl", 8192}, {"osl", 256}, {"tpot_ms", 20}},
      Json{{"model", "deepseek-r1"}, {"hw", "h200-sxm"}, {"chips", 16}},
      Json{{"model", "deepseek-r1"}, {"hw", "gb200"}, {"chips", 72}},
      Json{{"model", "llama-3.1-405b"}, {"hw", "h100-sxm"}, {"chips", 16}, {"tpot_ms", 200}},
      Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 1}, {"weight_dtypes", "fp8"}}};
  for (const auto& [name, flags] : documented) {
    for (Json q : plans) {
      q["emit"] = name;
      auto r = engine.run("plan", q);
      ASSERT_TRUE(r) << name << " " << q.dump() << ": " << r.error().message();
      std::istringstream text((*r)["launch"]["text"].get<std::string>());
      std::string line;
      int seen = 0;
      while (std::getline(text, line)) {
        if (line.empty() || line[0] == '#') continue;  // comments and notes
        std::istringstream words(line);
        std::string w;
        while (words >> w) {
          if (w.rfind("--", 0) != 0) continue;
          ++seen;
          EXPECT_TRUE(flags.count(w)) << name << " emits undocumented " << w << " for " << q.dump();
        }
      }
      EXPECT_GT(seen, 3) << name << " " << q.dump();
    }
  }
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

// An engine is a file: a new profile with its own [flags] and [launch] spells a plan's launch
// command with no code naming it, and the command table lists the built-in profiles' names.
TEST(Emit, AnEngineIsAProfileFile) {
  const ModelSpec m = models().load("qwen3-30b-a3b").value();
  PlanRequest rq;
  rq.model = &m;
  rq.hw = hw().find("b200");
  rq.chips = 8;
  rq.isl = 2048;
  rq.osl = 256;
  const PlanResult r = plan(rq);
  ASSERT_TRUE(r.best.has_value());
  const std::string profile = R"(name = "myserve"
display_name = "MyServe 1.0"
sources = ["https://example.invalid/myserve/docs"]
notes = "a test profile"
[memory]
rule = "total"
fraction = 0.8
[batching]
max_seqs = 64
max_batched_tokens = 4096
chunked_prefill = true
kv_block_tokens = 16
prefix_caching = true
[kv]
fp8_checkpoint = "bf16"
[overhead]
host = "100 us"
cuda_graphs = true
[flags]
launch = "myserve run {model}"
tp = "--shards"
ep = "--experts"
max_seqs = "--batch"
max_batched_tokens = "--tokens"
memory_fraction = "--mem"
[launch]
tp_counts = "tensor"
ep = "degree"
attention_dp = "flags"
fp8_weights = "flag"
kv_fp8 = "fp8"
)";
  auto e = parse_engine_toml(profile, "myserve.toml");
  ASSERT_TRUE(e) << e.error().message();
  ASSERT_TRUE(e->launch.has_value());
  const LaunchConfig c = launch_config(*e, m, "Qwen/Qwen3-30B-A3B", rq, *r.best);
  ASSERT_FALSE(c.pools.empty());
  EXPECT_EQ(c.pools[0].command.rfind("myserve run Qwen/Qwen3-30B-A3B", 0), 0u) << c.text;
  EXPECT_NE(c.text.find("--shards " + std::to_string(r.best->map.tp)), std::string::npos) << c.text;
  EXPECT_NE(c.text.find("--mem 0.8"), std::string::npos) << c.text;
  // Without a [launch] table the engine has no launch command, and says so.
  auto bare = parse_engine_toml(profile.substr(0, profile.find("[launch]")), "bare.toml");
  ASSERT_TRUE(bare) << bare.error().message();
  EXPECT_FALSE(bare->launch.has_value());
  const LaunchConfig none = launch_config(*bare, m, "q", rq, *r.best);
  EXPECT_TRUE(none.pools[0].command.empty());
  EXPECT_NE(none.text.find("myserve engine has no launch command"), std::string::npos) << none.text;
  // A launch rule the reader does not know is an error naming the field.
  std::string odd = profile;
  odd.replace(odd.find("tp_counts = \"tensor\""), 20, "tp_counts = \"ranks\"");
  auto bad = parse_engine_toml(odd, "odd.toml");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().field, "launch.tp_counts");
  EXPECT_NE(bad.error().hint.find("tensor or instance"), std::string::npos);
  // The table's --engine and --emit choices are the built-in profiles (emit: those that launch).
  const auto engines = builtin_engines().value();
  std::vector<std::string> names, launchable{"none"};
  for (const auto& x : engines) {
    names.push_back(x.name);
    if (x.launch) launchable.push_back(x.name);
  }
  EXPECT_EQ(find_command("plan")->arg("engine")->choices, names);
  EXPECT_EQ(find_command("plan")->arg("emit")->choices, launchable);
  EXPECT_EQ(find_command("simulate")->arg("engine")->choices, names);
}

}  // namespace
}  // namespace llmecon
