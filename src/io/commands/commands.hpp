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

/// A command as its family registers it, once: the table's row (its name, arguments and help)
/// and the function that answers it, side by side. Each family's function sits beside its
/// handlers in io/commands/*.cpp; the table (commands.cpp) concatenates the families in the order
/// the CLI lists them, and the engine dispatches through it (handler()).
struct Command {
  CommandSpec spec;
  Fn run = nullptr;
};
std::vector<Command> build();
std::vector<Command> catalog_commands();   // catalog.cpp: models, hardware, model
std::vector<Command> roofline_commands();  // roofline.cpp: roofline, sweep, report
std::vector<Command> board_commands();     // board.cpp: batch ... lecture
std::vector<Command> plan_commands();      // plan.cpp
std::vector<Command> simulate_commands();  // simulate.cpp
std::vector<Command> train_commands();     // train.cpp: train, scale
std::vector<Command> tco_commands();       // tco.cpp
std::vector<Command> validate_commands();  // validate.cpp: validate, calibrate, measure
/// The function that answers the table's command `name`; nullptr when the table has none.
Fn handler(std::string_view name);

// Shared argument lists (commands.cpp).
CommandSpec charted(CommandSpec c);  ///< --plot draws SVG or HTML

// roofline.cpp: the roofline at the arguments, and many points of one scenario.
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

// Shared by the commands.
/// The error a cancelled long call returns.
inline Error cancelled_error() {
  return Error{"request", "", "cancelled: past its deadline", "ask for less (fewer chips, formats or batches)"};
}
/// The priors behind --range (model.md §21); with --ideal only the catalog's spec ranges.
Uncertainty uncertainty(const Args& a);
/// The items of a comma-separated list, empty ones dropped.
std::vector<std::string> split_list(const std::string& text);

}  // namespace llmecon::cmd
