// The `measure` command's arguments (measure_args.hpp).
#include "measure/measure_args.hpp"

#include "args/arg_builders.hpp"

namespace llmecon {

using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
using T = ArgType;

std::vector<ArgSpec> measure_arguments() {
  return {flag("decode", "also run the synthetic decode sweep"),
          flag("quick", "a small, fast version (used by the tests)"),
          with_text(bounded(arg("d_model", T::kInteger, "decode: model width"), 64, 65536), "2048 (1024 with --quick)"),
          with_text(bounded(arg("layers", T::kInteger, "decode: layers"), 1, 1024), "4 (2 to 8 with --quick)"),
          integer("threads", "threads (0: all)", "", 0, 0, 1024)};
}

}  // namespace llmecon
