// Loader: phase 1 of `dirload add`, the same for every format. Streams
// records from an ldif::Reader, checks each (DN syntax, under the suffix,
// duplicate DN, parent exists, schema), assigns IDs ascending from the
// database's next ID with parents before children, and hands the entries to
// an EntrySink (lib/format/entry_sink.h), which stores them as its format
// does and answers the checks that ask what is stored.
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
// For replicas loaded apart (each provider and consumer from the same LDIF),
// the values made can be made the same everywhere: entryUUIDs named by the
// DN (uuid_name_space) and one fixed time for every CSN and timestamp
// (csn_time), the CSN counters counting up in input order. The same input
// and options then give the same entries, byte for byte. remove_sids is
// OpenLDAP 2.7's slapadd -o remove-sids: an input entryCSN of one of those
// server IDs is replaced, where it stands, by a CSN made as if it were
// missing (with `sid`), and contextCSN keeps no value of them.
//
// What a failed or killed run leaves is the sink's to mark (the native
// format's `loading` state) or to throw away (slapd's build directory).
//
// The work runs as a pipeline (check_pipeline.h): `threads` workers each
// read a batch of records and check and normalise it (the costly part), and
// the calling thread takes the batches in input order for the checks that
// depend on what came before (duplicates, parents) and hands the entries to
// the sink.
//
// Thread safety: one Loader per run; Run() is called by one thread, which is
// the only one that calls the sink (its Preparers run on the workers).
#pragma once

#include <array>
#include <cstdint>
#include <deque>
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
#include "lib/format/entry_sink.h"
#include "lib/load/check_pipeline.h"
#include "lib/load/entry_checker.h"
#include "lib/load/operational_attributes.h"
#include "lib/load/record_router.h"
#include "lib/schema/ascii.h"
#include "lib/schema/dn_ancestors.h"
#include "lib/util/bloom_filter.h"
#include "lib/util/progress.h"
#include "lib/util/run_stats.h"

namespace dirload {

// One checking worker per processor but the one the writing thread keeps
// busy: at least one, at most three.
unsigned DefaultCheckingWorkers();

struct LoadOptions {
  std::string suffix;              // required
  bool continue_on_error = false;  // -c
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
  // A value given twice in one attribute: stored, as slapadd stores it, or
  // the entry refused (-o repeated-values=reject).
  RepeatedValues repeated_values = RepeatedValues::kStore;
  OperationalAttributes::Clock clock;  // null: the system clock (tests fix it)
  uint64_t uuid_seed = 0;              // 0: entryUUID randomness from /dev/urandom
  // -o csn-time: the time of every CSN and timestamp made (a clock that
  // stands still), instead of `clock`.
  std::optional<WallTime> csn_time;
  // -o uuid=dn: name-based entryUUIDs in this name space.
  std::optional<Uuid> uuid_name_space;
  // -o remove-sids: server IDs (0..0xfff, not `sid`) whose entryCSNs are
  // replaced and whose contextCSN values are dropped; implies write_context_csn.
  std::vector<int> remove_sids;
  // One input loaded into several databases (glue): this run loads the
  // records the router gives its database and passes over the others. Every
  // record then makes its operational values (one tick of the CSN counter),
  // so that with csn_time the CSNs made increase along the input across the
  // databases, as one pass would make them.
  std::optional<RecordRouter> router;
  // -w with a router: the greatest entryCSNs of the load's other databases,
  // merged into the selected database's contextCSN (slapadd -w writes one
  // contextCSN, the glued tree's, on the superior's suffix entry).
  std::vector<std::string> other_csns;
  // --stats: where the CPU time goes (stages "read", "check", "names" for
  // the checks against earlier records, IDs and operational values, "store"
  // for the sink's encoding and writing, "finish"; roles "writer" and
  // "check"). May be null.
  CpuLedger* ledger = nullptr;
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
  // Entries stored with a value given twice in one attribute, and the first
  // kNamedRepeats of them as "file:line: dn: which value repeats which" (for
  // -v; a load of millions of such entries must not hold every name).
  static constexpr size_t kNamedRepeats = 1000;
  uint64_t repeated_value_entries = 0;
  std::vector<std::string> repeated_values;
  // What the operator should know although the load went through: the
  // input's contextCSN on the suffix entry overwritten by -w.
  std::vector<std::string> warnings;
  uint64_t replaced_csns = 0;  // entryCSNs replaced for remove_sids
  // With a router: records another database's run loads (not counted in
  // records_read), and this run's greatest entryCSN per server ID (-w).
  uint64_t routed_elsewhere = 0;
  std::vector<std::string> greatest_csns;
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
  // Borrowed pointers must outlive the Loader. `rejects` and `progress` may
  // be null.
  Loader(LoadOptions options, EntrySink* sink, const EntryChecker* checker, RejectSink* rejects,
         ProgressSink* progress);

  // The options' own checks (the server ID and remove_sids), which Run
  // makes first: a usage error, before anything is written.
  static Status CheckOptions(const LoadOptions& options);

  // Loads everything `reader` yields. Returns the summary; an error when a
  // storage operation failed, or (without -c) at the first bad record. With
  // -c bad records are counted in the summary and the run goes on.
  Result<LoadSummary> Run(ldif::Reader* reader);

