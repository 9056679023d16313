// The command table (args.hpp): every argument is declared completely, the defaults help shows
// are the ones applied, and the one validator is strict in the same way for every shell.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <regex>
#include <set>

#include "args/args.hpp"
#include "io/facade.hpp"
#include "plan/plan.hpp"
#include "simulate/policy.hpp"
#include "simulate/simulate.hpp"
#include "train/train.hpp"

namespace llmecon {
namespace {

const Engine& engine() {
  static const Engine e = Engine::open({}).value();
  return e;
}

TEST(CommandTable, EveryArgumentHasHelpATypeAndAWellFormedKey) {
  const std::regex snake("[a-z][a-z0-9_]*");
  for (const auto& c : commands()) {
    EXPECT_FALSE(c.help.empty()) << c.name;
    std::set<std::string> keys, shorts;
    for (const auto& a : c.args) {
      EXPECT_FALSE(a.help.empty()) << c.name << " " << a.key;
      EXPECT_NE(name(a.type), "?") << c.name << " " << a.key;
      EXPECT_TRUE(std::regex_match(a.key, snake)) << c.name << " " << a.key;
      EXPECT_TRUE(keys.insert(a.key).second) << c.name << " declares " << a.key << " twice";
      if (!a.short_flag.empty()) {
        EXPECT_TRUE(shorts.insert(a.short_flag).second) << c.name << " " << a.short_flag;
      }
      if (a.type == ArgType::kChoice) {
        EXPECT_FALSE(a.choices.empty()) << a.key;
      }
      // A default is either a value or words, never both, and a required argument has neither.
      EXPECT_FALSE(!a.def.is_null() && !a.def_text.empty()) << c.name << " " << a.key;
      if (a.required) {
        EXPECT_TRUE(a.def.is_null()) << c.name << " " << a.key;
      }
      if (a.min && a.max) {
        EXPECT_LE(*a.min, *a.max) << c.name << " " << a.key;
      }
    }
  }
}

TEST(CommandTable, EveryStaticDefaultPassesItsOwnValidation) {
  for (const auto& c : commands()) {
    for (const auto& a : c.args) {
      if (a.def.is_null()) continue;
      auto r = Args::parse(c, Json{{a.key, a.def}});
      // Required arguments of the command are not given here; only this argument's own error counts.
      if (!r) {
        EXPECT_NE(r.error().where, a.flag()) << c.name << " " << a.key << ": " << r.error().message();
      }
    }
  }
}

TEST(CommandTable, EveryCommandIsImplementedAndListed) {
  std::set<std::string> names;
  for (const auto& c : commands()) {
    EXPECT_TRUE(Engine::implements(c.name)) << c.name;
    EXPECT_TRUE(names.insert(c.name).second) << c.name;
    EXPECT_EQ(find_command(c.name), &c);
  }
  EXPECT_EQ(Engine::commands().size(), commands().size());
  EXPECT_EQ(find_command("teleport"), nullptr);
  // The schema the API and Python read carries every argument.
  const Json s = schema_json();
  ASSERT_EQ(s.size(), commands().size());
  for (std::size_t i = 0; i < s.size(); ++i) EXPECT_EQ(s[i]["args"].size(), commands()[i].args.size());
}

// The default help shows is the default applied: running with nothing given equals running with
// every static default given explicitly.
TEST(CommandTable, DefaultsInHelpAreTheDefaultsApplied) {
  for (const auto& c : commands()) {
    if (c.measures || c.reads_files || c.name == "lecture") continue;  // timing; files; no defaults to apply
    Json none = Json::object();
    if (c.name == "model") none["model"] = "llama-3.1-8b";
    if (c.name == "plan") none = Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}};
    auto parsed = Args::parse(c, none);
    ASSERT_TRUE(parsed) << c.name << ": " << parsed.error().message();
    const Json all = parsed->with_defaults();
    // Fast mode runs when a multiple is given, so its defaults are compared inside fast mode.
    Json explicit_args = all;
    if (c.name == "batch") {
      explicit_args.erase("price_multiple");
      explicit_args.erase("speed_multiple");
    }
    auto a = engine().run(c.name, none);
    auto b = engine().run(c.name, explicit_args);
    ASSERT_TRUE(a) << c.name << ": " << a.error().message();
    ASSERT_TRUE(b) << c.name << ": " << b.error().message();
    EXPECT_EQ(a->dump(), b->dump()) << c.name << " with " << explicit_args.dump();
  }
  auto fast_one = engine().run("batch", Json{{"price_multiple", 6}});
  auto fast_all = engine().run("batch", Json{{"price_multiple", 6}, {"speed_multiple", 2.5}});
  ASSERT_TRUE(fast_one && fast_all);
  EXPECT_EQ(fast_one->dump(), fast_all->dump());
}

