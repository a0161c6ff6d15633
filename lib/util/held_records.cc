#include "lib/util/held_records.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <system_error>
#include <thread>

#include "lib/util/coding.h"
#include "lib/util/key_hash.h"

namespace dirload {
namespace {

constexpr uint64_t kSeed = 0x6b2d6e3269642d62ull;
constexpr size_t kFirstSlots = 1024;
// Fewer records are sorted on the calling thread alone.
constexpr size_t kSortAlone = 1 << 16;
// Room past the budget for the record that crosses it.
constexpr size_t kArenaSlack = 64 << 10;

uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }

}  // namespace

HeldRecords::HeldRecords(size_t budget_bytes)
    // Handles are 32-bit offsets into the arena.
    : budget_(std::min<size_t>(budget_bytes, size_t{1} << 31)) {}

std::string_view HeldRecords::KeyAt(uint32_t handle) const {
  const char* p = arena_.data() + handle;
  uint16_t size;
  std::memcpy(&size, p, sizeof size);
  return {p + sizeof size, size};
}

std::pair<std::string_view, std::string_view> HeldRecords::Record(uint32_t handle) const {
  std::string_view key = KeyAt(handle);
  std::string_view in(key.data() + key.size(),
                      arena_.data() + arena_.size() - (key.data() + key.size()));
  uint64_t value_size = 0;
  GetVarint(&in, &value_size);
  return {key, in.substr(0, value_size)};
}

uint64_t HeldRecords::Hash(std::string_view key) {
  return HashBytes(key.data(), key.size(), kSeed);
}

void HeldRecords::Add(std::string_view key, uint64_t hash, std::string_view value) {
  // At most half the slots in use keeps the probes short.
  if ((count_ + 1) * 2 > slots_.size()) Grow();
  const size_t mask = slots_.size() - 1;
  size_t i = Slot(hash);
  while (slots_[i] != 0) i = (i + 1) & mask;
  // The whole budget at once: pages not written are not resident, and a
  // string that doubled would hold its old and new copies at the same time.
  if (arena_.capacity() < budget_ + kArenaSlack) arena_.reserve(budget_ + kArenaSlack);
  const auto offset = static_cast<uint32_t>(arena_.size());
  const auto key_size = static_cast<uint16_t>(key.size());
  arena_.append(reinterpret_cast<const char*>(&key_size), sizeof key_size);
  arena_.append(key);
  PutVarint(value.size(), &arena_);
  arena_.append(value);
  slots_[i] = (uint64_t{Tag(hash)} << 32) | (uint64_t{offset} + 1);
  ++count_;
}

std::optional<std::string_view> HeldRecords::Find(std::string_view key, uint64_t hash) const {
  if (count_ == 0) return std::nullopt;
  const size_t mask = slots_.size() - 1;
  for (size_t i = Slot(hash); slots_[i] != 0; i = (i + 1) & mask) {
    if (static_cast<uint32_t>(slots_[i] >> 32) != Tag(hash)) continue;
    const uint32_t handle = static_cast<uint32_t>(slots_[i]) - 1;
    if (KeyAt(handle) == key) return Record(handle).second;
  }
  return std::nullopt;
}

