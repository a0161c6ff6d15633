#include "lib/db/database.h"

#include "lib/db/index_job.h"
#include "lib/db/lmdb_presence.h"
#include "lib/db/load_job.h"
#include "lib/db/mdb_load_options.h"
#include "lib/db/native_edit.h"
#include "lib/db/pending_work.h"
#include "lib/format/mdb/mdb_entry_editor.h"
#include "lib/format/mdb/mdb_format_reader.h"
#include "lib/format/native/native_reader.h"
#include "lib/schema/dn.h"
#include "lib/util/file.h"
#include "lib/util/text_table.h"

namespace dirload {
namespace {

bool Writes(Access access) {
  return access == Access::kIndex || access == Access::kLoad || access == Access::kModify;
}

}  // namespace

Database::~Database() {
  // Whatever a writer created or replaced takes the directory's owner, on
  // every path, failed ones included: slapd and later runs as that user
  // must open it.
  if (Writes(access_) && !config_.dir.empty()) (void)GiveFilesToDirectoryOwner(config_.dir);
}

Result<const Schema*> Database::schema() {
  if (!schema_) {
    DIRLOAD_ASSIGN_OR_RETURN(schema_, BuildSchema(config_));
  }
  return schema_.get();
}

Result<IndexConfig> Database::ConfiguredIndexes() {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* s, schema());
  return BuildIndexConfig(*s, config_);
}

Result<std::unique_ptr<EntryEditor>> Database::BeginEdit() {
  if (access_ != Access::kModify) {
    return Status::Internal("Database::BeginEdit: not opened for modify");
  }
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* s, schema());
  DIRLOAD_ASSIGN_OR_RETURN(std::string nsuffix, NormalizeDn(*s, config_.suffix));
  // dirload's format follows the indexes it recorded.
  if (format_ != DatabaseFormat::kMdb) return BeginNativeEdit(config_, *s, std::move(nsuffix));
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig indexes, ConfiguredIndexes());
  // Every index the database has must follow the changes.
  DIRLOAD_RETURN_IF_ERROR(RequireIndexConfigurationFor(config_, *s, indexes, ""));
  mdb::MdbEditorOptions o;
  o.dir = config_.dir;
  o.nsuffix = std::move(nsuffix);
  o.map_size = config_.store_options.lmdb_map_size;
  o.indexes = indexes.specs();
  o.keys = MdbKeyOptionsFrom(config_.index_tuning);
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<mdb::MdbEntryEditor> editor,
                           mdb::MdbEntryEditor::Open(*s, std::move(o)));
  return std::unique_ptr<EntryEditor>(std::move(editor));
}

Status Database::RequireEnvironmentUnused(bool online) const {
  if (online) {
    if (format_ == DatabaseFormat::kMdb) return Status::Ok();
    return Status::InvalidArgument(config_.dir +
                                   ": --online applies to slapd's back-mdb format (the one slapd "
                                   "serves); this database is in dirload's native format")
        .WithOrigin(ErrorOrigin::kUsage);
  }
  // slapd's own database: a writer beside a running slapd would lose what
  // slapd writes meanwhile (its open file replaced) or hand it half an index.
  if (format_ != DatabaseFormat::kMdb) return Status::Ok();
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<std::string> user, LmdbEnvironmentUser(config_.dir));
  if (user.has_value()) return InUseError(config_.dir, *user);
  return Status::Ok();
}

Status Database::AllowInterruptedIndexBuild(Status pending, const OpenOptions& options) {
  if (pending.ok() || pending.code() == StatusCode::kAlreadyExists) return pending;
  // An index rebuild leaves the entries whole (id2entry, dn2id; id2e,
  // dn2i): they are read as they are, and only the indexes it was building
  // are not used, as slapcat reads such a database.
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> work, ReadPendingWork(config_.dir));
  if (work.has_value() && work->kind == WorkKind::kOnlineAdd) {
    // An online add commits whole batches: the database is complete as it is.
    if (options.notice) {
      options.notice("note: an online add of " + config_.dir + " was interrupted (" +
                     work->command + "); 'dirload recover' says how far it got");
    }
    return Status::Ok();
  }
  if (!work.has_value() || work->kind != WorkKind::kIndex) return pending;
  std::vector<std::string> names;
  for (const std::string& line : work->index_lines) {
    const std::string attributes = line.substr(0, line.find_first_of(" \t"));
    for (size_t start = 0; start <= attributes.size();) {
      size_t comma = attributes.find(',', start);
      if (comma == std::string::npos) comma = attributes.size();
      if (comma > start) names.push_back(attributes.substr(start, comma - start));
      start = comma + 1;
    }
  }
  unfinished_indexes_ = std::move(names);
  if (options.notice) {
    options.notice("warning: an index rebuild of " + config_.dir + " did not finish (" +
                   work->command + "): " +
                   (unfinished_indexes_->empty()
                        ? std::string("no index is")
                        : "the indexes of " + JoinWithCommas(*unfinished_indexes_) + " are") +
                   " not used until 'dirload recover' finishes it");
  }
  return Status::Ok();
}

