// The facade's commands (internal to src/io): each takes arguments already checked against its
// CommandSpec (args.hpp) and returns the JSON every shell prints.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args/arg_builders.hpp"
#include "args/args.hpp"
#include "io/facade.hpp"
#include "roofline/roofline.hpp"
#include "tco/tco.hpp"

namespace llmecon::cmd {

using Fn = Result<Json> (*)(const Engine&, const Args&, const Progress&, const Cancel&);

// The command table (commands.cpp) concatenates each family's specs, declared beside its
// implementation below, in the order the CLI lists them.
std::vector<CommandSpec> build();
std::vector<CommandSpec> catalog_specs();   // catalog.cpp: models, hardware, model
std::vector<CommandSpec> roofline_specs();  // roofline.cpp: roofline, sweep, report
std::vector<CommandSpec> board_specs();     // board.cpp: batch ... lecture
std::vector<CommandSpec> plan_specs();      // plan.cpp
std::vector<CommandSpec> simulate_specs();  // simulate.cpp
std::vector<CommandSpec> train_specs();     // train.cpp: train, scale
std::vector<CommandSpec> tco_specs();       // tco.cpp
std::vector<CommandSpec> validate_specs();  // validate.cpp: validate, calibrate, measure
// Shared argument lists (commands.cpp).
std::vector<ArgSpec> step_args(bool lists);            ///< roofline, sweep, report
std::vector<ArgSpec> board(std::vector<ArgSpec> own);  ///< the blackboard analyses: one domain of one chip
ArgSpec practical_batch(const char* help);             ///< --batch defaulting to 2.5 B*
CommandSpec charted(CommandSpec c);                    ///< --plot draws SVG or HTML

// catalog.cpp
Result<Json> models(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> hardware(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> model_show(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// roofline.cpp
Result<Json> roofline(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> sweep(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> report(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<RooflineResult> evaluate(const Engine& e, const Args& a);
// board.cpp
Result<Json> batch(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> step(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> context(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> price(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> layout(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> cache(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> lifecycle(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> revnet(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> lecture(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// plan.cpp
Result<Json> plan(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// simulate.cpp
Result<Json> simulate(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// train.cpp
Result<Json> train(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> scale(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// tco.cpp
Result<Json> tco(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// validate.cpp
Result<Json> validate(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> calibrate(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Json> measure(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);

// Shared by the commands.
/// The error a cancelled long call returns.
inline Error cancelled_error() {
  return Error{"request", "", "cancelled: past its deadline", "ask for less (fewer chips, formats or batches)"};
}
/// The priors behind --range (model.md §21); with --ideal only the catalog's spec ranges.
Uncertainty uncertainty(const Args& a);
/// {"p10", "p50", "p90"} of a sample.
Json quantiles_json(const Quantiles& x);
/// The `model` argument: a built-in name, a config.json path, or the config object itself.
Result<ModelSpec> load_model(const Engine& e, const Args& a);
/// data/tco.toml, with --tco-file over it when the command takes one and it is given.
Result<TcoCatalog> tco_catalog(const Args& a);
/// The owner profile --cost names: none for rented, "cluster" for owned, NAME for owned:NAME.
Result<std::optional<std::string>> owner_profile(const Args& a);
/// What a chip of `hw` draws (model.md §25.6): idle and host power from data/tco.toml's system
/// (an HGX-like estimate for chips it does not price), PUE from --cost's profile or the defaults.
Result<PowerModel> power_model(const Args& a, const Hardware& hw);
/// The chip named `name`, priced at --usd-per-hour when given, or owned under --cost owned[:NAME]
/// (tco at the profile's cluster and utilization): the catalog's entry, or a copy with that
/// price. The pointer stays valid however the holder moves.
Result<std::shared_ptr<const Hardware>> priced_hardware(const Engine& e, const Args& a, const std::string& name);
/// The prefill pool's chip, --prefill-hw: the catalog's entry, or under --cost owned a copy at its
/// owned price, kept alive by `holder` (--usd-per-hour prices the decode chip only).
Result<const Hardware*> prefill_hardware(const Engine& e, const Args& a, std::shared_ptr<const Hardware>& holder);
/// The items of a comma-separated list, empty ones dropped.
std::vector<std::string> split_list(const std::string& text);
/// The formats from --weight-dtype, --expert-dtype, --act-dtype and --kv-dtype, on the model's
/// released ones (model.md §4.7).
Precision precision_from(const Args& a, const ModelSpec& m);

}  // namespace llmecon::cmd