void HeldRecords::Grow() {
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(std::max(kFirstSlots, old.size() * 2), 0);
  const size_t mask = slots_.size() - 1;
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    // The tag is the hash's top 32 bits, all that Slot() reads while the
    // table has at most 2^32 slots (offsets are 32-bit: it has far fewer).
    size_t i = Slot(slot & ~uint64_t{0xffffffff});
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

namespace {

// Seven bytes of `key` from `depth` in the top bytes, big-endian, and in the
// low byte how many of them the key has (7 when it goes on): comparing two
// chunks as numbers compares the keys' bytes there as the stores do, a key
// that ends before the other sorting first.
uint64_t ChunkAt(std::string_view key, size_t depth) {
  const size_t left = depth < key.size() ? key.size() - depth : 0;
  if (left >= 8) {
    uint64_t v;
    std::memcpy(&v, key.data() + depth, sizeof v);
    return (__builtin_bswap64(v) & ~uint64_t{0xff}) | 7;
  }
  const size_t n = std::min<size_t>(left, 7);
  uint64_t c = 0;
  for (size_t i = 0; i < n; ++i) {
    c |= uint64_t{static_cast<uint8_t>(key[depth + i])} << (56 - 8 * i);
  }
  return c | n;
}

}  // namespace

// Sorts [b, e), whose keys agree in their first `depth` bytes, by the rest
// of their keys: by seven bytes at a time held beside each handle, so that
// a comparison reads no key, and each key is read once per seven bytes of
// the prefix it shares with others instead of at every comparison (the
// records lie scattered over an arena larger than the processor's caches).
void HeldRecords::SortFrom(Chunked* b, Chunked* e, size_t depth) const {
  constexpr ptrdiff_t kFew = 16;
  for (;;) {
    if (e - b < 2) return;
    if (e - b <= kFew) {
      std::sort(b, e, [&](const Chunked& x, const Chunked& y) {
        return KeyAt(x.handle).substr(depth) < KeyAt(y.handle).substr(depth);
      });
      return;
    }
    bool same = true;
    for (Chunked* p = b; p < e; ++p) {
      p->chunk = ChunkAt(KeyAt(p->handle), depth);
      same = same && p->chunk == b->chunk;
    }
    // A prefix every key here shares (the suffix's RDNs): on to the next
    // seven bytes, without sorting. (Keys that all end here are equal: held
    // keys are unique, but the order is then complete anyway.)
    if (same) {
      if ((b->chunk & 0xff) != 7) return;
      depth += 7;
      continue;
    }
    std::sort(b, e, [](const Chunked& x, const Chunked& y) { return x.chunk < y.chunk; });
    for (Chunked* run = b; run < e;) {
      Chunked* run_end = run + 1;
      while (run_end < e && run_end->chunk == run->chunk) ++run_end;
      if ((run->chunk & 0xff) == 7) SortFrom(run, run_end, depth + 7);
      run = run_end;
    }
    return;
  }
}

std::vector<HeldRecords::Chunked> HeldRecords::SortedChunks() const {
  // Handles in arena order, read off the records one after another.
  std::vector<Chunked> chunked;
  chunked.reserve(count_);
  for (size_t at = 0; at < arena_.size();) {
    chunked.push_back({0, static_cast<uint32_t>(at)});
    auto [key, value] = Record(static_cast<uint32_t>(at));
    at = static_cast<size_t>(value.data() + value.size() - arena_.data());
  }
  // At the end of a load this sort is the one step left, with the checking
  // threads done: two halves on two threads, then merged.
  const auto middle = chunked.begin() + static_cast<std::ptrdiff_t>(chunked.size() / 2);
  std::optional<std::thread> helper;
  if (chunked.size() >= kSortAlone) {
    try {
      helper.emplace([&] { SortFrom(chunked.data(), &*middle, 0); });
    } catch (const std::system_error&) {
      // No thread to be had: one sort does it all.
    }
  }
  if (!helper) {
    SortFrom(chunked.data(), chunked.data() + chunked.size(), 0);
  } else {
    SortFrom(&*middle, chunked.data() + chunked.size(), 0);
    helper->join();
    std::inplace_merge(
        chunked.begin(), middle, chunked.end(),
        [this](const Chunked& x, const Chunked& y) { return KeyAt(x.handle) < KeyAt(y.handle); });
  }
  return chunked;
}

std::vector<uint32_t> HeldRecords::Sorted() const {
  const std::vector<Chunked> chunked = SortedChunks();
  std::vector<uint32_t> handles;
  handles.reserve(chunked.size());
  for (const Chunked& c : chunked) handles.push_back(c.handle);
  return handles;
}

void HeldRecords::Clear() {
  count_ = 0;
  std::string().swap(arena_);
  std::vector<uint64_t>().swap(slots_);
}

}  // namespace dirload