TEST(Args, TypesAreStrict) {
  const CommandSpec& roof = *find_command("roofline");
  struct Case {
    Json args;
    std::string where, what;
  } cases[] = {
      {{{"explain", "yes"}}, "--explain", "expected true or false, got \"yes\""},
      {{{"explain", 1}}, "--explain", "expected true or false, got 1"},
      {{{"batch", "64"}}, "--batch", "expected a number, got \"64\""},
      {{{"batch", true}}, "--batch", "expected a number, got true"},
      {{{"batch", 2.5}}, "--batch", "expected a whole number, got 2.5"},
      {{{"batch", 0}}, "--batch", "must be at least 1, got 0"},
      {{{"batch", {1, 2}}}, "--batch", "expected a number, got [1,2]"},
      {{{"chips", 3e9}}, "--chips", "must be at most 2000000000, got 3000000000"},
      {{{"phase", "train"}}, "--phase", "unknown phase 'train'"},
      {{{"kv_dtype", "fp6"}}, "--kv-dtype", "unknown dtype 'fp6'"},
      {{{"model", 7}}, "--model", "expected a model name, a config.json path or a config object, got 7"},
  };
  for (const auto& c : cases) {
    auto r = Args::parse(roof, c.args);
    ASSERT_FALSE(r) << c.args.dump();
    EXPECT_EQ(r.error().where, c.where) << c.args.dump();
    EXPECT_EQ(r.error().what.substr(0, c.what.size()), c.what) << c.args.dump() << ": " << r.error().what;
  }
  EXPECT_FALSE(Args::parse(roof, Json::array({1})));
  // null is absent (Python's None).
  auto n = Args::parse(roof, Json{{"batch", nullptr}});
  ASSERT_TRUE(n);
  EXPECT_FALSE(n->has("batch"));
  EXPECT_EQ(n->number("batch"), 1);
}

TEST(Args, ListsTakeArraysScalarsAndRangesAlike) {
  const CommandSpec& sweep = *find_command("sweep");
  auto from_range = Args::parse(sweep, Json{{"batch", "1:64:x4"}});
  auto from_list = Args::parse(sweep, Json{{"batch", "1,4,16,64"}});
  auto from_array = Args::parse(sweep, Json{{"batch", {1, 4, 16, 64}}});
  ASSERT_TRUE(from_range && from_list && from_array);
  EXPECT_EQ(from_range->json(), from_array->json());
  EXPECT_EQ(from_list->json(), from_array->json());
  // A scalar where a list is expected is a one-element list, never dropped.
  auto scalar = Args::parse(sweep, Json{{"batch", 8}});
  ASSERT_TRUE(scalar);
  EXPECT_EQ(scalar->numbers("batch"), std::vector<double>{8});
  auto plan = Args::parse(*find_command("plan"), Json{{"batches", 4}, {"weight_dtypes", "fp8"}});
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->numbers("batches"), std::vector<double>{4});
  EXPECT_EQ(plan->dtypes("weight_dtypes"), std::vector<DType>{DType::kFp8});
  // Each element is checked, and an empty list is an error.
  EXPECT_FALSE(Args::parse(sweep, Json{{"batch", {1, 0}}}));
  EXPECT_FALSE(Args::parse(sweep, Json{{"batch", Json::array()}}));
  EXPECT_FALSE(Args::parse(sweep, Json{{"batch", "8:1:x2"}}));
  EXPECT_FALSE(Args::parse(*find_command("plan"), Json{{"weight_dtypes", {"fp8", "fp6"}}}));
  auto hold = Args::parse(*find_command("cache"), Json{{"hold_s", "1:86400:x10"}});
  ASSERT_TRUE(hold);
  EXPECT_EQ(hold->numbers("hold_s").size(), 5u);
  auto zero = Args::parse(*find_command("cache"), Json{{"hold_s", 0}});
  ASSERT_FALSE(zero);
  EXPECT_EQ(zero.error().what, "must be at least 0.001, got 0");  // hold times from 1 ms (model.md §2.5)
}

