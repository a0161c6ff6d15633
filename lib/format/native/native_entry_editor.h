// NativeEntryEditor: `dirload modify` on dirload's native tables (LMDB or
// Berkeley DB). Entries change in id2entry and dn2id as the load writes
// them: an added entry takes the next ID and its DN's dn2id record; a
// replaced one keeps its record's DN; a delete takes both away; a move
// (modrdn) gives the entry and every entry below it new dn2id keys and
// stored DNs, their IDs kept. The index lists do not follow entry by entry:
// each change records which (key, ID) pairs it removes and adds (the keys
// of the entry's old values against its new ones, lib/index/
// entry_key_maker.h), and Commit() sorts the run's by index, key and order
// of the change, then rewrites each list touched once, whole, as a rebuild
// writes it (idl_store.h ReplaceIdList). The indexes are those the database
// recorded.
//
// The store is written as the run goes; what makes the run all or nothing
// is its caller's (the undo copy taken before, lib/db/write_guard.h), which
// also rolls back after a kill.
//
// Thread safety: one thread; the Schema must outlive the editor.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/format/entry_editor.h"
#include "lib/format/native/database_meta.h"
#include "lib/format/owed_keys.h"
#include "lib/index/entry_key_maker.h"
#include "lib/index/index_spec.h"
#include "lib/store/store.h"

namespace dirload {

class NativeEntryEditor final : public EntryEditor {
 public:
  // `store` opened for writing on a ready database; `nsuffix` its suffix,
  // normalized.
  static Result<std::unique_ptr<NativeEntryEditor>> Open(const Schema& schema,
                                                         std::unique_ptr<Store> store,
                                                         std::string nsuffix);
  ~NativeEntryEditor() override = default;

  Result<std::optional<EntryId>> Find(std::string_view ndn) override;
  Result<Entry> Read(EntryId id) override;
  Result<std::vector<EntryId>> Children(EntryId id) override;
  Result<EntryId> Add(EntryId parent, std::string_view nrdn, std::string_view rdn,
                      std::span<const Value> values) override;
  Status Replace(EntryId id, std::span<const Value> values) override;
  Status Delete(EntryId id) override;
  Status Move(EntryId id, EntryId new_parent, std::string_view nrdn, std::string_view rdn) override;
  // Writes the lists, the dictionary and meta, and syncs.
  void SetIndexBatch(size_t pairs) override { owed_.set_bound(pairs); }
  Status Commit() override;
  const Stats& stats() const override { return stats_; }

 private:
  NativeEntryEditor(const Schema& schema, std::unique_ptr<Store> store, std::string nsuffix)
      : schema_(schema), store_(std::move(store)), nsuffix_(std::move(nsuffix)) {}

  // Applies what the lists are owed so far (at the end of the run, and
  // whenever the debts reach OwedKeys' bound).
  Status SettleOwedKeys();
  // The dn2id record of sort key `key`: its ID, or nullopt.
  Result<std::optional<EntryId>> Lookup(std::string_view key);
  // Entry `id`'s sort key, known since it was found, added or moved.
  Result<std::string> SortKeyOf(EntryId id) const;
  // Every entry below the one with sort key `key`: (sort key, ID).
  Result<std::vector<std::pair<std::string, EntryId>>> Below(std::string_view key);
  Result<std::string> ReadRecord(EntryId id);
  // Encodes (dn, values) with the dictionary into encoded_.
  void Encode(std::string_view dn, std::span<const Value> values);
  // The (index, key) pairs of the entry `record` encodes, sorted, once each.
  Status Keys(EntryId id, std::string_view record,
              std::vector<std::pair<uint32_t, std::string>>* out);
  // What `id`'s lists owe between `old_record` and `new_record` ("" for none).
  Status OweKeys(EntryId id, std::string_view old_record, std::string_view new_record);
  Status PutDn2Id(std::string_view key, EntryId id);
  Status DeleteDn2Id(std::string_view key);

  const Schema& schema_;
  std::unique_ptr<Store> store_;
  std::string nsuffix_;
  DatabaseMeta meta_;
  AttributeDictionary dictionary_;
  size_t dictionary_saved_ = 0;
  std::vector<IndexSpec> specs_;
  std::optional<EntryKeyMaker> keys_;
  std::vector<std::optional<std::vector<uint32_t>>> routes_;  // by dictionary id
  std::unordered_map<EntryId, std::string> sort_keys_;
  std::string encoded_, buffer_;
  std::vector<std::pair<uint32_t, std::string>> old_keys_, new_keys_;
  OwedKeys owed_;
  Stats stats_;
};

}  // namespace dirload
