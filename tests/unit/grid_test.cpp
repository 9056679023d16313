// The grid (io/grid.hpp): its rows are the per-call answers' scalars point by point, on the fast
// roofline path and the general one; shards and thread counts give the same lines.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "io/facade.hpp"
#include "io/grid.hpp"
#include "units/json_text.hpp"

namespace llmecon {
namespace {

const Engine& engine() {
  static const Engine e = Engine::open({}).value();
  return e;
}

// Every scalar of a per-call answer (objects one level down as "a.b") must be in the row, equal.
void expect_row_is_answer(const GridTable& t, std::size_t row, const Json& answer) {
  const Json r = grid_row(t, row);
  for (const auto& [k, v] : answer.items()) {
    if (v.is_primitive() && !v.is_null()) {
      ASSERT_TRUE(r.contains(k)) << k;
      EXPECT_EQ(r[k], v) << k << " at point " << t.point[row];
    }
    if (!v.is_object()) continue;
    for (const auto& [k2, v2] : v.items()) {
      if (v2.is_primitive() && !v2.is_null()) {
        std::string dotted = k;
        dotted += "." + k2;
        EXPECT_EQ(r[dotted], v2) << dotted;
      }
    }
  }
}

GridRequest roofline_grid() {
  GridRequest g;
  g.command = "roofline";
  g.fixed = Json{{"model", "llama-3.1-70b"}, {"chips", 4}};
  g.axes = {{"hw", Json{"h100-sxm", "b200"}},
            {"phase", Json{"decode", "prefill"}},
            {"batch", Json{1, 64, 4096, 0}},
            {"context", Json{1024, 131072}}};
  return g;
}

TEST(Grid, RooflineRowsAreThePerCallAnswers) {
  const GridRequest g = roofline_grid();
  auto t = run_grid(engine(), g);
  ASSERT_TRUE(t) << t.error().message();
  ASSERT_EQ(t->rows(), 32U);
  EXPECT_EQ(t->points, 32U);
  std::size_t refused = 0, infeasible = 0;
  for (std::size_t i = 0; i < t->rows(); ++i) {
    EXPECT_EQ(t->point[i], i);
    Json args = g.fixed;
    // The last axis varies fastest.
    args["hw"] = g.axes[0].second[i / 16];
    args["phase"] = g.axes[1].second[(i / 8) % 2];
    args["batch"] = g.axes[2].second[(i / 2) % 4];
    args["context"] = g.axes[3].second[i % 2];
    auto one = engine().run("roofline", args);
    const Json row = grid_row(*t, i);
    if (!one) {
      // A refused point (batch 0) is an infeasible row with the engine's message.
      ++refused;
      EXPECT_EQ(row["feasible"], false);
      EXPECT_EQ(row["reason"], one.error().message());
      continue;
    }
    infeasible += (*one)["feasible"] == false ? 1U : 0U;
    expect_row_is_answer(*t, i, *one);
    // No field but the axes that the answer lacks.
    for (const auto& [k, v] : row.items()) {
      if (k == "point" || k == "hw") continue;
      EXPECT_TRUE(one->contains(k)) << k;
    }
  }
  EXPECT_EQ(refused, 8U);
  EXPECT_GT(infeasible, 0U);  // 4096 sequences of 131072 tokens do not fit
  // Integers stay integers, text is dictionary-coded.
  const GridColumn* batch = t->column("batch");
  ASSERT_NE(batch, nullptr);
  EXPECT_EQ(batch->kind, GridColumn::Kind::kNumber);
  EXPECT_TRUE(batch->integral);
  const GridColumn* bound = t->column("bound");
  ASSERT_NE(bound, nullptr);
  EXPECT_EQ(bound->kind, GridColumn::Kind::kText);
  EXPECT_LE(bound->dict.size(), 4U);
}

TEST(Grid, OtherCommandsAreFlattenedAnswers) {
  GridRequest g;
  g.command = "price";
  g.fixed = Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}};
  g.axes = {{"context", Json{2048, 32768}}, {"kv_dtype", Json{"bf16", "fp8"}}};
  auto t = run_grid(engine(), g);
  ASSERT_TRUE(t) << t.error().message();
  ASSERT_EQ(t->rows(), 4U);
  for (std::size_t i = 0; i < 4; ++i) {
    Json args = g.fixed;
    args["context"] = g.axes[0].second[i / 2];
    args["kv_dtype"] = g.axes[1].second[i % 2];
    auto one = engine().run("price", args);
    ASSERT_TRUE(one) << one.error().message();
    expect_row_is_answer(*t, i, *one);
  }
}

// Lines sorted by their point.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) {
    return Json::parse(a)["point"].get<long>() < Json::parse(b)["point"].get<long>();
  });
  return out;
}

