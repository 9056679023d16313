// One strict reader for every TOML catalog (toml_reader.hpp): price sheets, efficiency defaults
// and hardware overlays reject unknown keys, values without units and nonsense with file:line.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "catalog/hardware.hpp"
#include "economics/pricing.hpp"
#include "io/facade.hpp"

namespace llmecon {
namespace {

constexpr const char* kSheet = R"(provider = "P"
model = "m"
date = "2026-01"
sources = ["https://example.com"]
[base]
input = "$1/Mtok"
output = "$5/Mtok"
)";

TEST(PriceSheet, TheBaseSheetParses) {
  auto s = parse_price_sheet(kSheet, "p.toml");
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_DOUBLE_EQ(s->output.si() / s->input.si(), 5.0);
}

TEST(PriceSheet, StrictLikeTheHardwareCatalog) {
  struct Case {
    std::string extra;
    std::string where, field, what;
  } cases[] = {
      {"colour = \"red\"\n", "p.toml:9", "colour", "unknown key"},
      {"[fast]\nprice_multiple = -6.0\nspeed_multiple = 2.5\n", "p.toml:10", "fast.price_multiple",
       "must lie in [1, 1000], got -6"},
      {"[fast]\nprice_multiple = 6.0\nspeed_multiple = 0\n", "p.toml:11", "fast.speed_multiple",
       "must lie in [1, 1000], got 0"},
      {"[fast]\nprice_multiple = 6.0\n", "p.toml", "fast.speed_multiple", "missing required field"},
      {"[cache]\nread = \"0.5\"\n", "p.toml:10", "cache.read", "'0.5' has no unit"},
      {"[cache]\nreed = \"$0.5/Mtok\"\n", "p.toml:10", "cache.reed", "unknown key"},
      {"[[cache.write]]\nttl = \"0 s\"\nprice = \"$1/Mtok\"\n", "p.toml", "cache.write.ttl", "must be positive"},
      {"[long_context]\nthreshold = \"200000\"\ninput = \"$2/Mtok\"\noutput = \"$9/Mtok\"\n", "p.toml:10",
       "long_context.threshold", "'200000' has no unit"},
  };
  for (const auto& c : cases) {
    std::string text = kSheet;
    // Top-level keys go before the first table.
    if (c.extra.rfind("colour", 0) == 0)
      text = c.extra + text;
    else
      text += "\n" + c.extra;
    auto s = parse_price_sheet(text, "p.toml");
    ASSERT_FALSE(s) << c.extra;
    EXPECT_EQ(s.error().field, c.field) << c.extra;
    EXPECT_EQ(s.error().what.substr(0, c.what.size()), c.what) << c.extra << ": " << s.error().message();
  }
  auto malformed = parse_price_sheet("model = \"x\"\n[base\n", "bad.toml");
  ASSERT_FALSE(malformed);
  EXPECT_EQ(malformed.error().where, "bad.toml:2");
  EXPECT_NE(malformed.error().what.find("malformed TOML"), std::string::npos);
}

TEST(EfficiencyDefaults, LoadWithTheCatalogAndAreStrict) {
  auto fams = builtin_efficiency();
  ASSERT_TRUE(fams) << fams.error().message();
  EXPECT_GE(fams->size(), 6u);
  for (const auto& f : *fams) EXPECT_FALSE(f.source.empty()) << f.family;
  const std::string good =
      "[[family]]\nname = \"f\"\nchips = [\"x\"]\ncompute = 0.5\nmemory = 0.9\ncomm = 0.5\nsource = \"s\"\n";
  ASSERT_TRUE(parse_efficiency_toml(good, "e.toml"));
  auto over = parse_efficiency_toml(good + "gemm_halfm = 3\n", "e.toml");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().what, "unknown key");
  std::string bad = good;
  bad.replace(bad.find("compute = 0.5"), 13, "compute = 1.5");
  auto frac = parse_efficiency_toml(bad, "e.toml");
  ASSERT_FALSE(frac);
  EXPECT_EQ(frac.error().where, "e.toml:4");
  EXPECT_EQ(frac.error().field, "family[f].compute");
  auto nosrc = parse_efficiency_toml(
      "[[family]]\nname = \"f\"\nchips = [\"x\"]\ncompute = 0.5\nmemory = 0.9\ncomm = 0.5\n", "e.toml");
  ASSERT_FALSE(nosrc);
  EXPECT_EQ(nosrc.error().field, "family[f].source");
}

