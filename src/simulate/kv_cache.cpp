// A replica's paged KV memory and prefix cache (kv_cache.hpp; docs/model.md §23.3).
#include "kv_cache.hpp"

#include <algorithm>

namespace llmecon::sim_internal {

bool KvCache::evict_one() {
  for (auto it = lru_.rbegin(); it != lru_.rend(); ++it) {
    auto e = cache_.find(*it);
    if (e->second.refs > 0) continue;
    used_ -= e->second.blocks;
    cached_ -= e->second.blocks;
    if (host_capacity_ > 0 && e->second.blocks <= host_capacity_) {
      // Spill to the host tier, evicting its oldest entries.
      while (host_blocks_ + e->second.blocks > host_capacity_ && !host_lru_.empty()) {
        const std::uint64_t old = host_lru_.back();
        host_lru_.pop_back();
        host_blocks_ -= blocks_for(host_[old]);
        host_.erase(old);
      }
      if (host_.emplace(e->first, e->second.tokens).second) {
        host_lru_.push_front(e->first);
        host_blocks_ += e->second.blocks;
      }
    }
    lru_.erase(e->second.lru);
    cache_.erase(e);
    return true;
  }
  return false;
}

bool KvCache::reserve(long blocks) {
  if (blocks <= 0) return true;
  while (capacity_ - used_ < blocks) {
    if (!evict_one()) return false;
  }
  used_ += blocks;
  peak_ = std::max(peak_, used_);
  return true;
}

KvCache::Match KvCache::pin_prefix(const Chain& chain, const std::function<void(int blocks)>& loaded) {
  Match m;
  for (const auto& [key, tokens] : chain) {
    auto e = cache_.find(key);
    if (e == cache_.end()) {
      auto s = host_.find(key);
      const int b = blocks_for(tokens);
      if (s == host_.end() || !reserve(b)) break;
      // A hit in the host tier: loaded back onto the device.
      loaded(b);
      host_lru_.remove(key);
      host_blocks_ -= blocks_for(s->second);
      host_.erase(s);
      lru_.push_front(key);
      cached_ += b;
      e = cache_.emplace(key, Entry{tokens, b, 0, lru_.begin()}).first;
    } else {
      lru_.splice(lru_.begin(), lru_, e->second.lru);
    }
    if (e->second.refs++ == 0) pinned_ += e->second.blocks;
    ++m.pinned;
    m.tokens += tokens;
  }
  return m;
}

void KvCache::unpin(const Chain& chain, int n) {
  for (int i = 0; i < n && static_cast<std::size_t>(i) < chain.size(); ++i) {
    auto e = cache_.find(chain[static_cast<std::size_t>(i)].first);
    if (e != cache_.end() && --e->second.refs == 0) pinned_ -= e->second.blocks;
  }
}

void KvCache::insert(const Chain& chain, Holder& h) {
  for (std::size_t i = static_cast<std::size_t>(h.pinned); i < chain.size(); ++i) {
    const auto [key, tokens] = chain[i];
    const int b = blocks_for(tokens);
    auto e = cache_.find(key);
    if (e == cache_.end()) {
      if (h.blocks < b) break;
      // The request's own blocks become the entry.
      lru_.push_front(key);
      cache_.emplace(key, Entry{tokens, b, 1, lru_.begin()});
      cached_ += b;
      pinned_ += b;
    } else {
      if (e->second.refs++ == 0) pinned_ += e->second.blocks;
      used_ -= std::min(b, h.blocks);  // a duplicate: the cached copy serves it
      lru_.splice(lru_.begin(), lru_, e->second.lru);
    }
    h.blocks -= std::min(b, h.blocks);
    h.shared += tokens;
    ++h.pinned;
  }
}

}  // namespace llmecon::sim_internal
