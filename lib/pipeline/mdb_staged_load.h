// MdbStagedLoad: `dirload add` into slapd's own database (OpenLDAP 2.5 back-mdb,
// lib/format/mdb). The loader (loader.h) does every check as for the native
// format and hands each entry to an EntrySink that writes it with
// MdbLoadWriter. Whether a DN is taken, and a parent's ID, it asks of
// slapd's own DN tree (dn2i) as it is being written (and of the child nodes
// the writer holds back, mdb_writer.h), as slapadd does: a second tree of
// names, kept in step, cost phase 1 a fifth of its time at 1M entries.
//
// The database is built aside, in DIR/.dirload-build: a new one from
// nothing, an append on a copy of the existing data.mdb. Only when phase 1
// and the indexes are written and synced does Install() rename the built
// data.mdb over DIR/data.mdb (one rename(2), atomic), give it the owner and
// group of DIR (slapd runs as `openldap`) and remove the build directory. A
// slapd started meanwhile sees the database as it was before, never a half
// load; a run that fails or is killed leaves DIR untouched (the next run
// removes the stale build directory).
//
// Entries that come before their parent wait in memory until the parent's
// reserved ID is written, so that id2e is written in ID order.
//
// Thread safety: one thread.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "lib/format/entry_sink.h"
#include "lib/format/format_detect.h"
#include "lib/format/mdb/mdb_index_builder.h"
#include "lib/format/mdb/mdb_writer.h"
#include "lib/index/index_spec.h"
#include "lib/pipeline/database_config.h"
#include "lib/pipeline/indexer.h"
#include "lib/pipeline/slapd_config.h"
#include "lib/schema/ascii.h"
#include "lib/schema/schema.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

// The format `dirload add` writes into `dir`: the one there (a `requested`
// other than it is refused), else `requested` ("mdb", "native"), else mdb
// when the configuration's database is `database mdb`, else native. A
// directory holding both formats or unknown tables is refused.
Result<DatabaseFormat> ChooseLoadFormat(const std::string& dir, std::string_view requested,
                                        std::string_view config_database_type);

// slapd.conf's index_* settings as back-mdb's key options: the stored keys
// (add, index) and the searched ones (search) must be made with the same.
inline mdb::MdbKeyOptions MdbKeyOptionsFrom(const IndexTuning& t) {
  mdb::MdbKeyOptions k;
  k.hash64 = t.hash64;
  k.substr_if_minlen = t.substr_if_minlen;
  k.substr_if_maxlen = t.substr_if_maxlen;
  k.substr_any_len = t.substr_any_len;
  k.substr_any_step = t.substr_any_step;
  k.intlen = t.intlen;
  return k;
}

// Writes the loader's entries through an MdbLoadWriter in ascending ID
// order. Whether a DN is taken, and a parent's ID, it asks of the writer's
// DN tree (dn2i) and of the entries it holds back. The writer is borrowed
// and must outlive the sink.
class MdbSink final : public EntrySink {
 public:
  // Both borrowed; they must outlive the sink and its preparers.
  MdbSink(mdb::MdbLoadWriter* writer, const Schema* schema);

  std::unique_ptr<Preparer> NewPreparer() override;
  // The next ID after the last in id2e, and how many entries it holds.
  Result<Start> Stored() override;
  Status Begin(std::string_view suffix, std::string_view nsuffix) override;
  Result<std::optional<EntryId>> Find(std::string_view ndn, const Prepared* prepared) override;
  void Reserve(EntryId id, std::string_view ndn) override;
  Status Add(const NewEntry& entry) override;
  // No DN: slapd's tree keeps RDNs.
  Result<StoredEntry> Read(EntryId id) override;
  Status Remove(EntryId id, std::string_view ndn) override;
  Status Replace(EntryId id, std::span<const Value> values) override;
  // Writes the entries still waiting (their reserved predecessors never came
  // and were rejected).
  Status Finish(const Start& end) override;

  // Entries waiting for a reserved ID right now.
  size_t waiting() const { return pending_.size(); }

 private:
  // An entry's values, owned.
  struct Owned {
    EntryId parent = 0;
    std::string nrdn, rdn;
    std::vector<std::string> descriptions, values, normalized;
    std::vector<bool> generated, has_normalized;
    void Assign(std::span<const mdb::MdbValue> in);
    std::vector<mdb::MdbValue> View() const;
  };
  template <typename V>
  using NameMap = std::unordered_map<std::string, V, schema_internal::StringHash, std::equal_to<>>;
  // Parents are few and asked for again and again.
  static constexpr size_t kParentIds = 4096;

