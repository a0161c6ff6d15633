// MdbOnlineWriter: `dirload add --online`: entries written into the LMDB
// environment a running slapd serves, through LMDB's own write
// transactions, as slapadd without -q and slapd's own adds write, so that
// slapd sees each committed batch and nothing it writes is lost.
//
// Each batch is one write transaction holding, for each of its entries,
// everything slapd's add (back-mdb add.c) writes for one: the id2e record,
// the child node under the parent and the self node in dn2i, one more in
// nsubs of every ancestor's child node (dn2id.c mdb_dn2id_add), new ad2i
// numbers, and the entry's keys in every configured index database. slapd
// (and its readers) see a batch whole or not at all; a kill leaves every
// committed batch in, and nothing of the one under way.
//
// Shared with slapd, and how this writer agrees with it (facts of back-mdb
// 2.5):
// - IDs: slapd takes the next ID from id2e's last key inside its write
//   transaction (nextid.c mdb_next_id). Each batch here does the same when it
//   begins, so slapd's adds between batches take the IDs after the last
//   batch, and the next batch goes on after theirs. The load numbers its
//   entries before it knows which IDs they get: this writer keeps the
//   load's IDs (MdbEntryWriter's) and maps them to the stored ones.
//   A stored entry at or above the load's first ID that this load did not
//   write (slapd's) is named with kForeignId set, so that the load never
//   takes it for one of its own.
// - ad2i: slapd keeps the numbers in memory but reads the ones added after
//   its count from ad2i before it assigns one (attr.c mdb_ad_get calls
//   mdb_ad_read in its write transaction) and when it decodes an entry
//   naming a number it does not know (id2entry.c). Each batch here reads the
//   numbers added since the last one before it assigns its own, the next
//   after the last key, so one number never gets two meanings.
// - Index keys: slapd's incremental insert (idl.c mdb_idl_insert_keys): an
//   ID joins its key's duplicates; a key holding max_ids_per_key() IDs (65,535 unless idlexp says
//   otherwise) becomes the range {0, lo, hi} when one more comes; a range widens its bounds. Keys
//   come from the stored normalized copies by the same key makers as a rebuild (mdb_key_maker.h),
//   an entry's repeated keys once.
// - A parent deleted by slapd between the check and the write, or a DN slapd
//   added meanwhile: the write fails (InvalidArgument / AlreadyExists,
//   origin kInput) and the run stops with that batch not written.
//
// Thread safety: one thread; the Schema must outlive the writer.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/format/mdb/mdb_ad2i.h"
#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_entry_encoder.h"
#include "lib/format/mdb/mdb_entry_keys.h"
#include "lib/format/mdb/mdb_entry_writer.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_key_maker.h"
#include "lib/index/index_spec.h"
#include "lib/util/status.h"

namespace dirload {
class Schema;
}

namespace dirload::mdb {

struct MdbOnlineOptions {
  // Entries per write transaction: slapd's writers wait for one batch at
  // most.
  uint32_t batch_entries = 100;
  // The indexes each entry's keys go into (their databases are created when
  // missing).
  std::vector<IndexSpec> indexes;
  MdbKeyOptions keys;
  // sortvals and multival (mdb_entry_encoder.h), as a load applies them.
  MdbValueRules values;
  // After each commit: the highest load ID now committed, and how many
  // entries are. An error stops the load (the batch stays committed).
  std::function<Status(uint64_t last_load_id, uint64_t entries)> committed;
};

struct MdbOnlineStats {
  uint64_t entries = 0;
  uint64_t batches = 0;
  uint64_t index_ids = 0;        // (key, ID) insertions
  uint64_t ranges = 0;           // keys turned into ranges
  uint64_t foreign_ids = 0;      // IDs another writer took between batches
  double max_batch_seconds = 0;  // longest write transaction (what slapd may wait)
};

class MdbOnlineWriter final : public MdbEntryWriter {
 public:
  // A load ID naming an entry another writer stored after this load began.
  static constexpr uint64_t kForeignId = uint64_t{1} << 63;

