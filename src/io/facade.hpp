// io/facade.hpp: the one entry point the CLI, the server and Python share.
//
// Each call takes a JSON object of arguments and returns the JSON the CLI prints with --json,
// so every shell gives the same answer to the same question. Bad arguments are an Error that
// names the flag and a hint.
//
//   auto eng = Engine::open({});                                  // embedded catalogs
//   auto r = eng->roofline({{"model", "llama-3.1-70b"}, {"hw", "h100-sxm"}, {"batch", 64}});
//   double t = (*r)["t_step_s"];
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "args/args.hpp"
#include "catalog/hardware.hpp"
#include "catalog/serving_engine.hpp"
#include "economics/pricing.hpp"
#include "model/model.hpp"
#include "roofline/roofline.hpp"
#include "scenario/catalogs.hpp"
#include "units/analysis.hpp"
#include "units/error.hpp"
#include "validate/validate.hpp"

namespace llmecon {

/// Told the fraction done (0..1) during long calls (sweep, plan); shells draw it, the library never prints.
using Progress = std::function<void(double)>;
/// Polled by long calls (plan, sweep); once it returns true they stop with an Error whose `what`
/// begins "cancelled" (a server's deadline). The library never decides when to cancel.
using Cancel = std::function<bool()>;

/// A command's answer: the JSON every shell gives, and the text a person reads (io/text.hpp),
/// written from the command's typed result when asked for (text() may read the Engine's
/// catalogs: call it while the Engine that answered lives).
struct Answer {
  Json json;
  std::function<std::string()> text;
};

class Engine {
 public:
  /// Loads the embedded catalogs, then each user hardware file in order.
  static Result<Engine> open(const std::vector<std::string>& hw_files,
                             const std::vector<std::string>& price_files = {});