// One table names every efficiency field (efficiency_fields): each one written into a family
// reads back, makes the value non-ideal, copies alone, and is a key the reader accepts.
TEST(EfficiencyDefaults, OneTableNamesEveryField) {
  std::string text = "[[family]]\nname = \"f\"\nchips = [\"x\"]\nsource = \"s\"\n";
  std::vector<double> want;
  for (const EfficiencyField& f : efficiency_fields()) {
    const double pure = f.si(Efficiency{});
    switch (f.kind) {
      case EfficiencyField::Kind::kBytes:
        text += std::string(f.key) + " = \"3 MB\"\n";
        want.push_back(3e6);
        break;
      case EfficiencyField::Kind::kSeconds:
        text += std::string(f.key) + " = \"5 us\"\n";
        want.push_back(5e-6);
        break;
      case EfficiencyField::Kind::kNumber: {
        const double v = f.hi == 1.0 ? 0.5 : 7.0;
        text += std::string(f.key) + " = " + std::to_string(v) + "\n";
        want.push_back(v);
        break;
      }
    }
    EXPECT_NE(want.back(), pure) << f.key;
    EXPECT_EQ(std::count(efficiency_keys().begin(), efficiency_keys().end(), f.key), 1) << f.key;
  }
  auto fams = parse_efficiency_toml(text, "e.toml");
  ASSERT_TRUE(fams) << fams.error().message();
  const Efficiency& all = fams->front().eff;
  EXPECT_FALSE(all.ideal());
  EXPECT_TRUE(Efficiency{}.ideal());
  std::size_t i = 0;
  for (const EfficiencyField& f : efficiency_fields()) {
    EXPECT_NEAR(f.si(all), want[i], 1e-9 * want[i]) << f.key;
    Efficiency one;
    f.copy(one, all);
    EXPECT_FALSE(one.ideal()) << f.key;
    EXPECT_DOUBLE_EQ(f.si(one), f.si(all)) << f.key;
    ++i;
  }
  // A quantity past its range names the field and its limit.
  std::string big = text;
  big.replace(big.find("memory_half = \"3 MB\""), 20, "memory_half = \"3 PB\"");
  auto over = parse_efficiency_toml(big, "e.toml");
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().field, "family[f].memory_half");
  EXPECT_EQ(over.error().what, "at most 1 TB");
}

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

TEST(HardwareOverlay, APriceOnlyOverlaySetsAUsersOwnRate) {
  auto cat = HardwareCatalog::builtin();
  ASSERT_TRUE(cat);
  const double before = (*cat->get("h100-sxm", "--hw"))->price.value.si();
  const std::string path = write_temp(
      "price_overlay.toml", "name = \"h100-sxm\"\n[price]\nrental = \"$1.25/h\"\nsource = \"our contract\"\n");
  ASSERT_TRUE(cat->add_file(path));
  const Hardware* h = *cat->get("h100-sxm", "--hw");
  EXPECT_NE(h->price.value.si(), before);
  EXPECT_DOUBLE_EQ(h->price.value.si() * 3600, 1.25);
  EXPECT_EQ(h->price_source, "our contract");
  EXPECT_TRUE(h->compute[static_cast<std::size_t>(DType::kBf16)].has_value());  // the rest is kept
}

TEST(HardwareOverlay, MalformedOverlaysAreErrorsNotCrashes) {
  auto cat = HardwareCatalog::builtin();
  ASSERT_TRUE(cat);
  struct Case {
    std::string text, field, what;
  } cases[] = {
      {"name = \"h100-sxm\"\nefficiency = 1\n", "efficiency", "expected a table"},
      {"name = \"h100-sxm\"\nprice = \"$2/h\"\n", "price", "expected a table"},
      {"name = \"h100-sxm\"\n", "", "an overlay holds [efficiency] or [price]"},
      {"name = \"h100-sxm\"\n[price]\nrental = \"$0/h\"\n", "price.rental", "must be positive"},
      {"name = \"h100-sxm\"\ncolour = 1\n[price]\nrental = \"$2/h\"\n", "colour", "unknown key"},
      {"name = \"tpu-v99\"\n[price]\nrental = \"$2/h\"\n", "name", "an overlay for unknown hardware 'tpu-v99'"},
  };
  for (const auto& c : cases) {
    auto r = cat->add_file(write_temp("overlay.toml", c.text));
    ASSERT_FALSE(r) << c.text;
    EXPECT_EQ(r.error().field, c.field) << c.text;
    EXPECT_EQ(r.error().what, c.what) << c.text;
  }
}

TEST(HardwareOverlay, UsersOwnRateReachesEveryCostingCommand) {
  const std::string path = write_temp("rate.toml", "name = \"h100-sxm\"\n[price]\nrental = \"$1/h\"\n");
  auto own = Engine::open({path});
  auto list = Engine::open({});
  ASSERT_TRUE(own && list);
  const Json args{{"model", "llama-3.1-8b"}, {"hw", "h100-sxm"}, {"chips", 1}, {"batch", 8}};
  const double ratio = (*list->run("roofline", args))["usd_per_mtok_output"].get<double>() /
                       (*own->run("roofline", args))["usd_per_mtok_output"].get<double>();
  const double list_rate = (*list->hardware_catalog().get("h100-sxm", "--hw"))->price.value.si() * 3600;
  EXPECT_NEAR(ratio, list_rate / 1.0, 1e-9 * ratio);
}

}  // namespace
}  // namespace llmecon
