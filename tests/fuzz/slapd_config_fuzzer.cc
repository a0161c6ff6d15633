// Fuzz target for the slapd.conf reader (lib/config/slapd_config.h), from
// memory: ParseSlapdConfig reads no file (include lines are only recorded),
// so any text must give a configuration or an error, never crash. The
// byte-size parser the reader uses for maxsize and cachesize gets the same
// text. cn_config_fuzzer.cc does the same for slapd.d trees.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/config/slapd_config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload;
  std::string text(reinterpret_cast<const char*>(data), size);
  // A path under a directory that does not exist: relative includes resolve
  // against it, and nothing there can be read.
  Result<SlapdConfig> config = ParseSlapdConfig(text, "/nonexistent/slapd.conf");
  if (config.ok()) {
    // Databases are numbered frontend -1, config 0, then 1, 2, ...
    for (const SlapdDatabase& db : config->databases) {
      if (config->FindDatabase(db.number) != &db) std::abort();
    }
  }
  (void)ParseByteSize(text);
  (void)ModuleName(text);
  return 0;
}
