// tco/tco_args.hpp: the `tco` command's arguments.
//
// The cost model declares its own arguments (the cluster, its network, the owner's terms, each
// defaulting to data/tco.toml); the command table lists them for the CLI, the API and Python.
//
//   const std::vector<ArgSpec> spec = tco_arguments();
#pragma once

#include <vector>

#include "args/args.hpp"

namespace llmecon {

/// Every argument of `tco`, in the order the CLI lists them.
std::vector<ArgSpec> tco_arguments();

}  // namespace llmecon
