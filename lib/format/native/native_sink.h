// NativeSink: a load into dirload's native tables (lib/store/tables.h).
// Entries are appended to id2entry under their ID, encoded with the
// attribute dictionary (lib/entry) by the checking workers, and their names
// put in dn2id by DN sort key (lib/schema/dn.h). An entry's stored DN is its
// own RDN under its parent's stored DN, so that a parent spelt "ou=People"
// is not shown as "ou=people" by a child.
//
// The dn2id records are held in a buffer of bounded size
// (lib/util/held_records.h) and written in key order when it is full and at
// the end. The meta table says `loading` from Begin until Finish has synced
// everything; only then does it say `ready` (database_meta.h).
//
// Thread safety: as EntrySink; the Preparers intern descriptions into the
// shared dictionary under its mutex.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/format/entry_sink.h"
#include "lib/format/native/native_indexer.h"
#include "lib/schema/ascii.h"
#include "lib/store/store.h"
#include "lib/util/held_records.h"

namespace dirload {

struct NativeSinkOptions {
  uint64_t commit_every = 20000;  // entries per transaction
  // dn2id records held in memory up to this many bytes; 0 writes each with
  // its entry.
  size_t dn2id_buffer_bytes = size_t{64} << 20;
  // Not null: each entry stored is also handed to this build of the indexes
  // (--one-pass), abandoned when an entry already handed over changes or goes.
  IndexFeed* index_feed = nullptr;
};

class NativeSink final : public EntrySink {
 public:
  // `store` is borrowed and must outlive the sink.
  NativeSink(Store* store, NativeSinkOptions options);

  std::unique_ptr<Preparer> NewPreparer() override;
  Result<Start> Stored() override;
  Status Begin(std::string_view suffix, std::string_view nsuffix) override;
  Result<std::optional<EntryId>> Find(std::string_view ndn, const Prepared* prepared) override;
  Status Add(const NewEntry& entry) override;
  Result<StoredEntry> Read(EntryId id) override;
  Status Remove(EntryId id, std::string_view ndn) override;
  Status Replace(EntryId id, std::span<const Value> values) override;
  Status Finish(const Start& end) override;

 private:
  class NativePreparer;
  // The ID of the entry whose DN has dn2id sort key `sort_key`, held or stored.
  Result<std::optional<EntryId>> LookupDn2Id(std::string_view sort_key);
  Status WriteHeldDn2Id();
  // The stored DN of `ndn`, "" when it is not stored (yet). Valid until the next call.
  Result<const std::string*> StoredDn(std::string_view ndn);
  // Appends the encoding of `values` (their descriptions interned).
  void EncodeAdded(std::span<const Value> values, std::string* out);
  Status Put(EntryId id, std::string_view value);

  Store* store_;
  NativeSinkOptions options_;
  std::string suffix_;
  Start stored_;              // what Stored() found
  std::mutex dictionary_mu_;  // workers add descriptions while the writer saves them
  AttributeDictionary dictionary_;
  size_t dictionary_saved_ = 0;
  EntryId append_floor_ = 0;  // id2entry keys below this were written
  uint64_t since_commit_ = 0;
  HeldRecords held_dn2id_;
  // Parents' stored DNs, ndn -> DN: entries share a few parents, in no order.
  static constexpr size_t kParentDns = 4096;
  std::unordered_map<std::string, std::string, schema_internal::StringHash, std::equal_to<>>
      parent_dns_;
  std::string last_parent_ndn_, last_parent_dn_;
  // Added operational descriptions by name: a few, asked for per entry.
  std::unordered_map<std::string, uint32_t, schema_internal::StringHash, std::equal_to<>>
      added_ids_;
  std::vector<ValueRef> added_refs_;
  std::string key_, value_, stored_dn_, added_runs_, read_buffer_;
  std::vector<std::string> read_names_;
};

}  // namespace dirload
