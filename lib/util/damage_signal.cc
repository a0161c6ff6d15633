#include "lib/util/damage_signal.h"

#include <link.h>
#include <signal.h>
#include <sys/vfs.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace dirload {
namespace {

constexpr int kExitStorage = 4;  // as tools/exit_codes.h: storage or I/O error
constexpr std::string_view kPrefix = "dirload: database file damaged: ";
constexpr std::string_view kSuffix = "; restore a copy or load again\n";
constexpr std::string_view kFullSuffix =
    ": No space left on device (a write through the map failed)\n";
// Free space below which a SIGBUS is taken for a write through a writable
// map that found the file system full.
constexpr uint64_t kFullBelowBytes = 1ull << 20;

// The registered path. The handler may run at any moment, so the path is
// published through its length: 0 while the buffer is being rewritten.
char path_buffer[4096 + 1];  // NUL-terminated, for statfs
std::atomic<size_t> path_length{0};
static_assert(std::atomic<size_t>::is_always_lock_free);
// Serialises writers; the handler never takes it.
std::mutex writer_mutex;

void WriteAll(const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(STDERR_FILENO, p, n);
    if (w <= 0) return;  // nothing better to do from a handler
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// The code of the storage engines (liblmdb, libdb): a SIGSEGV is blamed on
// the database only when the faulting instruction is theirs, so that a bug
// of dirload's own still crashes as a bug. (A SIGBUS comes from a mapped
// file that is shorter than its map, whoever reads it.) Filled once, before
// the handlers are installed.
struct CodeRange {
  uintptr_t begin = 0, end = 0;
};
constexpr int kMaxEngineRanges = 16;
CodeRange engine_code[kMaxEngineRanges];
int engine_ranges = 0;

int AddEngineCode(struct dl_phdr_info* info, size_t, void*) {
  const char* name = info->dlpi_name;
  if (name == nullptr) return 0;
  const char* base = std::strrchr(name, '/');
  base = base == nullptr ? name : base + 1;
  if (std::strncmp(base, "liblmdb", 7) != 0 && std::strncmp(base, "libdb-", 6) != 0) return 0;
  for (int i = 0; i < info->dlpi_phnum && engine_ranges < kMaxEngineRanges; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_X) == 0) continue;
    const uintptr_t begin = info->dlpi_addr + ph.p_vaddr;
    engine_code[engine_ranges++] = {begin, begin + ph.p_memsz};
  }
  return 0;
}

bool InEngineCode(const void* context) {
  uintptr_t pc = 0;
#if defined(__x86_64__)
  pc = static_cast<uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  pc = static_cast<uintptr_t>(static_cast<const ucontext_t*>(context)->uc_mcontext.pc);
#else
  return true;  // no way to tell here: blame the database, as before
#endif
  for (int i = 0; i < engine_ranges; ++i) {
    if (pc >= engine_code[i].begin && pc < engine_code[i].end) return true;
  }
  return false;
}

// Only async-signal-safe calls from here on: write, _exit, sigaction, raise.
extern "C" void OnFault(int sig, siginfo_t*, void* context) {
  size_t n = path_length.load();
  if (n == 0 || (sig == SIGSEGV && !InEngineCode(context))) {
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    ::sigaction(sig, &dfl, nullptr);
    // The signal is blocked while its handler runs; it is delivered, with
    // the default action, as soon as the handler returns. A fault from an
    // instruction also recurs when the handler returns.
    ::raise(sig);
    return;
  }
  // A file written through a writable map (MDB_WRITEMAP) is sparse; a page
  // the file system has no room for is a SIGBUS too. statfs is a bare system
  // call on Linux (statvfs is not: it reads /proc/mounts).
  struct statfs fs;
  if (sig == SIGBUS && ::statfs(path_buffer, &fs) == 0) {
    uint64_t blocks = ::geteuid() == 0 ? fs.f_bfree : fs.f_bavail;
    if (blocks * static_cast<uint64_t>(fs.f_bsize) < kFullBelowBytes) {
      WriteAll("dirload: ", 9);
      WriteAll(path_buffer, n);
      WriteAll(kFullSuffix.data(), kFullSuffix.size());
      ::_exit(kExitStorage);
    }
  }
  WriteAll(kPrefix.data(), kPrefix.size());
  WriteAll(path_buffer, n);
  WriteAll(kSuffix.data(), kSuffix.size());
  ::_exit(kExitStorage);
}

}  // namespace

void InstallDamageSignalHandlers() {
  engine_ranges = 0;
  ::dl_iterate_phdr(AddEngineCode, nullptr);
  struct sigaction sa {};
  sa.sa_sigaction = OnFault;
  sigemptyset(&sa.sa_mask);
  // SA_ONSTACK: a fault from a deep recursion still finds a stack if the
  // program set one up; SA_NODEFER is not wanted (a fault in the handler
  // itself must not recurse).
  sa.sa_flags = SA_ONSTACK | SA_SIGINFO;
  ::sigaction(SIGBUS, &sa, nullptr);
  ::sigaction(SIGSEGV, &sa, nullptr);
}

void ExitIfDatabaseRegistered(std::string_view detail) {
  size_t n = path_length.load();
  if (n == 0) return;
  constexpr std::string_view kTail = kSuffix.substr(1);  // after the ';'
  WriteAll(kPrefix.data(), kPrefix.size());
  WriteAll(path_buffer, n);
  WriteAll(" (", 2);
  WriteAll(detail.data(), detail.size());
  WriteAll(");", 2);
  WriteAll(kTail.data(), kTail.size());
  ::_exit(kExitStorage);
}

void RegisterMappedDatabaseFile(std::string_view path) {
  std::lock_guard<std::mutex> lock(writer_mutex);
  path_length.store(0);
  size_t n = std::min(path.size(), sizeof path_buffer - 1);
  std::memcpy(path_buffer, path.data(), n);
  path_buffer[n] = '\0';
  path_length.store(n);
}

void ClearMappedDatabaseFile(std::string_view path) {
  std::lock_guard<std::mutex> lock(writer_mutex);
  size_t n = path_length.load();
  size_t want = std::min(path.size(), sizeof path_buffer - 1);
  if (n == want && std::memcmp(path_buffer, path.data(), n) == 0) path_length.store(0);
}

}  // namespace dirload
