// BloomFilter: a set of 64-bit hashes in a fixed amount of memory that
// answers "certainly not added" or "perhaps added".
//
// Why: the loader asks whether each new entry's DN is taken, and in a fresh
// load the answer is nearly always no. A tree lookup pays a descent through
// pages no cache holds; the filter answers no from one cache line, and the
// lookup is left for the few it cannot rule out.
//
// Blocked: the bits of one hash lie in one 64-byte block, so a query
// touches one cache line. With 64 bits a hash the false positives are about
// one in 10^5; with 6 bits a hash (8 MB for 10,000,000 entries) about one in
// 12, which still spares the rest.
//
// Thread safety: none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "lib/util/key_hash.h"

namespace dirload {

class BloomFilter {
 public:
  // `bytes` is rounded down to a power of two of 64-byte blocks (one at
  // least). The memory is allocated zeroed: pages are taken as they are
  // first written.
  explicit BloomFilter(size_t bytes) {
    size_t blocks = 1;
    while (blocks * 2 * kBlockBytes <= bytes) blocks *= 2;
    words_.assign(blocks * kBlockWords, 0);
    block_mask_ = blocks - 1;
  }

  void Add(uint64_t hash) {
    uint64_t* block = words_.data() + (hash & block_mask_) * kBlockWords;
    const uint64_t probes = Probes(hash);
    for (int i = 0; i < kProbes; ++i) block[Word(probes, i)] |= Bit(probes, i);
  }
  bool MayContain(uint64_t hash) const {
    const uint64_t* block = words_.data() + (hash & block_mask_) * kBlockWords;
    const uint64_t probes = Probes(hash);
    for (int i = 0; i < kProbes; ++i) {
      if ((block[Word(probes, i)] & Bit(probes, i)) == 0) return false;
    }
    return true;
  }
  size_t bytes() const { return words_.size() * sizeof(uint64_t); }

 private:
  static constexpr size_t kBlockBytes = 64;
  static constexpr size_t kBlockWords = kBlockBytes / sizeof(uint64_t);
  static constexpr int kProbes = 6;

  // The block comes from the hash's low bits; the probes (9 bits each: word
  // and bit in the 512-bit block) from the hash mixed again, so that they do
  // not depend on the block whatever the block count.
  static uint64_t Probes(uint64_t hash) { return HashMix(hash, 0xD6E8FEB86659FD93ull); }
  static size_t Word(uint64_t probes, int i) { return (probes >> (9 * i)) & 7; }
  static uint64_t Bit(uint64_t probes, int i) {
    return uint64_t{1} << ((probes >> (9 * i + 3)) & 63);
  }

  std::vector<uint64_t> words_;
  uint64_t block_mask_ = 0;
};

}  // namespace dirload