TEST(Args, UnknownKeysSuggestTheNearestOrTheCommandThatTakesThem) {
  auto typo = Args::parse(*find_command("roofline"), Json{{"modle", "x"}});
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().where, "--modle");
  EXPECT_NE(typo.error().hint.find("--model"), std::string::npos) << typo.error().hint;
  auto elsewhere = Args::parse(*find_command("batch"), Json{{"provider_tokens_per_s", 1}});
  ASSERT_FALSE(elsewhere);
  EXPECT_NE(elsewhere.error().hint.find("is for step"), std::string::npos) << elsewhere.error().hint;
  auto redirected = Args::parse(*find_command("plan"), Json{{"context", 4096}});
  ASSERT_FALSE(redirected);
  EXPECT_NE(redirected.error().hint.find("--isl"), std::string::npos);
  // No near miss: flags sharing a word with it, else the command's flags (not "no arguments").
  auto word = Args::parse(*find_command("scale"), Json{{"budget_usd", 1}});
  ASSERT_FALSE(word);
  EXPECT_NE(word.error().hint.find("did you mean --budget-flops, --usd-per-hour?"), std::string::npos)
      << word.error().hint;
  auto loss = Args::parse(*find_command("scale"), Json{{"target_loss", 2}});
  ASSERT_FALSE(loss);
  EXPECT_NE(loss.error().hint.find("--loss"), std::string::npos) << loss.error().hint;
  auto far = Args::parse(*find_command("scale"), Json{{"qqqqqqqq_zzzzzzzz", 2}});
  ASSERT_FALSE(far);
  EXPECT_EQ(far.error().hint.find("no arguments"), std::string::npos) << far.error().hint;
  EXPECT_NE(far.error().hint.find("scale takes --model, --hw, --chips"), std::string::npos) << far.error().hint;
  auto none = Args::parse(*find_command("models"), Json{{"x", 1}});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().hint.find("takes no arguments"), std::string::npos);
  const Error cmd = unknown_command("roofilne");
  EXPECT_NE(cmd.hint.find("did you mean roofline"), std::string::npos) << cmd.hint;
  EXPECT_NE(cmd.hint.find("measure"), std::string::npos);
}

TEST(Args, NumbersAreReadOneWay) {
  EXPECT_EQ(parse_number_text("64"), 64.0);
  EXPECT_EQ(parse_number_text("1e9"), 1e9);
  EXPECT_EQ(parse_number_text("-2.5"), -2.5);
  for (const char* bad : {"", " 1", "1 ", "0x10", "inf", "nan", "1e400", "1,2", "+1", "lots"}) {
    EXPECT_FALSE(parse_number_text(bad)) << "'" << bad << "'";
  }
  auto range = parse_number_list("0:8192:+2048", "--context");
  ASSERT_TRUE(range);
  EXPECT_EQ(*range, (std::vector<double>{0, 2048, 4096, 6144, 8192}));
  auto too_long = parse_number_list("1:1e9:+1", "--batch");
  ASSERT_FALSE(too_long);
  EXPECT_EQ(too_long.error().where, "--batch");
  // The CLI's text for a scalar goes through the same parser.
  const ArgSpec& batch = *find_command("roofline")->arg("batch");
  EXPECT_EQ(*Args::from_text(batch, "64"), Json(64));
  EXPECT_FALSE(Args::from_text(batch, "1,2"));
  EXPECT_FALSE(Args::from_text(batch, "0x40"));
  EXPECT_FALSE(Args::from_text(batch, ""));
}

