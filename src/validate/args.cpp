// The `validate` and `calibrate` commands' arguments (validate_args.hpp).
#include "validate/validate_args.hpp"

#include "args/arg_builders.hpp"

namespace llmecon {

using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
using T = ArgType;

std::vector<ArgSpec> validate_arguments() {
  return {file(), ideal(),
          flag("cross_validate",
               "also calibrate each chip and report in-sample, k-fold and leave-one-source-out error per scenario"),
          integer("folds", "--cross-validate: cross-validation folds", "", 5, 2, 100),
          with_text(arg("fit", T::kString, "--cross-validate: parameters to fit on every chip, comma-separated"),
                    "those each chip's family lists as fitted, else step_overhead and kernel_overhead")};
}

std::vector<ArgSpec> calibrate_arguments() {
  ArgSpec h = hw(nullptr);
  h.help = "the chip to fit (rows measured on it)";
  h.required = true;
  return {file(), h, integer("folds", "cross-validation folds", "", 5, 2, 100),
          with_text(arg("fit", T::kString,
                        "parameters to fit, comma-separated: compute, memory, memory_half, comm, step_overhead, "
                        "kernel_overhead"),
                    "those the chip's family lists as fitted, else all six")};
}

}  // namespace llmecon