  // The environment in `dir` (which must hold a database: slapd's, or one
  // loaded before), opened beside whoever has it open.
  static Result<std::unique_ptr<MdbOnlineWriter>> Open(const Schema& schema, const std::string& dir,
                                                       MdbOnlineOptions options);
  ~MdbOnlineWriter() override;  // aborts a batch not committed
  MdbOnlineWriter(const MdbOnlineWriter&) = delete;
  MdbOnlineWriter& operator=(const MdbOnlineWriter&) = delete;

  Status AddEntry(uint64_t id, uint64_t parent_id, std::string_view nrdn, std::string_view rdn,
                  std::span<const MdbValue> values) override;
  Result<std::optional<uint64_t>> FindChild(uint64_t parent_id, std::string_view nrdn) override;
  Status ReplaceEntry(uint64_t id, std::span<const MdbValue> values) override;
  Result<std::optional<std::string_view>> StoredEntry(uint64_t id) override;
  Result<uint64_t> StoredEntries() override;
  uint64_t last_id() const override { return last_load_id_; }
  const std::unordered_map<std::string, uint32_t>& ad2i() const override { return ad2i_.numbers(); }

  // Commits the batch under way. No AddEntry after it.
  Status Finish();
  const MdbOnlineStats& stats() const { return stats_; }

 private:
  MdbOnlineWriter(const Schema& schema, MdbOnlineOptions options)
      : schema_(schema), options_(std::move(options)), encoder_(schema) {}

  // Begins a batch when none is open: the ad2i numbers added since, and the
  // last stored ID (mdb_next_id's way).
  Status EnsureBatch();
  // Raises the ancestors' nsubs, commits, and reports it.
  Status CommitBatch();
  Result<uint32_t> Ad2iNumber(const std::string& description);
  // The indexes entry `stored_id` (whose id2e record is `encoded`) goes into.
  Status AddIndexKeys(uint64_t stored_id, std::string_view encoded);
  // Puts the id2v values of the record the encoder laid out last for entry
  // `stored_id`, after removing those its keys held.
  Status PutId2v(uint64_t stored_id, std::span<const MdbValue> values);
  // Writes the record the encoder laid out last for `stored_id` into
  // `space` (Write), its id2v values, and its index keys.
  Status StoreValues(uint64_t stored_id, std::span<const MdbValue> values, char* space);
  // mdb_idl_insert_keys for one key.
  Status InsertId(MdbDb db, std::string_view key, uint64_t id);
  // One more below `parent` (a stored ID) for every `count` entries: the
  // child node of each ancestor up to the root (mdb_dn2id_add's upsub).
  Status RaiseNsubs(uint64_t parent, uint64_t count);
  // The stored ID of load ID `id`, or nullopt for a load ID not written.
  std::optional<uint64_t> ToStored(uint64_t id) const;
  uint64_t ToLoad(uint64_t stored) const;

  const Schema& schema_;
  MdbOnlineOptions options_;
  std::unique_ptr<MdbEnv> env_;
  std::optional<MdbTxn> txn_;
  double batch_started_ = 0;
  uint32_t batch_entries_ = 0;
  bool finished_ = false;
  MdbEntryEncoder encoder_;
  MdbAd2i ad2i_;
  uint64_t first_load_id_ = 0;  // the load's IDs start here
  uint64_t last_load_id_ = 0;
  uint64_t last_stored_ = 0;  // id2e's last key in the open batch
  // Load ID -> stored ID as runs of consecutive IDs in both: a new run
  // whenever another writer took IDs between two of this load's entries, or
  // the load skipped an ID (a reserved one that never came).
  struct Run {
    uint64_t first_load = 0;
    uint64_t first_stored = 0;
    uint64_t count = 0;
  };
  std::vector<Run> runs_;
  // Entries of the open batch per stored parent, for RaiseNsubs at commit.
  std::map<uint64_t, uint64_t> added_below_;
  std::optional<MdbEntryKeys> keys_;
  std::vector<std::pair<uint32_t, std::string_view>> entry_keys_;
  std::string node_;
  MdbOnlineStats stats_;
};

}  // namespace dirload::mdb
