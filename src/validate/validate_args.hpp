// validate/validate_args.hpp: the `validate` and `calibrate` commands' arguments.
//
// Validation declares its own arguments (names, bounds, defaults); the command table lists them
// for the CLI, the API and Python. A row's notes are read through notes_spec() (validate.hpp).
//
//   const std::vector<ArgSpec> spec = validate_arguments();
#pragma once

#include <vector>

#include "args/args.hpp"

namespace llmecon {

/// validate: the measurement CSV, --ideal, and cross-validation's folds and parameters.
std::vector<ArgSpec> validate_arguments();
/// calibrate: the measurement CSV, the chip to fit, folds and parameters.
std::vector<ArgSpec> calibrate_arguments();

}  // namespace llmecon
