// scenario/layout.hpp: the one rule for parallel degrees a question leaves unstated (model.md §17.5).
//
// `simulate` on the CLI, the server and Python, and `validate` on a measurement row, all complete
// a layout here:
//
//   Mapping stated{4, 0, 0, 0, 0, 1};                           // --tp 4, one replica
//   auto l = complete_layout(in, 8, stated, LayoutLoad{256, 2048 + 128, 2048});
//   Mapping map = l ? l->map : Mapping{};                        // l->inferred: the planner chose
#pragma once

#include <optional>

#include "parallel/parallel.hpp"

namespace llmecon {

/// What a layout is chosen for when the planner chooses it.
struct LayoutLoad {
  double batch = 1;    ///< sequences on the chips; halved until some layout holds them
  double context = 0;  ///< mean context, tokens
  double prompt = 0;   ///< mean prompt, tokens (candidates split long prompts over context parallelism)
};

struct LayoutChoice {
  Mapping map;
  bool inferred = false;  ///< some degree was the planner's choice
  double batch = 0;       ///< the batch the planner chose it for (inferred only)
};

/// The degrees `stated` gives (0: unstated) with the unstated ones 1 but the data-parallel one,
/// which takes the chips the others leave when they divide them: attention DP when a MoE model
/// states EP above 1 and not attention DP, else DP when it is unstated. It need not multiply to
/// the chips nor hold the model (rule 2 of complete_layout checks both).
Mapping fill_stated(const ModelSpec& model, int chips, const Mapping& stated);

/// A layout of `chips` chips from the degrees `stated` gives (0: unstated), by one rule:
///  1. every degree stated: those (the caller checks them against the chips);
///  2. when TP, PP, CP or DP is stated (and TP is, for a MoE model that states EP), the unstated
///     degrees are 1 but the data-parallel one, which takes the chips the others leave when they
///     divide them: attention DP when a MoE model states EP above 1, else DP; if that multiplies to
///     the chips and holds the model (parallel.hpp validate), it stands;
///  3. else the planner's best layout that keeps every stated degree (infer_mapping: the most
///     decode tokens/s per chip), for the largest of load.batch, load.batch/2, ... down to 1 that
///     some layout holds at load.context.
/// nullopt when no layout holds even one sequence.
std::optional<LayoutChoice> complete_layout(const DeploymentInput& in, int chips, const Mapping& stated,
                                            const LayoutLoad& load);

}  // namespace llmecon
