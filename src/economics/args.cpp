// The blackboard analyses' arguments (economics_args.hpp).
#include "economics/economics_args.hpp"

#include "args/arg_builders.hpp"

namespace llmecon {

using namespace argspec;  // NOLINT(google-build-using-namespace): the builders read as a table
using T = ArgType;

namespace {

// One domain of one chip: the model, the chip, how many of it, the formats, then the analysis's own.
std::vector<ArgSpec> board(std::vector<ArgSpec> own) {
  std::vector<ArgSpec> a{model(), hw(), chips("the whole scale-up domain (at most that)")};
  for (auto& f : formats()) a.push_back(std::move(f));
  for (auto& o : own) a.push_back(std::move(o));
  a.push_back(explain());
  return a;
}

// --batch, defaulting to 2.5 B* (the practical batch, model.md §7).
ArgSpec practical_batch(const char* help) {
  return with_text(unit(bounded(arg("batch", T::kNumber, help), 1, kMaxSequences), "seq"), "2.5 B*");
}

}  // namespace

std::vector<ArgSpec> batch_arguments() {
  return board(priced(
      {short_flag(number("context", "tokens of context (0: the lecture's B* without KV)", "tok", 0, 0, kMaxTokens),
                  "-c"),
       number("price_multiple", "fast mode: price multiple (fast mode runs when either multiple is given)", "x", 6, 1,
              kMaxFactor),
       number("speed_multiple", "fast mode: speed multiple", "x", 2.5, 1, kMaxFactor)}));
}

std::vector<ArgSpec> step_arguments() {
  return board({short_flag(practical_batch("sequences per step"), "-b"),
                short_flag(number("context", "tokens of context", "tok", 0, 0, kMaxTokens), "-c"),
                number("provider_tokens_per_s", "a provider's traffic to size for", "tok/s", 5e8, 1, kMaxRate)});
}

std::vector<ArgSpec> context_arguments() {
  return board(priced({short_flag(practical_batch("sequences per step"), "-b"),
                       number("knee", "a pricing knee, to infer KV bytes per token (0: none)", "tok", 0, 0, kMaxTokens),
                       integer("topk", "top-k sparse attention: tokens read", "tok", 2048, 1, kMaxTokens),
                       number("index_bytes", "top-k indexer key bytes per token", "B/tok", 128, 0, 1e9),
                       integer("sqrt_block", "block size of sqrt(context) attention", "tok", 64, 1, kMaxTokens)}));
}

std::vector<ArgSpec> price_arguments() {
  return board(priced(
      {short_flag(number("context", "prompt length", "tok", 8192, 1, kMaxTokens), "-c"),
       short_flag(practical_batch("decode batch"), "-b"),
       with_text(
           arg("sheet", T::kString, "price sheet to invert: claude-opus-4.6, gemini-3.1-pro, or one from --price-file"),
           "none"),
       with_text(
           unit(bounded(arg("n_active", T::kNumber, "active parameters assumed for the inverse"), 1, 1e15), "param"),
           "the model's")}));
}

std::vector<ArgSpec> layout_arguments() {
  return board(
      {short_flag(number("context", "tokens of context", "tok", 8192, 0, kMaxTokens), "-c"),
       with_text(unit(bounded(arg("micro_batch", T::kNumber, "sequences per pipeline stage"), 1, kMaxSequences), "seq"),
                 "B*"),
       integer("racks", "racks one MoE layer spans", "rack", 2, 1, 1e5),
       integer("stages", "pipeline stages", "stage", 4, 1, 1e5),
       integer("layers_per_stage", "layers per stage", "layer", 1, 1, 1e5),
       number("hop_ms", "rack-to-rack hop latency", "ms", 2, 0, kMaxMs)});
}

std::vector<ArgSpec> cache_arguments() {
  ArgSpec hold = with_default(
      capped(unit(bounded(arg("hold_s", T::kNumberList, "hold times: 300,3600 or 1:86400:x10"), 1e-3, 1e10), "s"),
             10000),
      Json::array({1, 10, 60, 300, 1800, 3600, 21600, 86400}));
  return board(priced({hold}));
}

std::vector<ArgSpec> lifecycle_arguments() {
  ArgSpec m = model(nullptr);
  m.help = "take the active parameters from this model";
  m.def_text = "none: --n-active";
  return {m,
          with_text(unit(bounded(arg("n_active", T::kNumber, "active parameters"), 1, 1e15), "param"),
                    "the model's, else 1e11"),
          number("traffic_tokens_per_s", "inference traffic", "tok/s", 5e8, 1, kMaxRate),
          number("lifetime_days", "deployment lifetime", "day", 60, 0.01, 1e5),
          number("models", "models sharing the traffic", "", 10, 1, kMaxFactor),
          number("rl_multiplier", "FLOPs per parameter per RL token: 2 (rollouts only) to 6 (train on all) (F25)",
                 "FLOP/param", 3, 2, 6),
          number("rl_inefficiency", "1 / RL MFU", "x", 3, 1, kMaxFactor),
          number("inference_inefficiency", "1 / inference MFU", "x", 3, 1, kMaxFactor),
          choice("policy", "the compute split: thirds or half", {"thirds", "half"}),
          explain()};
}

std::vector<ArgSpec> revnet_arguments() {
  return {model(), short_flag(integer("batch", "sequences", "seq", 8, 1, kMaxSequences), "-b"),
          integer("seq_len", "tokens per sequence", "tok", 4096, 1, kMaxTokens),
          with_default(dtype("act_dtype", "activation format", ""), "bf16"), explain()};
}

}  // namespace llmecon
