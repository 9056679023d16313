// The facade's JSON contract: keys other tools rely on, and errors naming the flag.
#include <gtest/gtest.h>

#include "io/facade.hpp"

namespace llmecon {
namespace {

const Engine& engine() {
  static const Engine e = Engine::open({}).value();
  return e;
}

TEST(Facade, ModelShowKeys) {
  auto r = engine().model_show(Json{{"model", "llama-3.1-70b"}});
  ASSERT_TRUE(r) << r.error().message();
  for (const char* k : {"name", "params_total", "params_active", "layers", "kv_bytes_per_token"}) {
    EXPECT_TRUE(r->contains(k)) << k;
  }
  EXPECT_EQ((*r)["name"], "llama-3.1-70b");
  EXPECT_EQ((*r)["layers"], 80);
  EXPECT_DOUBLE_EQ((*r)["kv_bytes_per_token"].get<double>(), 327680.0);
  auto fp8 = engine().model_show(Json{{"model", "llama-3.1-70b"}, {"kv_dtype", "fp8"}});
  EXPECT_DOUBLE_EQ((*fp8)["kv_bytes_per_token"].get<double>(), 163840.0);
}

TEST(Facade, RooflineKeys) {
  auto r = engine().roofline(Json{{"model", "deepseek-v3"}, {"hw", "gb200"}, {"batch", 256}, {"context", 8192}});
  ASSERT_TRUE(r) << r.error().message();
  for (const char* k : {"model", "hardware", "chips", "phase", "batch", "context", "t_compute_s", "t_weights_s",
                        "t_kv_s", "t_step_s", "bound", "tokens_per_s", "usd_per_mtok_output", "step_model",
                        "mem_weights_bytes", "mem_kv_bytes", "feasible"}) {
    EXPECT_TRUE(r->contains(k)) << k;
  }
  EXPECT_EQ((*r)["chips"], 72);  // the whole NVL72 domain by default
  EXPECT_EQ((*r)["phase"], "decode");
  const std::string bound = (*r)["bound"];
  EXPECT_TRUE(bound == "compute" || bound == "weights" || bound == "kv");
  const double t = (*r)["t_step_s"];
  // Per operator (model.md §18): the sum of each kernel's max(compute, memory), never below the
  // pooled max of the sums, plus fixed costs per pass and per kernel.
  EXPECT_GT((*r)["t_overhead_s"].get<double>(), 0.0);
  EXPECT_GT((*r)["kernels"].get<double>(), 61.0);
  EXPECT_DOUBLE_EQ(t, (*r)["t_busy_s"].get<double>() + (*r)["t_overhead_s"].get<double>());
  EXPECT_GE(
      (*r)["t_busy_s"].get<double>() * (1 + 1e-12),
      std::max((*r)["t_compute_s"].get<double>(), (*r)["t_weights_s"].get<double>() + (*r)["t_kv_s"].get<double>()));
  EXPECT_NEAR((*r)["tokens_per_s"].get<double>(), 256 / t, 1e-6);
  // --ideal is the pure roofline: no fixed costs, and never slower.
  auto ideal = engine().roofline(
      Json{{"model", "deepseek-v3"}, {"hw", "gb200"}, {"batch", 256}, {"context", 8192}, {"ideal", true}});
  ASSERT_TRUE(ideal);
  EXPECT_DOUBLE_EQ((*ideal)["t_overhead_s"].get<double>(), 0.0);
  EXPECT_LT((*ideal)["t_step_s"].get<double>(), t);
}

TEST(Facade, ErrorsNameTheFlag) {
  struct Case {
    Json args;
    const char* where;
    const char* what;
  };
  const Case cases[] = {
      {{{"model", "gpt-5"}, {"hw", "h100-sxm"}}, "--model", "unknown model 'gpt-5'"},
      {{{"model", "llama-3.1-8b"}, {"hw", "h100"}}, "--hw", "unknown hardware 'h100'"},
      {{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 0}}, "--chips", "must be at least 1, got 0"},
      {{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"batch", -4}}, "--batch", "must be at least 1, got -4"},
      {{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"batch", "many"}},
       "--batch",
       "expected a number, got \"many\""},
      {{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"kv_dtype", "fp6"}}, "--kv-dtype", "unknown dtype 'fp6'"},
      {{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"bacth", 4}}, "--bacth", "unknown argument of roofline"},
      {{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"phase", "train"}}, "--phase", "unknown phase 'train'"},
  };
  for (const auto& c : cases) {
    auto r = engine().roofline(c.args);
    ASSERT_FALSE(r) << c.args.dump();
    EXPECT_EQ(r.error().where, c.where) << c.args.dump();
    EXPECT_EQ(r.error().what, c.what) << c.args.dump();
  }
}

