// HeldRecords: key/value records a loader holds in memory instead of
// writing each to its table as it comes, then writes in key order when the
// buffer is full and at the end.
//
// Why: names come in an order that is random to the key order of the tables
// that file them (people in random departments): the native format's dn2id
// and slapd's dn2i child nodes. An engine that copies every page a
// transaction touches (LMDB) then rewrote most of those tables' leaf pages at
// every commit, so the work per entry grew with the database. Written in key
// order, each leaf page is written once per flush; into an empty table the
// records are appended, which fills every page.
//
// The buffer answers lookups for what it holds, so a loader's duplicate and
// parent checks look here first and in the table after. Its memory (records
// and hash slots) stays within the budget it is given, plus the record that
// crosses it and the hash slots' last doubling; sorting takes about 24 bytes
// per record more (the 7-byte chunks beside the handles, and the merge's
// buffer) while it runs, and Sorted() 4 more for the handles it returns.
//
// Thread safety: none; used by one writing thread (sorting runs a helper
// thread of its own).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

class HeldRecords {
 public:
  // `budget_bytes` 0 holds nothing: full() is always true.
  explicit HeldRecords(size_t budget_bytes);

  // The hash Add and Find take: a caller that also files the key elsewhere
  // (the loader's Bloom filter) hashes it once.
  static uint64_t Hash(std::string_view key);

  // REQUIRES: `key` is not held and is at most 65,535 bytes (store keys are
  // at most 511); `hash` is Hash(key).
  void Add(std::string_view key, uint64_t hash, std::string_view value);
  void Add(std::string_view key, std::string_view value) { Add(key, Hash(key), value); }
  // The value held under `key`, valid until the next Add or Clear.
  std::optional<std::string_view> Find(std::string_view key, uint64_t hash) const;
  std::optional<std::string_view> Find(std::string_view key) const { return Find(key, Hash(key)); }

  size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The bytes in use (records and hash slots); full() once the budget is reached.
  size_t bytes() const { return arena_.size() + slots_.size() * sizeof(uint64_t); }
  bool full() const { return bytes() >= budget_; }

  // The records held, in key order (bytewise, as the stores order keys), as
  // handles for Record(): 4 bytes each, where views would take 32.
  std::vector<uint32_t> Sorted() const;
  // The key and value of a handle from Sorted(), valid until the next Add or Clear.
  std::pair<std::string_view, std::string_view> Record(uint32_t handle) const;
  // Calls `fn(key, value)` for every record in key order, until it returns
  // an error, which it returns. In key order the records lie scattered over
  // the arena, and a walk over Sorted() waited on memory at every record;
  // this one asks the processor for each record a few records ahead.
  template <typename Fn>
  Status ForEachSorted(Fn&& fn) const {
    constexpr size_t kAhead = 8;
    const std::vector<Chunked> sorted = SortedChunks();
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i + kAhead < sorted.size()) {
        const char* p = arena_.data() + sorted[i + kAhead].handle;
        __builtin_prefetch(p);
        __builtin_prefetch(p + 64);
      }
      auto [key, value] = Record(sorted[i].handle);
      if (Status st = fn(key, value); !st.ok()) return st;
    }
    return Status::Ok();
  }
  // Forgets every record and gives the memory back.
  void Clear();

 private:
  std::string_view KeyAt(uint32_t handle) const;
  // A record's handle with seven bytes of its key from some depth on
  // (held_records.cc says how they are laid out).
  struct Chunked {
    uint64_t chunk;
    uint32_t handle;
  };
  // Every record, in key order: what Sorted() and ForEachSorted() walk.
  std::vector<Chunked> SortedChunks() const;
  // Sorts [b, e) by the keys' bytes from `depth` on; the keys agree before it.
  void SortFrom(Chunked* b, Chunked* e, size_t depth) const;
  // A hash's first slot: its top bits. REQUIRES: slots_ is not empty.
  size_t Slot(uint64_t hash) const { return hash >> (64 - std::countr_zero(slots_.size())); }
  void Grow();

  size_t budget_;
  size_t count_ = 0;
  // Records one after another: key length (2 bytes, host order), key, value
  // length (varint), value.
  std::string arena_;
  // Open addressing, a power of two in size: upper 32 bits of the key's hash,
  // lower 32 bits the record's offset + 1 (0: empty slot). A key's first
  // slot is the top bits of its hash, which the upper half keeps: growing
  // moves slots without reading or hashing the keys again.
  std::vector<uint64_t> slots_;
};

}  // namespace dirload
