// The one rule for unstated parallel degrees (layout.hpp, model.md §17.5).
#include "scenario/layout.hpp"

#include <algorithm>
#include <cmath>

#include "plan/plan.hpp"

namespace llmecon {

Mapping fill_stated(const ModelSpec& model, int chips, const Mapping& stated) {
  const Mapping& s = stated;
  Mapping m{std::max(1, s.tp), std::max(1, s.dp_attn), std::max(1, s.ep),
            std::max(1, s.cp), std::max(1, s.pp),      std::max(1, s.dp)};
  // The data-parallel degree takes the chips the others leave: attention DP inside the EP group
  // when EP is stated (model.md §17.1), else the replicas.
  const bool attention = model.is_moe() && s.ep > 1 && s.dp_attn == 0;
  if (attention || s.dp == 0) {
    int& fill = attention ? m.dp_attn : m.dp;
    if (chips % m.chips() == 0) fill = chips / m.chips();
  }
  return m;
}

std::optional<LayoutChoice> complete_layout(const DeploymentInput& in, int chips, const Mapping& stated,
                                            const LayoutLoad& load) {
  const Mapping& s = stated;
  if (s.tp > 0 && s.dp_attn > 0 && s.ep > 0 && s.cp > 0 && s.pp > 0 && s.dp > 0) return LayoutChoice{s, false, 0};
  const bool moe = in.model->is_moe();
  if ((s.tp > 0 || s.pp > 0 || s.cp > 0 || s.dp > 0) && !(moe && s.ep > 0 && s.tp == 0)) {
    const Mapping m = fill_stated(*in.model, chips, s);
    if (m.chips() == chips && !validate(m, *in.model, chips)) return LayoutChoice{m, false, 0};
  }
  for (double want = load.batch; want >= 1; want = want > 1 ? std::floor(want / 2) : 0) {
    if (auto best = infer_mapping(in, chips, s, want, load.context, load.prompt)) {
      return LayoutChoice{*best, true, want};
    }
  }
  return std::nullopt;
}

}  // namespace llmecon
