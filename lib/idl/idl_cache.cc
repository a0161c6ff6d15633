#include "lib/idl/idl_cache.h"

#include <algorithm>
#include <cstring>

#include "lib/util/key_hash.h"

namespace dirload {
namespace {

constexpr size_t kInitialSlots = 1024;
constexpr uint32_t kMinBuffer = 32;

inline uint32_t SlotList(uint64_t slot) { return static_cast<uint32_t>(slot); }
inline uint64_t SlotOf(uint64_t hash, uint32_t list) {
  return (hash & 0xFFFFFFFF00000000ull) | list;
}

// Up to 8 bytes from p, big-endian, zero padded on the right. Shorter
// reads overlap rather than loop byte by byte: most index keys (substring
// fragments, short values) are under 8 bytes, and the loop was 2 % of a
// native rebuild's instructions.
inline uint64_t BigEndianPrefix(const char* p, size_t n) {
  auto byte = [p](size_t i) { return uint64_t{static_cast<unsigned char>(p[i])}; };
  if (n >= 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return __builtin_bswap64(v);
  }
  if (n >= 4) {
    // Bytes 0-3 and n-4..n-1; where they overlap both hold the same bytes.
    uint32_t first, last;
    std::memcpy(&first, p, 4);
    std::memcpy(&last, p + n - 4, 4);
    return (uint64_t{__builtin_bswap32(first)} << 32) |
           (uint64_t{__builtin_bswap32(last)} << (64 - 8 * n));
  }
  if (n == 0) return 0;
  // Bytes 0, n/2 and n-1 cover 1 to 3 bytes.
  return (byte(0) << 56) | (byte(n / 2) << (56 - 8 * (n / 2))) | (byte(n - 1) << (64 - 8 * n));
}

std::string FlushedKey(uint32_t table, std::string_view key) {
  std::string s(reinterpret_cast<const char*>(&table), sizeof(table));
  s.append(key);
  return s;
}

}  // namespace

IdlCache::KeyHead IdlCache::HeadOf(std::string_view key) {
  const size_t n = key.size();
  return {BigEndianPrefix(key.data(), n), n > 8 ? BigEndianPrefix(key.data() + 8, n - 8) : 0};
}

IdlCache::IdlCache(uint64_t capacity, FlushFn flush)
    : capacity_(capacity), flush_(std::move(flush)) {
  lists_.emplace_back();  // index 0: the empty-slot marker
}

IdlCache::~IdlCache() {
  for (List& l : lists_) {
    if (l.buf != nullptr) arena_.Free(l.buf, l.cap);  // large blocks are malloc'd
  }
}

void IdlCache::Reserve(size_t lists) { lists_.reserve(lists + 1); }

void IdlCache::Release() {
  if (live_ != 0) return;
  arena_.Release();
  std::vector<List>(1).swap(lists_);
  std::vector<uint32_t>().swap(free_);
  std::vector<uint64_t>().swap(slots_);
  mask_ = 0;
  std::vector<DrainRec>().swap(drain_order_);
  drain_sorted_ = false;
}

uint64_t IdlCache::held() const {
  return arena_.reserved() + lists_.capacity() * sizeof(List) +
         free_.capacity() * sizeof(uint32_t) + slots_.capacity() * sizeof(uint64_t) +
         drain_order_.capacity() * sizeof(DrainRec);
}

size_t IdlCache::ListsWithin(uint64_t bytes) {
  return static_cast<size_t>(bytes / (sizeof(List) + 2 * sizeof(uint64_t) + kMinBuffer));
}

bool IdlCache::FlushedThisId(uint32_t table, std::string_view key) const {
  return flushed_this_id_.count(FlushedKey(table, key)) != 0;
}

void IdlCache::NoteFlushedThisId(uint32_t table, std::string_view key) {
  flushed_this_id_.insert(FlushedKey(table, key));
}

// The adds' hot path, defined ahead of its callers so that it is inlined
// into them: a key the cache holds costs a probe and an append, and the
// call and register saves of an out-of-line AddHashed were as much again.
inline void IdlCache::AppendId(List* l, EntryId id) {
  if (l->size + 10 > l->cap) {
    uint32_t cap = 0;
    char* buf = arena_.Grow(l->buf, l->cap, l->size, l->size + 10 + l->size / 2, &cap);
    stats_.bytes += cap - l->cap;
    l->buf = buf;
    l->cap = cap;
  }
  uint64_t v = id - l->last;
  char* p = l->buf + l->size;
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  l->size = static_cast<uint32_t>(p - l->buf);
  l->last = id;
  ++l->count;
}

inline void IdlCache::Touch(uint32_t idx) {
  if (!lru_linked_) {
    lists_[idx].stamp = ++clock_;
  } else if (lru_head_ != idx) {
    Unlink(idx);
    LinkFront(idx);
  }
}

inline Status IdlCache::AddHashed(uint32_t table, std::string_view key, const KeyHead& head,
                                  uint64_t hash, EntryId id) {
  if (!status_.ok()) return status_;
  if (id != current_id_) {
    current_id_ = id;
    if (!flushed_this_id_.empty()) flushed_this_id_.clear();
  }
  if (slots_.empty()) Rehash(kInitialSlots);
  uint64_t tag = hash & 0xFFFFFFFF00000000ull;
  for (size_t pos = hash & mask_;; pos = (pos + 1) & mask_) {
    uint64_t s = slots_[pos];
    if (s == 0) break;
    if ((s & 0xFFFFFFFF00000000ull) != tag) continue;
    List& l = lists_[SlotList(s)];
    if (l.table == table && l.key_len == key.size() && l.head0 == head.h0 && l.head1 == head.h1 &&
        (key.size() <= 16 || std::memcmp(l.buf + 16, key.data() + 16, key.size() - 16) == 0)) {
      ++stats_.hits;
      if (l.last != id) AppendId(&l, id);
      Touch(SlotList(s));
      return Status::Ok();
    }
  }
  return AddNew(table, key, head, hash, id);
}

// The rest of AddHashed, out of line: a key the cache does not hold.
Status IdlCache::AddNew(uint32_t table, std::string_view key, const KeyHead& head, uint64_t hash,
                        EntryId id) {
  if (!flushed_this_id_.empty() && FlushedThisId(table, key)) {
    ++stats_.hits;
    return Status::Ok();
  }
  ++stats_.misses;
  if (live_ >= capacity_) {
    status_ = EvictOne();
    if (!status_.ok()) return status_;
  }
  uint32_t idx = NewList(table, key, head, hash);
  AppendId(&lists_[idx], id);
  if ((live_ + 1) * 2 > slots_.size()) Rehash(slots_.size() * 2);
  InsertSlot(idx);
  ++live_;
  stats_.max_lists = std::max<uint64_t>(stats_.max_lists, live_);
  if (lru_linked_) {
    LinkFront(idx);
  } else {
    lists_[idx].stamp = ++clock_;
  }
  return Status::Ok();
}

Status IdlCache::Add(uint32_t table, std::string_view key, EntryId id) {
  if (!status_.ok()) return status_;
  if (id != current_id_) {
    current_id_ = id;
    if (!flushed_this_id_.empty()) flushed_this_id_.clear();
  }
  if (capacity_ == 0) {
    if (FlushedThisId(table, key)) {
      ++stats_.hits;  // the same key again in one entry: already written
      return Status::Ok();
    }
    ++stats_.misses;
    scratch_.assign(1, id);
    ++stats_.flushes;
    ++stats_.ids_flushed;
    status_ = flush_(table, key, scratch_);
    NoteFlushedThisId(table, key);
    return status_;
  }

  return AddHashed(table, key, HeadOf(key), HashBytes(key.data(), key.size(), table), id);
}

Status IdlCache::AddBatch(EntryId id, std::span<const uint32_t> tables,
                          std::span<const std::string_view> keys) {
  if (capacity_ == 0 || keys.size() < 4) {
    for (size_t i = 0; i < keys.size(); ++i) DIRLOAD_RETURN_IF_ERROR(Add(tables[i], keys[i], id));
    return Status::Ok();
  }
  if (slots_.empty()) Rehash(kInitialSlots);
  // Pass 1: hash every key, make its head and prefetch its home slot. Pass 2: prefetch the
  // list (and its buffer's end) in the home slot when the tag matches. The
  // real adds then find most of what they touch in the CPU cache. The
  // prefetches are only hints: pass 3 probes again from scratch, since an
  // eviction may move slots in between.
  batch_hashes_.resize(keys.size());
  batch_heads_.resize(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    uint64_t h = HashBytes(keys[i].data(), keys[i].size(), tables[i]);
    batch_hashes_[i] = h;
    __builtin_prefetch(&slots_[h & mask_]);
    batch_heads_[i] = HeadOf(keys[i]);
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    uint64_t h = batch_hashes_[i];
    uint64_t s = slots_[h & mask_];
    if (s != 0 && (s & 0xFFFFFFFF00000000ull) == (h & 0xFFFFFFFF00000000ull)) {
      const List& l = lists_[SlotList(s)];
      __builtin_prefetch(&l);
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    uint64_t h = batch_hashes_[i];
    uint64_t s = slots_[h & mask_];
    if (s != 0 && (s & 0xFFFFFFFF00000000ull) == (h & 0xFFFFFFFF00000000ull)) {
      const List& l = lists_[SlotList(s)];
      if (l.key_len > 16) __builtin_prefetch(l.buf + 16);
      __builtin_prefetch(l.buf + l.size, 1);
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    DIRLOAD_RETURN_IF_ERROR(AddHashed(tables[i], keys[i], batch_heads_[i], batch_hashes_[i], id));
  }
  return Status::Ok();
}

uint32_t IdlCache::NewList(uint32_t table, std::string_view key, const KeyHead& head,
                           uint64_t hash) {
  uint32_t idx;
  if (!free_.empty()) {
    idx = free_.back();
    free_.pop_back();
  } else {
    idx = static_cast<uint32_t>(lists_.size());
    lists_.emplace_back();
  }
  List& l = lists_[idx];
  l.hash = hash;
  l.head0 = head.h0;
  l.head1 = head.h1;
  l.table = static_cast<uint16_t>(table);
  l.key_len = static_cast<uint16_t>(key.size());
  l.buf = arena_.Allocate(std::max<uint32_t>(kMinBuffer, static_cast<uint32_t>(key.size()) + 8),
                          &l.cap);
  std::memcpy(l.buf, key.data(), key.size());
  l.size = l.key_len;
  l.last = 0;
  l.count = 0;
  l.stamp = 0;
  stats_.bytes += l.cap;
  return idx;
}

void IdlCache::InsertSlot(uint32_t idx) {
  uint64_t hash = lists_[idx].hash;
  size_t pos = hash & mask_;
  while (slots_[pos] != 0) pos = (pos + 1) & mask_;
  slots_[pos] = SlotOf(hash, idx);
}

void IdlCache::EraseSlot(uint32_t idx) {
  size_t i = lists_[idx].hash & mask_;
  while (SlotList(slots_[i]) != idx) i = (i + 1) & mask_;
  // Backward-shift deletion: pull later members of the probe run into the
  // hole when their home slot allows it, so no tombstones are needed.
  size_t j = i;
  while (true) {
    j = (j + 1) & mask_;
    uint64_t s = slots_[j];
    if (s == 0) break;
    size_t home = lists_[SlotList(s)].hash & mask_;
    bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
    if (!stays) {
      slots_[i] = s;
      i = j;
    }
  }
  slots_[i] = 0;
}

void IdlCache::Rehash(size_t slots) {
  slots_.assign(slots, 0);
  mask_ = slots - 1;
  for (uint32_t i = 1; i < lists_.size(); ++i) {
    if (lists_[i].buf != nullptr) InsertSlot(i);
  }
}

void IdlCache::BuildLruOrder() {
  std::vector<std::pair<uint64_t, uint32_t>> order;
  order.reserve(live_);
  for (uint32_t i = 1; i < lists_.size(); ++i) {
    if (lists_[i].buf != nullptr) order.emplace_back(lists_[i].stamp, i);
  }
  std::sort(order.begin(), order.end());  // least recent first
  lru_linked_ = true;
  lru_head_ = lru_tail_ = 0;
  for (const auto& [stamp, idx] : order) LinkFront(idx);
}

void IdlCache::LinkFront(uint32_t idx) {
  List& l = lists_[idx];
  l.link.prev = 0;
  l.link.next = lru_head_;
  if (lru_head_ != 0) lists_[lru_head_].link.prev = idx;
  lru_head_ = idx;
  if (lru_tail_ == 0) lru_tail_ = idx;
}

void IdlCache::Unlink(uint32_t idx) {
  List& l = lists_[idx];
  if (l.link.prev != 0) {
    lists_[l.link.prev].link.next = l.link.next;
  } else {
    lru_head_ = l.link.next;
  }
  if (l.link.next != 0) {
    lists_[l.link.next].link.prev = l.link.prev;
  } else {
    lru_tail_ = l.link.prev;
  }
  l.link.prev = l.link.next = 0;
}

IdlCache::EncodedList IdlCache::Encoded(const List& l) const {
  return {l.table, l.key(), std::string_view(l.buf + l.key_len, l.size - l.key_len), l.count};
}

Status IdlCache::HandOver(const EncodedList& list, const FlushFn& fn) {
  scratch_.clear();
  scratch_.reserve(list.count);
  const char* p = list.body.data();
  const char* end = p + list.body.size();
  EntryId id = 0;
  while (p < end) {
    uint64_t v = 0;
    int shift = 0;
    unsigned char c;
    do {
      c = static_cast<unsigned char>(*p++);
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      shift += 7;
    } while (c & 0x80);
    id += v;
    scratch_.push_back(id);
  }
  return fn(list.table, list.key, scratch_);
}

void IdlCache::FreeList(uint32_t idx) {
  List& l = lists_[idx];
  stats_.bytes -= l.cap;
  arena_.Free(l.buf, l.cap);
  l.buf = nullptr;
  l.cap = l.size = l.key_len = 0;
  free_.push_back(idx);
}

Status IdlCache::EvictOne() {
  if (!lru_linked_) BuildLruOrder();
  uint32_t victim = lru_tail_;
  List& l = lists_[victim];
  ++stats_.evictions;
  ++stats_.flushes;
  stats_.ids_flushed += l.count;
  DIRLOAD_RETURN_IF_ERROR(HandOver(Encoded(l), flush_));
  if (l.last == current_id_) NoteFlushedThisId(l.table, l.key());
  Unlink(victim);
  EraseSlot(victim);
  FreeList(victim);
  --live_;
  return Status::Ok();
}

void IdlCache::SortForDrain() {
  std::vector<DrainRec>& order = drain_order_;
  order.clear();
  order.reserve(live_);
  for (uint32_t i = 1; i < lists_.size(); ++i) {
    const List& l = lists_[i];
    if (l.buf == nullptr) continue;
    order.push_back({l.head0, l.head1, l.table, i});
  }
  std::sort(order.begin(), order.end(), [this](const DrainRec& a, const DrainRec& b) {
    if (a.table != b.table) return a.table < b.table;
    if (a.p0 != b.p0) return a.p0 < b.p0;
    if (a.p1 != b.p1) return a.p1 < b.p1;
    return lists_[a.idx].key() < lists_[b.idx].key();
  });
  drain_sorted_ = true;
}

Status IdlCache::Drain(const FlushFn& fn) {
  return DrainEncoded([&](const EncodedList& list) { return HandOver(list, fn); });
}

Status IdlCache::DrainEncoded(const EncodedFlushFn& fn) {
  if (!status_.ok()) return status_;
  if (!drain_sorted_) SortForDrain();
  drain_sorted_ = false;
  const std::vector<DrainRec>& order = drain_order_;
  // The lists are visited in key order, i.e. all over memory: prefetch the
  // records a few steps ahead and their buffers a few steps less ahead.
  constexpr size_t kAheadRecord = 16, kAheadBuffer = 8;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i + kAheadRecord < order.size()) __builtin_prefetch(&lists_[order[i + kAheadRecord].idx]);
    if (i + kAheadBuffer < order.size())
      __builtin_prefetch(lists_[order[i + kAheadBuffer].idx].buf);
    const List& l = lists_[order[i].idx];
    ++stats_.flushes;
    stats_.ids_flushed += l.count;
    status_ = fn(Encoded(l));
    if (!status_.ok()) return status_;
    FreeList(order[i].idx);
  }
  std::fill(slots_.begin(), slots_.end(), 0);
  arena_.Reset();  // every block is free: recycle the chunks from the start
  // Every record is free too. Handing them out again from free_ would give
  // them in reverse key order, a random walk over the records; starting the
  // array over (its capacity kept) gives the next run's lists in order.
  lists_.resize(1);
  free_.clear();
  live_ = 0;
  lru_linked_ = false;
  lru_head_ = lru_tail_ = 0;
  // The order's array too is kept for the next run: freed, it would go back
  // to the system, and the next drain would have to fault in new pages.
  drain_order_.clear();
  return Status::Ok();
}

}  // namespace dirload
