// IdList: an exact, sorted set of entry IDs, as an index key maps to. Never
// widened to a range, however long. Intersection and union are linear merges
// when the two lists are of similar size and galloping (exponential search of
// the longer list for each ID of the shorter one) when one is much longer, so
// intersecting "objectClass=person" (every entry) with a ten-ID list costs
// ten short searches, not a walk over the long list.
//
// Thread safety: a value type; const methods may run concurrently.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "lib/entry/entry_codec.h"

namespace dirload {

class IdList {
 public:
  IdList() = default;
  // REQUIRES: ids strictly ascending (checked only by IsValid()).
  explicit IdList(std::vector<EntryId> ids) : ids_(std::move(ids)) {}
  // Sorts and removes duplicates: for lists built in any order.
  static IdList FromUnsorted(std::vector<EntryId> ids);

  // REQUIRES: empty() || id > back() (IDs arrive ascending during an
  // id2entry scan).
  void Append(EntryId id) { ids_.push_back(id); }
  void Reserve(size_t n) { ids_.reserve(n); }
  void Clear() { ids_.clear(); }

  bool empty() const { return ids_.empty(); }
  size_t size() const { return ids_.size(); }
  // REQUIRES: !empty()
  EntryId front() const { return ids_.front(); }
  EntryId back() const { return ids_.back(); }
  EntryId operator[](size_t i) const { return ids_[i]; }
  std::span<const EntryId> ids() const { return ids_; }
  const std::vector<EntryId>& vector() const { return ids_; }
  std::vector<EntryId> TakeVector() && { return std::move(ids_); }
  auto begin() const { return ids_.begin(); }
  auto end() const { return ids_.end(); }

  // Binary search.
  bool Contains(EntryId id) const;
  // True when strictly ascending.
  bool IsValid() const;

  // a AND b, a OR b, a AND NOT b.
  static IdList Intersect(const IdList& a, const IdList& b);
  static IdList Union(const IdList& a, const IdList& b);
  static IdList Difference(const IdList& a, const IdList& b);
  // Intersection of many lists, smallest first (stops early once empty).
  static IdList IntersectAll(std::vector<const IdList*> lists);
  // Union of many lists (pairwise by size, so the cost stays near-linear).
  static IdList UnionAll(std::vector<const IdList*> lists);

  bool operator==(const IdList& other) const { return ids_ == other.ids_; }

 private:
  std::vector<EntryId> ids_;
};

}  // namespace dirload