TEST(Args, OneWeightFormatRuleForExperts) {
  // gpt-oss ships MXFP4 experts beside bf16 attention: --weight-dtype fp8 keeps them fp4, in
  // roofline and in plan alike (model.md §4.7); DeepSeek's fp8 experts follow the flag.
  auto oss = engine().run("roofline", Json{{"model", "gpt-oss-120b"}, {"hw", "b200"}, {"weight_dtype", "fp8"}});
  ASSERT_TRUE(oss);
  EXPECT_EQ((*oss)["expert_dtype"], "fp4");
  auto ds = engine().run("roofline", Json{{"model", "deepseek-v3"}, {"weight_dtype", "bf16"}});
  ASSERT_TRUE(ds);
  EXPECT_EQ((*ds)["expert_dtype"], "bf16");
  // plan builds its formats with the same rule.
  auto oss_model = engine().model_catalog().resolve("gpt-oss-120b", "--model");
  ASSERT_TRUE(oss_model);
  EXPECT_EQ(Precision::with_weights(*oss_model, DType::kFp8, DType::kFp8, DType::kBf16).experts, DType::kFp4);
  EXPECT_EQ(Precision::with_weights(*oss_model, DType::kFp4, DType::kFp4, DType::kBf16).experts, DType::kFp4);
}

TEST(Args, ExplainOnEveryCommandThatComputesANumber) {
  const Json small{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"explain", true}};
  auto plan = engine().run("plan", small);
  ASSERT_TRUE(plan) << plan.error().message();
  ASSERT_TRUE((*plan)["explain"].is_array());
  EXPECT_GE((*plan)["explain"].size(), 8u);
  EXPECT_NE((*plan)["explain"][0].get<std::string>().find("mapping"), std::string::npos);
  auto report = engine().run("report", small);
  ASSERT_TRUE(report);
  EXPECT_NE((*report)["explain"].dump().find("balance batch (F6)"), std::string::npos);
  for (const auto& row : (*report)["rows"]) EXPECT_TRUE(row["explain"].is_array());
  Json sw = small;
  sw["batch"] = "1:8:x2";
  auto sweep = engine().run("sweep", sw);
  ASSERT_TRUE(sweep);
  ASSERT_EQ((*sweep)["rows"].size(), 4u);
  for (const auto& row : (*sweep)["rows"]) EXPECT_GE(row["explain"].size(), 5u);
  // Without --explain the rows carry none.
  sw.erase("explain");
  EXPECT_FALSE((*engine().run("sweep", sw))["rows"][0].contains("explain"));
  for (const char* c : {"batch", "step", "context", "price", "layout", "cache", "lifecycle", "revnet"}) {
    auto r = engine().run(c, Json{{"explain", true}});
    ASSERT_TRUE(r) << c;
    EXPECT_FALSE((*r)["explain"].empty()) << c;
  }
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

TEST(Args, AUsersOwnRateOnEveryCostingCommand) {
  // Every command that prices anything takes --usd-per-hour, and the answer moves with it.
  int costing = 0;
  for (const auto& c : commands()) {
    if (c.arg("usd_per_hour") == nullptr) continue;
    ++costing;
    Json base{{"hw", "h100-sxm"}};
    if (c.arg("model") != nullptr) base["model"] = "llama-3.1-8b";
    auto list = engine().run(c.name, base);
    base["usd_per_hour"] = 0.5;
    auto own = engine().run(c.name, base);
    ASSERT_TRUE(list && own) << c.name;
    EXPECT_NE(list->dump(), own->dump()) << c.name;
  }
  EXPECT_EQ(costing, 12);  // roofline, sweep, report, batch, context, price, cache, plan, simulate, train, scale, tco
  const double rate = (*engine().hardware_catalog().get("h100-sxm", "--hw"))->price.value.si() * 3600;
  const Json args{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 1}, {"batch", 32}};
  Json own_args = args;
  own_args["usd_per_hour"] = rate / 4;
  const double list = (*engine().run("roofline", args))["usd_per_mtok_output"].get<double>();
  const double own = (*engine().run("roofline", own_args))["usd_per_mtok_output"].get<double>();
  EXPECT_NEAR(list / own, 4.0, 1e-9);
  EXPECT_FALSE(engine().run("roofline", Json{{"usd_per_hour", 0}}));
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