TEST(Facade, SweepRowsAndCsv) {
  auto r = engine().sweep(Json{
      {"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 1}, {"batch", {1, 2, 4, 8}}, {"context", {1024, 8192}}});
  ASSERT_TRUE(r) << r.error().message();
  const Json& rows = (*r)["rows"];
  ASSERT_EQ(rows.size(), 8u);
  // Cost per token falls with batch at fixed context while weight-bound.
  EXPECT_GT(rows[0]["usd_per_mtok_output"].get<double>(), rows[3]["usd_per_mtok_output"].get<double>());
  const std::string csv = to_csv(std::vector<Json>(rows.begin(), rows.end()));
  EXPECT_EQ(csv.substr(0, 40), "model,hardware,chips,phase,batch,context");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 9);
}

TEST(Facade, PrefillChunkSemantics) {
  auto whole =
      engine().roofline(Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"phase", "prefill"}, {"context", 8192}});
  auto chunk = engine().roofline(
      Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"phase", "prefill"}, {"context", 8192}, {"chunk", 2048}});
  ASSERT_TRUE(whole && chunk);
  EXPECT_EQ((*whole)["new_tokens"], 8192);
  EXPECT_EQ((*chunk)["new_tokens"], 2048);
  EXPECT_EQ((*chunk)["context"], 8192);
  auto bad = engine().roofline(
      Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"phase", "prefill"}, {"context", 100}, {"chunk", 2048}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "--chunk");
}

TEST(Facade, CatalogListings) {
  const Json hw = engine().hardware();
  EXPECT_GE(hw.size(), 24u);
  for (const auto& h : hw) EXPECT_FALSE(h["sources"].empty()) << h["name"];
  const Json models = engine().models();
  EXPECT_GE(models.size(), 27u);
  for (const auto& m : models) EXPECT_FALSE(m.contains("error")) << m["name"];
}

// The web page sends a pasted config.json as the model argument itself.
TEST(Facade, PastedConfigObjectIsTheModel) {
  auto text = read_text_file(std::string(LLMECON_TEST_DATA) + "/../../data/models/llama-3.1-8b-instruct.json", "");
  ASSERT_TRUE(text) << text.error().message();
  const Json cfg = Json::parse(*text);
  const Json args{{"hw", "h100-sxm"}, {"batch", 32}, {"context", 8192}};
  Json pasted = args, named = args;
  pasted["model"] = cfg;
  named["model"] = "llama-3.1-8b";
  auto a = engine().roofline(pasted);
  auto b = engine().roofline(named);
  ASSERT_TRUE(a) << a.error().message();
  ASSERT_TRUE(b) << b.error().message();
  EXPECT_EQ((*a)["model"], "pasted:llama");  // no _name_or_path: the model_type names it
  EXPECT_EQ((*a)["t_step_s"], (*b)["t_step_s"]);
  EXPECT_EQ((*a)["mem_kv_bytes"], (*b)["mem_kv_bytes"]);
  Json broken = cfg;
  broken.erase("num_hidden_layers");
  pasted["model"] = broken;
  auto bad = engine().roofline(pasted);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "--model");
  EXPECT_EQ(bad.error().field, "num_hidden_layers");
}

TEST(Facade, RooflineExplainOnRequest) {
  const Json args{{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}, {"batch", 64}};
  auto plain = engine().roofline(args);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->contains("explain"));
  Json with = args;
  with["explain"] = true;
  auto x = engine().roofline(with);
  ASSERT_TRUE(x);
  ASSERT_TRUE((*x)["explain"].is_array());
  // The same lines as the roofline module's own derivation of the same step.
  RooflineResult typed = engine().evaluate(args).value();
  const ModelSpec m = engine().model_catalog().load("llama-3.1-70b").value();
  typed.in.model = &m;
  EXPECT_EQ((*x)["explain"].get<std::vector<std::string>>(), explain(typed));
  EXPECT_EQ((*x)["t_step_s"], (*plain)["t_step_s"]);
}

