#include "lib/idl/block_arena.h"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>

namespace dirload {
namespace {

// Class sizes: 16, 24, 32, ... each about 1.25 times the last, multiples of
// 8, up to and including kMaxClassBytes.
constexpr uint32_t NextClass(uint32_t size) {
  uint32_t next = (size + size / 4 + 7) & ~7u;
  next = next > size + 8 ? next : size + 8;
  return next < BlockArena::kMaxClassBytes ? next : BlockArena::kMaxClassBytes;
}

constexpr size_t CountClasses() {
  size_t n = 1;
  for (uint32_t size = 16; size < BlockArena::kMaxClassBytes; size = NextClass(size)) ++n;
  return n;
}

constexpr size_t kClassCount = CountClasses();

constexpr std::array<uint32_t, kClassCount> MakeClasses() {
  std::array<uint32_t, kClassCount> c{};
  uint32_t size = 16;
  for (size_t i = 0; i < kClassCount; ++i) {
    c[i] = size;
    size = NextClass(size);
  }
  return c;
}

constexpr std::array<uint32_t, kClassCount> kClasses = MakeClasses();
static_assert(kClasses[kClassCount - 1] == BlockArena::kMaxClassBytes);

}  // namespace

void BlockArena::FreeChunk::operator()(char* p) const { std::free(p); }

BlockArena::BlockArena() : free_(kClassCount, nullptr) {}

BlockArena::~BlockArena() = default;

size_t BlockArena::ClassOf(uint32_t bytes) {
  return static_cast<size_t>(std::lower_bound(kClasses.begin(), kClasses.end(), bytes) -
                             kClasses.begin());
}

char* BlockArena::Allocate(uint32_t bytes, uint32_t* cap) {
  if (bytes > kMaxClassBytes) {
    char* p = static_cast<char*>(std::malloc(bytes));
    if (p == nullptr) std::abort();
    *cap = bytes;
    reserved_ += bytes;
    large_bytes_ += bytes;
    return p;
  }
  size_t c = ClassOf(bytes);
  uint32_t size = kClasses[c];
  *cap = size;
  if (char* p = free_[c]) {
    std::memcpy(&free_[c], p, sizeof(char*));
    return p;
  }
  if (chunks_.empty() || chunk_used_ + size > kChunkBytes) {
    if (!chunks_.empty()) ++chunk_;
    if (chunk_ >= chunks_.size()) {
      char* p = static_cast<char*>(std::malloc(kChunkBytes));
      if (p == nullptr) std::abort();
      chunks_.emplace_back(p);
      reserved_ += kChunkBytes;
      chunk_ = chunks_.size() - 1;
    }
    chunk_used_ = 0;
  }
  char* p = chunks_[chunk_].get() + chunk_used_;
  chunk_used_ += size;
  return p;
}

void BlockArena::Free(char* p, uint32_t cap) {
  if (cap > kMaxClassBytes) {
    std::free(p);
    reserved_ -= cap;
    large_bytes_ -= cap;
    return;
  }
  size_t c = ClassOf(cap);
  std::memcpy(p, &free_[c], sizeof(char*));
  free_[c] = p;
}

char* BlockArena::Grow(char* p, uint32_t cap, uint32_t used, uint32_t bytes, uint32_t* new_cap) {
  if (cap > kMaxClassBytes) {
    // Large blocks grow in place where malloc can, by half again each time.
    uint32_t want = std::max(bytes, cap + cap / 2);
    char* q = static_cast<char*>(std::realloc(p, want));
    if (q == nullptr) std::abort();
    reserved_ += want - cap;
    large_bytes_ += want - cap;
    *new_cap = want;
    return q;
  }
  char* q = Allocate(bytes, new_cap);
  std::memcpy(q, p, used);
  Free(p, cap);
  return q;
}

void BlockArena::Reset() {
  std::fill(free_.begin(), free_.end(), nullptr);
  chunk_ = 0;
  chunk_used_ = 0;
}

void BlockArena::Release() {
  Reset();
  reserved_ -= chunks_.size() * kChunkBytes;
  std::vector<std::unique_ptr<char, FreeChunk>>().swap(chunks_);
}

}  // namespace dirload
