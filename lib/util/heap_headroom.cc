#include "lib/util/heap_headroom.h"

#include <malloc.h>

#include <cstdlib>
#include <cstring>

namespace dirload {
namespace {
std::string setting = "default";
}  // namespace

void ReserveHeapHeadroom() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.top_pad") != nullptr) {
    setting = "tunable";
    return;
  }
  if (mallopt(M_TOP_PAD, static_cast<int>(kHeapHeadroomBytes)) == 1) {
    setting = std::to_string(kHeapHeadroomBytes);
  }
}

std::string HeapHeadroomSetting() { return setting; }

}  // namespace dirload
