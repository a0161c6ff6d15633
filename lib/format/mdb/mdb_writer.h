// MdbLoadWriter: phase 1 of a bulk load into slapd 2.5's back-mdb format:
// the entries (id2e), the attribute descriptions (ad2i) and the DN tree
// (dn2i). Index databases are phase 2 (mdb_index_builder.h), built from id2e.
//
// Entries arrive in ascending ID order with parents before children (as
// slapadd assigns IDs). Each is encoded at once with slapd's normalized
// copies and ocflags (mdb_normalized.h) and appended to id2e; ad2i numbers
// are given in order of first use. What dn2i needs (parent, normalized RDN,
// RDN) is written as each entry comes: its self node appended under its own
// ID; its child node, which goes among its parent's in slapd's dup order, is
// held in memory (lib/util/held_records.h, up to held_child_bytes) and the
// held nodes are put in dup order when the buffer is full and at Finish():
// children come in random order (people in random departments), and put one
// by one, each transaction rewrote most of dn2i's leaf pages, so the bytes
// written per entry grew with the database. The nsubs of a child node (1 +
// descendants) is counted as the load goes, for the entries that got
// children only; a node written before its count was final is corrected at
// Finish(). Key 0 holds the dummy root node and the suffix's child node.
//
// Attribute records: the values of one description (canonical spelling,
// "cn;lang-de") are merged into one record in order of first appearance,
// as slapadd without -q does.
//
// Append (OpenExisting): loads more entries into a database slapd or
// dirload wrote. The existing ad2i numbers are kept and extended, the new IDs
// must exceed the last stored one, new nodes go under existing parents as
// under new ones, and Finish() raises the nsubs of every existing ancestor
// (the child node under its grandparent, rewritten in place).
//
// Failure leaves a partial database: the caller removes the directory (for
// a new load) or keeps the backup it made.
//
// Thread safety: one thread; the Schema must outlive the writer.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_entry_encoder.h"
#include "lib/format/mdb/mdb_entry_writer.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/schema/ascii.h"
#include "lib/util/held_records.h"
#include "lib/util/status.h"
#include "lib/util/string_map.h"

namespace dirload {
class Schema;
struct AttributeType;
}  // namespace dirload

namespace dirload::mdb {

struct MdbWriterOptions {
  uint64_t map_size = 0;  // slapd's maxsize; 0: LMDB's default or the existing size
  bool quick = false;     // slapadd -q: MDB_NOSYNC, one sync at the end
  // Index databases to create (empty) so that slapd finds them; phase 2
  // fills them.
  std::vector<std::string> index_names;
  // Entries per write transaction (bounds LMDB's dirty page list). A commit
  // writes the transaction's pages out on the writing thread, and the
  // checking worker stops once the few batches in flight are full: with
  // 20,000 entries each commit took tens of milliseconds, and the worker
  // waited about 0.3 s of a 285,000-entry load. Phase 1 appends to id2e and
  // holds dn2i's child nodes back, so smaller transactions rewrite little
  // twice (bench/README.md, "Smaller transactions in phase 1").
  uint32_t entries_per_txn = 5000;
  // dn2i child nodes held in memory up to this many bytes (see above); 0
  // puts each with its entry. `dirload add` gives it --sort-memory / 4.
  size_t held_child_bytes = size_t{64} << 20;
  // sortvals and multival (mdb_entry_encoder.h): values sorted, and those
  // of big records put in id2v.
  MdbValueRules values;
};

// The leftmost RDN of an RFC 4514 DN string (normalized or as given): up to
// the first ',' that no backslash escapes; the whole DN if there is none.
std::string_view MdbLeftmostRdn(std::string_view dn);

class MdbLoadWriter final : public MdbEntryWriter {
 public:
  // A new database in the existing directory `dir`; AlreadyExists (origin
  // kDatabase) when id2e already holds entries.
  static Result<std::unique_ptr<MdbLoadWriter>> Create(const Schema& schema, const std::string& dir,
                                                       const MdbWriterOptions& options);
  // An existing database, to append to (slapadd onto a populated database).
  static Result<std::unique_ptr<MdbLoadWriter>> OpenExisting(const Schema& schema,
                                                             const std::string& dir,
                                                             const MdbWriterOptions& options);
  ~MdbLoadWriter();
  MdbLoadWriter(const MdbLoadWriter&) = delete;
  MdbLoadWriter& operator=(const MdbLoadWriter&) = delete;

  // Adds entry `id`, child of `parent_id` (0 for the suffix entry), whose
  // leftmost RDN is `nrdn` normalized and `rdn` in slapd's "pretty" form,
  // which is what slapcat prints (for the suffix entry: the whole suffix
  // DN, both ways).
  // REQUIRES: id greater than every earlier (and stored) ID; parent_id 0, an
  // ID added before, or a stored ID (append; looked up at Finish()).
  // An attribute of an undefined type (a load without schema checks) is
  // stored as written with no normalized copy, as slapadd -s stores it.
  // Errors: InvalidArgument (origin kInput) for a value without a normalized
  // form; InvalidArgument (kUsage) for an ID
  // out of order or an unknown parent; kStorage errors from LMDB.
  // slapadd numbers descriptions in ad2i as the entries come, not in ID
  // order: an entry waiting for a lower reserved ID is numbered here.
  Status NumberDescriptions(uint64_t id, std::span<const MdbValue> values) override;
  Status AddEntry(uint64_t id, uint64_t parent_id, std::string_view nrdn, std::string_view rdn,
                  std::span<const MdbValue> values) override;

