// The simulator's paged KV memory: blocks, the prefix cache, host tiers and preemption
// (docs/model.md §23.3).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim.hpp"

namespace llmecon::sim_internal {

// ---- KV memory ----

bool Sim::evict_one(Replica& rep) {
  for (auto it = rep.lru.rbegin(); it != rep.lru.rend(); ++it) {
    auto e = rep.cache.find(*it);
    if (e->second.refs > 0) continue;
    rep.used -= e->second.blocks;
    rep.cache_blocks -= e->second.blocks;
    if (rep.host_capacity > 0 && e->second.blocks <= rep.host_capacity) {
      // Spill to the host tier, evicting its oldest entries.
      while (rep.host_blocks + e->second.blocks > rep.host_capacity && !rep.host_lru.empty()) {
        const std::uint64_t old = rep.host_lru.back();
        rep.host_lru.pop_back();
        rep.host_blocks -= blocks_for(rep.host[old]);
        rep.host.erase(old);
      }
      if (rep.host.emplace(e->first, e->second.tokens).second) {
        rep.host_lru.push_front(e->first);
        rep.host_blocks += e->second.blocks;
      }
    }
    rep.lru.erase(e->second.lru);
    rep.cache.erase(e);
    return true;
  }
  return false;
}

bool Sim::reserve(Replica& rep, long blocks) {
  if (blocks <= 0) return true;
  while (rep.capacity - rep.used < blocks) {
    if (!evict_one(rep)) return false;
  }
  rep.used += blocks;
  rep.peak = std::max(rep.peak, rep.used);
  return true;
}

bool Sim::grow(Replica& rep, Request& q, int context) {
  const int need = blocks_for(std::max(0, context - q.shared)) - q.blocks;
  if (need <= 0) return true;
  if (!reserve(rep, need)) return false;
  q.blocks += need;
  return true;
}

void Sim::release(Replica& rep, Request& q) {
  rep.used -= q.blocks;
  q.blocks = 0;
  if (q.pinned > 0) {
    const auto ch = chain(q);
    for (int i = 0; i < q.pinned; ++i) {
      auto e = rep.cache.find(ch[static_cast<std::size_t>(i)].first);
      if (e != rep.cache.end()) --e->second.refs;
    }
  }
  q.pinned = 0;
  q.shared = 0;
}

void Sim::lookup_prefix(Replica& rep, Request& q) {
  if (!c_.scheduler.prefix_caching) return;
  const auto ch = chain(q);
  int tokens = 0, pinned = 0;
  for (const auto& [h, t] : ch) {
    auto e = rep.cache.find(h);
    if (e == rep.cache.end()) {
      auto s = rep.host.find(h);
      if (s == rep.host.end() || !reserve(rep, blocks_for(t))) break;
      // A hit in the host tier: loaded back at the tier's bandwidth, across the replica's chips.
      rep.extra_s +=
          blocks_for(t) * block_bytes_ / (tier_->bandwidth.si() * static_cast<double>(rep.in->map.replica_chips()));
      rep.host_lru.remove(h);
      rep.host_blocks -= blocks_for(s->second);
      rep.host.erase(s);
      rep.lru.push_front(h);
      rep.cache_blocks += blocks_for(t);
      e = rep.cache.emplace(h, CacheEntry{t, blocks_for(t), 0, rep.lru.begin()}).first;
    } else {
      rep.lru.splice(rep.lru.begin(), rep.lru, e->second.lru);
    }
    ++e->second.refs;
    ++pinned;
    tokens += t;
  }
  q.pinned = pinned;
  q.shared = tokens;
  // At least the last prompt token is computed: it yields the next token.
  q.done = std::min(tokens, q.prompt - 1);
}

void Sim::insert_prefix(Replica& rep, Request& q) {
  if (!c_.scheduler.prefix_caching || c_.scheduler.kind == SchedulerKind::kStatic) return;
  const auto ch = chain(q);
  for (std::size_t i = static_cast<std::size_t>(q.pinned); i < ch.size(); ++i) {
    const auto [h, t] = ch[i];
    const int b = blocks_for(t);
    auto e = rep.cache.find(h);
    if (e == rep.cache.end()) {
      if (q.blocks < b) break;
      // The request's own blocks become the cache entry.
      rep.lru.push_front(h);
      rep.cache.emplace(h, CacheEntry{t, b, 1, rep.lru.begin()});
      rep.cache_blocks += b;
    } else {
      ++e->second.refs;
      rep.used -= std::min(b, q.blocks);  // a duplicate: the cached copy serves it
      rep.lru.splice(rep.lru.begin(), rep.lru, e->second.lru);
    }
    q.blocks -= std::min(b, q.blocks);
    q.shared += t;
    ++q.pinned;
  }
}

void Sim::preempt(Replica& rep, int r) {
  Request& q = reqs_[static_cast<std::size_t>(r)];
  ++preemptions_;
  rep.running.erase(std::find(rep.running.begin(), rep.running.end(), r));
  const bool swap = c_.scheduler.preemption == Preemption::kSwap && tier_ != nullptr;
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