ReaderContext Database::Context() {
  ReaderContext c;
  c.unfinished_indexes = unfinished_indexes_;
  c.schema = [this] { return schema(); };
  c.configured_indexes = [this]() -> Result<std::optional<IndexConfig>> {
    if (config_.index_lines.empty()) return std::optional<IndexConfig>();
    DIRLOAD_ASSIGN_OR_RETURN(IndexConfig configured, ConfiguredIndexes());
    return std::optional<IndexConfig>(std::move(configured));
  };
  return c;
}

Result<std::unique_ptr<Database>> Database::Open(const OpenOptions& options) {
  std::unique_ptr<Database> db(new Database());
  db->access_ = options.access;
  const bool loading = options.access == Access::kLoad || options.access == Access::kDryRun;
  DIRLOAD_ASSIGN_OR_RETURN(db->config_, ResolveDatabase(options.database, /*creating=*/loading));
  const ResolvedDatabase& c = db->config_;
  if (loading) {
    if (!c.has_suffix) {
      return Status::InvalidArgument("no suffix: give --suffix DN or -f slapd.conf");
    }
    // A dry run touches nothing: no lock, no format.
    if (options.access == Access::kDryRun) return db;
    // One writer per database: held until the Database is destroyed.
    DIRLOAD_ASSIGN_OR_RETURN(DatabaseLock lock, DatabaseLock::Acquire(c.dir));
    db->lock_.emplace(std::move(lock));
    // Berkeley DB asked for: dirload's own format, the only one it holds.
    std::string_view requested = options.format;
    if (requested.empty() && options.database.backend == "bdb") requested = "native";
    DIRLOAD_ASSIGN_OR_RETURN(db->format_, ChooseLoadFormat(c.dir, requested, c.database_type));
    DIRLOAD_RETURN_IF_ERROR(db->RequireEnvironmentUnused(options.online));
    return db;
  }
  // The format first: the native checks refuse slapd's database.
  if (Writes(options.access)) {
    DIRLOAD_ASSIGN_OR_RETURN(db->format_, DetectDatabaseFormat(c.dir));
    DIRLOAD_ASSIGN_OR_RETURN(DatabaseLock lock, DatabaseLock::Acquire(c.dir));
    db->lock_.emplace(std::move(lock));
    DIRLOAD_RETURN_IF_ERROR(db->RequireEnvironmentUnused(options.online));
    return db;
  }
  if (options.access == Access::kIndexCheck) {
    DIRLOAD_ASSIGN_OR_RETURN(db->format_, DetectDatabaseFormat(c.dir));
    DIRLOAD_RETURN_IF_ERROR(RequireNoPendingWork(c.dir));
  } else {
    DIRLOAD_RETURN_IF_ERROR(db->AllowInterruptedIndexBuild(RequireNoPendingWork(c.dir), options));
    DIRLOAD_ASSIGN_OR_RETURN(db->format_, DetectDatabaseFormat(c.dir));
  }
  if (db->format_ == DatabaseFormat::kMdb) {
    if (options.access == Access::kIndexCheck) return db;
    std::optional<std::string> suffix;
    if (c.has_suffix) suffix = c.suffix;
    db->reader_ = std::make_unique<mdb::MdbFormatReader>(
        c.dir, suffix, MdbKeyOptionsFrom(c.index_tuning), db->Context());
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<DatabaseLock> lock,
                             DatabaseLock::AcquireForReading(c.dir, c.backend == Backend::kBdb));
    if (lock) db->lock_.emplace(std::move(*lock));
    if (options.access == Access::kIndexCheck) return db;
    DIRLOAD_ASSIGN_OR_RETURN(db->reader_,
                             NativeReader::Open(c.dir, c.backend, c.store_options, db->Context()));
  }
  if (options.access == Access::kRead) DIRLOAD_RETURN_IF_ERROR(db->reader_->Prepare());
  return db;
}

}  // namespace dirload