  // The ID of the child of `parent_id` (0: the root, whose one child is the
  // suffix entry) with normalized RDN `nrdn` (for the suffix entry: the
  // whole normalized suffix), or nullopt: dn2i answers, with what this load
  // wrote so far, as slapadd asks it whether a DN is taken.
  Result<std::optional<uint64_t>> FindChild(uint64_t parent_id, std::string_view nrdn) override;

  // Re-encodes entry `id`, added by this load or stored before it, with
  // `values` (as AddEntry takes them): slapadd -w's contextCSN on the
  // suffix entry.
  Status ReplaceEntry(uint64_t id, std::span<const MdbValue> values) override;
  // Entry `id`'s id2e record as it stands in this load's transaction, or
  // nullopt when there is none; valid until the next write.
  Result<std::optional<std::string_view>> StoredEntry(uint64_t id) override;
  Result<uint64_t> StoredEntries() override;

  // Writes dn2i and commits. No AddEntry after it. It does not sync: with
  // `quick` the caller calls env().Sync() once the database is complete
  // (MdbStagedLoad::Install).
  Status Finish();
  // After Finish: opens env() again writing through a writable map, for
  // phase 2. Entries are written best into LMDB's heap pages (new pages,
  // appended: through a map each is first zero-filled by the kernel), index
  // records best in place (pages all over the file, each changed many
  // times: LMDB copies each one once a transaction otherwise).
  Status ReopenForIndexes();

  // The last ID stored (0 for an empty database): the next entry's ID - 1.
  uint64_t last_id() const override { return last_id_; }
  uint64_t entries_added() const { return entries_added_; }
  // ad2i: description -> number, every one known so far.
  const std::unordered_map<std::string, uint32_t>& ad2i() const override { return ad2i_; }
  MdbEnv& env() { return *env_; }

 private:
  MdbLoadWriter(const Schema& schema, const MdbWriterOptions& options)
      : schema_(schema),
        options_(options),
        held_children_(options.held_child_bytes),
        encoder_(schema) {}
  MdbEnvOptions EnvOptions(bool write_map) const;
  static Result<std::unique_ptr<MdbLoadWriter>> Open(const Schema& schema, const std::string& dir,
                                                     const MdbWriterOptions& options,
                                                     bool existing);
  Status ReadExisting();
  // Lays `values` out as entry `id` in encoder_, ad2i numbers assigned in
  // this load's transaction.
  Status Encode(uint64_t id, std::span<const MdbValue> values);
  // Puts the id2v values of the record Encode laid out last for entry `id`;
  // `replace`: removes the ones stored under its keys first.
  Status PutId2v(uint64_t id, std::span<const MdbValue> values, bool replace);
  Status EnsureTxn();
  // Commits the open transaction and begins the next.
  Status CommitAndBegin();
  // held_children_'s key of a child node under `parent_id`: the parent's ID
  // (8 bytes, big-endian) and the node's length bytes and nrdn, whose
  // bytewise order is slapd's dup order.
  const std::string& HeldKey(uint64_t parent_id, std::string_view node);
  // Puts the held child nodes into dn2i in key order, each with the nsubs
  // counted so far.
  Status WriteHeldChildren();
  Result<uint32_t> Ad2iNumber(const std::string& description);
  Status WriteDn2i();
  // Append mode: nodes of new entries under a stored parent, and nsubs of
  // stored ancestors.
  Status UpdateStoredAncestors(uint64_t stored_parent, uint64_t added);

  // Counts `id` below its parent and every ancestor this load added (and
  // the nearest stored one, for append).
  Status NoteChild(uint64_t id, uint64_t parent_id);
  // Sets (or with `add`, raises by) nsubs in the child node of `id` under
  // its parent; *parent, when given, is that parent's ID.
  Status SetChildNsubs(uint64_t id, uint64_t nsubs, bool add, uint64_t* parent = nullptr);

  const Schema& schema_;
  MdbWriterOptions options_;
  std::string dir_;
  std::unique_ptr<MdbEnv> env_;
  std::optional<MdbTxn> txn_;
  uint32_t txn_entries_ = 0;
  bool finished_ = false;
  uint64_t first_new_id_ = 0;  // IDs up to this are stored ones
  uint64_t last_id_ = 0;
  std::unordered_map<std::string, uint32_t> ad2i_;
  // The entries of this load that have children, with their parent and
  // nsubs (1 + descendants): dn2i's nodes themselves go to LMDB as the
  // entries come, so memory grows with the entries that are parents only.
  struct Parent {
    uint64_t parent;
    uint64_t nsubs;
    uint64_t nsubs_written = 1;  // what the entry's child node says
  };
  std::unordered_map<uint64_t, Parent> parents_;
  // Append: stored parents -> new entries below them.
  std::map<uint64_t, uint64_t> stored_added_;
  uint64_t entries_added_ = 0;
  // Child nodes not in dn2i yet, and whether dn2i held no child node below
  // a held one's parent when this load began (a new database: the held
  // nodes are then appended to their parent's, until the first flush).
  HeldRecords held_children_;
  bool append_children_ = false;
  std::string node_, held_key_;  // AddEntry's and FindChild's scratch
  MdbEntryEncoder encoder_;
};

}  // namespace dirload::mdb
