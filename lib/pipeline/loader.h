// Loader: phase 1 of `dirload add`. Streams records from an ldif::Reader,
// checks each (DN syntax, under the suffix, duplicate DN, parent exists,
// schema), assigns IDs ascending from the database's next ID with parents
// before children, and appends the encoded entries to id2entry and their DNs
// to dn2id, or hands them to an EntrySink (slapd's format), whose own tree
// of names then answers the checks.
//
// A child may come before its parent, as slapadd allows, and slapadd's way is
// kept: the missing ancestors get IDs reserved on the spot (so IDs still put
// parents before children) and the child is stored at once; an ancestor that
// arrives later takes its reserved ID. An ancestor that never arrives is an
// error at the end, naming the child's line, and the entries below it are
// rejected and removed, so the tree stored is always whole.
//
// When lastmod is on (the default), each entry gains the operational
// attributes slapadd adds and the input lacks (structuralObjectClass,
// entryUUID, creatorsName, createTimestamp, entryCSN, modifiersName,
// modifyTimestamp, after the entry's own attributes, in that order); values
// read from the input are kept as they are. They are made on the writing
// thread, in input order, so entryCSNs increase along the input. With
// write_context_csn the suffix entry gets contextCSN at the end, as slapadd -w
// writes it.
//
// The database's state is `loading` from the first write until everything is
// committed and synced; only then does it become `ready`. A run that fails or
// is killed leaves `loading`, which every command refuses.
//
// The work runs as a pipeline: `threads` workers each read a batch of
// records (one at a time) and check and normalise it (the costly part), and
// the calling thread takes the batches in input order for the checks that
// depend on what came before (duplicates, parents) and writes the store;
// while the next batch in order is not checked yet, the calling thread
// reads and checks one itself. At most a few batches are in flight, so
// memory does not grow with the input.
// The native format's dn2id records are held in a buffer of bounded size
// (lib/util/held_records.h) and written in key order when it is full and at
// the end.
//
// Thread safety: one Loader per run; Run() is called by one thread, which is
// the only one that touches the store.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ldif/reader.h"
#include "ldif/record.h"
#include "lib/entry/entry_codec.h"
#include "lib/pipeline/entry_checker.h"
#include "lib/pipeline/indexer.h"
#include "lib/pipeline/operational_attributes.h"
#include "lib/pipeline/progress.h"
#include "lib/pipeline/run_stats.h"
#include "lib/schema/ascii.h"
#include "lib/store/store.h"
#include "lib/util/bloom_filter.h"
#include "lib/util/held_records.h"

