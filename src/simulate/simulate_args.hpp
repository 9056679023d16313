// simulate/simulate_args.hpp: the `simulate` command's arguments.
//
// The serving simulator declares its own arguments (names, units, bounds, choices); the command
// table lists them for the CLI, the API and Python, and `validate` reads a serving row's notes
// (`qps=4; max_num_seqs=256; isl_dist=lognormal:1000,0.6`) through the same declarations.
//
//   const std::vector<ArgSpec> spec = simulate_arguments();
#pragma once

#include <vector>

#include "args/args.hpp"

namespace llmecon {

/// Every argument of `simulate`, in the order the CLI lists them.
std::vector<ArgSpec> simulate_arguments();

}  // namespace llmecon
