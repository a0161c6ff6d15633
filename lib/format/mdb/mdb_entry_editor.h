// MdbEntryEditor: `dirload modify` on slapd's back-mdb format. Everything
// the run changes happens in one LMDB write transaction over the database
// (the writer's lock held, slapd stopped): a failure, a dry run or a kill
// leaves the database exactly as it was, and Commit() makes the whole run
// durable at once.
//
// Entries change as slapd's own operations change them (back-mdb 2.5):
// - add: the next ID after id2e's last (mdb_next_id), the id2e record, the
//   child node under the parent and the self node in dn2i, one more in the
//   subtree count of every ancestor;
// - replace: the id2e record rewritten (values read keep their normalized
//   copies, or their lack of one);
// - delete: the record, both nodes, one less up the tree;
// - move (modrdn): the child node leaves the old parent and joins the new
//   one with the subtree's count, the self node names the new RDN and
//   parent, the counts of both chains of ancestors follow. The children
//   hang below the entry's ID, which does not change.
// Index keys do not follow entry by entry: each change records which
// (key, ID) pairs it removes and adds (the keys of the old record against
// the new one's), and these are sorted by index, key and order of the
// change and applied key after key (mdb_tree_updates.h) when a batch is
// full and at Commit(), so each key ends as slapd's own sequence of
// operations leaves it. The entries are read from id2e and dn2i only,
// never from an index, so applying them later changes no record's
// outcome.
//
// Thread safety: one thread; the Schema must outlive the editor.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "lib/format/entry_editor.h"
#include "lib/format/mdb/mdb_ad2i.h"
#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_entry_encoder.h"
#include "lib/format/mdb/mdb_entry_keys.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/format/owed_keys.h"
#include "lib/index/index_spec.h"

namespace dirload {
class Schema;
}

namespace dirload::mdb {

struct MdbEditorOptions {
  std::string dir;
  std::string nsuffix;             // the database's suffix, normalized
  uint64_t map_size = 0;           // slapd's maxsize; 0 keeps the environment's
  std::vector<IndexSpec> indexes;  // the indexes the database has
  MdbKeyOptions keys;
};

class MdbEntryEditor final : public EntryEditor {
 public:
  static Result<std::unique_ptr<MdbEntryEditor>> Open(const Schema& schema,
                                                      MdbEditorOptions options);
  ~MdbEntryEditor() override;  // aborts unless committed

  Result<std::optional<EntryId>> Find(std::string_view ndn) override;
  Result<Entry> Read(EntryId id) override;
  Result<std::vector<EntryId>> Children(EntryId id) override;
  Result<EntryId> Add(EntryId parent, std::string_view nrdn, std::string_view rdn,
                      std::span<const Value> values) override;
  Status Replace(EntryId id, std::span<const Value> values) override;
  Status Delete(EntryId id) override;
  Status Move(EntryId id, EntryId new_parent, std::string_view nrdn, std::string_view rdn) override;
  void SetIndexBatch(size_t pairs) override { owed_.set_bound(pairs); }
  Status Commit() override;
  const Stats& stats() const override { return stats_; }

 private:
  MdbEntryEditor(const Schema& schema, MdbEditorOptions options)
      : schema_(schema), options_(std::move(options)), encoder_(schema) {}

  Result<uint32_t> Ad2iNumber(const std::string& description);
  // Whether slapd keeps normalized copies of the values of ad2i number
  // `adx` (looked up once per number: every entry read asks).
  bool StoresNormalized(uint32_t adx);
  // The record of `id` encoded from `values` into encoded_.
  Status Encode(EntryId id, std::span<const Value> values);
  // Records the keys of `old_record` that `new_record` lacks as removals and
  // the reverse as additions, for entry `id`.
  Status OweKeys(EntryId id, std::string_view old_record, std::string_view new_record);
  // Applies what the index keys are owed so far (at the end of the run, and
  // whenever the debts reach OwedKeys' bound).
  Status SettleOwedKeys();
  // `id`'s self node in dn2i.
  Result<MdbDnNode> SelfNode(EntryId id);
  // The child node of `id` below `parent` (its nrdn and rdn from the self
  // node).
  Result<std::string> ChildNode(EntryId parent, const MdbDnNode& self, EntryId id);

  const Schema& schema_;
  MdbEditorOptions options_;
  std::unique_ptr<MdbEnv> env_;
  std::optional<MdbTxn> txn_;
  std::optional<MdbEntryKeys> keys_;
  MdbEntryEncoder encoder_;
  MdbAd2i ad2i_;
  uint64_t last_id_ = 0;
  std::string encoded_, old_record_;
  std::vector<MdbValue> mdb_values_;
  std::vector<std::pair<uint32_t, std::string_view>> old_keys_, new_keys_;
  std::vector<std::pair<uint32_t, std::string>> old_owned_;
  std::vector<uint8_t> changed_;           // OweKeys': by ad2i number
  std::vector<int8_t> stores_normalized_;  // by ad2i number; -1 not yet known
  OwedKeys owed_;
  MdbEntryView view_;
  Stats stats_;
};

}  // namespace dirload::mdb