namespace dirload {

// Where the entries go when the database is not dirload's native one
// (slapd's back-mdb: mdb_staged_load.h). Every entry the loader stores is handed
// here with its values, and the checks that need earlier entries (is the DN
// taken, what is the parent's ID) ask the sink's own tree of names through
// Find(): the loader's store then keeps its state (meta, dictionary) only.
class EntrySink {
 public:
  struct Value {
    std::string_view description;  // canonical ("cn;lang-de")
    std::string_view value;
    bool generated = false;  // made by this load (operational_attributes.h), not read
    // What the format stores beside the value, when a ValueNormalizer made
    // it already (has_normalized); the sink computes it otherwise.
    std::string_view normalized;
    bool has_normalized = false;
  };
  // What the format stores beside each value (slapd's normalized copies),
  // computed by the checking workers so that the writing thread only
  // writes. One per worker: not thread-safe itself.
  class ValueNormalizer {
   public:
    virtual ~ValueNormalizer() = default;
    // *stored false: the format keeps nothing beside this value. `equality`
    // is the value under its equality rule when the checks made it
    // (EntryChecker::Prepared::normalized), else null.
    virtual Status Normalize(std::string_view description, std::string_view value,
                             const std::string* equality, std::string* out, bool* stored) = 0;
  };
  virtual ~EntrySink() = default;
  // Called once per checking worker; may be called from any thread.
  virtual std::unique_ptr<ValueNormalizer> NewNormalizer() const { return nullptr; }
  // `parent` is 0 for the suffix entry. `dn` is the stored DN, `ndn` the
  // normalised one. IDs may come out of order where a child came before its
  // parent (the parent's ID was reserved).
  virtual Status Add(EntryId id, EntryId parent, std::string_view ndn, std::string_view dn,
                     std::span<const Value> values) = 0;
  // An entry added earlier whose ancestor never came (removed with -c).
  virtual Status Remove(EntryId id) = 0;
  // The ID of the entry named `ndn` (normalised) whose parent is `parent`
  // (0 for the suffix entry), stored before this load or added by it, or
  // nullopt.
  virtual Result<std::optional<EntryId>> Find(EntryId parent, std::string_view ndn) = 0;
  // The values of entry `id` as added, valid until the next call: the
  // suffix entry (for -w), and the entries not written yet (those below a
  // reserved ID, for the reject file when it never comes).
  // Replace: the entry replaced with `values` (-w).
  virtual Result<std::vector<Value>> Values(EntryId id) = 0;
  virtual Status Replace(EntryId id, std::span<const Value> values) = 0;
};

// One checking worker per processor but the one the writing thread keeps
// busy: at least one, at most three.
unsigned DefaultCheckingWorkers();

struct LoadOptions {
  std::string suffix;              // required
  bool continue_on_error = false;  // -c
  bool quick = false;              // -q: fewer commits
  uint64_t commit_every = 20000;   // entries per transaction (-q: 200000)
  // Checking workers beside the calling thread, which checks too; 0: the
  // calling thread alone.
  unsigned threads = DefaultCheckingWorkers();
  size_t batch_records = 256;
  // Operational attributes (operational_attributes.h).
  bool lastmod = true;             // add them (the database's lastmod setting)
  std::string rootdn;              // creatorsName, modifiersName ("" without a rootdn)
  int sid = 0;                     // -S: server ID in generated entryCSNs, 0..0xfff
  bool write_context_csn = false;  // -w: contextCSN on the suffix entry
  // -j: records whose first line (comments in front of the DN included)
  // comes before this input line are skipped (not checked, not loaded), as
  // slapadd -j skips them; 0 or 1 skips nothing.
  uint64_t skip_to_line = 0;
  OperationalAttributes::Clock clock;  // null: the system clock (tests fix it)
  uint64_t uuid_seed = 0;              // 0: entryUUID randomness from /dev/urandom
  // Native format: dn2id records held in memory up to this many bytes and
  // written in key order when it is full and at the end
  // (lib/util/held_records.h); 0 writes each with its entry. The tool gives
  // it --sort-memory / 4.
  size_t dn2id_buffer_bytes = size_t{64} << 20;
  // Not null: entries go here and the store keeps only the loader's state
  // (meta, dictionary), is never synced and is thrown away afterwards.
  EntrySink* sink = nullptr;
  // Not null (native format): each entry stored in id2entry is also handed
  // to this build of the indexes (--one-pass), which the loader abandons
  // when it changes or removes an entry already handed over.
  IndexFeed* index_feed = nullptr;
};

struct LoadSummary {
  uint64_t records_read = 0;
  uint64_t entries_loaded = 0;
  uint64_t rejected = 0;
  uint64_t skipped = 0;  // before skip_to_line; not counted in records_read
  uint64_t input_bytes = 0;
  EntryId first_id = 0;
  EntryId last_id = 0;
  std::string first_error;  // the first rejection's message
};

// Where rejected records go with -c (the tool opens the file).
class RejectSink {
 public:
  virtual ~RejectSink() = default;
  // `text` is the record as read (LDIF), empty when it could not be kept.
  virtual Status Reject(const std::string& message, std::string_view text) = 0;
};

class Loader {
 public:
  // Borrowed pointers must outlive the Loader. A null `store` is a dry run
  // (add -u): every check runs, nothing is written. `rejects` and `progress`
  // may be null.
  Loader(LoadOptions options, Store* store, const EntryChecker* checker, RejectSink* rejects,
         ProgressSink* progress);

  // Loads everything `reader` yields. Returns the summary; an error when a
  // storage operation failed, or (without -c) at the first bad record. With
  // -c bad records are counted in the summary and the run goes on.
  Result<LoadSummary> Run(ldif::Reader* reader);

 private:
  // A missing ancestor of an entry already stored: its ID is reserved, as
  // slapadd reserves it, and it gets that ID when it arrives.
  struct Hole {
    EntryId id;
    uint64_t first_line;  // the first entry that needed it
    std::string first_dn;
  };
  // With a sink, an entry stored below a hole: rejected and removed at the
  // end if the hole is never filled.
  struct BelowHole {
    EntryId id;
    std::string ndn, dn;
    bool removed = false;
  };
  enum class Found { kNone, kStored, kHole };
  struct Item;
  struct Batch;
  class Pipeline;
  // What one checking worker keeps between records.
  struct WorkerState {
    std::unordered_map<const char*, uint32_t> ids;  // canonical description -> dictionary id
    std::vector<ValueRef> values;
    // The last entry's normalizations from the checks (Prepared::normalized).
    std::vector<const std::string*> equalities;
    Dn leftmost;  // the last entry's leftmost RDN (CheckName)
    std::unique_ptr<EntrySink::ValueNormalizer> normalizer;  // with a sink that has one
  };
  static constexpr size_t kParentDns = 4096;
  // What the filter of the DNs this run added may take (BloomFilter: about
  // one false positive in 12 at 10,000,000 entries, none to speak of at
  // 1,000,000).
  static constexpr size_t kAddedFilterBytes = size_t{8} << 20;

