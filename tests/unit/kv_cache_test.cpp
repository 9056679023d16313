// The simulator's paged KV memory and prefix cache (src/simulate/kv_cache.hpp, model.md §23.3).
#include <gtest/gtest.h>

#include "simulate/kv_cache.hpp"

namespace llmecon::sim_internal {
namespace {

// A prompt's chain: one entry of `tokens` per key.
Chain chain_of(std::initializer_list<std::uint64_t> keys, int tokens) {
  Chain c;
  for (auto k : keys) c.emplace_back(k, tokens);
  return c;
}

TEST(KvCache, ReservesWholeBlocksUpToCapacity) {
  KvCache kv(10, 16, 0);
  EXPECT_EQ(kv.blocks_for(1), 1);
  EXPECT_EQ(kv.blocks_for(16), 1);
  EXPECT_EQ(kv.blocks_for(17), 2);
  EXPECT_TRUE(kv.reserve(7));
  EXPECT_FALSE(kv.reserve(4));  // 3 left, nothing to evict
  EXPECT_EQ(kv.used(), 7);
  kv.free(7);
  EXPECT_EQ(kv.used(), 0);
  EXPECT_EQ(kv.peak(), 7);
  EXPECT_TRUE(kv.reserve(0));
}

// A prompt's blocks become entries; a second prompt with the same start pins them instead of
// computing them; its duplicate blocks are freed.
TEST(KvCache, APromptsEntriesServeTheNextOneAndDuplicatesAreFreed) {
  KvCache kv(100, 16, 0);
  const Chain c = chain_of({1, 2, 3}, 32);  // 3 entries of 2 blocks
  ASSERT_TRUE(kv.reserve(6));
  KvCache::Holder first{0, 6, 0};
  kv.insert(c, first);
  EXPECT_EQ(first.pinned, 3);
  EXPECT_EQ(first.blocks, 0);
  EXPECT_EQ(first.shared, 96);
  EXPECT_EQ(kv.cached(), 6);
  EXPECT_EQ(kv.used(), 6);
  // Same first two entries, another third.
  const Chain d = chain_of({1, 2, 9}, 32);
  const KvCache::Match m = kv.pin_prefix(d, [](int) { ADD_FAILURE() << "no host tier"; });
  EXPECT_EQ(m.pinned, 2);
  EXPECT_EQ(m.tokens, 64);
  // A prompt that computed entry 3 again: its copy is freed, the cached one serves it.
  ASSERT_TRUE(kv.reserve(2));
  KvCache::Holder dup{2, 2, 64};
  kv.insert(c, dup);
  EXPECT_EQ(dup.pinned, 3);
  EXPECT_EQ(dup.blocks, 0);
  EXPECT_EQ(kv.used(), 6);
}

// Unpinned entries are evicted least recently used first; pinned ones never.
TEST(KvCache, EvictsTheLeastRecentUnpinnedEntry) {
  KvCache kv(6, 16, 0);
  for (const std::uint64_t k : {1ULL, 2ULL, 3ULL}) {
    ASSERT_TRUE(kv.reserve(2));
    KvCache::Holder h{0, 2, 0};
    kv.insert(chain_of({k}, 32), h);
    kv.unpin(chain_of({k}, 32), 1);
  }
  EXPECT_EQ(kv.used(), 6);
  kv.pin_prefix(chain_of({1}, 32), [](int) {});  // 1 is now the most recent, and pinned
  ASSERT_TRUE(kv.reserve(2));                    // evicts 2, the least recent unpinned
  EXPECT_TRUE(kv.has(1));
  EXPECT_FALSE(kv.has(2));
  EXPECT_TRUE(kv.has(3));
  ASSERT_TRUE(kv.reserve(2));  // evicts 3
  EXPECT_FALSE(kv.has(3));
  EXPECT_FALSE(kv.reserve(2));  // only the pinned entry is left
  EXPECT_TRUE(kv.has(1));
}

// With a host tier, an evicted entry spills there and a later hit loads it back.
TEST(KvCache, EvictedEntriesSpillToTheHostTierAndLoadBack) {
  KvCache kv(4, 16, 8);
  ASSERT_TRUE(kv.reserve(4));
  KvCache::Holder h{0, 4, 0};
  kv.insert(chain_of({7}, 64), h);  // one entry of 4 blocks
  kv.unpin(chain_of({7}, 64), 1);
  ASSERT_TRUE(kv.reserve(4));  // evicts entry 7 to the host
  EXPECT_FALSE(kv.has(7));
  kv.free(4);
  int loaded = 0;
  const KvCache::Match m = kv.pin_prefix(chain_of({7}, 64), [&loaded](int b) { loaded += b; });
  EXPECT_EQ(m.pinned, 1);
  EXPECT_EQ(loaded, 4);
  EXPECT_TRUE(kv.has(7));
  EXPECT_EQ(kv.cached(), 4);
}

}  // namespace
}  // namespace llmecon::sim_internal
