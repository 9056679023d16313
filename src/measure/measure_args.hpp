// measure/measure_args.hpp: the `measure` command's arguments.
//
// Measuring this machine declares its own arguments; the command table lists them for the CLI,
// the API and Python.
//
//   const std::vector<ArgSpec> spec = measure_arguments();
#pragma once

#include <vector>

#include "args/args.hpp"

namespace llmecon {

/// measure: --decode (the synthetic decode sweep), --quick, its model width and layers, threads.
std::vector<ArgSpec> measure_arguments();

}  // namespace llmecon
