// economics/economics_args.hpp: the blackboard analyses' arguments.
//
// Each analysis of the board (economics.hpp) declares its own arguments (names, units, bounds,
// defaults); the command table lists them for the CLI, the API and Python. Those on one domain of
// one chip (batch, step, context, price, layout, cache) share the model, chip, chips and formats.
//
//   const std::vector<ArgSpec> spec = batch_arguments();
#pragma once

#include <vector>

#include "args/args.hpp"

namespace llmecon {

std::vector<ArgSpec> batch_arguments();
std::vector<ArgSpec> step_arguments();
std::vector<ArgSpec> context_arguments();
std::vector<ArgSpec> price_arguments();
std::vector<ArgSpec> layout_arguments();
std::vector<ArgSpec> cache_arguments();
std::vector<ArgSpec> lifecycle_arguments();
std::vector<ArgSpec> revnet_arguments();

}  // namespace llmecon
