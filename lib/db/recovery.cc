#include "lib/db/recovery.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "lib/db/lmdb_presence.h"
#include "lib/db/mdb_load_options.h"
#include "lib/db/pending_work.h"
#include "lib/db/undo_copy.h"
#include "lib/format/mdb/mdb_build_dir.h"
#include "lib/format/mdb/mdb_rebuild.h"
#include "lib/format/native/database_meta.h"
#include "lib/index/sorted_runs.h"

namespace dirload {

Result<std::vector<IndexConfig::Line>> UnfinishedIndexLines(Store* store, const std::string& dir) {
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexConfig::Line> lines, InterruptedIndexLines(store));
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> work, ReadPendingWork(dir));
  if (work && work->kind == WorkKind::kIndex) {
    for (const std::string& l : work->index_lines) {
      bool known = std::any_of(lines.begin(), lines.end(),
                               [&](const IndexConfig::Line& have) { return have.text == l; });
      if (!known) lines.push_back({l, "interrupted rebuild"});
    }
  }
  return lines;
}

namespace {

std::string Count(uint64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// The entries of the native database in `dir`, for the report.
// What an interrupted online add left, and how to go on.
std::string OnlineAddRecovered(const PendingWork& work) {
  std::string text = "an online add was interrupted (" + work.command + "): the " +
                     std::to_string(work.committed) +
                     " entries it had committed are in the database, whole, and slapd serves "
                     "them; nothing was undone";
  if (work.resume_line == 0) return text + "; nothing was committed, so run it again";
  return text + "; to go on, run it again with -j " + std::to_string(work.resume_line) +
         " (the input " + work.input +
         " is loaded up to that line; with -c, entries an earlier "
         "try stored past it are reported as already in the database)";
}

std::string EntriesPhrase(const ResolvedDatabase& db) {
  StoreOptions ro = db.store_options;
  ro.create = false;
  ro.read_only = true;
  Result<std::unique_ptr<Store>> store = Store::Open(db.backend, db.dir, ro);
  if (!store.ok()) return "";
  Result<DatabaseMeta> meta = ReadMeta(store->get(), nullptr);
  if (!meta.ok()) return "";
  return " (" + Count(meta->entries, "entry", "entries") + ")";
}

// Whether a native database's meta says every entry is written and synced
// (the loader marks it ready only then).
bool EntriesComplete(const ResolvedDatabase& db) {
  StoreOptions ro = db.store_options;
  ro.read_only = true;
  ro.create = false;
  Result<std::unique_ptr<Store>> store = Store::Open(db.backend, db.dir, ro);
  if (!store.ok()) return false;
  Result<DatabaseMeta> meta = ReadMeta(store->get(), nullptr);
  return meta.ok() && meta->state == DatabaseState::kReady;
}

Status FinishNativeIndex(const ResolvedDatabase& db, const Schema& schema,
                         const IndexRunOptions& run, RecoveryReport* report) {
  StoreOptions so = db.store_options;
  so.create = false;
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(db.backend, db.dir, so));
  DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(store.get(), nullptr));
  DIRLOAD_RETURN_IF_ERROR(RequireReady(meta, db.dir));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexConfig::Line> lines, RecordedIndexLines(store.get()));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexConfig::Line> interrupted,
                           UnfinishedIndexLines(store.get(), db.dir));
  if (interrupted.empty()) {
    report->actions.push_back("the interrupted index rebuild had left no index unfinished");
    return Status::Ok();
  }
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig config, IndexConfig::Parse(schema, lines));
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig unfinished, IndexConfig::Parse(schema, interrupted));
  for (const IndexSpec& spec : unfinished.specs()) {
    if (config.Find(spec.type) == nullptr) {
      DIRLOAD_RETURN_IF_ERROR(
          config.AddLine(schema, IndexConfig::CanonicalLine(spec), "interrupted rebuild"));
    }
  }
  IndexRunOptions options = run;
  options.only.clear();
  std::string names;
  for (const IndexSpec& spec : unfinished.specs()) {
    options.only.emplace_back(spec.name());
    names += (names.empty() ? "" : ", ") + IndexConfig::CanonicalLine(spec);
  }
  NativeIndexer indexer(store.get(), &schema, &config, nullptr);
  DIRLOAD_ASSIGN_OR_RETURN(IndexRunSummary built, indexer.Run(options));
  report->actions.push_back("finished the interrupted index rebuild: rebuilt " +
                            Count(built.built.size(), "index", "indexes") + " over " +
                            Count(built.entries, "entry", "entries") + " (" + names + ")");
  return Status::Ok();
}

