// roofline/roofline_args.hpp: the arguments of one step on one scale-up domain (roofline, and
// sweep and report with lists of batches and contexts).
//
// The roofline declares its own arguments (names, units, bounds, choices from the name tables of
// ops.hpp); the command table lists them for the CLI, the API and Python.
//
//   const std::vector<ArgSpec> one = roofline_arguments(false);   // roofline
//   const std::vector<ArgSpec> lists = roofline_arguments(true);  // sweep: batch and context lists
#pragma once

#include <vector>

#include "args/args.hpp"

namespace llmecon {

/// Every argument of a step: model, chip, chips, phase, batch and context (lists when `lists`),
/// chunk, formats, expert touch, engine, pricing and --ideal, in the order the CLI lists them.
std::vector<ArgSpec> roofline_arguments(bool lists);

}  // namespace llmecon