// Long calls report how far they are; the fractions rise and end at 1.
TEST(Facade, ProgressRisesToOne) {
  const Json sweep{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"batch", {1, 2, 4, 8}}, {"context", {1024, 4096}}};
  const Json plan1{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"threads", 1}};
  const Json plan2{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"threads", 2}};
  for (const auto& [command, args] : {std::pair{"sweep", sweep}, std::pair{"plan", plan1}, std::pair{"plan", plan2}}) {
    std::vector<double> seen;
    auto r = engine().run(command, args, [&seen](double f) { seen.push_back(f); });
    ASSERT_TRUE(r) << r.error().message();
    ASSERT_GE(seen.size(), 3u) << command;
    EXPECT_DOUBLE_EQ(seen.back(), 1.0) << command;
    // One thread reports from the start; with two, the reporting thread may start late.
    if (args.value("threads", 1) == 1) {
      EXPECT_DOUBLE_EQ(seen.front(), 0.0) << command;
    }
    EXPECT_LT(seen.front(), 1.0) << command;
    for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_GE(seen[i], seen[i - 1]) << command << " at " << i;
  }
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

TEST(Facade, LectureContract) {
  auto r = engine().lecture(Json::object());
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->size(), 32u);
  for (const auto& c : *r) {
    for (const char* k : {"id", "claim", "expected", "computed", "unit", "tolerance", "pass"}) {
      EXPECT_TRUE(c.contains(k)) << c.dump();
    }
    // Every claim but C19 (a cache hit's cost, far below its listed price) reproduces.
    EXPECT_EQ(c["pass"].get<bool>(), c["id"] != "C19") << c["id"];
    EXPECT_NE(c["check"], "at_most");  // every check is two-sided
  }
  EXPECT_EQ((*r)[0]["id"], "C1");
  EXPECT_DOUBLE_EQ((*r)[0]["computed"].get<double>(), 2400.0);
}

TEST(Facade, RunDispatchesEveryCommand) {
  for (const char* cmd : {"models", "hardware", "roofline", "sweep", "report", "batch", "step", "context", "price",
                          "layout", "cache", "lifecycle", "revnet", "lecture"}) {
    Json args = Json::object();
    if (std::string(cmd) == "roofline" || std::string(cmd) == "sweep" || std::string(cmd) == "report") {
      args = Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}};
    }
    auto r = engine().run(cmd, args);
    EXPECT_TRUE(r) << cmd << ": " << (r ? "" : r.error().message());
  }
  auto bad = engine().run("teleport", Json::object());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().what, "unknown command 'teleport'");
}

TEST(Facade, AnalysisJsonShape) {
  auto r = engine().batch(Json{{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}, {"context", 4096}});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ((*r)["analysis"], "batch");
  EXPECT_EQ((*r)["chips"], 8);
  EXPECT_TRUE((*r)["curve"].is_array());
  EXPECT_GT((*r)["curve"].size(), 5u);
  EXPECT_TRUE((*r)["explain"].is_array());
  for (const auto& f : (*r)["figures"]) EXPECT_TRUE(r->contains(f["key"].get<std::string>()));
  auto unknown = engine().batch(Json{{"contxt", 4096}});
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().where, "--contxt");
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

