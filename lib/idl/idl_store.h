// Reading and appending ID lists in a Store's index tables, in the chunked
// format of idl_format.h.
//
//   ReadIdList   the whole list of one index key (one Get, then one cursor
//                walk over its full chunks, if any).
//   CountIds     the list's length from the tail header: one Get, no decode.
//   AppendIds    adds IDs greater than every ID already listed; rewrites only
//                the tail (and adds chunks), never the whole list. Works in any
//                key order (Put), as the IDL cache flushes evicted lists.
//   ReplaceIdList  rewrites one list whole (IDs taken out).
//   IdlAppender  writes complete lists in ascending index-key order with
//                Store::Append into a table that holds no list with a greater
//                key (the sort builder, and the cache builder's final flush
//                when nothing was evicted): no reads at all.
//
// Thread safety: as Store (one thread at a time per store).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/idl/id_list.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

// The list of `index_key` in `table`; empty when the key (or the table) does
// not exist. Corruption when the stored chunks are inconsistent.
[[nodiscard]] Result<IdList> ReadIdList(Store* store, std::string_view table,
                                        std::string_view index_key);

// How many IDs `index_key` lists (0 when absent).
[[nodiscard]] Result<uint64_t> CountIds(Store* store, std::string_view table,
                                        std::string_view index_key);

// Appends `ids` to the list of `index_key`, creating it when absent.
// REQUIRES: ids strictly ascending and greater than every ID already in the
// list (InvalidArgument otherwise, nothing written). 1 <= index_key.size() <=
// kMaxIndexKeySize.
// `bytes_written`, when given, is increased by the bytes of keys and values
// written; `created`, when given, is set to whether the list was new.
[[nodiscard]] Status AppendIds(Store* store, std::string_view table, std::string_view index_key,
                               std::span<const EntryId> ids, uint64_t* bytes_written = nullptr,
                               bool* created = nullptr);

// Makes `ids` the whole list of `index_key`: its chunks deleted, then
// written anew as AppendIds writes them (none when `ids` is empty), so the
// table is what a rebuild leaves. For lists that lose IDs (an entry changed
// or gone), which appends cannot do.
// REQUIRES: ids strictly ascending.
[[nodiscard]] Status ReplaceIdList(Store* store, std::string_view table, std::string_view index_key,
                                   std::span<const EntryId> ids);

// Streams whole lists into one table in ascending index-key order:
//   IdlAppender a(store, "idx.cn");
//   a.Add(key1, id) ... a.Add(key1, id) a.Add(key2, id) ... a.Finish()
// Chunks are written with Store::Append as soon as they are full, so memory
// is one chunk, however long the list.
// REQUIRES: keys arrive in ascending bytewise order; IDs ascending within a
// key; the table holds no key >= the first key added.
class IdlAppender {
 public:
  // Where the records go: by default Store::Append of the table. A build
  // that encodes lists on one thread and writes them on another gives its own.
  using Output =
      std::function<Status(std::string_view table, std::string_view key, std::string_view value)>;

  IdlAppender(Store* store, std::string table);  // store outlives this
  IdlAppender(Output output, std::string table);
  IdlAppender(const IdlAppender&) = delete;
  IdlAppender& operator=(const IdlAppender&) = delete;

  [[nodiscard]] Status Add(std::string_view index_key, EntryId id);
  // A run of IDs for one key (possibly continuing the current key).
  [[nodiscard]] Status AddMany(std::string_view index_key, std::span<const EntryId> ids);
  // The whole list of a key not added before, its `count` IDs given as a
  // chunk body (idl_format.h). A body that fits one chunk is written as the
  // tail as it is, without decoding it: the IDL cache holds its lists so.
  // Nothing may be added to the key after it.
  // REQUIRES: body is a well-formed chunk body of `count` >= 1 IDs.
  [[nodiscard]] Status AddWhole(std::string_view index_key, std::string_view body, uint64_t count);
  // Writes the current key's tail.
  [[nodiscard]] Status Finish();

  const std::string& table() const { return table_; }
  uint64_t keys() const { return keys_; }
  uint64_t ids() const { return ids_; }
  uint64_t bytes_written() const { return bytes_; }

 private:
  Status StartKey(std::string_view index_key);
  Status FlushFullChunk();
  // Writes scratch_value_ as chunk `chunk` of the current key.
  Status Emit(uint32_t chunk);
  Status WriteTail();

  Output output_;
  std::string table_;
  std::string key_;  // current index key
  bool have_key_ = false;
  std::vector<EntryId> chunk_;  // IDs of the open chunk
  size_t chunk_bytes_ = 0;      // encoded body size of chunk_
  uint32_t full_chunks_ = 0;
  uint64_t key_ids_ = 0;  // IDs of the current key so far
  EntryId last_id_ = 0;   // last ID of the current key
  std::string scratch_key_, scratch_value_;
  std::vector<EntryId> scratch_ids_;
  uint64_t keys_ = 0, ids_ = 0, bytes_ = 0;
};

// Walks every list of a table in key order, for `dirload stat` and tests.
// `fn` returns false to stop. Corruption on malformed keys or chunks.
[[nodiscard]] Status ForEachIdList(
    Store* store, std::string_view table,
    const std::function<bool(std::string_view index_key, const IdList& ids)>& fn);

}  // namespace dirload
