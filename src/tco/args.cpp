// The tco command's arguments (tco_args.hpp).
#include "tco/tco_args.hpp"

#include "args/arg_builders.hpp"

namespace llmecon {

std::vector<ArgSpec> tco_arguments() {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  using T = ArgType;
  auto optional_number = [](std::string key, std::string help, std::string u, double lo, double hi, std::string text,
                            bool exclusive = false) {
    ArgSpec x = with_text(unit(bounded(arg(std::move(key), T::kNumber, std::move(help)), lo, hi), std::move(u)),
                          std::move(text));
    x.exclusive_min = exclusive;
    return x;
  };
  ArgSpec u = number("utilization", "share of hours the accelerators do paid work", "", 0.8, 0, 1);
  u.exclusive_min = true;
  return {
      hw(),
      unit(with_default(bounded(arg("chips", T::kInteger, "accelerators in the cluster"), 1, kMaxCount), 1024), "chip"),
      with_text(unit(bounded(arg("racks", T::kInteger, "scale-up domains in the cluster (instead of --chips)"), 1, 1e7),
                     "domain"),
                "none"),
      choice("topology", "scale-out network: a fat-tree of the catalog's switches, or none (one node)",
             {"fat-tree", "none"}),
      u,
      number("oversubscription", "fat-tree oversubscription at the leaves (1: non-blocking)", "x", 1, 1, 64),
      optional_number("life_years", "depreciation life", "y", 0, 50, "5 (data/tco.toml)", true),
      optional_number("cost_of_capital", "yearly cost of capital", "", 0, 1, "0.10 (data/tco.toml)"),
      optional_number("pue", "facility power over IT power", "x", 1, 5, "1.25 (data/tco.toml)"),
      optional_number("usd_per_kwh", "electricity price", "$/kWh", 0, 10, "0.08 (data/tco.toml)"),
      optional_number("load", "busy IT power over rated", "", 0, 1, "0.75 (data/tco.toml)", true),
      usd_per_hour(),
      tco_file(),
      flag("range", "p10/p50/p90 over every sourced range in data/tco.toml"),
      explain()};
}

}  // namespace llmecon