// One question, one answer (docs/quantities.md): the same decode step asked of every command that
// prices it at a fixed batch gives one step time and one price per output token, and the same
// replica asked for its capacity by plan and by simulate gives one rate.
TEST(Facade, OneDeploymentOneAnswerAcrossCommands) {
  const Json board{{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}, {"chips", 8}};
  Json q = board;
  q["batch"] = 256;
  q["context"] = 4096;
  auto roof = engine().run("roofline", q);
  ASSERT_TRUE(roof) << roof.error().message();
  auto sweep = engine().run("sweep", q);
  ASSERT_TRUE(sweep) << sweep.error().message();
  Json r = board;
  r["context"] = 4096;
  auto report = engine().run("report", r);
  ASSERT_TRUE(report) << report.error().message();
  const Json* row = nullptr;
  for (const Json& x : (*report)["rows"]) {
    if (x["batch"] == 256) row = &x;
  }
  ASSERT_NE(row, nullptr);
  for (const char* k : {"usd_per_mtok_output", "t_step_s", "tokens_per_s", "joules_per_token", "step_model"}) {
    EXPECT_EQ((*roof)[k], (*sweep)["rows"][0][k]) << k;
    EXPECT_EQ((*roof)[k], (*row)[k]) << k;
  }
  Json plan{
      {"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 1}, {"slo", "ttft_p99=1s,tpot_p99=30ms"}, {"rate", 10},
      {"sim_requests", 300}};
  auto p = engine().run("plan", plan);
  ASSERT_TRUE(p) << p.error().message();
  Json sim{{"model", "llama-3.1-8b"},
           {"hw", "h100-sxm"},
           {"chips", 1},
           {"isl", "2048"},
           {"osl", "256"},
           {"workload", "none"},
           {"slo", "ttft_p99=1s,tpot_p99=30ms"},
           {"find_rate", true},
           {"requests", 300}};
  auto s = engine().run("simulate", sim);
  ASSERT_TRUE(s) << s.error().message();
  ASSERT_FALSE((*p)["capacity"]["options"].empty());
  EXPECT_EQ((*p)["capacity"]["options"][0]["rate_per_replica"], (*s)["found_rate"]);
  EXPECT_EQ((*p)["capacity"]["rate_tolerance"], (*s)["rate_tolerance"]);
}

TEST(Facade, MarksWhatDoesNotFitAndContextsPastTraining) {
  // Llama-3.1-70B on 8 H100 at 4096 tokens: batch 1 fits, batch 4096 needs 1.3 TB of KV.
  auto b = engine().run("batch", Json{{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}, {"context", 4096}});
  ASSERT_TRUE(b) << b.error().message();
  const Json& curve = (*b)["curve"];
  EXPECT_EQ(curve.front()["feasible"], true);
  EXPECT_EQ(curve.back()["feasible"], false);
  // A batch past HBM is listed without a price or a step time, with its reason.
  EXPECT_TRUE(curve.back()["usd_per_mtok_output"].is_null());
  EXPECT_TRUE(curve.back()["t_step_s"].is_null());
  EXPECT_FALSE(curve.back()["reason"].get<std::string>().empty());
  auto c = engine().run("context", Json{{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}});
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ((*c)["curve"].back()["feasible"], false);  // 4M tokens of context
  // Past max_position_embeddings (131072) the answer carries a warning; within it, none.
  auto past = engine().run("roofline", Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"context", 200000}});
  ASSERT_TRUE(past);
  ASSERT_TRUE(past->contains("warnings"));
  EXPECT_NE((*past)["warnings"][0].get<std::string>().find("max_position_embeddings (131072)"), std::string::npos);
  auto within = engine().run("roofline", Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"context", 131072}});
  ASSERT_TRUE(within);
  EXPECT_FALSE(within->contains("warnings"));
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

// One point, asked through every command that prices it: roofline, sweep and report give the same
// step, bound and cost (one step model); the blackboard's closed forms (batch) agree with the pure
// roofline they are written from, to the embedding and norm terms they leave out.
TEST(Facade, EveryCommandAgreesOnOnePoint) {
  const Json point{{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}, {"context", 4096}};
  Json one = point;
  one["batch"] = 64;
  auto roof = engine().run("roofline", one);
  auto sweep = engine().run("sweep", one);
  auto report = engine().run("report", point);
  ASSERT_TRUE(roof && sweep && report);
  const Json& s = (*sweep)["rows"][0];
  Json r;
  for (const auto& row : (*report)["rows"])
    if (row["batch"] == 64) r = row;
  ASSERT_FALSE(r.is_null());
  for (const Json* other : std::initializer_list<const Json*>{&s, &r}) {
    EXPECT_DOUBLE_EQ((*other)["t_step_s"].get<double>(), (*roof)["t_step_s"].get<double>());
    EXPECT_DOUBLE_EQ((*other)["usd_per_mtok_output"].get<double>(), (*roof)["usd_per_mtok_output"].get<double>());
    EXPECT_EQ((*other)["bound"], (*roof)["bound"]);
  }
  one["ideal"] = true;
  auto pure = engine().run("roofline", one);
  auto board = engine().run("batch", point);
  ASSERT_TRUE(pure && board);
  for (const auto& row : (*board)["curve"]) {
    if (row["batch"] != 64) continue;
    EXPECT_NEAR(row["t_step_s"].get<double>(), (*pure)["t_step_s"].get<double>(),
                0.02 * (*pure)["t_step_s"].get<double>());
    EXPECT_EQ(row["bound"], (*pure)["bound"]);
  }
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

TEST(Facade, PlanAtARateSimulatesTheTopLayouts) {
  // plan --rate: each of the analytic frontier's best layouts is simulated as one replica under the
  // SLO at p99; enough replicas to carry the rate; the cheapest first.
  const Json args{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 2},         {"isl", 1024}, {"osl", 128},
                  {"tpot_ms", 30},           {"rate", 40},       {"sim_requests", 500}};
  auto r = engine().run("plan", args);
  ASSERT_TRUE(r) << r.error().message();
  const Json& cap = (*r)["capacity"];
  ASSERT_FALSE(cap["options"].empty());
  double last = 0;
  for (const auto& o : cap["options"]) {
    EXPECT_GE(o["replicas"].get<double>() * o["rate_per_replica"].get<double>(), 40.0) << o.dump();
    EXPECT_LE(o["tpot_ms_p99"].get<double>(), 30.0) << o.dump();
    EXPECT_GE(o["usd_per_hour"].get<double>(), last);
    last = o["usd_per_hour"].get<double>();
  }
  EXPECT_EQ(cap["best"], cap["options"][0]);
  // Without a latency target there is nothing to hold at p99.
  Json no_slo = args;
  no_slo.erase("tpot_ms");
  auto e = engine().run("plan", no_slo);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().where, "--rate");
}

