// IdlCache: index key -> in-memory ID list, for building indexes during an
// id2entry scan (IDs arrive ascending, so lists only ever append). At most
// `capacity` lists are held; adding to a list that is not held when the cache
// is full evicts the least recently used list, which is handed to the flush
// callback (the index builder appends it to its table). Capacity 0 holds
// nothing: every ID is flushed at once, alone.
//
// Built for tens of millions of adds (DESIGN.md: std::unordered_map with
// string keys cost 14 of 16 seconds):
//   - an open-addressing hash table (linear probing, backward-shift
//     deletion) of 64-bit slots: 32 hash bits as a tag, so a probe rarely
//     touches a list that is not the one sought, and a 32-bit list number;
//   - per list a 64-byte record and one block from a BlockArena holding the
//     key and the IDs as delta varints (~1-2 bytes per ID);
//   - AddBatch: all keys of one entry are hashed and their slots and lists
//     prefetched before any is touched, so the cache misses overlap;
//   - recency kept as a per-list counter while the cache has room; the exact
//     LRU order (a linked list) is built from the counters only when the
//     cache first fills, so a cache large enough for every key never pays
//     for ordering.
// Measured on the 285,000-entry workload (26 million adds, 2 million
// lists): about 4.5 s of CPU for the id2entry scan, key generation and adds
// together, 1.7 s to sort and write the lists.
//
// Keys are (table number, index key bytes). An ID added twice to the same
// list is kept once (an entry with two values sharing a key), also when the
// list was flushed in between.
//
// Thread safety: one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/idl/block_arena.h"
#include "lib/util/status.h"

namespace dirload {

struct IdlCacheStats {
  uint64_t hits = 0;       // adds to a list already in memory
  uint64_t misses = 0;     // adds that had to start a list
  uint64_t evictions = 0;  // lists flushed to make room
  uint64_t flushes = 0;    // lists handed to the flush callback (evictions
                           // and the final drain)
  uint64_t ids_flushed = 0;
  uint64_t max_lists = 0;  // most lists held at once
  uint64_t bytes = 0;      // bytes of the blocks of the lists held now
};

class IdlCache {
 public:
  // Receives a list leaving the cache: its table number, index key and IDs
  // (ascending). A non-OK status stops the cache (sticky).
  using FlushFn =
      std::function<Status(uint32_t table, std::string_view key, std::span<const EntryId> ids)>;

  IdlCache(uint64_t capacity, FlushFn flush);
  ~IdlCache();
  IdlCache(const IdlCache&) = delete;
  IdlCache& operator=(const IdlCache&) = delete;

  // REQUIRES: for a given (table, key), ids ascending across calls;
  // key.size() < 65536; table < 65536.
  [[nodiscard]] Status Add(uint32_t table, std::string_view key, EntryId id);

  // Adds `id` to the lists of all keys[i] (in tables[i]): the keys of one
  // entry. Same result as calling Add for each, but the hash slots and lists
  // are prefetched for the whole batch first, so the cache misses of a big
  // table overlap instead of following one another.
  // REQUIRES: tables.size() == keys.size().
  [[nodiscard]] Status AddBatch(EntryId id, std::span<const uint32_t> tables,
                                std::span<const std::string_view> keys);

  // Hands every list still held to `fn` in ascending (table, key) order
  // (bytewise key order within a table), then empties the cache. Counted as
  // flushes.
  [[nodiscard]] Status Drain(const FlushFn& fn);
  // A list as the cache holds it: its IDs (ascending, at least one) as a
  // chunk body of idl_format.h, the LEB128 varint of the first ID, then of
  // each difference to the one before. The cache keeps them so on purpose:
  // a list short enough to be one chunk is then written as it is, without
  // decoding and encoding it again.
  struct EncodedList {
    uint32_t table;
    std::string_view key;
    std::string_view body;
    uint64_t count;  // IDs in body
  };
  using EncodedFlushFn = std::function<Status(const EncodedList& list)>;
  // Drain, each list handed over as it is held.
  [[nodiscard]] Status DrainEncoded(const EncodedFlushFn& fn);
  // Does the sorting part of Drain ahead, so that another thread can sort
  // one cache while this one's lists are written. REQUIRES: nothing is
  // added until the Drain that follows.
  void SortForDrain();

  // Makes room for `lists` list records at once. A cache that would grow
  // its records array by doubling touches each new array in full and copies
  // the old one into it; reserved, the records are only touched as they are
  // used. The figure is a hint: more lists still fit.
  void Reserve(size_t lists);
  // Gives back the memory an empty cache keeps for reuse (the records, the
  // hash table, the blocks' chunks, the drain order), once no more lists
  // will come, so that what follows (a merge of the runs) does not find it
  // all still taken. The cache stays usable. Does nothing while it holds
  // lists.
  void Release();
  // The most lists a cache can hold while memory() stays under `bytes`.
  static size_t ListsWithin(uint64_t bytes);

