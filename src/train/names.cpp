// The layout's names: recomputation, its modules, offloading and pipeline schedules, read and
// written (docs/model.md §24).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "internal.hpp"
#include "train/train.hpp"

namespace llmecon {

using train_internal::num;

namespace {
constexpr std::pair<unsigned, std::string_view> kModuleNames[] = {
    {kRecomputeCoreAttn, "core_attn"},
    {kRecomputeLayernorm, "layernorm"},
    {kRecomputeMoeAct, "moe_act"},
    {kRecomputeMlaUpProj, "mla_up_proj"},
    {kRecomputeMlp, "mlp"},
    {kRecomputeSharedExperts, "shared_experts"},
    {kRecomputeMoe, "moe"},
};
constexpr std::pair<unsigned, std::string_view> kOffloadNames[] = {
    {kOffloadCoreAttn, "core_attn"},
    {kOffloadAttnProj, "attn_proj"},
    {kOffloadExpertFc1, "expert_fc1"},
    {kOffloadMoeAct, "moe_act"},
};

// Megatron's module names joined by '+', and read back from ',' or '+' separated lists.
template <std::size_t N>
std::string module_names(unsigned modules, const std::pair<unsigned, std::string_view> (&names)[N]) {
  std::string s;
  for (const auto& [bit, n] : names) {
    if ((modules & bit) == 0) continue;
    if (!s.empty()) s += '+';
    s += n;
  }
  return s;
}
template <std::size_t N>
std::optional<unsigned> parse_module_names(std::string_view s,
                                           const std::pair<unsigned, std::string_view> (&names)[N]) {
  if (s == "none") return 0U;
  unsigned out = 0;
  while (!s.empty()) {
    const std::size_t cut = s.find_first_of(",+");
    std::string_view part = s.substr(0, cut);
    s = cut == std::string_view::npos ? std::string_view{} : s.substr(cut + 1);
    while (!part.empty() && part.front() == ' ') part.remove_prefix(1);
    while (!part.empty() && part.back() == ' ') part.remove_suffix(1);
    if (part.empty()) continue;
    unsigned bit = 0;
    for (const auto& [b, n] : names)
      if (part == n) bit = b;
    if (bit == 0) return std::nullopt;
    out |= bit;
  }
  return out;
}
}  // namespace

std::string recompute_modules_name(unsigned modules) {
  return module_names(modules, kModuleNames);
}
std::optional<unsigned> parse_recompute_modules(std::string_view s) {
  return parse_module_names(s, kModuleNames);
}

std::string offload_modules_name(unsigned modules) {
  return module_names(modules, kOffloadNames);
}
std::optional<unsigned> parse_offload_modules(std::string_view s) {
  return parse_module_names(s, kOffloadNames);
}

unsigned applicable_modules(const ModelSpec& m, unsigned modules) {
  bool dense = false;
  for (const Layer& l : m.layers) dense = dense || (!l.moe && l.dense_ffn > 0);
  if (m.attn.kind != AttentionKind::kMla) modules &= ~kRecomputeMlaUpProj;
  // Only MLA's input norm and MoE layers' pre-MLP norms stand alone (model.md §24.2).
  if (m.attn.kind != AttentionKind::kMla && !m.is_moe()) modules &= ~kRecomputeLayernorm;
  if (!m.is_moe()) modules &= ~(kRecomputeMoeAct | kRecomputeMoe);
  if (!m.is_moe() || m.moe.shared_ffn <= 0) modules &= ~kRecomputeSharedExperts;
  if (!dense) modules &= ~kRecomputeMlp;
  return modules & kRecomputeAllModules;
}

std::string TrainLayout::recompute_label() const {
  if (recompute != Recompute::kSelective || modules == kRecomputeCoreAttn) return std::string(name(recompute));
  return fmt::format("selective({})", modules == 0 ? "nothing" : recompute_modules_name(modules));
}

std::string TrainLayout::str() const {
  std::string s = fmt::format("tp{} pp{}", tp, pp);
  if (ep > 1) s += fmt::format(" ep{}", ep);
  if (cp > 1) s += fmt::format(" cp{}", cp);
  s += fmt::format(" dp{} zero{} {} {}", dp, zero, recompute_label(), name(schedule));
  if (schedule == PipeSchedule::kInterleaved) s += fmt::format("x{}", chunks);
  s += fmt::format(" mb{}", num(micro_batch));
  return s;
}

}  // namespace llmecon
