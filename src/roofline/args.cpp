// The roofline, sweep and report commands' arguments (roofline_args.hpp).
#include "roofline/roofline_args.hpp"

#include "args/arg_builders.hpp"
#include "ops/ops.hpp"

namespace llmecon {

std::vector<ArgSpec> roofline_arguments(bool lists) {
  using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
  using T = ArgType;
  std::vector<ArgSpec> a{model(), hw(), chips(), choice("phase", "decode or prefill", names_in(kPhaseNames))};
  if (lists) {
    a.push_back(short_flag(
        unit(with_default(bounded(arg("batch", T::kIntegerList, "batch sizes: 1,8,64 or 1:4096:x2"), 1, kMaxSequences),
                          Json::array({1})),
             "seq"),
        "-b"));
    a.push_back(short_flag(
        unit(with_default(bounded(arg("context", T::kIntegerList, "context lengths: 1024,8192 or 1024:131072:x2"), 0,
                                  kMaxTokens),
                          Json::array({4096})),
             "tok"),
        "-c"));
  } else {
    a.push_back(short_flag(integer("batch", "sequences per step", "seq", 1, 1, kMaxSequences), "-b"));
    a.push_back(short_flag(integer("context", "tokens of context", "tok", 4096, 0, kMaxTokens), "-c"));
  }
  a.push_back(with_text(
      unit(bounded(arg("chunk", T::kInteger, "prefill: tokens processed in this pass"), 1, kMaxTokens), "tok"),
      "the whole context"));
  for (auto& f : formats()) a.push_back(std::move(f));
  a.push_back(choice("expert_touch", "routed experts read per step: expected or all", names_in(kExpertTouchNames)));
  a.push_back(serving_engine());
  for (auto& p : pricing()) a.push_back(std::move(p));
  a.push_back(ideal());
  return a;
}

}  // namespace llmecon
