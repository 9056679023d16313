// The simulator's paged KV memory: blocks, the prefix cache, host tiers and preemption
// (docs/model.md §23.3).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim.hpp"

namespace llmecon::sim_internal {

// ---- KV memory: the requests' side of each replica's KvCache (kv_cache.hpp) ----

bool Sim::grow_blocks(Replica& rep, Request& q, int context) {
  const int need = blocks_for(std::max(0, context - q.shared)) - q.blocks;
  if (need <= 0) return true;
  if (!rep.kv.reserve(need)) return false;
  q.blocks += need;
  return true;
}

void Sim::release(Replica& rep, Request& q) {
  rep.kv.free(q.blocks);
  q.blocks = 0;
  if (q.pinned > 0) rep.kv.unpin(chain(q), q.pinned);
  q.pinned = 0;
  q.shared = 0;
}

void Sim::lookup_prefix(Replica& rep, Request& q) {
  if (!c_.scheduler.prefix_caching) return;
  const KvCache::Match m = rep.kv.pin_prefix(chain(q), [&](int blocks) {
    // A hit in the host tier: loaded back at the tier's bandwidth, across the replica's chips.
    rep.extra_s += blocks * block_bytes_ / (tier_->bandwidth.si() * static_cast<double>(rep.in->map.replica_chips()));
  });
  q.pinned = m.pinned;
  q.shared = m.tokens;
  // At least the last prompt token is computed: it yields the next token.
  q.done = std::min(m.tokens, q.prompt - 1);
}

void Sim::insert_prefix(Replica& rep, Request& q) {
  if (!c_.scheduler.prefix_caching || c_.scheduler.kind == SchedulerKind::kStatic) return;
  KvCache::Holder h{q.pinned, q.blocks, q.shared};
  rep.kv.insert(chain(q), h);
  q.pinned = h.pinned;
  q.blocks = h.blocks;
  q.shared = h.shared;
}

void Sim::preempt(Replica& rep, int r) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  ++preemptions_;
  rep.running.erase(std::find(rep.running.begin(), rep.running.end(), r));
  const bool swap = tier_ != nullptr && rep.preemption->swaps(view_of(q));
  if (swap) {
    rep.extra_s += q.blocks * block_bytes_ / (tier_->bandwidth.si() * rep.in->map.replica_chips());
    q.swapped = true;
  } else {
    // Recompute: the prompt and every token so far are prefilled again.
    rep.outstanding += q.done;
    q.prompt = q.isl + q.generated;
    q.done = 0;
    q.looked_up = false;
  }
  release(rep, q);
  q.state = State::kWaiting;
  rep.waiting.push_front(r);
}

}  // namespace llmecon::sim_internal