  // The ID of the entry named `ndn` filed under `parent`, written or waiting.
  Result<std::optional<EntryId>> FindChild(EntryId parent, std::string_view ndn);
  // The ID an entry below `parent_ndn` hangs from (a reserved one
  // included), or nullopt when there is none.
  Result<std::optional<EntryId>> ParentId(std::string_view parent_ndn);
  Status Write(EntryId id, const Owned& entry);
  Status WriteView(EntryId id, EntryId parent, std::string_view nrdn, std::string_view rdn,
                   std::span<const mdb::MdbValue> values);
  Status Drain();
  // pending_names_'s key: the parent's ID and the normalized RDN, as dn2i
  // files a child.
  static std::string NameKey(EntryId parent, std::string_view nrdn);
  void ErasePending(std::map<EntryId, Owned>::iterator it);

  mdb::MdbLoadWriter* writer_;
  const Schema* schema_;
  std::string nsuffix_;
  EntryId written_;  // highest ID written
  std::map<EntryId, Owned> pending_;
  // The names of pending_'s entries, which dn2i does not hold yet.
  std::unordered_map<std::string, EntryId> pending_names_;
  NameMap<EntryId> reserved_;    // ndn -> the ID kept for it, until it comes
  NameMap<EntryId> parent_ids_;  // ndn -> ID, bounded by kParentIds
  // The suffix entry as added, for -w (Read/Replace).
  EntryId suffix_id_ = 0;
  Owned suffix_;
  std::vector<mdb::MdbValue> values_;  // Add's scratch
  std::vector<Value> read_;            // Read's
};

struct MdbStagedLoadOptions {
  mdb::MdbWriterOptions writer;  // map size, quick, index names
  mdb::MdbIndexOptions index;    // key options, memory, temp dir
  std::string suffix;
};

// The options of a load into the database `db` resolves to, building the
// indexes of `specs` (none: phase 1 only) with `run`'s method, memory and
// spill directory: slapd's maxsize (else room enough, mapped sparsely),
// slapadd -q's single sync, and the configuration's index_* key settings.
MdbStagedLoadOptions MdbStagedLoadOptionsFor(const ResolvedDatabase& db,
                                             const std::vector<IndexSpec>& specs,
                                             const IndexRunOptions& run);
// The index options of `run` on slapd's format (also `dirload index`).
mdb::MdbIndexOptions MdbIndexOptionsFor(const ResolvedDatabase& db, const IndexRunOptions& run);

class MdbStagedLoad {
 public:
  // Prepares the build directory of `dir` (which holds no database, or a
  // back-mdb one to append to).
  static Result<std::unique_ptr<MdbStagedLoad>> Begin(const std::string& dir, const Schema& schema,
                                                      const MdbStagedLoadOptions& options);
  ~MdbStagedLoad();  // removes the build directory unless installed
  MdbStagedLoad(const MdbStagedLoad&) = delete;
  MdbStagedLoad& operator=(const MdbStagedLoad&) = delete;

  EntrySink* sink() { return sink_.get(); }
  bool appending() const { return appending_; }
  const std::string& build_dir() const { return build_dir_; }

  // After the loader's Run: writes what waited and dn2i, and starts writing
  // the pages out in the background (Install waits for them).
  Status FinishEntries();
  // Phase 2: the index databases of `specs` (all of them: the new entries'
  // keys and the old ones' are rebuilt together on append).
  Result<mdb::MdbIndexStats> BuildIndexes(const std::vector<IndexSpec>& specs);
  // Moves the built database into place (see above).
  Status Install();

 private:
  MdbStagedLoad(const Schema& schema, MdbStagedLoadOptions options)
      : schema_(schema), options_(std::move(options)) {}

  const Schema& schema_;
  MdbStagedLoadOptions options_;
  std::string dir_, build_dir_;
  bool appending_ = false;
  bool installed_ = false;
  std::unique_ptr<mdb::MdbLoadWriter> writer_;
  std::unique_ptr<MdbSink> sink_;
  // Phase 1's pages go to disk while phase 2 runs.
  std::thread writeback_;
};

}  // namespace dirload