TEST(Args, PlanExplainsAnyFrontierPoint) {
  auto plan = engine().run("plan", Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"explain", true}});
  ASSERT_TRUE(plan);
  ASSERT_GE((*plan)["frontier"].size(), 2u);
  for (const auto& p : (*plan)["frontier"]) {
    ASSERT_TRUE(p["explain"].is_array());
    // The chain names the point's own layout and ends in its cost.
    EXPECT_NE(p["explain"][0].get<std::string>().find(p["mapping"].get<std::string>()), std::string::npos);
    EXPECT_NE(p["explain"].back().get<std::string>().find("cost ="), std::string::npos);
  }
  EXPECT_EQ((*plan)["best"]["explain"], (*plan)["explain"]);
  auto plain = engine().run("plan", Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}});
  EXPECT_FALSE((*plain)["frontier"][0].contains("explain"));
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

// A number in an analysis's JSON is never a bare null: where a division has no finite answer
// (KV-bound at every batch, a free indexer), the figure is null with its reason.
TEST(Args, NoBareNullsAcrossTheAnalyses) {
  int reasons = 0;
  for (const char* model : {"deepseek-v3", "llama-3.1-8b", "qwen3-next-80b-a3b", "gpt-oss-120b"}) {
    for (const char* hw : {"gb200", "h100-sxm", "blackboard", "tpu-v5e"}) {
      for (const Json& extra : {Json::object(), Json{{"context", 1000000}}, Json{{"context", 1}}}) {
        for (const char* command : {"batch", "step", "context", "price", "layout", "cache"}) {
          Json args = extra;
          args["model"] = model;
          args["hw"] = hw;
          if (std::string(command) == "cache") args.erase("context");
          if (std::string(command) == "context" && args.contains("context")) {
            args.erase("context");
            args["index_bytes"] = 0;
          }
          auto r = engine().run(command, args);
          ASSERT_TRUE(r) << command << " " << args.dump() << ": " << r.error().message();
          for (const auto& f : (*r)["figures"]) {
            if (!f["value"].is_null()) continue;
            ++reasons;
            EXPECT_FALSE(f.value("reason", std::string()).empty()) << command << " " << args.dump() << " " << f["key"];
            EXPECT_EQ((*r)["reasons"][f["key"].get<std::string>()], f["reason"]);
          }
        }
      }
    }
  }
  EXPECT_GT(reasons, 0);  // the grid reaches the KV-bound and free-indexer cases
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

TEST(Finite, FirstNonFiniteNamesThePath) {
  const double nan = std::nan("");
  EXPECT_EQ(first_non_finite(Json{{"a", 1}, {"b", 2.5}, {"c", "x"}, {"d", nullptr}}), "");
  EXPECT_EQ(first_non_finite(Json{{"a", 1}, {"rows", Json::array({Json{{"x", 1.0}}, Json{{"x", nan}}})}}), "rows[1].x");
  EXPECT_EQ(first_non_finite(Json{{"m", Json::array({1.0, Json::array({2.0, HUGE_VAL})})}}), "m[1][1]");
  EXPECT_EQ(first_non_finite(Json(-HUGE_VAL)), "(the value)");
}

// Every command, with its defaults and with each numeric argument at either end of its declared
// range: an answer or a typed error, and never an inf or NaN that would print as a silent null
// (the engine turns one into an "internal error", which this test must never see).
TEST(Finite, EveryCommandAtTheEndsOfItsArguments) {
  int answered = 0, refused = 0;
  for (const auto& c : commands()) {
    if (c.measures || c.reads_files) continue;
    std::vector<Json> cases{Json::object()};
    for (const auto& a : c.args) {
      if (a.type != ArgType::kNumber && a.type != ArgType::kInteger) continue;
      if (a.min) {
        const double lo = a.exclusive_min ? std::nextafter(*a.min, HUGE_VAL) : *a.min;
        if (a.type == ArgType::kNumber || lo == std::floor(lo)) cases.push_back(Json{{a.key, lo}});
      }
      // The top of a long command's range is a search too large for a unit test; its middle still runs.
      if (a.max && !c.long_running) cases.push_back(Json{{a.key, *a.max}});
    }
    for (const Json& args : cases) {
      auto r = engine().run(c.name, args);
      if (r) {
        ++answered;
        EXPECT_EQ(first_non_finite(*r), "") << c.name << " " << args.dump();
      } else {
        ++refused;
        EXPECT_EQ(r.error().what.find("internal error"), std::string::npos)
            << c.name << " " << args.dump() << ": " << r.error().message();
      }
    }
  }
  EXPECT_GT(answered, 100);
  std::printf("%d answered, %d refused with a typed error\n", answered, refused);
}

}  // namespace
}  // namespace llmecon

