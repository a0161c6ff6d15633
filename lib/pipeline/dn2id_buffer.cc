#include "lib/pipeline/dn2id_buffer.h"

#include <algorithm>
#include <cassert>

#include "lib/idl/key_hash.h"
#include "lib/util/coding.h"

namespace dirload {
namespace {

constexpr uint64_t kSeed = 0x6b2d6e3269642d62ull;
constexpr size_t kFirstSlots = 1024;
// Room past the budget for the record that crosses it.
constexpr size_t kArenaSlack = 64 << 10;

uint32_t Tag(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }

}  // namespace

Dn2IdBuffer::Dn2IdBuffer(size_t budget_bytes)
    // Handles are 32-bit offsets into the arena.
    : budget_(std::min<size_t>(budget_bytes, size_t{1} << 31)) {}

std::pair<std::string_view, std::string_view> Dn2IdBuffer::Record(uint32_t handle) const {
  std::string_view in(arena_);
  in.remove_prefix(handle);
  uint64_t key_size = 0, value_size = 0;
  GetVarint(&in, &key_size);
  std::string_view key = in.substr(0, key_size);
  in.remove_prefix(key_size);
  GetVarint(&in, &value_size);
  return {key, in.substr(0, value_size)};
}

void Dn2IdBuffer::Add(std::string_view key, std::string_view value) {
  // At most half the slots in use keeps the probes short.
  if ((count_ + 1) * 2 > slots_.size()) Grow();
  const uint64_t hash = HashBytes(key.data(), key.size(), kSeed);
  const size_t mask = slots_.size() - 1;
  size_t i = hash & mask;
  while (slots_[i] != 0) i = (i + 1) & mask;
  // The whole budget at once: pages not written are not resident, and a
  // string that doubled would hold its old and new copies at the same time.
  if (arena_.capacity() < budget_ + kArenaSlack) arena_.reserve(budget_ + kArenaSlack);
  const auto offset = static_cast<uint32_t>(arena_.size());
  PutVarint(key.size(), &arena_);
  arena_.append(key);
  PutVarint(value.size(), &arena_);
  arena_.append(value);
  slots_[i] = (uint64_t{Tag(hash)} << 32) | (uint64_t{offset} + 1);
  ++count_;
}

std::optional<std::string_view> Dn2IdBuffer::Find(std::string_view key) const {
  if (count_ == 0) return std::nullopt;
  const uint64_t hash = HashBytes(key.data(), key.size(), kSeed);
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask; slots_[i] != 0; i = (i + 1) & mask) {
    if (static_cast<uint32_t>(slots_[i] >> 32) != Tag(hash)) continue;
    auto [k, v] = Record(static_cast<uint32_t>(slots_[i]) - 1);
    if (k == key) return v;
  }
  return std::nullopt;
}

void Dn2IdBuffer::Grow() {
  std::vector<uint64_t> old;
  old.swap(slots_);
  slots_.assign(std::max(kFirstSlots, old.size() * 2), 0);
  const size_t mask = slots_.size() - 1;
  for (uint64_t slot : old) {
    if (slot == 0) continue;
    auto [key, value] = Record(static_cast<uint32_t>(slot) - 1);
    size_t i = HashBytes(key.data(), key.size(), kSeed) & mask;
    while (slots_[i] != 0) i = (i + 1) & mask;
    slots_[i] = slot;
  }
}

std::vector<uint32_t> Dn2IdBuffer::Sorted() const {
  std::vector<uint32_t> handles;
  handles.reserve(count_);
  for (uint64_t slot : slots_) {
    if (slot != 0) handles.push_back(static_cast<uint32_t>(slot) - 1);
  }
  // Arena order first: the key sort's first passes then read the arena
  // front to back.
  std::sort(handles.begin(), handles.end());
  std::sort(handles.begin(), handles.end(),
            [this](uint32_t a, uint32_t b) { return Record(a).first < Record(b).first; });
  return handles;
}

void Dn2IdBuffer::Clear() {
  count_ = 0;
  std::string().swap(arena_);
  std::vector<uint64_t>().swap(slots_);
}

}  // namespace dirload
