// The layout search (docs/model.md §24.6).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <iterator>
#include <map>
#include <optional>
#include <tuple>

#include "internal.hpp"
#include "train/train.hpp"

namespace llmecon {

using train_internal::d;

// ---- model.md §24.6: search ----

std::vector<std::pair<Recompute, unsigned>> recompute_choices(const ModelSpec& m, const TrainSearchSpace& space) {
  std::vector<std::pair<Recompute, unsigned>> out;
  auto add = [&out](Recompute rc, unsigned mods) {
    const std::pair<Recompute, unsigned> x{rc, mods};
    if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
  };
  for (Recompute rc : space.recompute) {
    if (rc != Recompute::kSelective) {
      add(rc, kRecomputeCoreAttn);
      continue;
    }
    for (unsigned set : space.module_sets) {
      // A set the model has none of (the light set on a dense model without MLA) recomputes
      // nothing: that is no recomputation, tried once.
      const unsigned mods = applicable_modules(m, set);
      if (mods == 0) {
        add(Recompute::kNone, kRecomputeCoreAttn);
      } else {
        add(rc, mods);
      }
    }
  }
  return out;
}

TrainSearchSpace stack_space(TrainStack stack) {
  TrainSearchSpace x;
  x.stack = stack;
  if (stack == TrainStack::kAny) {
    x.whole_share = true;
    return x;
  }
  if (stack == TrainStack::kMegatron) {
    x.schedules = {PipeSchedule::k1F1B, PipeSchedule::kInterleaved};
    x.whole_share = true;
    return x;
  }
  x.zero = {3};
  x.accumulate = false;
  x.schedules = {PipeSchedule::k1F1B};
  switch (stack) {
    case TrainStack::kMaxText:
      x.max_pp = 1;
      x.max_cp = 1;
      break;
    case TrainStack::kTorchTitan:
      x.schedules = {PipeSchedule::k1F1B, PipeSchedule::kInterleaved, PipeSchedule::kZeroBubble};
      break;
    case TrainStack::kLlmFoundry:
      x.max_tp = 1;
      x.max_pp = 1;
      x.max_cp = 1;
      break;
    case TrainStack::kAny:
    case TrainStack::kMegatron:
      break;
  }
  return x;
}

namespace {
// Whether a stack's space (its own, unnarrowed) holds the layout.
bool space_runs(const TrainSearchSpace& x, const TrainLayout& l, double global_batch) {
  if (x.stack == TrainStack::kAny) return true;
  const auto has = [](const auto& v, const auto& e) { return std::find(v.begin(), v.end(), e) != v.end(); };
  if (!has(x.zero, l.zero) || !has(x.schedules, l.schedule)) return false;
  if ((x.max_tp > 0 && l.tp > x.max_tp) || l.cp > x.max_cp || (x.max_pp > 0 && l.pp > x.max_pp)) return false;
  if (!x.accumulate && l.micro_batch * d(l.dp) != global_batch) return false;
  // Megatron-Core shards past the optimizer (Megatron-FSDP) only without a pipeline.
  return x.stack != TrainStack::kMegatron || l.pp == 1 || l.zero <= 1;
}
}  // namespace

bool stack_runs(TrainStack stack, const TrainLayout& l, double global_batch) {
  return space_runs(stack_space(stack), l, global_batch);
}

namespace {
// The model chunks per stage a schedule is tried with at pp stages: 1, or for the interleaved
// schedule each count from 2 to 8 that divides a stage's layers; none for a schedule other than
// 1F1B without a pipeline.
std::vector<int> chunk_options(const ModelSpec& m, int pp, PipeSchedule sch) {
  if (pp == 1 && sch != PipeSchedule::k1F1B) return {};
  if (sch != PipeSchedule::kInterleaved) return {1};
  std::vector<int> out;
  const int per_stage = m.n_layers() / pp;
  for (int v = 2; v <= std::min(per_stage, 8); ++v)
    if (per_stage % v == 0) out.push_back(v);
  return out;
}

// The layouts the search's loops visit, before the filters inside them: each shape's expert
// degrees, micro-batches, schedules (interleaving's chunk counts), ZeRO stages and recomputation.
double candidate_layouts(const ModelSpec& m, const std::vector<std::tuple<int, int, int>>& shapes, int chips,
                         const std::vector<int>& eps, const TrainSearchSpace& space, std::size_t recomputes) {
  const double mbs = space.accumulate ? d(static_cast<int>(space.micro_batches.size())) + 1.0 : 1.0;
  double n = 0;
  for (const auto& [tp, cp, pp] : shapes) {
    const int dp = chips / (tp * cp * pp);
    double ep_count = 0;
    for (const int ep : eps) ep_count += (tp * cp * dp) % ep == 0 ? 1 : 0;
    double schedules = 0;
    for (const PipeSchedule sch : space.schedules) schedules += d(static_cast<int>(chunk_options(m, pp, sch).size()));
    n += ep_count * mbs * schedules * d(static_cast<int>(space.zero.size())) * d(static_cast<int>(recomputes));
  }
  return n;
}

// The degrees the search tries: tensor parallelism up to the domain (dividing the heads), context
// parallelism in whole slices of 1024 tokens or more, and expert parallelism dividing the experts.
struct SearchDegrees {
  std::vector<int> tps, cps, eps{1};
};
SearchDegrees search_degrees(const TrainSetup& s, int chips, const TrainSearchSpace& space) {
  const ModelSpec& m = *s.model;
  const int max_tp = space.max_tp > 0 ? space.max_tp : s.hw->domain_size;
  SearchDegrees g;
  for (int t = 1; t <= std::min(max_tp, chips); t *= 2)
    if (m.attn.heads % t == 0) g.tps.push_back(t);
  for (int c = 1; c <= space.max_cp && c <= chips; c *= 2)
    // Without context parallelism any length trains; a split needs whole slices of 1024 or more.
    if (c == 1 || (std::fmod(s.seq_len, d(c)) == 0 && s.seq_len / d(c) >= 1024)) g.cps.push_back(c);
  if (m.is_moe()) {
    for (int e = 2; e <= std::min(m.moe.experts, chips); e *= 2)
      if (m.moe.experts % e == 0) g.eps.push_back(e);
  }
  return g;
}

// The (tp, cp, pp) shapes whose product divides the chips, the outer loops of the search.
std::vector<std::tuple<int, int, int>> search_shapes(const ModelSpec& m, int chips, const SearchDegrees& g,
                                                     const TrainSearchSpace& space) {
  std::vector<std::tuple<int, int, int>> shapes;
  for (int tp : g.tps)
    for (int cp : g.cps) {
      if (chips % (tp * cp) != 0) continue;
      const int rest = chips / (tp * cp);
      const int pp_cap = space.max_pp > 0 ? std::min(space.max_pp, m.n_layers()) : m.n_layers();
      for (int pp = 1; pp <= std::min(rest, pp_cap); ++pp)
        if (rest % pp == 0) shapes.emplace_back(tp, cp, pp);
    }
  return shapes;
}

// A replica's micro-batches: without accumulation its whole share of the batch; with it, the
// space's sizes and the whole share when the space asks for it.
std::vector<double> micro_batch_options(const TrainSetup& s, const TrainSearchSpace& space, int dp) {
  std::vector<double> mbs{s.global_batch / d(dp)};
  if (space.accumulate) {
    mbs = space.micro_batches;
    const double share = s.global_batch / d(dp);
    if (space.whole_share && std::floor(share) == share && std::find(mbs.begin(), mbs.end(), share) == mbs.end()) {
      mbs.push_back(share);
    }
  }
  return mbs;
}

// A feasible layout with what ranks it; the kept ones are evaluated again at the end, so the
// search holds no result it does not return.
struct Ranked {
  double score, memory, headroom;
  TrainLayout layout;
};

// The search's answer from its feasible layouts: ranked, the frontier of step time against
// memory headroom, each named stack's best, and the rejections by reason.
void rank_found(const TrainSetup& s, std::vector<Ranked>& feasible,
                const std::array<std::optional<Ranked>, std::size(kNamedStacks)>& best,
                const std::map<std::pair<std::string, std::string>, int>& rejected, std::size_t keep,
                train_internal::SearchCache& passes, TrainSearch& out) {
  std::stable_sort(feasible.begin(), feasible.end(), [](const Ranked& a, const Ranked& b) {
    if (a.score != b.score) return a.score < b.score;
    return a.memory < b.memory;
  });
  double best_headroom = -1;
  for (const Ranked& k : feasible) {
    if (k.headroom > best_headroom) {
      out.frontier.push_back(train_internal::evaluate_layout(s, k.layout, false, &passes));
      best_headroom = k.headroom;
    }
  }
  const std::size_t kept = std::min(keep, feasible.size());
  out.ranked.reserve(kept);
  for (std::size_t i = 0; i < kept; ++i)
    out.ranked.push_back(train_internal::evaluate_layout(s, feasible[i].layout, false, &passes));
  for (std::size_t i = 0; i < best.size(); ++i) {
    if (best[i]) {
      out.per_stack.emplace_back(kNamedStacks[i], train_internal::evaluate_layout(s, best[i]->layout, false, &passes));
    }
  }
  for (const auto& [k, n] : rejected) out.rejected.push_back({k.first, k.second, n});
  std::stable_sort(out.rejected.begin(), out.rejected.end(),
                   [](const auto& a, const auto& b) { return a.count > b.count; });
}
}  // namespace

TrainSearch search_training(const TrainSetup& s, int chips, TrainObjective objective, const TrainSearchSpace& space,
                            std::size_t keep, const std::function<void(double, double)>& progress) {
  const ModelSpec& m = *s.model;
  const SearchDegrees degrees = search_degrees(s, chips, space);
  const std::vector<int>& eps = degrees.eps;
  const std::vector<std::pair<Recompute, unsigned>> recomputes = recompute_choices(m, space);
  std::map<std::pair<std::string, std::string>, int> rejected;  // (reason class, issue) -> count
  TrainSearch out;
  auto score = [objective](const TrainResult& r) {
    return objective == TrainObjective::kCost ? r.run.usd.si() : r.run.wall.si();
  };
  std::vector<Ranked> feasible;
  std::array<std::optional<Ranked>, std::size(kNamedStacks)> best;  // the fastest each named stack runs
  std::array<TrainSearchSpace, std::size(kNamedStacks)> named;
  for (std::size_t i = 0; i < named.size(); ++i) named[i] = stack_space(kNamedStacks[i]);
  const TrainSearchSpace own = stack_space(space.stack);
  train_internal::SearchCache passes{train_internal::model_totals(m, s.seq_len), {}, {}};
  // Outer loops first, to report progress.
  const std::vector<std::tuple<int, int, int>> shapes = search_shapes(m, chips, degrees, space);
  for (const auto& [tp, cp, pp] : shapes) out.dp_degrees.push_back(chips / (tp * cp * pp));
  const double candidates = candidate_layouts(m, shapes, chips, eps, space, recomputes.size());
  if (candidates > space.max_layouts) {
    out.over_cap = candidates;
    out.cap = space.max_layouts;
    return out;
  }
  std::sort(out.dp_degrees.begin(), out.dp_degrees.end());
  out.dp_degrees.erase(std::unique(out.dp_degrees.begin(), out.dp_degrees.end()), out.dp_degrees.end());
  double done = 0;
  for (const auto& [tp, cp, pp] : shapes) {
    if (progress) progress(done, d(static_cast<int>(shapes.size())));
    done += 1;
    const int dp = chips / (tp * cp * pp);
    for (int ep : eps) {
      if ((tp * cp * dp) % ep != 0) continue;
      for (double mb : micro_batch_options(s, space, dp)) {
        if (mb < 1 || std::floor(mb) != mb || std::fmod(s.global_batch, mb * d(dp)) != 0) {
          rejected[{"global batch not a multiple of micro-batch x dp", "global_batch"}]++;
          continue;
        }
        for (PipeSchedule sch : space.schedules) {
          for (int v : chunk_options(m, pp, sch)) {
            for (int z : space.zero) {
              for (const auto& [rc, mods] : recomputes) {
                TrainLayout l{tp, pp, ep, cp, dp, z, rc, sch, v, mb, mods};
                if (!space_runs(own, l, s.global_batch)) continue;
                ++out.evaluated;
                TrainResult r = train_internal::evaluate_layout(s, l, false, &passes);
                if (!r.feasible) {
                  // One class per reason with its figures left out ("memory" for every memory total).
                  std::string kind =
                      r.issue == "memory" ? "memory" : r.reason.substr(0, r.reason.find_first_of("0123456789("));
                  while (!kind.empty() && (kind.back() == ' ' || kind.back() == ':')) kind.pop_back();
                  rejected[{kind, r.issue}]++;
                  continue;
                }
                const Ranked k{score(r), r.memory.total().si(), (r.memory.capacity - r.memory.total()).si(), l};
                for (std::size_t i = 0; i < std::size(kNamedStacks); ++i) {
                  // A stack's own search reports that stack alone: the others' spaces are not searched.
                  if (space.stack != TrainStack::kAny && kNamedStacks[i] != space.stack) continue;
                  if (space_runs(named[i], l, s.global_batch) && (!best[i] || k.score < best[i]->score)) {
                    best[i] = k;
                  }
                }
                feasible.push_back(k);
              }
            }
          }
        }
      }
    }
  }
  if (progress) progress(done, done);
  rank_found(s, feasible, best, rejected, keep, passes, out);
  return out;
}

Error layouts_over_cap(const TrainSearch& found, int chips) {
  return Error{"--chips", "",
               fmt::format("a search of {} chips would hold {} candidate layouts, over the cap of {}", chips,
                           format_number(found.over_cap), format_number(found.cap)),
               "state the layout (--tp, --pp, --cp, --ep, --zero, --schedule, --micro-batch) instead of searching, or "
               "search fewer chips"};
}

}  // namespace llmecon
