// The facade's commands (internal to src/io): each takes arguments already checked against its
// CommandSpec (args.hpp) and returns the JSON every shell prints.
#pragma once

#include <array>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args/arg_builders.hpp"
#include "args/args.hpp"
#include "io/facade.hpp"
#include "io/text.hpp"
#include "roofline/roofline.hpp"
#include "roofline/roofline_args.hpp"
#include "scenario/scenario.hpp"
#include "tco/tco.hpp"

namespace llmecon::cmd {

using Fn = Result<Answer> (*)(const Engine&, const Args&, const Progress&, const Cancel&);

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
CommandSpec charted(CommandSpec c);  ///< --plot draws SVG or HTML

// catalog.cpp
Result<Answer> models(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> hardware(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> model_show(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// roofline.cpp
Result<Answer> roofline(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> sweep(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> report(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<RooflineResult> evaluate(const Engine& e, const Args& a);
/// roofline's answer at many (batch, context) points of one scenario, resolved once: the grid's
/// fast path (io/grid.cpp). at()'s result, through roofline_fields, then price_source, are the
/// scalars roofline's answer gives at that point when plain(a) holds.
class RooflinePoints {
 public:
  static Result<RooflinePoints> open(const Engine& e, const Args& a);
  /// No --explain, --range or --ops: the answer is the result's fields and its price source.
  static bool plain(const Args& a);
  /// Not thread-safe: it remembers the KV bytes of the last contexts asked.
  [[nodiscard]] Result<RooflineResult> at(double batch, double context);
  [[nodiscard]] const std::string& price_source() const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
  std::array<std::pair<double, Bytes>, 8> kv_{};  // (context, KV bytes of one sequence)
  std::size_t kv_known_ = 0, kv_next_ = 0;
};
// board.cpp
Result<Answer> batch(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> step(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> context(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> price(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> layout(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> cache(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> lifecycle(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> revnet(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> lecture(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// plan.cpp
Result<Answer> plan(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// simulate.cpp
Result<Answer> simulate(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// train.cpp
Result<Answer> train(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> scale(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// tco.cpp
Result<Answer> tco(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
// validate.cpp
Result<Answer> validate(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> calibrate(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);
Result<Answer> measure(const Engine& e, const Args& a, const Progress& p, const Cancel& cancel);

// Shared by the commands.
/// The error a cancelled long call returns.
inline Error cancelled_error() {
  return Error{"request", "", "cancelled: past its deadline", "ask for less (fewer chips, formats or batches)"};
}
/// The priors behind --range (model.md §21); with --ideal only the catalog's spec ranges.
Uncertainty uncertainty(const Args& a);
/// {"p10", "p50", "p90"} of a sample.
Json quantiles_json(const Quantiles& x);
/// The items of a comma-separated list, empty ones dropped.
std::vector<std::string> split_list(const std::string& text);

}  // namespace llmecon::cmd
