// Headroom for the heap's growth, through glibc's malloc.
//
// glibc grows a thread's heap a page at a time (an mprotect call and a page
// fault each) and hands memory back to the kernel as soon as the free space
// at the top of a heap passes its small default pad, so a load whose
// threads allocate and free entry and key batches in turn kept growing and
// shrinking its heaps: at 285,000 entries phase 1 made 9,500 mprotect calls
// and 21,000 page faults, and the full load 60,000 faults. With a top pad
// of 64 MB a heap is mapped for its whole size at once and keeps up to 64 MB
// of free space, which is only address space until touched.
//
// Left alone: an environment whose GLIBC_TUNABLES names glibc.malloc.top_pad
// (the user's choice wins; glibc.malloc.top_pad=131072 is glibc's own).
#pragma once

#include <cstddef>
#include <string>

namespace dirload {

inline constexpr size_t kHeapHeadroomBytes = size_t{64} << 20;

// Call in main before any thread starts.
void ReserveHeapHeadroom();

// What ReserveHeapHeadroom set, for --stats: the pad in bytes, "tunable"
// when GLIBC_TUNABLES chose it, or "default" when glibc refused it.
std::string HeapHeadroomSetting();

}  // namespace dirload
