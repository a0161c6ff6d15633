// The on-disk form of an ID list in an index table ("idx.<attr>"), format 1.
//
// An index key (lib/index/index_keys.h: a kind byte and a normalised value or
// fragment, any bytes, 1..kMaxIndexKeySize long) maps to an exact list of
// entry IDs. The list is stored in chunks, so that it grows by appending and
// rewriting only its last chunk, never the whole list:
//
//   stored key  = Escape(index key) 0x00 BE32(chunk number)
//
//   Escape(k)   k with every 0x00 byte written as 0x01 0x01 and every 0x01
//               byte as 0x01 0x02; all other bytes unchanged. The escaped key
//               has no 0x00 byte, so the 0x00 that follows it sorts below any
//               longer key's next byte: stored keys sort by (index key,
//               chunk number) bytewise, a key's chunks are contiguous, and an
//               index key that is a prefix of another sorts (with all its
//               chunks) first. That is what lets the sort builder write whole
//               tables with Store::Append in index-key order.
//   chunk number  0, 1, ..., m-1 for the full chunks in ID order, and
//               kTailChunk (0xFFFFFFFF) for the tail, the last chunk. Every
//               list has exactly one tail (a short list is only a tail), so
//               appending needs one Get of a known key, never a search.
//
//   full chunk value = varint first ID, then varint (ID - previous ID) for
//               each further ID (>= 1: IDs are strictly ascending).
//   tail value  = varint N (IDs in the whole list), varint m (full chunks
//               before the tail), then the tail's IDs coded as a full chunk.
//               So CountIds() is one Get.
//
// Chunk boundaries are a function of the list alone: chunks are filled
// greedily in ID order, each ID going into the current chunk unless its
// encoding would take the chunk body past kChunkBodyBytes (a first ID always
// fits). Appending tops up the tail by the same rule and, when the tail is
// full, renames it to chunk m and starts a new tail. Hence any sequence of
// appends of the same IDs, in any batches, leaves byte-identical tables; the
// two index builders rely on this. kChunkBodyBytes keeps every value, tail
// header included, under Berkeley DB's on-page limit for 4 KB pages (about
// 1,000 bytes per item) and a chunk with its key well under LMDB's (about
// 2,000), so chunks stay on leaf pages instead of taking overflow pages of
// their own.
//
// Varints are unsigned LEB128 (lib/util/coding.h).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/util/coding.h"
#include "lib/util/status.h"

namespace dirload {

inline constexpr uint32_t kIdlFormatVersion = 1;
inline constexpr size_t kChunkBodyBytes = 960;
inline constexpr uint32_t kTailChunk = 0xFFFFFFFFu;
// Longest index key: escaping may double it, and the stored key adds 5 bytes;
// 2 * 250 + 5 stays within the store's 511-byte limit (store.h kMaxKeySize).
inline constexpr size_t kMaxIndexKeySize = 250;

// Appends Escape(index_key) 0x00 BE32(chunk) to *out.
void AppendStoredKey(std::string_view index_key, uint32_t chunk, std::string* out);
std::string StoredKey(std::string_view index_key, uint32_t chunk);
// Appends Escape(index_key) 0x00 (the prefix every chunk of the key shares).
void AppendStoredKeyPrefix(std::string_view index_key, std::string* out);

// Splits a stored key back into its index key (unescaped) and chunk number.
// Corruption when it is not a well-formed stored key.
Status ParseStoredKey(std::string_view stored_key, std::string* index_key, uint32_t* chunk);

// Header of a tail value.
struct TailHeader {
  uint64_t total_ids = 0;    // N: IDs in the whole list
  uint32_t full_chunks = 0;  // m: chunks 0..m-1 precede the tail
};

// Appends the chunk body of `ids` (delta-varint, see above) to *out.
// REQUIRES: ids strictly ascending, non-empty.
void EncodeChunkBody(std::span<const EntryId> ids, std::string* out);
// Decodes a chunk body, appending its IDs to *ids. Corruption when the body
// is truncated, empty, or not strictly ascending (`after`: every ID must be
// greater than it; 0 when the body starts a list).
Status DecodeChunkBody(std::string_view body, EntryId after, std::vector<EntryId>* ids);
// Splits a tail value into its header and chunk body.
Status ParseTail(std::string_view value, TailHeader* header, std::string_view* body);
void EncodeTail(const TailHeader& header, std::span<const EntryId> ids, std::string* out);
// Appends the header of a tail value alone; a chunk body follows it.
void AppendTailHeader(const TailHeader& header, std::string* out);

}  // namespace dirload
