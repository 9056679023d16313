// Units: construction, conversion, arithmetic dimensions, formatting and strict parsing.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>

#include "units/units.hpp"
#include "units/units_parse.hpp"

namespace llmecon {
namespace {
using namespace units;

// Conversions are constexpr: checked at compile time.
static_assert(gb(1).si() == 1e9);
static_assert(gib(1).si() == 1073741824.0);
static_assert(gbit_per_s(400).si() == 50e9);  // 400 Gb/s = 50 GB/s
static_assert((tflops(1) / tflop_per_s(1)).si() == 1.0);
static_assert(usd_per_hour(3600).si() == 1.0);
static_assert(std::is_same_v<decltype(gb(1) / tb_per_s(1)), Seconds>);
static_assert(std::is_same_v<decltype(tflops(1) / gb(1)), FlopsPerByte>);
static_assert(std::is_same_v<decltype(gb(1) / gb(2)), double>);  // a ratio decays to double

TEST(Units, DecimalAndBinaryPrefixesDiffer) {
  EXPECT_DOUBLE_EQ(gib(80).si() / gb(80).si(), 1.073741824);
  EXPECT_NE(gb(1), gib(1));
}

TEST(Units, DivisionGivesTime) {
  // 140 GB of bf16 weights over 3.35 TB/s: 140e9 / 3.35e12 = 41.79 ms.
  const Seconds t = gb(140) / tb_per_s(3.35);
  EXPECT_NEAR(t / ms(1), 41.791, 1e-3);
}

TEST(Units, FormatPicksPrefix) {
  EXPECT_EQ(format(gb(140) / tb_per_s(3.35)), "41.79 ms");
  EXPECT_EQ(format(gb(80)), "80 GB");
  EXPECT_EQ(format_binary(gib(80)), "80 GiB");
  EXPECT_EQ(format(tb_per_s(3.35)), "3.35 TB/s");
  EXPECT_EQ(format(tflop_per_s(989.4)), "989.4 TFLOP/s");
  EXPECT_EQ(format(usd_per_hour(2.5)), "$2.50/h");
  EXPECT_EQ(format(us(12.5)), "12.5 us");
  EXPECT_EQ(format(usd_per_mtok(0.42)), "$0.42/Mtok");
  EXPECT_EQ(format(bytes_per_token(327680)), "327.7 kB/tok");
}

TEST(Units, FormatNumberSignificantDigits) {
  EXPECT_EQ(format_number(1234.5678), "1235");
  EXPECT_EQ(format_number(0.012345), "0.01235");
  EXPECT_EQ(format_number(2.5), "2.5");
  EXPECT_EQ(format_number(0), "0");
}

TEST(Units, FormatNumberRoundsAsPrintfDoes) {
  // format_number's fixed notation (std::to_chars) against printf's "%.*f" with the same digits,
  // over magnitudes, signs, halfway decimals and values drawn at random.
  auto reference = [](double v, int sig) {
    const double a = std::fabs(v);
    const int int_digits = a >= 1.0 ? static_cast<int>(std::floor(std::log10(a))) + 1 : 0;
    int decimals = sig - int_digits;
    if (a < 1.0) decimals = sig - static_cast<int>(std::floor(std::log10(a))) - 1;
    decimals = std::max(decimals, 0);
    std::array<char, 128> buf{};
    std::snprintf(buf.data(), buf.size(), "%.*f", decimals, v);
    std::string s(buf.data());
    if (s.find('.') != std::string::npos) {
      while (s.back() == '0') s.pop_back();
      if (s.back() == '.') s.pop_back();
    }
    return s;
  };
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> exponent(-4, 15), mantissa(1, 10);
  for (int i = 0; i < 100000; ++i) {
    const double v = (i % 2 == 0 ? 1 : -1) * mantissa(rng) * std::pow(10.0, std::floor(exponent(rng)));
    if (std::fabs(v) >= 1e15 || std::fabs(v) < 1e-4) continue;
    const int sig = 1 + i % 6;
    ASSERT_EQ(format_number(v, sig), reference(v, sig)) << v << " to " << sig;
  }
  for (const double v : {0.125, 0.375, 2.5, 1234.5, 1e14 + 0.5, 70.56e9 / 1e9, 141.1e9 / 1e9}) {
    EXPECT_EQ(format_number(v), reference(v, 4)) << v;
  }
}

TEST(UnitsParse, AcceptsUnits) {
  EXPECT_DOUBLE_EQ(parse_quantity<BytesPerSecond>("3.35 TB/s")->si(), 3.35e12);
  EXPECT_DOUBLE_EQ(parse_quantity<Bytes>("32 GiB")->si(), 32.0 * 1073741824.0);
  EXPECT_DOUBLE_EQ(parse_quantity<BytesPerSecond>("400 Gb/s")->si(), 50e9);
  EXPECT_DOUBLE_EQ(parse_quantity<FlopsPerSecond>("989.4 TFLOP/s")->si(), 989.4e12);
  EXPECT_DOUBLE_EQ(parse_quantity<DollarsPerSecond>("$2.50/h")->si(), 2.5 / 3600);
  EXPECT_DOUBLE_EQ(parse_quantity<Seconds>("2 us")->si(), 2e-6);
  EXPECT_DOUBLE_EQ(parse_quantity<Watts>("1.2 kW")->si(), 1200.0);
}

TEST(UnitsParse, RejectsMissingUnit) {
  auto r = parse_quantity<BytesPerSecond>("3.35");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().what, "'3.35' has no unit");
  EXPECT_NE(r.error().hint.find("3.35 TB/s"), std::string::npos);
}

TEST(UnitsParse, RejectsWrongDimension) {
  auto r = parse_quantity<BytesPerSecond>("3.35 TB");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().what, "'3.35 TB' has the wrong unit");
  EXPECT_NE(r.error().hint.find("TB/s"), std::string::npos);
}

TEST(UnitsParse, RejectsUnknownUnitAndGarbage) {
  EXPECT_FALSE(parse_quantity<Bytes>("3 furlongs"));
  EXPECT_FALSE(parse_quantity<Bytes>("lots GB"));
  EXPECT_FALSE(parse_quantity<Bytes>(""));
  EXPECT_FALSE(parse_quantity<DollarsPerSecond>("$2 per hour"));
}

TEST(UnitsParse, CaseDistinguishesBitsAndBytes) {
  EXPECT_DOUBLE_EQ(parse_quantity<BytesPerSecond>("8 Gb/s")->si(), 1e9);
  EXPECT_DOUBLE_EQ(parse_quantity<BytesPerSecond>("8 GB/s")->si(), 8e9);
}

TEST(Error, MessageNamesWhereFieldAndHint) {
  Error e{"cfg.json", "hidden_size", "missing required field", "add it"};
  EXPECT_EQ(e.message(), "cfg.json: hidden_size: missing required field (hint: add it)");
  EXPECT_EQ(e.in_field("text_config").field, "text_config.hidden_size");
}

}  // namespace
}  // namespace llmecon
