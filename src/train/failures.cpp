// Checkpoints and failures (docs/model.md §24.5) and the checks a layout must pass (§24.1).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "internal.hpp"
#include "layout_eval.hpp"
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

// ---- model.md §24.4-24.5: one layout's whole run ----

namespace train_internal {

bool LayoutEval::progresses() {
  // §24.5: checkpoints and failures, which depend on the chips and the model, not the layout.
  TrainRun& run = r.run;
  run.checkpoint_bytes = units::bytes(tot.params_total * (kWeightBytes + ob));
  const FailureModel& fm = s.failures;
  if (fm.storage_bandwidth.si() > 0) run.checkpoint_write = run.checkpoint_bytes / fm.storage_bandwidth;
  if (fm.failures_per_gpu_hour > 0) {
    run.mtbf = units::hours(1.0 / (fm.failures_per_gpu_hour * chips));
    run.checkpoint_interval = fm.interval.value_or(young_daly_interval(run.checkpoint_write, run.mtbf));
  } else {
    run.checkpoint_interval = fm.interval.value_or(Seconds{});
  }
  run.goodput = training_goodput(run.checkpoint_write, run.checkpoint_interval, fm.restart, run.mtbf);
  if (!std::isfinite(run.goodput) || run.goodput <= 0) {
    r.reason = fmt::format(
        "failures outrun checkpoints and restarts, no progress (a failure every {}, checkpoints "
        "of {}, restarts of {})",
        format(run.mtbf), format(run.checkpoint_write), format(fm.restart));
    r.issue = "failures";
    return false;
  }
  return true;
}

bool LayoutEval::whole_run() {
  // §24.4-24.5 the whole run.
  const TrainTime& t = r.time;
  TrainRun& run = r.run;
  run.steps = s.tokens > 0 ? std::ceil(s.tokens / tokens_step) : 1.0;
  run.useful = t.step * run.steps;
  if (!progresses()) return false;
  const FailureModel& fm = s.failures;
  run.wall = run.useful / run.goodput;
  run.failures = run.mtbf.si() > 0 ? run.wall / run.mtbf : 0.0;
  run.gpu_hours = run.wall.si() * chips / 3600.0;
  run.usd = s.price * run.wall * chips;
  // model.md §25.6: the board busy at the step's HFU (HBM use is not modelled in training).
  const Watts board = board_power(hw, s.power, r.hfu, 0.0);
  const Watts facility = facility_power(s.power, board);
  run.energy = facility * run.wall * chips;
  run.energy_usd = units::usd(run.energy.si() / 3.6e6 * s.usd_per_kwh);
  if (s.tokens > 0) {
    if (explaining)
      say(fmt::format("steps = {} tokens / ({} x {}) = {}; useful time {}", num(s.tokens), num(s.global_batch),
                      num(seq), num(run.steps), format(run.useful)));
  }
  if (run.mtbf.si() > 0) {
    if (explaining)
      say(fmt::format(
          "MTBF = 1 / ({} per GPU-hour x {} GPUs) = {}; checkpoint {} / {} = {}; interval sqrt(2 x {} x {}) "
          "= {} (Young-Daly); goodput = 1/(1 + {}/{}) x (1 - ({} + {}/2)/{}) = {:.3f} (§24.5)",
          num(fm.failures_per_gpu_hour), num(chips), format(run.mtbf), format(run.checkpoint_bytes),
          format(fm.storage_bandwidth), format(run.checkpoint_write), format(run.checkpoint_write), format(run.mtbf),
          format(run.checkpoint_interval), format(run.checkpoint_write), format(run.checkpoint_interval),
          format(fm.restart), format(run.checkpoint_interval), format(run.mtbf), run.goodput));
  }
  if (explaining)
    say(
        fmt::format("wall = {} / {:.3f} = {} ({} days); GPU-hours {}; $ = {} x {} chips x wall = {} (§24.4); power = "
                    "(board {} at HFU {:.3f} + host {} x {}) x PUE {} = {} per GPU; energy {} x {} x wall = {} MWh "
                    "(§25.6)",
                    format(run.useful), run.goodput, format(run.wall), num(run.wall.si() / 86400), num(run.gpu_hours),
                    format(s.price), num(chips), format(run.usd), format(board), r.hfu, format(s.power.host),
                    num(s.power.host_load), num(s.power.pue), format(facility), format(facility), num(chips),
                    num(run.energy.si() / 3.6e9)));
  return fits();
}

bool LayoutEval::fits() {
  const HostTier* host = tier;
  if (offloaded > 0 && host == nullptr) {
    r.reason = fmt::format("{} has no host memory tier to offload activations to", hw.name);
    r.issue = "offload_modules";
    return false;
  }
  if (host_opt > 0 && host == nullptr) {
    r.reason = fmt::format("{} has no host memory tier to offload the optimizer to", hw.name);
    r.issue = "offload_optimizer_states";
    return false;
  }
  if ((offloaded > 0 || host_opt > 0) && r.memory.host > host->capacity) {
    r.reason = fmt::format(
        "offloaded {} need {} of host memory per GPU, {} there ({})",
        host_opt > 0 ? (offloaded > 0 ? "activations and optimizer states" : "optimizer states") : "activations",
        format(r.memory.host), format(host->capacity), host->name);
    r.issue = host_opt > 0 ? "offload_optimizer_states" : "offload_modules";
    return false;
  }
  if (r.memory.total() > r.memory.capacity) {
    r.reason = fmt::format("needs {} per GPU, {} usable", format(r.memory.total()), format(r.memory.capacity));
    r.issue = "memory";
    return false;
  }
  return true;
}

}  // namespace train_internal

}  // namespace llmecon
