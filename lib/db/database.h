// Database: one database's life, whichever its format, as every command
// sees it. Open() resolves the configuration (-f/-F/-b/-n/--db, as slapadd
// selects a database), detects or chooses the format, takes the writer's or
// the reader's lock, and refuses a database whose earlier work did not
// finish, naming `dirload recover`. It knows the schema and the index
// configuration in force. Reading goes through the format's reader
// (lib/format/format.h): every entry, a search, a report. Writing is a
// LoadJob (load_job.h) begun here, an index rebuild planned and run here
// (index_job.h), or the format's editor of a modify run (modify_job.h).
//
// Thread safety: one thread. Concurrent readers open a Database each.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/database_config.h"
#include "lib/db/database_lock.h"
#include "lib/format/entry_editor.h"
#include "lib/format/format.h"
#include "lib/format/native/native_indexer.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

// Where a long job says what an operator should know (a warning, a note, what
// a rollback did), one line at a time, without the "dirload: " prefix.
using NoticeSink = std::function<void(std::string_view line)>;

// What a command means to do with the database: the locks and checks follow.
enum class Access {
  kRead,        // cat, search: the reader's lock; a complete database
  kReport,      // stat: as kRead, the engine's figures untouched until Report()
  kIndex,       // index: the writer's lock
  kIndexCheck,  // index --check: the reader's lock, nothing written
  kLoad,        // add: the writer's lock; the database may not exist yet
  kDryRun,      // add -u: nothing is locked, opened or written
  kModify,      // modify: the writer's lock; a complete database
};

struct OpenOptions {
  DatabaseOptions database;
  Access access = Access::kRead;
  // kLoad: "mdb", "native", or empty (the format there, else the
  // configuration's `database mdb` decides).
  std::string format;
  // What a reader should know about the database it opened (an unfinished
  // index rebuild); may be empty.
  NoticeSink notice;
  // kLoad, kIndex: write slapd's format beside whoever has its environment
  // open (slapd), through LMDB's write transactions, instead of refusing.
  // A usage error on dirload's native format, which slapd does not serve.
  bool online = false;
};

struct LoadJobOptions;
class LoadJob;
struct IndexRequest;
struct IndexPlan;
struct IndexRebuild;

class Database {
 public:
  static Result<std::unique_ptr<Database>> Open(const OpenOptions& options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // The database as the configuration and the options describe it.
  const ResolvedDatabase& config() const { return config_; }
  const std::string& dir() const { return config_.dir; }
  DatabaseFormat format() const { return format_; }
  Access access() const { return access_; }

  // The schema (built on first use: a report needs none).
  Result<const Schema*> schema();
  // The index lines given (configuration, then --index); empty when none.
  Result<IndexConfig> ConfiguredIndexes();

  // Reading (kRead, kReport). The suffix the database holds, the dictionary
  // of the entries handed out, and whether `cat` writes them as slapcat does.
  const std::string& suffix() const { return reader_->suffix(); }
  const AttributeDictionary& dictionary() const { return reader_->dictionary(); }
  bool slapcat_ldif() const { return reader_->slapcat_ldif(); }
  // The indexes a search must not use, each "NAME: why".
  Result<std::vector<std::string>> UnusableIndexes() { return reader_->UnusableIndexes(); }
  // Every entry, or those `selection` picks, in ID order.
  Status ForEachEntry(const EntrySelection* selection, const EntryCallback& callback) {
    return reader_->ForEachEntry(selection, callback);
  }
  Status ForEachEntryThen(const EntrySelection* selection, const EntryCallback& callback,
                          const std::function<Status()>& finish) {
    return reader_->ForEachEntryThen(selection, callback, finish);
  }
  bool ValuesOutliveCallback(const EntrySelection* selection) const {
    return reader_->ValuesOutliveCallback(selection);
  }
  // An exact search (lib/format/format.h). An empty base is the root above
  // the database, as in lib/search/search.h; a caller that means the suffix
  // (as slapcat reads an empty base) passes suffix().
  Result<SearchResult> Search(SearchRequest request, const SearchCallback& callback) {
    return reader_->Search(std::move(request), callback);
  }
  Result<DatabaseReport> Report() { return reader_->Report(); }
  // Every index table's lists as stored (kRead): format.h.
  Status ForEachIndexList(const IndexListCallback& callback) {
    return reader_->ForEachIndexList(callback);
  }
  // A verification (kRead): verify_job.h.
  Result<VerifyReport> Verify(const VerifyOptions& options);

  // Writing (kLoad, kDryRun): load_job.h.
  Result<std::unique_ptr<LoadJob>> BeginLoad(const LoadJobOptions& options);

  // Editing entries in place (kModify): the format's editor, one run's
  // changes in it, all of them written at its Commit() (modify_job.h).
  Result<std::unique_ptr<EntryEditor>> BeginEdit();

  // Index rebuild (kIndex, kIndexCheck): index_job.h. The plan says what
  // would be built and dropped; RebuildIndexes carries it out.
  Result<IndexPlan> PlanIndexes(const IndexRequest& request);
  Result<IndexRebuild> RebuildIndexes(IndexPlan plan, ProgressSink* progress);

 private:
  Database() = default;
  ReaderContext Context();
  // Writers of slapd's format: refused while another process has its LMDB
  // environment open (lmdb_presence.h), unless they write `online`.
  Status RequireEnvironmentUnused(bool online) const;
  // Lets a reader open a database whose index rebuild was interrupted
  // (`pending` is RequireNoPendingWork's answer); any other pending work
  // stays refused.
  Status AllowInterruptedIndexBuild(Status pending, const OpenOptions& options);

  Access access_ = Access::kRead;
  ResolvedDatabase config_;
  DatabaseFormat format_ = DatabaseFormat::kNative;
  std::unique_ptr<Schema> schema_;
  std::optional<DatabaseLock> lock_;
  std::unique_ptr<FormatReader> reader_;
  std::optional<std::vector<std::string>> unfinished_indexes_;
};

}  // namespace dirload
