// `tco`: what an owned accelerator-hour costs against a rented one (model.md §25).
#include <fmt/format.h>

#include "commands.hpp"
#include "roofline/roofline.hpp"
#include "tco/tco.hpp"

namespace llmecon::cmd {

Result<Json> tco(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(cat, tco_catalog(a));
  TRY(hw, e.hardware_catalog().get(a.text("hw"), "--hw"));
  TRY(sys, cat.system(hw->name));
  if (a.has("chips") && a.has("racks")) return Error{"--racks", "", "give --chips or --racks, not both", ""};
  TcoInputs in;
  in.chips = a.has("racks") ? a.number("racks") * hw->domain_size : a.number("chips");
  in.utilization = a.number("utilization");
  in.topology = a.text("topology");
  in.oversubscription = a.number("oversubscription");
  if (a.has("life_years")) in.life = units::seconds(a.number("life_years") * 31557600.0);
  if (a.has("cost_of_capital")) in.cost_of_capital = a.number("cost_of_capital");
  if (a.has("pue")) in.pue = a.number("pue");
  if (a.has("load")) in.load = a.number("load");
  if (a.has("usd_per_kwh")) in.electricity = DollarsPerJoule(detail::RawTag{}, a.number("usd_per_kwh") / 3.6e6);
  if (a.has("usd_per_hour")) in.rent = units::usd_per_hour(a.number("usd_per_hour"));
  Analysis an = tco_analysis(*hw, *sys, cat.defaults(), in);
  if (!a.flag("explain")) an.derivation.clear();
  Json out = to_json(an);
  out["hardware"] = hw->name;
  out["chips"] = in.chips;
  out["utilization"] = in.utilization;
  if (a.flag("range")) {
    // Every ranged default and system cost drawn together, with a fixed seed (model.md §21).
    const TcoRange r = tco_range(*hw, *sys, cat.defaults(), in);
    out["range"] = {{"samples", r.samples},
                    {"usd_per_gpu_hour_owned", quantiles_json(r.owned_usd_per_hour)},
                    {"owned_over_rented", quantiles_json(r.owned_over_rented)},
                    {"breakeven_utilization", quantiles_json(r.breakeven_utilization)}};
  }
  return out;
}

// The tco family's commands in the table (commands.hpp).
std::vector<CommandSpec> tco_specs() {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  using T = ArgType;
  std::vector<CommandSpec> out;
  auto add = [&out](CommandSpec c) { out.push_back(std::move(c)); };
  {
    auto optional_number = [](std::string key, std::string help, std::string u, double lo, double hi, std::string text,
                              bool exclusive = false) {
      ArgSpec x = with_text(unit(bounded(arg(std::move(key), T::kNumber, std::move(help)), lo, hi), std::move(u)),
                            std::move(text));
      x.exclusive_min = exclusive;
      return x;
    };
    ArgSpec u = number("utilization", "share of hours the accelerators do paid work", "", 0.8, 0, 1);
    u.exclusive_min = true;
    CommandSpec c = command(
        "tco",
        "what an owned accelerator-hour costs: capex (chip, HBM, host, scale-up and scale-out fabric), opex, "
        "capital; against renting, with the break-even utilization",
        {hw("h100-sxm"),
         unit(with_default(bounded(arg("chips", T::kInteger, "accelerators in the cluster"), 1, kMaxCount), 1024),
              "chip"),
         with_text(
             unit(bounded(arg("racks", T::kInteger, "scale-up domains in the cluster (instead of --chips)"), 1, 1e7),
                  "domain"),
             "none"),
         choice("topology", "scale-out network: a fat-tree of the catalog's switches, or none (one node)",
                {"fat-tree", "none"}),
         u, number("oversubscription", "fat-tree oversubscription at the leaves (1: non-blocking)", "x", 1, 1, 64),
         optional_number("life_years", "depreciation life", "y", 0, 50, "5 (data/tco.toml)", true),
         optional_number("cost_of_capital", "yearly cost of capital", "", 0, 1, "0.10 (data/tco.toml)"),
         optional_number("pue", "facility power over IT power", "x", 1, 5, "1.25 (data/tco.toml)"),
         optional_number("usd_per_kwh", "electricity price", "$/kWh", 0, 10, "0.08 (data/tco.toml)"),
         optional_number("load", "busy IT power over rated", "", 0, 1, "0.75 (data/tco.toml)", true), usd_per_hour(),
         tco_file(), flag("range", "p10/p50/p90 over every sourced range in data/tco.toml"), explain()});
    c.redirects = {{"model", "tco prices hardware; roofline, plan and train take --model"}};
    add(std::move(c));
  }
  return out;
}

}  // namespace llmecon::cmd
