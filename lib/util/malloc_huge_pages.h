// Huge pages for dirload's heap, through glibc's malloc.
//
// A bulk load allocates and first touches hundreds of megabytes of heap (the
// IDL cache's list records, hash slots and blocks, key batches, entry
// batches). With 4 KB pages every first touch is a page fault: at 285,000
// entries the kernel's fault handling and page zeroing took about a third of
// `dirload index`'s system time and a sixth of its samples. glibc backs its
// heap and large allocations with transparent huge pages when the tunable
// glibc.malloc.hugetlb=1 is set, but it reads tunables only when a process
// starts, from GLIBC_TUNABLES; so dirload sets it and executes itself again,
// once, before doing anything else. The kernel must allow THP on request
// (/sys/kernel/mm/transparent_hugepage/enabled: madvise or always); where it
// does not, the tunable changes nothing.
//
// Left alone: an environment whose GLIBC_TUNABLES already names the
// tunable (the user's choice wins, and the second start sees it there), and
// DIRLOAD_MALLOC_HUGEPAGES=0, which turns this off.
#pragma once

namespace dirload {

// Call first thing in main. Returns only when nothing is to be done or the
// new start failed (the process then goes on with ordinary pages).
void StartWithMallocHugePages(char** argv);

// Whether this process started with glibc.malloc.hugetlb=1 (for --stats).
bool MallocHugePagesRequested();

}  // namespace dirload
