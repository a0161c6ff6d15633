// Fuzz target for the LDIF reader: any byte string must parse to records or
// per-record errors, never crash, hang or read out of bounds; every record
// read must survive a write/parse round trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ldif/reader.h"
#include "ldif/writer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload::ldif;
  ReaderOptions options;
  options.block_size = 64;  // small blocks exercise the refill paths
  options.max_record_size = 1 << 16;
  options.url_base_dir = "/nonexistent";
  Reader reader(MemoryByteSource(std::string(reinterpret_cast<const char*>(data), size), "fuzz"),
                options);
  Record record, again;
  for (int guard = 0; guard < 100000; ++guard) {
    dirload::Result<bool> got = reader.Next(&record);
    if (!got.ok()) {
      if (reader.last_error().fatal) break;
      continue;
    }
    if (!*got) break;
    std::string text;
    AppendRecord(record, WriterOptions{}, &text);
    Reader re(MemoryByteSource(text, "rewritten"));
    dirload::Result<bool> back = re.Next(&again);
    // A record that parsed must be written so that it parses back the same.
    if (!back.ok() || !*back || !(again == record)) std::abort();
  }
  return 0;
}