// A mark of an index rebuild on slapd's format comes from dirload 0.1,
// which rebuilt in place; today's rebuild works on a copy and leaves none.
Status FinishMdbIndex(const ResolvedDatabase& db, const Schema& schema, const IndexRunOptions& run,
                      const PendingWork& work, RecoveryReport* report) {
  std::vector<IndexConfig::Line> lines;
  for (const std::string& l : work.index_lines) lines.push_back({l, "interrupted rebuild"});
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig config, IndexConfig::Parse(schema, lines));
  std::vector<std::string> names;
  for (const IndexSpec& spec : config.specs()) names.emplace_back(spec.name());
  if (names.empty()) {
    report->actions.push_back("the interrupted index rebuild named no index");
    return Status::Ok();
  }
  DIRLOAD_ASSIGN_OR_RETURN(MdbIndexPlan plan,
                           PlanMdbIndexRebuild(db.dir, schema, config, names, false));
  DIRLOAD_ASSIGN_OR_RETURN(EnvironmentHold hold, EnvironmentHold::Acquire(db.dir));
  DIRLOAD_ASSIGN_OR_RETURN(mdb::MdbIndexStats stats,
                           RunMdbIndexRebuild(db.dir, db.store_options.lmdb_map_size, schema, plan,
                                              MdbIndexOptionsFor(db, run)));
  std::string joined;
  for (const std::string& l : work.index_lines) joined += (joined.empty() ? "" : "; ") + l;
  report->actions.push_back("finished the interrupted index rebuild of slapd's database: " +
                            Count(plan.rebuild.size(), "index", "indexes") + " over " +
                            Count(stats.entries, "entry", "entries") + " (" + joined + ")");
  return Status::Ok();
}

// A first load into slapd's format killed in phase 2, its entries
// complete in the build directory: kept, its indexes built, put in place,
// unless DIR got a database of its own since (slapd creates an empty one
// when it starts on an empty directory), which is never replaced.
Status FinishMdbLoad(const ResolvedDatabase& db, const Schema& schema, const IndexRunOptions& run,
                     const mdb::MdbCompleteEntries& complete, RecoveryReport* report) {
  std::vector<IndexConfig::Line> lines;
  for (const std::string& l : complete.index_lines) lines.push_back({l, "interrupted load"});
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig config, IndexConfig::Parse(schema, lines));
  DIRLOAD_ASSIGN_OR_RETURN(EnvironmentHold hold, EnvironmentHold::Acquire(db.dir));
  if (std::filesystem::exists(db.dir + "/data.mdb")) return Status::Ok();
  DIRLOAD_ASSIGN_OR_RETURN(
      mdb::MdbIndexStats built,
      FinishMdbBuild(db.dir, db.store_options.lmdb_map_size, schema, complete.entries,
                     config.specs(), MdbIndexOptionsFor(db, run)));
  report->actions.push_back(
      "kept the entries of the interrupted load into slapd's format: phase 1 had finished (" +
      Count(complete.entries, "entry", "entries") + "); built its " +
      Count(config.specs().size(), "index", "indexes") + " (" + Count(built.keys, "key", "keys") +
      ") and put the database in place");
  return Status::Ok();
}

}  // namespace