namespace llmecon {
namespace {

// An enum's names are typed once (units/names.hpp): name(), parsing and the command table's
// choices read the same table, in the same order.
template <class E, std::size_t N>
void round_trips(const NameTable<E, N>& table) {
  for (const auto& [value, text] : table) {
    ASSERT_EQ(value_in(table, text), value) << text;
    EXPECT_EQ(name_in(table, value), text);
  }
  EXPECT_FALSE(value_in(table, "no-such-name").has_value());
}

TEST(NameTables, ChoicesAreTheEnumsNames) {
  round_trips(kRecomputeNames);
  round_trips(kScheduleNames);
  round_trips(kSchedulerNames);
  round_trips(kRouterNames);
  round_trips(kPhaseNames);
  round_trips(kExpertTouchNames);
  round_trips(kPlanRankNames);
  round_trips(kOptimizerNames);
  round_trips(kObjectiveNames);
  EXPECT_EQ(name(Phase::kPrefill), "prefill");
  EXPECT_EQ(name(Recompute::kFull), "full");
  EXPECT_EQ(parse_schedule("dualpipe"), PipeSchedule::kDualPipe);
  EXPECT_EQ(name(Router::kPrefixAffinity), "prefix-affinity");
  EXPECT_EQ(find_command("train")->arg("recompute")->choices, names_in(kRecomputeNames));
  EXPECT_EQ(find_command("train")->arg("schedule")->choices, names_in(kScheduleNames));
  EXPECT_EQ(find_command("simulate")->arg("scheduler")->choices, names_in(kSchedulerNames));
  EXPECT_EQ(find_command("simulate")->arg("router")->choices, names_in(kRouterNames));
  // The policy choices are their registries' names (simulate/policy.hpp), the built-in ones first.
  const std::vector<std::string> preemption = find_command("simulate")->arg("preemption")->choices;
  ASSERT_GE(preemption.size(), 2U);
  EXPECT_EQ(std::vector<std::string>(preemption.begin(), preemption.begin() + 2),
            (std::vector<std::string>{"recompute", "swap"}));
  std::vector<std::string> priority{"engine"};
  for (auto& n : schedule_names()) priority.push_back(n);
  EXPECT_EQ(find_command("simulate")->arg("priority")->choices, priority);
  EXPECT_EQ(find_command("roofline")->arg("phase")->choices, names_in(kPhaseNames));
  EXPECT_EQ(find_command("roofline")->arg("expert_touch")->choices, names_in(kExpertTouchNames));
  EXPECT_EQ(find_command("plan")->arg("rank")->choices, names_in(kPlanRankNames));
  EXPECT_EQ(find_command("train")->arg("optimizer")->choices, names_in(kOptimizerNames));
  EXPECT_EQ(find_command("train")->arg("objective")->choices, names_in(kObjectiveNames));
  // The first name is the table's default.
  EXPECT_EQ(find_command("simulate")->arg("router")->def, "least-tokens");
}

}  // namespace
}  // namespace llmecon
