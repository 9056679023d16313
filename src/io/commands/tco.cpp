// `tco`: what an owned accelerator-hour costs against a rented one (model.md §25).
#include <fmt/format.h>

#include "commands.hpp"
#include "io/encode.hpp"
#include "roofline/roofline.hpp"
#include "tco/tco.hpp"
#include "tco/tco_args.hpp"

namespace llmecon::cmd {

Result<Answer> tco(const Engine& e, const Args& a, const Progress&, const Cancel&) {
  TRY(cat, tco_catalog(a));
  TRY(hw, e.hardware_catalog().get(a.text("hw"), "--hw"));
  TRY(sys, cat->system(hw->name));
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
  Analysis an = tco_analysis(*hw, *sys, cat->defaults(), in);
  if (!a.flag("explain")) an.derivation.clear();
  Json out = to_json(an);
  out["hardware"] = hw->name;
  out["chips"] = in.chips;
  out["utilization"] = in.utilization;
  std::optional<RangeText> range;
  if (a.flag("range")) {
    // Every ranged default and system cost drawn together, with a fixed seed (model.md §21).
    const TcoRange r = tco_range(*hw, *sys, cat->defaults(), in);
    range = RangeText{r.samples,
                      {{"usd_per_gpu_hour_owned", r.owned_usd_per_hour},
                       {"owned_over_rented", r.owned_over_rented},
                       {"breakeven_utilization", r.breakeven_utilization}}};
    Json q = {{"samples", r.samples}};
    for (const RangeRow& row : range->rows) q[row.key] = quantiles_json(row.q);
    out["range"] = std::move(q);
  }
  return Answer{std::move(out), [an = std::move(an), head = TextHead{"", hw->name, in.chips},
                                 explain = a.flag("explain"), range] { return text(an, head, explain, range); }};
}

// The tco family's commands in the table (commands.hpp).
std::vector<Command> tco_commands() {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  std::vector<Command> out;
  auto add = [&out](CommandSpec c, Fn run) { out.push_back(Command{std::move(c), run}); };
  {
    CommandSpec c =
        command("tco",
                "what an owned accelerator-hour costs: capex (chip, HBM, host, scale-up and scale-out fabric), opex, "
                "capital; against renting, with the break-even utilization",
                tco_arguments());
    c.redirects = {{"model", "tco prices hardware; roofline, plan and train take --model"}};
    add(std::move(c), tco);
  }
  return out;
}

}  // namespace llmecon::cmd