  Status Begin();
  Status Finish();
  // Worker side: the checks that need only the record itself.
  void Check(EntryChecker* checker, WorkerState* local, Item* item);
  // Calling thread, in input order: the checks that need earlier records, then the write.
  Status Process(Item* item);
  Status ReserveAncestors(const std::string& ndn, uint64_t line, std::string_view dn);
  Status Insert(EntryId id, const ldif::Record& record, const Item& item,
                const std::string& stored_dn);
  // Whether `item` comes before skip_to_line.
  bool Skipped(const Item& item) const;
  // The operational values the entry lacks, in added_ (lastmod); notes its
  // entryCSN for -w.
  void AddOperationalValues(const Item& item);
  // AddOperationalValues, then appends to `out` the stored entry: its DN,
  // its encoded values and those added.
  void EncodeStoredEntry(const Item& item, std::string_view stored_dn, std::string* out);
  // -w: merges the greatest entryCSN per server ID into the suffix entry's contextCSN.
  Status WriteContextCsn();
  // The stored DN of an entry, "" when it is not stored (yet).
  // The view is valid until the next call.
  Result<const std::string*> StoredDn(std::string_view ndn);
  // Native: writes the held dn2id records in key order and empties the buffer.
  Status WriteHeldDn2Id();
  // The ID of the entry whose DN has dn2id sort key `sort_key`, held or
  // stored, or nullopt.
  Result<std::optional<EntryId>> LookupDn2Id(std::string_view sort_key);
  // Rejects (and removes) every entry below a reserved ID that never arrived.
  Status RemoveOrphans();
  // Reports a bad record: an error to return (no -c) or OK after the reject
  // file took it.
  Status Reject(uint64_t line, const std::string& dn, const std::string& why,
                const ldif::Record* record);
  Status RejectText(uint64_t line, const std::string& dn, const std::string& why,
                    std::string_view text);
  Result<Found> Find(const std::string& ndn, uint64_t* line, const std::string* sort_key = nullptr);
  // The ID of the stored entry `ndn` (sort_key: its dn2id key, when known).
  Result<std::optional<EntryId>> LookupId(const std::string& ndn, const std::string* sort_key);
  // With a sink: the ID an entry below `parent_ndn` hangs from (a hole's
  // reserved one included), or nullopt when there is none.
  Result<std::optional<EntryId>> ParentId(std::string_view parent_ndn);
  bool BelowAHole(std::string_view ndn) const;
  void ReportProgress(uint64_t input_offset, uint64_t input_size, uint64_t parsed, bool final);

  LoadOptions options_;
  Store* store_;
  const EntryChecker* checker_;
  RejectSink* rejects_;
  ProgressSink* progress_;

  std::string file_;
  std::string nsuffix_;
  std::mutex dictionary_mu_;  // workers add descriptions while the writer saves them
  AttributeDictionary dictionary_;
  size_t dictionary_saved_ = 0;
  EntryId next_id_ = 1;
  EntryId append_floor_ = 0;  // id2entry keys below this were written
  uint64_t entries_before_ = 0;
  LoadSummary summary_;
  std::vector<uint64_t> line_of_;  // input line of each ID loaded by this run
  std::unordered_map<std::string, uint64_t> dry_run_dns_;  // -u: ndn -> line
  // By normalised DN.
  std::unordered_map<std::string, Hole, schema_internal::StringHash, std::equal_to<>> holes_;
  std::vector<BelowHole> below_holes_;  // with a sink, while holes_ is not empty
  // With a sink: ndn -> ID.
  std::unordered_map<std::string, EntryId, schema_internal::StringHash, std::equal_to<>>
      parent_ids_;
  // ndn -> stored DN.
  std::unordered_map<std::string, std::string, schema_internal::StringHash, std::equal_to<>>
      parent_dns_;
  std::string last_parent_ndn_, last_parent_dn_;
  std::string stored_dn_;  // Process's, when the entry's DN is built under its parent's
  // Parents ReserveAncestors found stored (or reserved): entries share a
  // few parents, in no order. Bounded like parent_dns_.
  std::unordered_set<std::string, schema_internal::StringHash, std::equal_to<>> present_parents_;
  // The DNs this run added (native: their dn2id keys), when the database
  // held none before: a DN it rules out is not stored, without a lookup.
  bool filter_added_ = false;
  BloomFilter added_dns_{0};
  uint64_t since_commit_ = 0;
  HeldRecords held_dn2id_;  // native: records not written yet
  std::string key_, value_;
  std::unique_ptr<OperationalAttributes> operational_;                  // lastmod on
  std::array<uint32_t, kOperationalAttributeCount> operational_ids_{};  // dictionary ids
  CsnTracker csns_;                                                     // -w
  std::vector<ValueRef> added_;                // AddOperationalValues' output
  std::vector<EntrySink::Value> sink_values_;  // Insert's scratch
  Status InsertIntoSink(EntryId id, const Item& item, const std::string& stored_dn);
  std::string added_runs_;
  PhaseClock clock_;
  double last_progress_ = -1;
};

}  // namespace dirload
