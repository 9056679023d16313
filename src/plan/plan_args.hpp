// plan/plan_args.hpp: the `plan` command's arguments.
//
// The planner declares its own arguments (names, units, bounds, choices from its name tables);
// the command table lists them for the CLI, the API and Python.
//
//   const std::vector<ArgSpec> spec = plan_arguments();
#pragma once

#include <vector>

#include "args/args.hpp"

namespace llmecon {

/// Every argument of `plan`, in the order the CLI lists them.
std::vector<ArgSpec> plan_arguments();

}  // namespace llmecon
