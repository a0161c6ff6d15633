// Fuzz target for the LDIF reader: any byte string must parse to records or
// per-record errors, never crash, hang or read out of bounds; every record
// read must survive a write/parse round trip.
//
// Both readers use small blocks: a default-sized block (1 MB) per input, or
// per record in the round trip, would cost more than the parse itself.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "ldif/reader.h"
#include "ldif/writer.h"

namespace {

dirload::ldif::ReaderOptions SmallOptions() {
  dirload::ldif::ReaderOptions options;
  options.block_size = 64;  // small blocks exercise the refill paths
  options.max_record_size = 1 << 16;
  options.url_base_dir = "/nonexistent";
  return options;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload::ldif;
  static const ReaderOptions options = SmallOptions();
  Reader reader(MemoryByteSource(std::string(reinterpret_cast<const char*>(data), size), "fuzz"),
                options);
  Record record, again;
  std::string text;
  for (int guard = 0; guard < 100000; ++guard) {
    dirload::Result<bool> got = reader.Next(&record);
    if (!got.ok()) {
      if (reader.last_error().fatal) break;
      continue;
    }
    if (!*got) break;
    text.clear();
    AppendRecord(record, WriterOptions{}, &text);
    ReaderOptions round_trip = options;
    // The rewritten record is one record: a block of its size reads it whole.
    round_trip.block_size = text.size() + 1;
    // Base64 may make the rewritten record longer than the limit of the first.
    round_trip.max_record_size = options.max_record_size + 2 * text.size();
    Reader re(MemoryByteSource(text, "rewritten"), round_trip);
    dirload::Result<bool> back = re.Next(&again);
    // A record that parsed must be written so that it parses back the same.
    if (!back.ok() || !*back || !(again == record)) std::abort();
  }
  return 0;
}
