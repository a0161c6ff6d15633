// Fuzz target for the ID-list chunk format (lib/idl/idl_format.h): index
// values and keys come from databases dirload may not have written (stat,
// recover, an index left by a crash), so every decoder must return
// Corruption on garbage, never read out of bounds. Whatever decodes must
// encode back to something that decodes the same. Each decoder reads the
// whole input: one input exercises all of them.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "lib/idl/idl_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);

  // A full chunk body.
  std::vector<EntryId> ids;
  if (DecodeChunkBody(bytes, 0, &ids).ok()) {
    if (ids.empty()) std::abort();  // an empty body is Corruption
    for (size_t i = 1; i < ids.size(); ++i) {
      if (ids[i] <= ids[i - 1]) std::abort();
    }
    std::string body;
    EncodeChunkBody(ids, &body);
    std::vector<EntryId> again;
    if (!DecodeChunkBody(body, 0, &again).ok() || again != ids) std::abort();
    // IDs must be greater than `after`: starting after the last one fails.
    again.clear();
    if (DecodeChunkBody(body, ids.back(), &again).ok()) std::abort();
  }

  // A tail value.
  TailHeader header;
  std::string_view tail_body;
  if (ParseTail(bytes, &header, &tail_body).ok()) {
    std::vector<EntryId> tail_ids;
    if (DecodeChunkBody(tail_body, 0, &tail_ids).ok()) {
      std::string tail;
      EncodeTail(header, tail_ids, &tail);
      TailHeader header2;
      std::string_view body2;
      std::vector<EntryId> again;
      if (!ParseTail(tail, &header2, &body2).ok() || header2.total_ids != header.total_ids ||
          header2.full_chunks != header.full_chunks || !DecodeChunkBody(body2, 0, &again).ok() ||
          again != tail_ids) {
        std::abort();
      }
    }
  }

  // A stored key.
  std::string index_key;
  uint32_t chunk = 0;
  if (ParseStoredKey(bytes, &index_key, &chunk).ok()) {
    std::string stored = StoredKey(index_key, chunk);
    std::string key2;
    uint32_t chunk2 = 0;
    if (!ParseStoredKey(stored, &key2, &chunk2).ok() || key2 != index_key || chunk2 != chunk) {
      std::abort();
    }
    std::string prefix;
    AppendStoredKeyPrefix(index_key, &prefix);
    if (stored.compare(0, prefix.size(), prefix) != 0) std::abort();
  }
  return 0;
}