Result<RecoveryReport> RecoverDatabase(const ResolvedDatabase& db, const Schema& schema,
                                       const IndexRunOptions& run) {
  RecoveryReport report;
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> spills,
                           RemoveDeadSpillDirs(run.builder.tmpdir));
  if (!spills.empty()) {
    report.actions.push_back("removed " +
                             Count(spills.size(), "spill directory", "spill directories") +
                             " left by killed runs");
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<mdb::MdbCompleteEntries> complete,
                           mdb::ReadMdbCompleteEntries(db.dir));
  if (complete && !std::filesystem::exists(db.dir + "/data.mdb")) {
    DIRLOAD_RETURN_IF_ERROR(FinishMdbLoad(db, schema, run, *complete, &report));
  }
  const std::string build_dir = mdb::MdbBuildDirPath(db.dir);
  std::error_code ec;
  if (std::filesystem::exists(build_dir, ec)) {
    std::filesystem::remove_all(build_dir, ec);
    if (ec) {
      return Status::IoError("remove " + build_dir + ": " + ec.message())
          .WithOrigin(ErrorOrigin::kStorage);
    }
    report.actions.push_back(
        "removed the unfinished build of slapd's format left by a load or an index rebuild that "
        "stopped (the database itself was not changed by it)");
    if (complete) {
      report.actions.push_back(
          "the load's entries were complete, but " + db.dir +
          " holds a database of its own since (slapd creates one when it starts on an empty "
          "directory), which is never replaced: load again");
    }
  }

  DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> work, ReadPendingWork(db.dir));
  const UndoCopyState copy = UndoCopyStateOf(db.dir);
  if (!work) {
    if (copy != UndoCopyState::kNone) {
      DIRLOAD_RETURN_IF_ERROR(RemoveUndoCopy(db.dir));
      report.actions.push_back("removed a copy left by an append that had finished or never began");
    }
    return report;
  }
  switch (work->kind) {
    case WorkKind::kAppend:
    case WorkKind::kModify: {
      const char* what = work->kind == WorkKind::kAppend ? "append" : "modify";
      if (copy != UndoCopyState::kComplete) {
        return Status::Corruption(db.dir + ": a" + (work->kind == WorkKind::kAppend ? "n " : " ") +
                                  what +
                                  " did not finish and the copy it keeps "
                                  "of the database before it is missing or incomplete (" +
                                  std::string(kUndoCopyDir) +
                                  "); restore the database from a backup or load it again")
            .WithOrigin(ErrorOrigin::kDatabase);
      }
      DIRLOAD_RETURN_IF_ERROR(RestoreUndoCopy(db.dir));
      report.actions.push_back(std::string("rolled back the unfinished ") + what + " (" +
                               work->command + "): the database is as it was before it" +
                               EntriesPhrase(db));
      break;
    }
    case WorkKind::kLoad:
      if (work->format == DatabaseFormat::kNative && EntriesComplete(db)) {
        // Killed in phase 2: the entries were all written and synced before
        // the indexes began. Work is not thrown away that can be kept: the
        // indexes are finished as an interrupted rebuild is.
        report.actions.push_back("kept the entries of the interrupted load (" + work->command +
                                 "): phase 1 had finished" + EntriesPhrase(db));
        DIRLOAD_RETURN_IF_ERROR(FinishNativeIndex(db, schema, run, &report));
        break;
      }
      DIRLOAD_RETURN_IF_ERROR(RemoveNativeDatabaseFiles(db.dir));
      DIRLOAD_RETURN_IF_ERROR(RemoveUndoCopy(db.dir));
      report.actions.push_back("removed the unfinished load (" + work->command +
                               "): the directory held no database before it; load again");
      break;
    case WorkKind::kOnlineAdd:
      // Every batch it committed is whole (entries, dn2i, indexes) and
      // slapd serves it; the one under way left nothing. Nothing to undo.
      report.actions.push_back(OnlineAddRecovered(*work));
      break;
    case WorkKind::kIndex:
      if (work->format == DatabaseFormat::kMdb) {
        DIRLOAD_RETURN_IF_ERROR(FinishMdbIndex(db, schema, run, *work, &report));
      } else {
        DIRLOAD_RETURN_IF_ERROR(FinishNativeIndex(db, schema, run, &report));
      }
      break;
  }
  DIRLOAD_RETURN_IF_ERROR(EndPendingWork(db.dir));
  return report;
}

}  // namespace dirload
