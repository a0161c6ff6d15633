#include "lib/util/malloc_huge_pages.h"

#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>

namespace dirload {
namespace {
constexpr const char* kTunable = "glibc.malloc.hugetlb";
}  // namespace

bool MallocHugePagesRequested() {
  const char* t = std::getenv("GLIBC_TUNABLES");
  if (t == nullptr) return false;
  const std::string setting = std::string(kTunable) + "=1";
  for (const char* p = std::strstr(t, setting.c_str()); p != nullptr;
       p = std::strstr(p + 1, setting.c_str())) {
    const char end = p[setting.size()];
    if ((p == t || p[-1] == ':') && (end == '\0' || end == ':')) return true;
  }
  return false;
}

void StartWithMallocHugePages(char** argv) {
  const char* off = std::getenv("DIRLOAD_MALLOC_HUGEPAGES");
  if (off != nullptr && std::strcmp(off, "0") == 0) return;
  const char* old = std::getenv("GLIBC_TUNABLES");
  if (old != nullptr && std::strstr(old, kTunable) != nullptr) return;
  std::string tunables = std::string(kTunable) + "=1";
  if (old != nullptr && *old != '\0') tunables = std::string(old) + ":" + tunables;
  if (setenv("GLIBC_TUNABLES", tunables.c_str(), 1) != 0) return;
  // The same program, arguments and process ID; only the environment gains
  // the tunable. If the new start fails this one goes on, as it was. The
  // program's own path, not /proc/self/exe, so that ps, top and perf still
  // call the process dirload.
  char self[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n > 0) {
    self[n] = '\0';
    execv(self, argv);
  }
  if (old != nullptr) {
    setenv("GLIBC_TUNABLES", old, 1);
  } else {
    unsetenv("GLIBC_TUNABLES");
  }
}

}  // namespace dirload
