// Checkpoints and failures (docs/model.md §24.5) and the checks a layout must pass (§24.1).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "internal.hpp"
#include "train/train.hpp"

namespace llmecon {

using train_internal::d;
using train_internal::num;

// ---- model.md §24.5: failures ----

Seconds young_daly_interval(Seconds checkpoint_write, Seconds mtbf) {
  return units::seconds(std::sqrt(2.0 * checkpoint_write.si() * mtbf.si()));
}

double training_goodput(Seconds checkpoint_write, Seconds interval, Seconds restart, Seconds mtbf) {
  const double tau = interval.si(), delta = checkpoint_write.si();
  const double saving = tau > 0 ? 1.0 / (1.0 + delta / tau) : 1.0;
  if (mtbf.si() <= 0) return saving;  // no failures
  // Each failure loses half an interval of work on average, plus the restart.
  const double lost = (restart.si() + tau / 2.0) / mtbf.si();
  return std::clamp(saving * (1.0 - lost), 0.0, 1.0);
}

// ---- model.md §24.1: layout checks ----

std::optional<LayoutIssue> check_layout(const TrainSetup& s, const TrainLayout& l, int chips) {
  const ModelSpec& m = *s.model;
  if (l.tp < 1 || l.pp < 1 || l.ep < 1 || l.cp < 1 || l.dp < 1)
    return LayoutIssue{"chips", "every degree must be at least 1"};
  if (l.chips() != chips) {
    return LayoutIssue{"chips", fmt::format("tp x pp x cp x dp = {} x {} x {} x {} = {} chips, not {}", l.tp, l.pp,
                                            l.cp, l.dp, l.chips(), chips)};
  }
  if (m.attn.heads % l.tp != 0)
    return LayoutIssue{"tp", fmt::format("{} attention heads do not split over tp {}", m.attn.heads, l.tp)};
  if (l.pp > m.n_layers())
    return LayoutIssue{"pp", fmt::format("{} layers cannot fill {} pipeline stages", m.n_layers(), l.pp)};
  if (l.ep > 1) {
    if (!m.is_moe()) return LayoutIssue{"ep", fmt::format("ep {} needs routed experts; {} is dense", l.ep, m.name)};
    if (m.moe.experts % l.ep != 0)
      return LayoutIssue{"ep", fmt::format("{} experts do not split over ep {}", m.moe.experts, l.ep)};
    if ((l.tp * l.cp * l.dp) % l.ep != 0)
      return LayoutIssue{
          "ep", fmt::format("ep {} must divide the tp x cp x dp = {} chips of a stage", l.ep, l.tp * l.cp * l.dp)};
  }
  if (std::fmod(s.seq_len, d(l.cp)) != 0)
    return LayoutIssue{"cp", fmt::format("seq_len {} does not split over cp {}", num(s.seq_len), l.cp)};
  if (l.zero < 0 || l.zero > 3) return LayoutIssue{"zero", "zero stage must be 0, 1, 2 or 3"};
  if (l.micro_batch < 1 || std::floor(l.micro_batch) != l.micro_batch)
    return LayoutIssue{"micro_batch", "micro_batch must be a whole number"};
  const double per_step = l.micro_batch * d(l.dp);
  if (std::fmod(s.global_batch, per_step) != 0) {
    return LayoutIssue{"global_batch", fmt::format("global batch {} is not a multiple of micro_batch x dp = {} x {}",
                                                   num(s.global_batch), num(l.micro_batch), l.dp)};
  }
  const double micro = s.global_batch / per_step;
  if (l.schedule == PipeSchedule::kInterleaved) {
    if (l.chunks < 2) return LayoutIssue{"chunks", "the interleaved schedule needs at least 2 chunks per stage"};
    if (l.pp < 2) return LayoutIssue{"pp", "the interleaved schedule needs at least 2 pipeline stages"};
    if (m.n_layers() < l.pp * l.chunks)
      return LayoutIssue{"chunks",
                         fmt::format("{} layers cannot fill {} stages x {} chunks", m.n_layers(), l.pp, l.chunks)};
    if (std::fmod(micro, d(l.pp)) != 0)
      return LayoutIssue{"global_batch",
                         fmt::format("interleaving needs a multiple of pp micro-batches per data-parallel "
                                     "rank ({} for pp {})",
                                     num(micro), l.pp)};
  }
  if (l.schedule == PipeSchedule::kDualPipe) {
    if (l.pp < 2 || l.pp % 2 != 0) return LayoutIssue{"pp", "DualPipe needs an even number of pipeline stages"};
    if (micro < 2 * l.pp)
      return LayoutIssue{"global_batch",
                         fmt::format("DualPipe needs at least twice pp micro-batches per data-parallel rank "
                                     "({} of {} for pp {})",
                                     num(micro), 2 * l.pp, l.pp)};
  }
  return std::nullopt;
}

}  // namespace llmecon
