#include "lib/util/held_records.h"

#include <algorithm>
#include <cstring>
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

std::vector<uint32_t> HeldRecords::Sorted() const {
  // Handles in arena order, read off the records one after another: the
  // sort's first passes then read the arena front to back.
  std::vector<uint32_t> handles;
  handles.reserve(count_);
  for (size_t at = 0; at < arena_.size();) {
    handles.push_back(static_cast<uint32_t>(at));
    auto [key, value] = Record(static_cast<uint32_t>(at));
    at = static_cast<size_t>(value.data() + value.size() - arena_.data());
  }
  auto less = [this](uint32_t a, uint32_t b) { return KeyAt(a) < KeyAt(b); };
  // At the end of a load this sort is the one step left, with the checking
  // threads done: two halves on two threads, then merged.
  const auto middle = handles.begin() + static_cast<std::ptrdiff_t>(handles.size() / 2);
  std::optional<std::thread> helper;
  if (handles.size() >= kSortAlone) {
    try {
      helper.emplace([&] { std::sort(handles.begin(), middle, less); });
    } catch (const std::system_error&) {
      // No thread to be had: one sort does it all.
    }
  }
  if (!helper) {
    std::sort(handles.begin(), handles.end(), less);
    return handles;
  }
  std::sort(middle, handles.end(), less);
  helper->join();
  std::inplace_merge(handles.begin(), middle, handles.end(), less);
  return handles;
}

void HeldRecords::Clear() {
  count_ = 0;
  std::string().swap(arena_);
  std::vector<uint64_t>().swap(slots_);
}

}  // namespace dirload
