// Hardware catalog: every shipped chip parses with sources; bad files give located errors.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "catalog/hardware.hpp"

namespace llmecon {
namespace {
using namespace units;

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
const std::string kData = LLMECON_TEST_DATA;

TEST(Hardware, BuiltinCatalogHasEveryRequiredChip) {
  auto cat = HardwareCatalog::builtin();
  ASSERT_TRUE(cat) << cat.error().message();
  for (const char* n :
       {"a100-sxm-80gb", "h100-sxm", "h800-sxm", "h20",         "h200-sxm",  "gh200",  "b200",   "gb200",
        "b300",          "gb300",    "rubin",    "rubin-ultra", "mi300x",    "mi325x", "mi355x", "tpu-v4",
        "tpu-v5e",       "tpu-v5p",  "tpu-v6e",  "tpu-v7",      "trainium2", "gaudi3", "l40s",   "blackboard"}) {
    const Hardware* h = cat->find(n);
    ASSERT_NE(h, nullptr) << n;
    EXPECT_FALSE(h->sources.empty()) << n;
    EXPECT_GT(h->peak(DType::kBf16).si(), 0) << n;
    EXPECT_GT(h->hbm_capacity.value.si(), 0) << n;
    EXPECT_GT(h->price.value.si(), 0) << n;
    EXPECT_GE(h->domain_size, 1) << n;
    EXPECT_EQ(h->host_tiers.size(), 3u) << n;
    // Drain time (F8) lies in the lecture's "many generations" band of ~10-60 ms.
    EXPECT_GT(h->drain_time() / ms(1), 10.0) << n;
    EXPECT_LT(h->drain_time() / ms(1), 60.0) << n;
  }
}

TEST(Hardware, SpecSheetValues) {
  auto cat = HardwareCatalog::builtin();
  const Hardware* h100 = cat->find("h100-sxm");
  EXPECT_DOUBLE_EQ(h100->peak(DType::kBf16).si(), 989.4e12);
  EXPECT_DOUBLE_EQ(h100->hbm_bandwidth.value.si(), 3.35e12);
  EXPECT_DOUBLE_EQ(h100->scale_out.bandwidth.si(), 50e9);  // 400 Gb/s
  // H100 has no FP4: fp4 runs at the fp8 rate; A100 has no FP8: fp8 runs at bf16.
  EXPECT_EQ(h100->effective_compute_dtype(DType::kFp4), DType::kFp8);
  EXPECT_EQ(cat->find("a100-sxm-80gb")->effective_compute_dtype(DType::kFp8), DType::kBf16);
  // TPU v4 HBM is 32 GiB, a binary figure.
  EXPECT_DOUBLE_EQ(cat->find("tpu-v4")->hbm_capacity.value.si(), gib(32).si());
  // The blackboard chip: 300 MAC per byte, 20 ms drain, 64 chips, $2/h, scale-out 8x slower.
  const Hardware* bb = cat->find("blackboard");
  EXPECT_DOUBLE_EQ(bb->peak(DType::kFp8).si() / 2 / bb->hbm_bandwidth.value.si(), 300.0);
  EXPECT_DOUBLE_EQ(bb->drain_time() / ms(1), 20.0);
  EXPECT_EQ(bb->domain_size, 64);
  EXPECT_DOUBLE_EQ(bb->price.value.si() * 3600, 2.0);
  EXPECT_DOUBLE_EQ(bb->scale_up.bandwidth / bb->scale_out.bandwidth, 8.0);
  // Hosts: an HGX server holds 8 GPUs (the default), a GB200 NVL72 compute tray 4.
  EXPECT_EQ(h100->chips_per_node(), 8);
  EXPECT_EQ(cat->find("gb200")->chips_per_node(), 4);
  EXPECT_EQ(cat->find("l40s")->chips_per_node(), std::min(cat->find("l40s")->domain_size, 8));
}

TEST(Hardware, ChipsPerNodeLieWithinTheDomain) {
  const std::string gb200 = read(std::string(LLMECON_TEST_DATA) + "/../../data/hardware/gb200.toml");
  std::string bad = gb200;
  bad.replace(bad.find("chips_per_node = 4"), 18, "chips_per_node = 96");
  auto r = parse_hardware_toml(bad, "gb200.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "gb200.toml");
  EXPECT_EQ(r.error().field, "scale_up.chips_per_node") << r.error().message();
}

// h100-sxm-efa is h100-sxm in AWS p5 nodes: a copy of its file but for the measured fabric and the
// price, so every other figure must stay the H100's.
TEST(Hardware, TheEfaH100IsTheH100ButItsFabricAndPrice) {
  auto cat = HardwareCatalog::builtin();
  const Hardware& h = *cat->find("h100-sxm");
  const Hardware& e = *cat->find("h100-sxm-efa");
  for (std::size_t d = 0; d < h.compute.size(); ++d) {
    ASSERT_EQ(h.compute[d].has_value(), e.compute[d].has_value()) << d;
    if (h.compute[d]) {
      EXPECT_EQ(h.compute[d]->value.si(), e.compute[d]->value.si()) << d;
    }
  }
  EXPECT_EQ(h.hbm_capacity.value.si(), e.hbm_capacity.value.si());
  EXPECT_EQ(h.hbm_bandwidth.value.si(), e.hbm_bandwidth.value.si());
  EXPECT_EQ(h.exp_rate.value_or(FlopsPerSecond{}).si(), e.exp_rate.value_or(FlopsPerSecond{}).si());
  EXPECT_EQ(h.domain_size, e.domain_size);
  EXPECT_EQ(h.scale_up.bandwidth.si(), e.scale_up.bandwidth.si());
  EXPECT_EQ(h.scale_up.latency.si(), e.scale_up.latency.si());
  EXPECT_EQ(h.scale_out.bandwidth.si(), e.scale_out.bandwidth.si());
  EXPECT_EQ(h.tdp.si(), e.tdp.si());
  ASSERT_EQ(h.host_tiers.size(), e.host_tiers.size());
  for (std::size_t i = 0; i < h.host_tiers.size(); ++i) {
    EXPECT_EQ(h.host_tiers[i].capacity.si(), e.host_tiers[i].capacity.si());
    EXPECT_EQ(h.host_tiers[i].bandwidth.si(), e.host_tiers[i].bandwidth.si());
  }
  EXPECT_FALSE(h.scale_out_measured);
  EXPECT_TRUE(e.scale_out_measured);
}

TEST(Hardware, MeasuredCollectivesAreCheckedField) {
  const std::string efa = read(std::string(LLMECON_TEST_DATA) + "/../../data/hardware/h100-sxm-efa.toml");
  std::string bad = efa;
  bad.replace(bad.find("nodes = [1, 2, 4,"), 17, "nodes = [1, 4, 2,");
  auto r = parse_hardware_toml(bad, "efa.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "scale_out.measured.nodes") << r.error().message();
  bad = efa;
  bad.replace(bad.find("\"32.9 GB/s\""), 11, "");
  r = parse_hardware_toml(bad, "efa.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "scale_out.measured.all_reduce") << r.error().message();
  bad = efa;
  bad.replace(bad.find("\"32.9 GB/s\""), 11, "\"32.9 GB\"");
  r = parse_hardware_toml(bad, "efa.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "scale_out.measured.all_reduce") << r.error().message();
}

TEST(Hardware, RangesRecordDisagreement) {
  auto cat = HardwareCatalog::builtin();
  const Hardware* rubin = cat->find("rubin");
  ASSERT_TRUE(rubin->hbm_bandwidth.lo.has_value());
  EXPECT_LT(rubin->hbm_bandwidth.low(), rubin->hbm_bandwidth.high());
  EXPECT_LE(rubin->hbm_bandwidth.low(), rubin->hbm_bandwidth.value);
  EXPECT_LE(rubin->hbm_bandwidth.value, rubin->hbm_bandwidth.high());
}

TEST(Hardware, UnitlessValueIsAnError) {
  auto r = parse_hardware_toml(read(kData + "/hw_unitless.toml"), "hw_unitless.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "hw_unitless.toml:31");
  EXPECT_EQ(r.error().field, "memory.hbm_bandwidth");
  EXPECT_EQ(r.error().what, "'3.35' has no unit");
}

TEST(Hardware, WrongDimensionIsAnError) {
  auto r = parse_hardware_toml(read(kData + "/hw_wrong_dim.toml"), "x.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "memory.hbm_bandwidth");
  EXPECT_EQ(r.error().what, "'3.35 TB' has the wrong unit");
}

TEST(Hardware, UnknownKeyIsAnError) {
  auto r = parse_hardware_toml(read(kData + "/hw_unknown_key.toml"), "x.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "memory.hbm_speed");
  EXPECT_EQ(r.error().what, "unknown key");
  EXPECT_NE(r.error().hint.find("hbm_bandwidth"), std::string::npos);
}

TEST(Hardware, MalformedTomlNamesTheLine) {
  auto r = parse_hardware_toml(read(kData + "/hw_malformed.toml"), "bad.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "bad.toml:2");
  EXPECT_NE(r.error().what.find("malformed TOML"), std::string::npos);
}

TEST(Hardware, MissingFieldIsAnError) {
  auto r = parse_hardware_toml(read(kData + "/hw_missing.toml"), "x.toml");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().field, "memory.hbm_capacity");
  EXPECT_EQ(r.error().what, "missing required field");
}

// The special-function units' exponential rate (model.md §24.3): optional, with its unit and range
// checked like any rate.
TEST(Hardware, ExponentialRate) {
  auto cat = HardwareCatalog::builtin();
  EXPECT_NEAR(cat->find("h100-sxm")->exp_rate->si(), 3.9e12, 1e9);
  EXPECT_NEAR(cat->find("b200")->exp_rate->si(), 5e12, 1e9);
  EXPECT_NEAR(cat->find("b300")->exp_rate->si(), 10.7e12, 1e9);
  EXPECT_FALSE(cat->find("mi300x")->exp_rate.has_value());
  const std::string text = read(kData + "/../../data/hardware/h100-sxm.toml");
  const std::string line = "exp = \"3.9 TFLOP/s\"";
  const std::size_t at = text.find(line);
  ASSERT_NE(at, std::string::npos);
  auto with = [&](const std::string& value) {
    std::string t = text;
    t.replace(at, line.size(), "exp = \"" + value + "\"");
    return parse_hardware_toml(t, "x.toml");
  };
  auto typo = with("3.9 EFLOP/s");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().field, "compute.exp");
  auto unit = with("3.9 TB/s");
  ASSERT_FALSE(unit);
  EXPECT_EQ(unit.error().field, "compute.exp");
  EXPECT_NEAR(with("4 TFLOP/s")->exp_rate->si(), 4e12, 1e6);
}

TEST(Hardware, UserFilesExtendAndOverride) {
  auto cat = HardwareCatalog::builtin();
  const std::size_t before = cat->all().size();
  ASSERT_TRUE(cat->add_file(kData + "/hw_custom.toml"));
  EXPECT_EQ(cat->all().size(), before + 1);
  ASSERT_TRUE(cat->add_file(kData + "/hw_override.toml"));
  EXPECT_EQ(cat->all().size(), before + 1);
  EXPECT_DOUBLE_EQ(cat->find("h100-sxm")->price.value.si() * 3600, 1.5);
  auto missing = cat->add_file(kData + "/does_not_exist.toml");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().what, "cannot open file");
}

TEST(Hardware, UnknownNameSuggestsClosest) {
  auto cat = HardwareCatalog::builtin();
  auto r = cat->get("h100", "--hw");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().where, "--hw");
  EXPECT_EQ(r.error().what, "unknown hardware 'h100'");
  EXPECT_NE(r.error().hint.find("h100-sxm"), std::string::npos);
}

}  // namespace
}  // namespace llmecon
