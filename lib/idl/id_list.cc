#include "lib/idl/id_list.h"

#include <algorithm>

namespace dirload {
namespace {

// When one list is this many times longer than the other, searching the long
// list for each ID of the short one beats walking both.
constexpr size_t kGallopRatio = 16;

using Iter = std::vector<EntryId>::const_iterator;

// First position in [from, end) whose ID is >= id, probing 1, 2, 4, ... ahead
// of `from` before a binary search: cheap when the answer is near.
Iter Gallop(Iter from, Iter end, EntryId id) {
  size_t step = 1;
  Iter lo = from;
  while (true) {
    size_t left = static_cast<size_t>(end - lo);
    if (left <= step) return std::lower_bound(lo, end, id);
    Iter probe = lo + static_cast<std::ptrdiff_t>(step);
    if (*probe >= id) return std::lower_bound(lo, probe + 1, id);
    lo = probe + 1;
    step *= 2;
  }
}

}  // namespace

IdList IdList::FromUnsorted(std::vector<EntryId> ids) {
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return IdList(std::move(ids));
}

bool IdList::Contains(EntryId id) const { return std::binary_search(ids_.begin(), ids_.end(), id); }

bool IdList::IsValid() const {
  for (size_t i = 1; i < ids_.size(); ++i) {
    if (ids_[i - 1] >= ids_[i]) return false;
  }
  return true;
}

IdList IdList::Intersect(const IdList& a, const IdList& b) {
  const IdList& small = a.size() <= b.size() ? a : b;
  const IdList& large = a.size() <= b.size() ? b : a;
  std::vector<EntryId> out;
  if (small.empty()) return IdList();
  out.reserve(small.size());
  if (large.size() / kGallopRatio >= small.size()) {
    Iter pos = large.ids_.begin();
    Iter end = large.ids_.end();
    for (EntryId id : small.ids_) {
      pos = Gallop(pos, end, id);
      if (pos == end) break;
      if (*pos == id) out.push_back(id);
    }
  } else {
    std::set_intersection(small.ids_.begin(), small.ids_.end(), large.ids_.begin(),
                          large.ids_.end(), std::back_inserter(out));
  }
  return IdList(std::move(out));
}

IdList IdList::Union(const IdList& a, const IdList& b) {
  if (a.empty()) return b;
  if (b.empty()) return a;
  const IdList& small = a.size() <= b.size() ? a : b;
  const IdList& large = a.size() <= b.size() ? b : a;
  std::vector<EntryId> out;
  out.reserve(a.size() + b.size());
  if (large.size() / kGallopRatio >= small.size()) {
    // Copy runs of the long list between the short list's IDs.
    Iter pos = large.ids_.begin();
    Iter end = large.ids_.end();
    for (EntryId id : small.ids_) {
      Iter next = Gallop(pos, end, id);
      out.insert(out.end(), pos, next);
      if (next == end || *next != id) out.push_back(id);
      pos = next;
    }
    out.insert(out.end(), pos, end);
  } else {
    std::set_union(a.ids_.begin(), a.ids_.end(), b.ids_.begin(), b.ids_.end(),
                   std::back_inserter(out));
  }
  return IdList(std::move(out));
}

IdList IdList::Difference(const IdList& a, const IdList& b) {
  if (a.empty() || b.empty()) return a;
  std::vector<EntryId> out;
  out.reserve(a.size());
  if (b.size() / kGallopRatio >= a.size()) {
    Iter pos = b.ids_.begin();
    Iter end = b.ids_.end();
    for (EntryId id : a.ids_) {
      pos = Gallop(pos, end, id);
      if (pos == end || *pos != id) out.push_back(id);
    }
  } else if (a.size() / kGallopRatio >= b.size()) {
    Iter pos = a.ids_.begin();
    Iter end = a.ids_.end();
    for (EntryId id : b.ids_) {
      Iter next = Gallop(pos, end, id);
      out.insert(out.end(), pos, next);
      pos = (next != end && *next == id) ? next + 1 : next;
    }
    out.insert(out.end(), pos, end);
  } else {
    std::set_difference(a.ids_.begin(), a.ids_.end(), b.ids_.begin(), b.ids_.end(),
                        std::back_inserter(out));
  }
  return IdList(std::move(out));
}

IdList IdList::IntersectAll(std::vector<const IdList*> lists) {
  if (lists.empty()) return IdList();
  std::sort(lists.begin(), lists.end(),
            [](const IdList* x, const IdList* y) { return x->size() < y->size(); });
  IdList acc = *lists[0];
  for (size_t i = 1; i < lists.size() && !acc.empty(); ++i) acc = Intersect(acc, *lists[i]);
  return acc;
}

IdList IdList::UnionAll(std::vector<const IdList*> lists) {
  if (lists.empty()) return IdList();
  std::vector<IdList> work;
  work.reserve(lists.size());
  for (const IdList* l : lists) work.push_back(*l);
  // Merge the two shortest repeatedly (Huffman order): each ID is copied
  // O(log k) times at most.
  auto longer = [](const IdList& x, const IdList& y) { return x.size() > y.size(); };
  std::make_heap(work.begin(), work.end(), longer);
  while (work.size() > 1) {
    std::pop_heap(work.begin(), work.end(), longer);
    IdList x = std::move(work.back());
    work.pop_back();
    std::pop_heap(work.begin(), work.end(), longer);
    IdList y = std::move(work.back());
    work.pop_back();
    work.push_back(Union(x, y));
    std::push_heap(work.begin(), work.end(), longer);
  }
  return std::move(work.front());
}

}  // namespace dirload