  [[nodiscard]] Json models() const;
  [[nodiscard]] Json hardware() const;
  /// args: model, kv_dtype?
  [[nodiscard]] Result<Json> model_show(const Json& args) const;
  /// args: model, hw, chips?, phase?, batch?, context?, chunk?, weight_dtype?, expert_dtype?,
  /// act_dtype?, kv_dtype?, expert_touch?, and explain? (adds the derivation, one line per formula),
  /// ops?, range?
  [[nodiscard]] Result<Json> roofline(const Json& args) const;
  /// As roofline, with batch and/or context given as arrays; one row per combination.
  [[nodiscard]] Result<Json> sweep(const Json& args, const Progress& progress = {}) const;
  /// The default deployment report: model, hardware, memory fit, and decode cost across batch
  /// sizes with the balance point where the step turns compute-bound. args as roofline, with
  /// batch ignored.
  [[nodiscard]] Result<Json> report(const Json& args) const;
  // The blackboard analyses (economics.hpp). Common args: model, hw, chips, weight_dtype,
  // expert_dtype, act_dtype, kv_dtype; see docs/cli.md for each command's own.
  [[nodiscard]] Result<Json> batch(const Json& args) const;
  [[nodiscard]] Result<Json> step(const Json& args) const;
  [[nodiscard]] Result<Json> context(const Json& args) const;
  [[nodiscard]] Result<Json> price(const Json& args) const;
  [[nodiscard]] Result<Json> layout(const Json& args) const;
  [[nodiscard]] Result<Json> cache(const Json& args) const;
  [[nodiscard]] Result<Json> lifecycle(const Json& args) const;
  [[nodiscard]] Result<Json> revnet(const Json& args) const;
  /// The deployment planner: args model, hw, chips | racks, isl, osl, ttft_ms?, tpot_ms?,
  /// max_usd_per_mtok?, scaleup? (domain sizes), weight_dtypes?, kv_dtypes?, overlap?, threads?,
  /// spec_acceptance?, spec_draft?, frontier_max?.
  [[nodiscard]] Result<Json> plan(const Json& args, const Progress& progress = {}) const;
  /// Every lecture claim (C1-C24): an array of {id, claim, expected, computed, unit, tolerance,
  /// pass, ...}.
  [[nodiscard]] Result<Json> lecture(const Json& args) const;
  /// Predictions against a measurement CSV: args file (path), ideal?.
  [[nodiscard]] Result<Json> validate(const Json& args) const;
  /// Fits one chip's efficiency to a measurement CSV: args file, hw, folds?.
  [[nodiscard]] Result<Json> calibrate(const Json& args) const;
  /// Measures this machine (args decode?, quick?, d_model?, layers?): profile, a hardware TOML,
  /// and with decode the measured against predicted step times across batch sizes.
  [[nodiscard]] Result<Json> measure(const Json& args) const;
  /// The efficiency a chip gets by default, and where it comes from.
  [[nodiscard]] Efficiency efficiency(const Hardware& hw, std::string* source = nullptr) const {
    return cat_.efficiency(hw, source);
  }
  /// The serving-engine profile of this name (data/engines), or an Error naming `flag`.
  [[nodiscard]] Result<const ServingEngine*> serving_engine(std::string_view name,
                                                            const std::string& flag = "--engine") const {
    return cat_.serving_engine(name, flag);
  }
  [[nodiscard]] const std::vector<ServingEngine>& serving_engines() const { return cat_.engines; }
  /// The parameters of that efficiency fitted to measurements (the rest are sourced).
  [[nodiscard]] std::vector<std::string> fitted_parameters(const Hardware& hw) const {
    return cat_.fitted_parameters(hw);
  }
  /// Whether that efficiency is a prior: its family has no measurements behind it (model.md §18.3).
  [[nodiscard]] bool efficiency_is_prior(const Hardware& hw) const { return cat_.efficiency_is_prior(hw); }
  /// Every command run() dispatches, in the order the CLI lists them (the table in args.hpp).
  static const std::vector<std::string>& commands();
  /// Whether run() has an implementation for this command of the table.
  static bool implements(const std::string& command);
  /// Dispatch by command name ("roofline", "batch", ...): the arguments are checked against the
  /// command's spec (args.hpp), then the command runs. Every shell calls this.
  [[nodiscard]] Result<Json> run(const std::string& command, const Json& args, const Progress& progress = {},
                                 const Cancel& cancel = {}) const;
  /// As run(), with the text a person reads beside the JSON (the CLI's output, the server's
  /// format=text).
  [[nodiscard]] Result<Answer> answer(const std::string& command, const Json& args, const Progress& progress = {},
                                      const Cancel& cancel = {}) const;
  /// The evaluated input for roofline(args) (for callers that want the typed result).
  [[nodiscard]] Result<RooflineResult> evaluate(const Json& args) const;

  [[nodiscard]] const HardwareCatalog& hardware_catalog() const { return cat_.hw; }
  [[nodiscard]] const ModelCatalog& model_catalog() const { return cat_.models; }
  [[nodiscard]] const PriceCatalog& price_catalog() const { return cat_.prices; }
  /// Every catalog, as the scenario layer resolves arguments against them (scenario.hpp).
  [[nodiscard]] const Catalogs& catalogs() const { return cat_; }

 private:
  Catalogs cat_;
};

/// JSON of one roofline evaluation (the keys documented in docs/cli.md).
/// The fields of an efficiency (model.md §18.3), as calibrate and --explain report them.
Json efficiency_json(const Efficiency& e);
Json to_json(const RooflineResult& r);
/// JSON of an analysis: figures as top-level keys, tables as arrays of row objects, plus
/// "figures" (with units and labels), "notes" and "explain".
Json to_json(const Analysis& a);
/// One CSV cell: text quoted where it holds a comma, quote or line break; a number as JSON writes
/// it; null empty.
std::string csv_cell(const Json& v);
/// CSV: a header line of the scalar keys, then one line per row object.
std::string to_csv(const std::vector<Json>& rows);
/// The CSV of a command's answer: its table (sweep rows, the plan's frontier, an analysis's first
/// table, ...), as `--csv` prints it and `/api/<command>?format=csv` serves it.
std::string csv_of(const std::string& command, const Json& result);

}  // namespace llmecon
