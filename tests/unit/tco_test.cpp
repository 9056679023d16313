// The ownership-cost model (model.md §25): fat-tree counts, the owned hour by hand, energy, and
// the properties issue #15 names.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>

#include "roofline/roofline.hpp"
#include "tco/tco.hpp"
#include "test_catalogs.hpp"

namespace llmecon {
namespace {
using testing_catalogs::hw;

const TcoCatalog& catalog() {
  static const TcoCatalog c = TcoCatalog::builtin().value();
  return c;
}

// Radix 64, non-blocking: 1,024 endpoints on two tiers (32 leaves of 32 down and 32 up, 16 spines;
// 1,024 endpoint links and 1,024 uplinks); 16,384 on three (512 leaves, 512 aggregation switches,
// 256 cores; three links per endpoint) -- NVIDIA's SuperPOD ratios of 21 and 12.8 GPUs a switch.
TEST(Tco, FatTreeCounts) {
  const FatTree a = fat_tree(1024, 64, 1);
  EXPECT_EQ(a.tiers, 2);
  EXPECT_EQ(a.leaves, 32);
  EXPECT_EQ(a.spines, 16);
  EXPECT_EQ(a.switches, 48);
  EXPECT_EQ(a.links, 2048);
  const FatTree b = fat_tree(16384, 64, 1);
  EXPECT_EQ(b.tiers, 3);
  EXPECT_EQ(b.leaves, 512);
  EXPECT_EQ(b.spines, 512);
  EXPECT_EQ(b.cores, 256);
  EXPECT_EQ(b.switches, 1280);
  EXPECT_EQ(b.links, 3 * 16384);
  EXPECT_DOUBLE_EQ(16384 / b.switches, 12.8);
  // Oversubscription 3:1 at the leaves: 48 down, 16 up.
  const FatTree c = fat_tree(1536, 64, 3);
  EXPECT_EQ(c.leaves, 32);
  EXPECT_EQ(c.links, 1536 + 32 * 16);
  EXPECT_EQ(fat_tree(1, 64, 1).tiers, 0);
  EXPECT_EQ(fat_tree(40, 64, 1).tiers, 1);
}

// $/GPU-hour for a stated capex, life, rate, power, PUE and $/kWh, by hand.
TEST(Tco, OwnedHourByHand) {
  TcoDefaults d = catalog().defaults();
  d.life.value = units::seconds(4 * 31557600.0);
  d.cost_of_capital.value = 0.08;
  d.pue.value = 1.2;
  d.electricity.value = DollarsPerJoule(detail::RawTag{}, 0.10 / 3.6e6);
  d.colocation.value = DollarsPerJoule(detail::RawTag{}, 0.0);
  d.maintenance.value = 0.0;
  d.staff.value = units::usd(0);
  d.load.value = 1.0;
  TcoSystem s;
  s.hardware = "h100-sxm";
  s.accelerator.value = units::usd(30000);
  s.host.value = units::usd(5000);
  s.idle_power = units::watts(100);
  s.host_power = units::watts(300);
  TcoInputs in;
  in.topology = "none";
  in.utilization = 0.5;
  const Hardware& h = *hw().find("h100-sxm");  // 700 W
  const TcoResult r = compute_tco(h, s, d, in);
  const double crf = 0.08 * std::pow(1.08, 4) / (std::pow(1.08, 4) - 1);  // 0.30192
  const double capital = 35000 * crf;
  // Busy 1000 W half the year, idle 100 + 150 W the other half, at PUE 1.2 and $0.10/kWh.
  const double energy = (0.5 * 1.0 + 0.5 * 0.25) * 8766 * 1.2 * 0.10;
  const double per_hour = (capital + energy) / (8766 * 0.5);
  EXPECT_NEAR(r.capex.si(), 35000, 1e-6);
  EXPECT_NEAR(r.owned.si() * 3600, per_hour, 1e-9);
  // J per busy hour: 1000 W x 3600 s x PUE 1.2.
  EXPECT_NEAR(r.energy_per_busy_hour.si(), 1000 * 3600 * 1.2, 1e-6);
}

// Owned $/hour falls as utilization rises; network capex per GPU never falls as N grows; the
// rented price does not depend on life or capital.
TEST(Tco, Properties) {
  const TcoDefaults& d = catalog().defaults();
  rc::check([&] {
    const char* chip = *rc::gen::element("h100-sxm", "gb200", "mi300x", "b200");
    const Hardware& h = *hw().find(chip);
    const TcoSystem& s = *catalog().system(chip).value();
    TcoInputs in;
    in.chips = *rc::gen::inRange(2, 40000);
    in.utilization = *rc::gen::inRange(1, 100) / 100.0;
    TcoInputs more = in;
    more.utilization = std::min(1.0, in.utilization + 0.05);
    RC_ASSERT(compute_tco(h, s, d, more).owned <= compute_tco(h, s, d, in).owned);
    TcoInputs bigger = in;
    bigger.chips = in.chips * 2;
    RC_ASSERT(compute_tco(h, s, d, bigger).scale_out.si() >= compute_tco(h, s, d, in).scale_out.si() - 1e-9);
    TcoInputs other = in;
    other.life = units::seconds(2 * 31557600.0);
    other.cost_of_capital = 0.3;
    RC_ASSERT(compute_tco(h, s, d, other).rented == compute_tco(h, s, d, in).rented);
    RC_ASSERT(compute_tco(h, s, d, other).owned > compute_tco(h, s, d, in).owned);
  });
}

// The break-even utilization is where owning costs what renting does.
TEST(Tco, BreakEven) {
  const Hardware& h = *hw().find("h100-sxm");
  const TcoSystem& s = *catalog().system("h100-sxm").value();
  TcoInputs in;
  in.chips = 1024;
  const TcoResult r = compute_tco(h, s, catalog().defaults(), in);
  ASSERT_TRUE(r.breakeven_utilization.has_value());
  const double u = *r.breakeven_utilization;
  EXPECT_GT(u, 0);
  EXPECT_LT(u, 1);
  EXPECT_NEAR(owned_per_hour_at(r, u).si(), r.rented.si(), 1e-9 * r.rented.si());
  in.rent = units::usd_per_hour(0.5);  // cheaper than power and capital: never pays
  EXPECT_FALSE(compute_tco(h, s, catalog().defaults(), in).breakeven_utilization.has_value());
}

// --range places the headline among its draws: with every input at its default (each range's
// mode) and ranges that reach further up than down, the headline sits low, and the range says
// where rather than looking like a contradiction (issue 39: $2.05 under a p10 of $2.089).
TEST(Tco, RangePlacesTheHeadline) {
  const Hardware& h = *hw().find("h100-sxm");
  const TcoSystem& s = *catalog().system("h100-sxm").value();
  TcoInputs in;
  in.chips = 1024;
  const TcoResult point = compute_tco(h, s, catalog().defaults(), in);
  const TcoRange r = tco_range(h, s, catalog().defaults(), in);
  ASSERT_TRUE(r.owned_usd_per_hour.point && r.owned_usd_per_hour.point_rank);
  EXPECT_DOUBLE_EQ(*r.owned_usd_per_hour.point, point.owned.si() * 3600.0);
  const double rank = *r.owned_usd_per_hour.point_rank;
  EXPECT_GT(rank, 0.0);
  EXPECT_LT(rank, 0.5);  // the ranges lean up
  // The rank agrees with the quantiles it sits among.
  EXPECT_EQ(rank < 0.1, *r.owned_usd_per_hour.point < r.owned_usd_per_hour.p10);
}

// A user file: a price without its unit is an error naming the file and field.
TEST(Tco, UserFileErrors) {
  const auto bad = TcoCatalog::parse(
      "[[system]]\nhardware = \"h100-sxm\"\naccelerator = \"27500\"\nhost = \"$4000\"\nscale_up = \"$0\"\n"
      "idle_power = \"70 W\"\nhost_power = \"350 W\"\nsource = \"mine\"\n",
      "mine.toml", &catalog());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "system[0].accelerator");
  EXPECT_NE(bad.error().message().find("mine.toml"), std::string::npos);
  const auto good = TcoCatalog::parse(
      "[[system]]\nhardware = \"h100-sxm\"\naccelerator = \"$20000\"\nhost = \"$4000\"\nscale_up = \"$0\"\n"
      "idle_power = \"70 W\"\nhost_power = \"350 W\"\nsource = \"mine\"\n",
      "mine.toml", &catalog());
  ASSERT_TRUE(good.ok()) << good.error().message();
  EXPECT_DOUBLE_EQ(good->system("h100-sxm").value()->accelerator.value.si(), 20000);
  EXPECT_EQ(good->systems().size(), catalog().systems().size());
}

// J/token from a stated power and throughput (model.md §25.6), by hand: a 700 W board idling at
// 70 W, at MFU 0.2 and HBM use 0.5 with a_c 1.7, a_m 0.3: 70 + 630 x (0.34 + 0.15) = 378.7 W;
// with a 350 W host at 0.75 and PUE 1.25: (378.7 + 262.5) x 1.25 = 801.5 W per board. Eight boards
// at 10,000 tokens/s: 6,412 W / 10,000 = 0.6412 J/token.
TEST(Tco, JoulesPerTokenByHand) {
  const Hardware& h = *hw().find("h100-sxm");
  PowerModel pm;
  pm.idle = units::watts(70);
  pm.host = units::watts(350);
  pm.host_load = 0.75;
  pm.pue = 1.25;
  pm.compute_weight = 1.7;
  pm.memory_weight = 0.3;
  const Watts board = board_power(h, pm, 0.2, 0.5);
  EXPECT_NEAR(board.si(), 378.7, 1e-9);
  const Watts facility = facility_power(pm, board);
  EXPECT_NEAR(facility.si(), 801.5, 1e-9);
  EXPECT_NEAR(facility.si() * 8 / 10000.0, 0.6412, 1e-12);
  // Busy compute saturates at TDP; an idle board draws its idle power.
  EXPECT_DOUBLE_EQ(board_power(h, pm, 0.9, 0.5).si(), 700);
  EXPECT_DOUBLE_EQ(board_power(h, pm, 0, 0).si(), 70);
}

// A roofline step's energy is its facility power times its time over its tokens, and a
// memory-bound decode step draws less per board than a compute-bound prefill.
TEST(Tco, StepEnergy) {
  const ModelSpec m = testing_catalogs::models().load("llama-3.1-70b").value();
  const Hardware& h = *hw().find("h100-sxm");
  PowerModel pm;
  pm.idle = units::watts(70);
  pm.host = units::watts(350);
  pm.pue = 1.25;
  RooflineInput in;
  in.model = &m;
  in.hw = &h;
  in.chips = 8;
  in.step = Step{Phase::kDecode, 64, 1, 4096};
  in.precision = Precision::native(m);
  in.power = pm;
  const RooflineResult dec = roofline(in).value();
  EXPECT_NEAR(dec.energy_per_token.si(), dec.facility_power.si() * dec.t_step.si() / 64, 1e-12);
  EXPECT_NEAR(dec.facility_power.si(), 8 * (dec.board_power.si() + 350 * 0.75) * 1.25, 1e-6);
  in.step = Step{Phase::kPrefill, 4, 4096, 0};
  const RooflineResult pre = roofline(in).value();
  EXPECT_GT(pre.board_power, dec.board_power);
  EXPECT_LT(dec.board_power.si(), 0.7 * h.tdp.si());
  EXPECT_LT(pre.energy_per_token, dec.energy_per_token);
}

// The scale-up fabric (model.md §25.5): nothing inside an HGX board, a port and copper per link
// up to 72, two more ports and an optical link per link past it; a chip's own domain costs what
// its system states; the fabric never gets cheaper with a bigger domain.
TEST(Tco, ScaleUpFabric) {
  const TcoDefaults& d = catalog().defaults();
  const double p = d.scale_up_port.value.si(), o = d.scale_up_optical_link.value.si();
  const Hardware& h100 = *hw().find("h100-sxm");
  const TcoSystem& hs = *catalog().system("h100-sxm").value();
  EXPECT_DOUBLE_EQ(scale_up_fabric(h100, hs, d, 8).si(), 0);
  EXPECT_NEAR(scale_up_fabric(h100, hs, d, 72).si(), 18 * p, 1e-9);
  EXPECT_NEAR(scale_up_fabric(h100, hs, d, 576).si(), 18 * p + 18 * (2 * p + o), 1e-9);
  const Hardware& gb = *hw().find("gb200");
  const TcoSystem& gs = *catalog().system("gb200").value();
  EXPECT_DOUBLE_EQ(scale_up_fabric(gb, gs, d, 72).si(), gs.scale_up.value.si());
  double last = 0;
  for (double n : {1.0, 4.0, 8.0, 16.0, 72.0, 144.0, 576.0, 2592.0, 5000.0}) {
    const double f = scale_up_fabric(h100, hs, d, n).si();
    EXPECT_GE(f, last) << n;
    last = f;
  }
  // Its hourly price by hand: capital recovery and maintenance over 8,766 h x utilization.
  TcoInputs in;
  in.utilization = 0.5;
  in.life = units::seconds(4 * 31557600.0);
  in.cost_of_capital = 0.08;
  const double crf = 0.08 * std::pow(1.08, 4) / (std::pow(1.08, 4) - 1);
  EXPECT_NEAR(capex_per_hour(d, in, units::usd(10000)).si() * 3600, 10000 * (crf + d.maintenance.value) / (8766 * 0.5),
              1e-9);
}

// Owner profiles: each prices an owned hour; the hyperscaler's is the cheapest, the enterprise's
// the dearest; an unknown one names the flag and lists them.
TEST(Tco, Profiles) {
  const Hardware& h = *hw().find("h100-sxm");
  const TcoSystem& s = *catalog().system("h100-sxm").value();
  auto owned = [&](const char* name) {
    const TcoProfile& p = *catalog().profile(name, "--cost").value();
    return compute_tco(h, s, catalog().defaults(), profile_inputs(p)).owned.si();
  };
  EXPECT_LT(owned("hyperscaler"), owned("cluster"));
  EXPECT_LT(owned("cluster"), owned("enterprise"));
  const auto missing = catalog().profile("nope", "--cost");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().where, "--cost");
  EXPECT_NE(missing.error().hint.find("hyperscaler"), std::string::npos);
  const auto bad = TcoCatalog::parse("[[profile]]\nname = \"x\"\nchips = 8\nutilization = 2\nsource = \"me\"\n",
                                     "mine.toml", &catalog());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().field, "profile[0].utilization");
}

}  // namespace
}  // namespace llmecon
