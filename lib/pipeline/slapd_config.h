// Reads the parts of an OpenLDAP slapd.conf that an offline loader needs:
// schema includes, the database type, suffix, directory, index lines and
// cache settings. Everything else (moduleload, access, overlays, ...) is kept
// as a note, so that -v can say what was ignored.
//
// Only the first database section is used; a second one is noted and skipped.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

struct SlapdConfig {
  std::string path;
  std::vector<std::string> schema_files;  // `include` lines, in order
  std::string database;                   // "mdb", "bdb" ("hdb" reads as "bdb")
  std::string suffix;
  bool has_suffix = false;  // `suffix ""` is a suffix too
  std::string directory;
  struct IndexLine {
    std::string text;  // the arguments of the `index` line
    int line = 0;
  };
  std::vector<IndexLine> index_lines;
  std::optional<uint64_t> maxsize;     // mdb map size in bytes
  std::optional<uint64_t> cache_size;  // bdb cache in bytes (dbconfig set_cachesize)
  std::vector<std::string> notes;      // "slapd.conf:12: ignored 'moduleload back_mdb'"
};

// Parses `path`. Errors name the file and line.
Result<SlapdConfig> ReadSlapdConfig(const std::string& path);
// Parses text (for tests); `path` is used in messages and to resolve
// relative includes.
Result<SlapdConfig> ParseSlapdConfig(const std::string& text, const std::string& path);

// "512M", "1.5G", "64k", "1048576" -> bytes. Suffixes are powers of 1024.
Result<uint64_t> ParseByteSize(std::string_view text);

}  // namespace dirload
