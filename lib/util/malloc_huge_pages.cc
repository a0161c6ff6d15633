#include "lib/util/malloc_huge_pages.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace dirload {

void StartWithMallocHugePages(char** argv) {
  constexpr const char* kTunable = "glibc.malloc.hugetlb";
  const char* off = std::getenv("DIRLOAD_MALLOC_HUGEPAGES");
  if (off != nullptr && std::strcmp(off, "0") == 0) return;
  const char* old = std::getenv("GLIBC_TUNABLES");
  if (old != nullptr && std::strstr(old, kTunable) != nullptr) return;
  std::string tunables = std::string(kTunable) + "=1";
  if (old != nullptr && *old != '\0') tunables = std::string(old) + ":" + tunables;
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  // The same program, arguments and process ID; only the environment gains
  // the tunable. If the new start fails this one goes on, as it was.
  execv("/proc/self/exe", argv);
  if (old != nullptr) {
    setenv("GLIBC_TUNABLES", old, 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
}

}  // namespace dirload