// plan takes lengths as simulate does: a distribution is searched at its mean (the same answer as
// that fixed length) and stated beside it; a number and its text are one request.
TEST(Facade, PlanTakesLengthDistributions) {
  const Json base{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 2}, {"osl", 128}};
  Json dist = base, fixed = base, text = base;
  dist["isl"] = "uniform:1000,3000";
  fixed["isl"] = 2000;
  text["isl"] = "2000";
  auto d = engine().run("plan", dist);
  auto f = engine().run("plan", fixed);
  auto t = engine().run("plan", text);
  ASSERT_TRUE(d && f && t) << (d ? "" : d.error().message()) << (f ? "" : f.error().message());
  EXPECT_EQ((*d)["isl"], 2000);
  EXPECT_EQ((*d)["isl_dist"], "uniform:1000,3000");
  EXPECT_FALSE(f->contains("isl_dist"));
  EXPECT_EQ((*d)["best"], (*f)["best"]);
  EXPECT_EQ(*f, *t);
  auto bad = engine().run("plan", Json{{"isl", "lognormal:100"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().where, "--isl");
}

TEST(Facade, SimulationGridShardsPartitionThePoints) {
  // Three shards of a 2 x 2 x 2 grid hold every point once, and each point matches a lone run.
  Json args{{"model", "llama-3.1-8b"},
            {"hw", "h100-sxm"},
            {"chips", 1},
            {"requests", 200},
            {"grid_rates", "2,6"},
            {"grid_engines", "vllm,sglang"},
            {"grid_layouts", "tp1,tp1.pp1"}};
  std::vector<long> seen;
  Json by_index = Json::object();
  for (int k = 1; k <= 3; ++k) {
    args["shard"] = std::to_string(k) + "/3";
    auto r = engine().run("simulate", args);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ((*r)["grid"]["points"], 8);
    for (const auto& row : (*r)["grid"]["rows"]) {
      seen.push_back(row["index"].get<long>());
      EXPECT_EQ(row["index"].get<long>() % 3, k - 1);
      by_index[std::to_string(row["index"].get<long>())] = row;
    }
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<long>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Point 5: sglang (engines first), the second layout, rate 6.
  auto lone = engine().run("simulate", Json{{"model", "llama-3.1-8b"},
                                            {"hw", "h100-sxm"},
                                            {"chips", 1},
                                            {"requests", 200},
                                            {"engine", "sglang"},
                                            {"tp", 1},
                                            {"rate", 6}});
  ASSERT_TRUE(lone) << lone.error().message();
  EXPECT_EQ(by_index["5"]["engine"], "sglang");
  EXPECT_EQ(by_index["5"]["output_tokens_per_s"], (*lone)["output_tokens_per_s"]);
  EXPECT_EQ(by_index["5"]["ttft_s_p99"], (*lone)["ttft_s"]["p99"]);
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

TEST(Facade, SimulateIsByteIdenticalForASeed) {
  const Json args{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 1}, {"requests", 400},
                  {"arrival", "gamma:2"},    {"rate", 12},       {"seed", 7}};
  auto a = engine().run("simulate", args);
  auto b = engine().run("simulate", args);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->dump(), b->dump());
  Json other = args;
  other["seed"] = 8;
  auto c = engine().run("simulate", other);
  ASSERT_TRUE(c);
  EXPECT_NE((*a)["ttft_s"].dump(), (*c)["ttft_s"].dump());
}

}  // namespace
}  // namespace llmecon