 private:
  // A missing ancestor of an entry already stored: its ID is reserved, as
  // slapadd reserves it, and it gets that ID when it arrives.
  struct Hole {
    EntryId id;
    size_t reserver;  // in reservers_: the first entry that needed it
  };
  // An entry that reserved missing ancestors. Their names are views into its
  // normalised DN, so a chain of any depth is held once (dn_ancestors.h).
  struct Reserver {
    std::string ndn;
    std::string dn;  // as given, to name a missing ancestor as it spelt it
    uint64_t line;
  };
  // An entry stored below a hole: rejected and removed at the end if the
  // hole is never filled.
  struct BelowHole {
    EntryId id;
    std::string ndn, dn;
  };
  enum class Found { kNone, kStored, kHole };
  class RecordChecker;
  // What one checking worker keeps between records.
  struct WorkerState {
    // The last entry's normalizations from the checks (Prepared::normalized).
    std::vector<const std::string*> equalities;
    Dn leftmost;                                    // the last entry's leftmost RDN (CheckName)
    std::unique_ptr<EntrySink::Preparer> preparer;  // the sink's, when it has one
  };
  static constexpr size_t kParentDns = 4096;
  // What the filter of the DNs this run added may take (BloomFilter: about
  // one false positive in 12 at 10,000,000 entries, none to speak of at
  // 1,000,000).
  static constexpr size_t kAddedFilterBytes = size_t{8} << 20;

  Status Begin();
  Status Finish();
  // Worker side: the checks that need only the record itself.
  void Check(EntryChecker* checker, WorkerState* local, CheckedRecord* item);
  // Calling thread, in input order: the checks that need earlier records, then the write.
  Status Process(CheckedRecord* item);
  Status ReserveAncestors(const std::string& ndn, uint64_t line, std::string_view dn);
  Status Insert(EntryId id, const ldif::Record& record, const CheckedRecord& item);
  // Whether `item` comes before skip_to_line.
  bool Skipped(const CheckedRecord& item) const;
  // The operational values the entry lacks, in added_ (lastmod); notes its
  // entryCSN for -w. `replace_csn`: its entryCSN is one remove_sids replaces.
  void AddOperationalValues(const CheckedRecord& item, bool replace_csn);
  // Whether the entry's own entryCSN has a server ID of remove_sids.
  bool ReplacesCsn(const EntryChecker::Prepared& p) const;
  // The entry's values with the entryCSN Next() made in place of its own,
  // prepared again for the sink, into *entry.
  Status ReplaceCsn(const CheckedRecord& item, EntrySink::NewEntry* entry);
  bool Removed(int sid) const { return sid >= 0 && !remove_sids_.empty() && remove_sids_[sid]; }
  // -w: merges the greatest entryCSN per server ID into the suffix entry's contextCSN.
  Status WriteContextCsn();
  // Rejects (and removes) every entry below a reserved ID that never arrived.
  Status RemoveOrphans();
  // Reports a bad record: an error to return (no -c) or OK after the reject
  // file took it.
  Status Reject(uint64_t line, const std::string& dn, const std::string& why,
                const ldif::Record* record);
  Status RejectText(uint64_t line, const std::string& dn, const std::string& why,
                    std::string_view text);
  // `prepared`: the entry's own, when `ndn` is the entry being loaded.
  Result<Found> Find(DnName name, uint64_t* line, const EntrySink::Prepared* prepared = nullptr);
  // The ID of the stored entry `name`.
  Result<std::optional<EntryId>> LookupId(DnName name, const EntrySink::Prepared* prepared);
  bool BelowAHole(std::string_view ndn);
  // The missing ancestor `hole` as the entry that reserved it spelt it.
  std::string HoleName(const DnName& hole, const Reserver& by) const;
  void ReportProgress(uint64_t input_offset, uint64_t input_size, uint64_t parsed, bool final);

  LoadOptions options_;
  // With a ledger: the writing thread's time in the sink, for the share of
  // "store" in each batch.
  double sink_seconds_ = 0;
  EntrySink* sink_;
  const EntryChecker* checker_;
  RejectSink* rejects_;
  ProgressSink* progress_;

  std::string file_;
  std::string nsuffix_;
  EntryId next_id_ = 1;
  uint64_t entries_before_ = 0;
  LoadSummary summary_;
  std::vector<uint64_t> line_of_;  // input line of each ID loaded by this run
  // By normalised DN; the names are views into reservers_, which stay until
  // every hole is filled (the sink holds the same views: EntrySink::Reserve).
  std::unordered_map<DnName, Hole, DnNameHash> holes_;
  std::deque<Reserver> reservers_;
  std::vector<DnName> ancestors_;       // ListAncestors' output, reused
  std::vector<BelowHole> below_holes_;  // while holes_ is not empty
  // Parents ReserveAncestors found stored (or reserved): entries share a
  // few parents, in no order. Bounded by kParentDns.
  std::unordered_set<std::string, schema_internal::StringHash, std::equal_to<>> present_parents_;
  // The DNs this run added (hashed), when the database held none before: a
  // DN it rules out is not stored, without asking the sink.
  bool filter_added_ = false;
  BloomFilter added_dns_{0};
  std::unique_ptr<OperationalAttributes> operational_;  // lastmod on
  CsnTracker csns_;                                     // -w
  std::vector<EntrySink::Value> added_;                 // AddOperationalValues' output
  // remove_sids by server ID (empty when none), and what ReplaceCsn needs:
  // the sink's preparer on this thread, the entry's values and their
  // preparation with the new CSN.
  std::vector<bool> remove_sids_;
  std::unique_ptr<EntrySink::Preparer> writer_preparer_;
  std::vector<EntrySink::ValuePair> replaced_values_;
  EntrySink::Prepared replaced_made_;
  PhaseClock clock_;
  double last_progress_ = -1;
};

}  // namespace dirload
