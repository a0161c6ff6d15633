// StringMap: a map from short strings to values for the lookups a load makes
// per value (attribute descriptions, object class and attribute type names):
// a few dozen keys, each looked up millions of times. One flat table of
// (hash, index) slots probed linearly, so that a lookup costs one fast hash
// (key_hash.h), one slot and one compare, where std::unordered_map divides
// by a prime, follows a node and compares through libc.
//
// Values never move once inserted (they live in a deque): callers may keep
// pointers to them for the map's lifetime.
//
// Thread safety: concurrent Find()s are safe; Insert() needs exclusive use.
#pragma once

#include <cstdint>
#include <cstring>
#include <deque>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/util/key_hash.h"

namespace dirload {

template <typename V>
class StringMap {
 public:
  StringMap() : slots_(16) {}

  // The value of `key`, or null.
  const V* Find(std::string_view key) const { return FindHashed(key, Hash(key)); }
  V* Find(std::string_view key) { return const_cast<V*>(std::as_const(*this).Find(key)); }

  // Inserts `value` under `key` unless the key is present; either way
  // returns the value now under `key` and whether it was inserted.
  std::pair<V*, bool> Insert(std::string_view key, V value) {
    const uint64_t h = Hash(key);
    if (V* found = const_cast<V*>(FindHashed(key, h))) return {found, false};
    if ((items_.size() + 1) * 4 > slots_.size() * 3) Grow();
    items_.emplace_back(std::string(key), std::move(value));
    Place(h, static_cast<uint32_t>(items_.size()));
    return {&items_.back().second, true};
  }

  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  // Every (key, value), in insertion order.
  const std::deque<std::pair<std::string, V>>& items() const { return items_; }

 private:
  struct Slot {
    uint64_t hash = 0;
    uint32_t item = 0;  // index in items_ + 1; 0: empty
  };

  static uint64_t Hash(std::string_view key) { return HashBytes(key.data(), key.size(), 0); }

  const V* FindHashed(std::string_view key, uint64_t h) const {
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.item == 0) return nullptr;
      if (s.hash != h) continue;
      const auto& [k, v] = items_[s.item - 1];
      if (k.size() == key.size() && std::memcmp(k.data(), key.data(), key.size()) == 0) return &v;
    }
  }

  void Place(uint64_t h, uint32_t item) {
    const size_t mask = slots_.size() - 1;
    size_t i = h & mask;
    while (slots_[i].item != 0) i = (i + 1) & mask;
    slots_[i] = Slot{h, item};
  }

  void Grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    for (const Slot& s : old) {
      if (s.item != 0) Place(s.hash, s.item);
    }
  }

  std::vector<Slot> slots_;  // a power of two, at most 3/4 full
  std::deque<std::pair<std::string, V>> items_;
};

}  // namespace dirload