  uint64_t capacity() const { return capacity_; }
  size_t size() const { return live_; }
  const IdlCacheStats& stats() const { return stats_; }
  // Approximate heap bytes held: the lists' blocks plus per-list records and
  // hash slots.
  uint64_t memory() const { return stats_.bytes + live_ * (sizeof(List) + 2 * sizeof(uint64_t)); }
  // Heap bytes kept, in use or for reuse: the blocks' chunks and the
  // records', slots' and drain order's arrays as allocated.
  uint64_t held() const;

 private:
  // The record of one list, a cache line each so that reaching it costs one
  // miss. Its block `buf` holds the key bytes, then the IDs as varint deltas
  // (the first relative to 0). The key's first 16 bytes are also kept here
  // (KeyHead): a key that short is matched without reading its block, whose
  // first bytes were the costliest miss of a native rebuild (the memcmp of
  // the match, 10 % of phase 2's samples), and the drain's sort orders the
  // lists on them from the records alone.
  struct alignas(64) List {
    uint64_t hash = 0;
    uint64_t head0 = 0, head1 = 0;  // KeyHead of the key
    char* buf = nullptr;
    EntryId last = 0;  // last ID added
    uint16_t key_len = 0;
    uint16_t table = 0;
    uint32_t size = 0;  // bytes used in buf
    uint32_t cap = 0;
    uint32_t count = 0;
    // Recency: a touch counter until the LRU order is linked, then the links.
    union {
      uint64_t stamp;
      struct {
        uint32_t prev;  // towards the most recently used
        uint32_t next;  // towards the least recently used
      } link;
    };
    List() : stamp(0) {}
    std::string_view key() const { return std::string_view(buf, key_len); }
  };
  static_assert(sizeof(List) == 64);

  // A key's first 16 bytes as two big-endian integers, zero padded: equal
  // heads and lengths leave only the bytes past 16 to compare, and ordering
  // heads orders the keys' prefixes bytewise.
  struct KeyHead {
    uint64_t h0, h1;
  };
  static KeyHead HeadOf(std::string_view key);

  Status AddHashed(uint32_t table, std::string_view key, const KeyHead& head, uint64_t hash,
                   EntryId id);
  Status AddNew(uint32_t table, std::string_view key, const KeyHead& head, uint64_t hash,
                EntryId id);
  uint32_t NewList(uint32_t table, std::string_view key, const KeyHead& head, uint64_t hash);
  void InsertSlot(uint32_t list);
  void EraseSlot(uint32_t list);
  void Rehash(size_t slots);
  void AppendId(List* list, EntryId id);
  void Touch(uint32_t list);
  void BuildLruOrder();
  void LinkFront(uint32_t list);
  void Unlink(uint32_t list);
  Status EvictOne();
  EncodedList Encoded(const List& list) const;
  // Calls `fn` with the list's IDs decoded.
  Status HandOver(const EncodedList& list, const FlushFn& fn);
  void FreeList(uint32_t list);
  bool FlushedThisId(uint32_t table, std::string_view key) const;
  void NoteFlushedThisId(uint32_t table, std::string_view key);

  uint64_t capacity_;
  FlushFn flush_;
  BlockArena arena_;
  // Drain's order: sorted on the keys' first 16 bytes, kept in the record,
  // so that most comparisons touch no list; only ties read the keys.
  struct DrainRec {
    uint64_t p0, p1;
    uint32_t table;
    uint32_t idx;
  };
  std::vector<DrainRec> drain_order_;
  bool drain_sorted_ = false;
  std::vector<List> lists_;      // index 0 unused: 0 marks an empty slot
  std::vector<uint32_t> free_;   // indices of unused List records
  std::vector<uint64_t> slots_;  // open addressing: (hash high 32 << 32) | list
  size_t mask_ = 0;
  size_t live_ = 0;
  uint64_t clock_ = 0;
  bool lru_linked_ = false;
  uint32_t lru_head_ = 0, lru_tail_ = 0;  // most / least recently used
  // Keys whose list was flushed while it held the current ID: a repeat of
  // such a key for the same ID must not start a list holding it again.
  EntryId current_id_ = 0;
  std::unordered_set<std::string> flushed_this_id_;
  std::vector<EntryId> scratch_;
  std::vector<uint64_t> batch_hashes_;
  std::vector<KeyHead> batch_heads_;
  IdlCacheStats stats_;
  Status status_;
};

}  // namespace dirload