TEST(Grid, ShardsAndThreadsGiveTheSameLines) {
  GridRequest g = roofline_grid();
  g.threads = 1;
  auto whole = run_grid(engine(), g);
  ASSERT_TRUE(whole);
  const std::string lines = grid_json_lines(*whole);
  for (const int threads : {2, 3, 7}) {
    g.threads = threads;
    auto t = run_grid(engine(), g);
    ASSERT_TRUE(t);
    EXPECT_EQ(grid_json_lines(*t), lines) << threads << " threads";
    EXPECT_EQ(grid_csv(*t), grid_csv(*whole)) << threads << " threads";
  }
  g.threads = 2;
  std::string shards;
  for (std::size_t k = 1; k <= 5; ++k) {
    g.shard_k = k;
    g.shard_n = 5;
    auto t = run_grid(engine(), g);
    ASSERT_TRUE(t);
    EXPECT_EQ(t->points, 32U);
    for (const std::size_t p : t->point) EXPECT_EQ(p % 5, k - 1);
    shards += grid_json_lines(*t);
  }
  EXPECT_EQ(lines_of(shards), lines_of(lines));
}

TEST(Grid, SimulationsAreTheSameOnAnyNumberOfThreads) {
  // The same seed gives byte-identical simulations whether one thread runs every point or three
  // share them, and each point equals a lone run.
  GridRequest g;
  g.command = "simulate";
  g.fixed = Json{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"requests", 300}, {"seed", 7}};
  g.axes = {{"rate", Json{2, 8, 32}}, {"engine", Json{"vllm", "sglang"}}};
  g.threads = 1;
  auto one = run_grid(engine(), g);
  ASSERT_TRUE(one) << one.error().message();
  g.threads = 3;
  auto three = run_grid(engine(), g);
  ASSERT_TRUE(three);
  EXPECT_EQ(grid_json_lines(*one), grid_json_lines(*three));
  Json args = g.fixed;
  args["rate"] = 8;
  args["engine"] = "sglang";
  auto lone = engine().run("simulate", args);
  ASSERT_TRUE(lone) << lone.error().message();
  expect_row_is_answer(*one, 3, *lone);
}

TEST(Grid, BadGridsAreErrorsNamingTheField) {
  GridRequest g = roofline_grid();
  g.command = "rooflne";
  EXPECT_FALSE(run_grid(engine(), g));
  g = roofline_grid();
  g.axes.push_back({"batchh", Json{1, 2}});
  auto unknown = run_grid(engine(), g);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("--batch"), std::string::npos) << unknown.error().message();
  g = roofline_grid();
  g.axes[2].second = Json::array();
  auto empty = run_grid(engine(), g);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().where, "--batch");
  g = roofline_grid();
  g.axes.clear();
  EXPECT_FALSE(run_grid(engine(), g));
  g = roofline_grid();
  Json many = Json::array();
  for (int i = 0; i < 4000; ++i) many.push_back(i + 1);
  g.axes[2].second = many;
  g.axes[3].second = many;  // 2 x 2 x 4000 x 4000 = 6.4e7 points
  auto big = run_grid(engine(), g);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message().find("10000000"), std::string::npos) << big.error().message();
  g.shard_n = 8;  // 8e6 points in each shard: under the cap
  g.shard_k = 9;
  EXPECT_FALSE(run_grid(engine(), g));
  EXPECT_FALSE(parse_shard("0/3", "--shard"));
  EXPECT_FALSE(parse_shard("4/3", "--shard"));
  EXPECT_FALSE(parse_shard("1.5/3", "--shard"));
  auto ok = parse_shard("2/3", "--shard");
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->first, 2U);
  EXPECT_EQ(ok->second, 3U);
}

TEST(Grid, FlagTextBecomesAnAxisOnlyForOneValueArguments) {
  const CommandSpec* spec = find_command("roofline");
  ASSERT_NE(spec, nullptr);
  auto batch = axis_from_text(*spec->arg("batch"), "1:16:x2");
  ASSERT_TRUE(batch);
  ASSERT_TRUE(batch->has_value());
  EXPECT_EQ(**batch, (Json{1, 2, 4, 8, 16}));
  auto one = axis_from_text(*spec->arg("batch"), "64");
  ASSERT_TRUE(one);
  EXPECT_FALSE(one->has_value());
  EXPECT_FALSE(axis_from_text(*spec->arg("batch"), "1:x:2"));
  auto hw = axis_from_text(*spec->arg("hw"), "h100-sxm,b200");
  ASSERT_TRUE(hw);
  EXPECT_EQ(**hw, (Json{"h100-sxm", "b200"}));
  const CommandSpec* sweep = find_command("sweep");
  ASSERT_NE(sweep, nullptr);
  auto list = axis_from_text(*sweep->arg("batch"), "1,2,4");  // sweep's own list
  ASSERT_TRUE(list);
  EXPECT_FALSE(list->has_value());
}

}  // namespace
}  // namespace llmecon
