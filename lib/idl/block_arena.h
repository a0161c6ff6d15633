// BlockArena: memory for the IDL cache's list buffers. Millions of small
// blocks that grow and die together make malloc/free/realloc a measurable
// share of an index build (chunk headers, consolidation, copies), so blocks
// come from 1 MB chunks in size classes (about x1.25 apart), freed blocks go
// on a per-class free list for reuse, and Reset() recycles every chunk at
// once. Blocks larger than kMaxClassBytes go to malloc.
//
// Thread safety: one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace dirload {

class BlockArena {
 public:
  static constexpr size_t kChunkBytes = 1 << 20;
  static constexpr uint32_t kMaxClassBytes = 64 << 10;

  BlockArena();
  ~BlockArena();
  BlockArena(const BlockArena&) = delete;
  BlockArena& operator=(const BlockArena&) = delete;

  // A block of at least `bytes` (> 0); *cap is set to its usable size.
  char* Allocate(uint32_t bytes, uint32_t* cap);
  // REQUIRES: `cap` is what Allocate reported for `p`.
  void Free(char* p, uint32_t cap);
  // Moves the first `used` bytes of `p` into a block of at least `bytes`.
  char* Grow(char* p, uint32_t cap, uint32_t used, uint32_t bytes, uint32_t* new_cap);
  // Forgets every block in the chunks, which are kept for reuse. It frees
  // nothing itself: large blocks live in malloc until Free.
  // REQUIRES: no block is in use any more, and every large block was given
  // back with Free.
  void Reset();
  // Reset, and the chunks go back to malloc too.
  // REQUIRES: as for Reset.
  void Release();

  // Bytes obtained from the system (chunks and large blocks).
  uint64_t reserved() const { return reserved_; }

 private:
  static size_t ClassOf(uint32_t bytes);

  struct FreeChunk {
    void operator()(char* p) const;
  };
  std::vector<std::unique_ptr<char, FreeChunk>> chunks_;
  size_t chunk_ = 0;         // chunk being carved
  size_t chunk_used_ = 0;    // bytes carved from it
  std::vector<char*> free_;  // per class: head of its free list
  uint64_t reserved_ = 0;
  uint64_t large_bytes_ = 0;
};

}  // namespace dirload
