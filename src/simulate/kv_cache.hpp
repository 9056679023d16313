// The paged KV memory of one serving replica (internal to src/simulate; docs/model.md §23.3).
//
// Memory is counted in blocks of a fixed number of tokens. A request holds private blocks for its
// context; a prompt's leading blocks may instead be entries of the prefix cache, shared by every
// request whose prompt begins the same way. A prompt's entries form a chain (each entry's key
// hashes the entries before it), so the cache is a prefix tree kept as one map: a chain matches
// up to its first missing entry. Entries in use are pinned; unpinned ones are evicted least
// recently used first when blocks run short, and spill to a host tier (DDR, flash) when the chip
// has one, from where a later hit loads them back.
//
//   sim_internal::KvCache kv(/*capacity=*/1000, /*block_tokens=*/16, /*host_capacity=*/0);
//   if (kv.reserve(kv.blocks_for(2048))) { /* admitted */ }
//   auto m = kv.pin_prefix(chain, [](int blocks) { (void)blocks; });  // the prompt's cached part
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <unordered_map>
#include <utility>
#include <vector>

namespace llmecon::sim_internal {

/// A prompt's prefix-cache keys, each with the tokens it covers.
using Chain = std::vector<std::pair<std::uint64_t, int>>;

class KvCache {
 public:
  KvCache() = default;
  KvCache(long capacity, int block_tokens, long host_capacity)
      : capacity_(capacity), block_(block_tokens), host_capacity_(host_capacity) {}

  [[nodiscard]] int blocks_for(int tokens) const { return (tokens + block_ - 1) / block_; }
  [[nodiscard]] long capacity() const { return capacity_; }
  /// Blocks in use: requests' private blocks and the prefix cache's.
  [[nodiscard]] long used() const { return used_; }
  [[nodiscard]] long peak() const { return peak_; }
  /// Blocks the prefix cache holds on the device.
  [[nodiscard]] long cached() const { return cached_; }
  /// Blocks that are free or could be freed by evicting unpinned prefix entries.
  [[nodiscard]] long available() const { return capacity_ - used_ + cached_ - pinned_; }
  /// Whether this key is cached on the device (prefix-affinity routing).
  [[nodiscard]] bool has(std::uint64_t key) const { return cache_.count(key) > 0; }

  /// Takes `blocks` free blocks, evicting unpinned entries (least recently used first) until they
  /// are free; false when they cannot be had. Entries evicted on the way stay evicted.
  bool reserve(long blocks);
  /// Gives back `blocks` taken by reserve().
  void free(long blocks) { used_ -= blocks; }

  struct Match {
    int pinned = 0;  ///< leading entries of the chain matched, now pinned
    int tokens = 0;  ///< tokens they cover
  };
  /// The longest cached prefix of `chain`, pinned. An entry found only in the host tier is loaded
  /// back when its blocks can be reserved (`loaded` is told its blocks, for the transfer time).
  Match pin_prefix(const Chain& chain, const std::function<void(int blocks)>& loaded);
  /// Unpins the first `n` entries of `chain`.
  void unpin(const Chain& chain, int n);

  /// A request's hold on the cache after its prompt is computed.
  struct Holder {
    int pinned = 0;  ///< leading entries of its chain it pins
    int blocks = 0;  ///< private blocks it holds
    int shared = 0;  ///< tokens of context in the entries it pins
  };
  /// The request's prompt enters the cache: each entry of `chain` past those it pins becomes an
  /// entry made of its private blocks, or, already cached, frees its duplicate blocks; either
  /// way pinned by it. Stops at an entry its private blocks do not cover.
  void insert(const Chain& chain, Holder& h);

 private:
  struct Entry {
    int tokens = 0;
    int blocks = 0;
    int refs = 0;
    std::list<std::uint64_t>::iterator lru;
  };
  bool evict_one();

  long capacity_ = 0;
  int block_ = 16;
  long host_capacity_ = 0;
  long used_ = 0;  // private + cached
  long peak_ = 0;
  long cached_ = 0;
  long pinned_ = 0;  // blocks of cached entries in use (refs > 0)
  std::unordered_map<std::uint64_t, Entry> cache_;
  std::list<std::uint64_t> lru_;                 // front: most recent
  std::unordered_map<std::uint64_t, int> host_;  // spilled entries: tokens
  std::list<std::uint64_t> host_lru_;
  long host_blocks_ = 0;
};

}  // namespace llmecon::sim_internal
