// dirload index: slapindex's job. Rebuilds all indexes, or those named, from
// id2entry, after the index configuration or the schema changed. On slapd's
// back-mdb format: from id2e, every configured index (slapd records no index
// state, so none can be known to be current).

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <optional>

#include "lib/format/format_detect.h"
#include "lib/format/mdb/mdb_index_writer.h"
#include "lib/pipeline/database_lock.h"
#include "lib/pipeline/database_meta.h"
#include "lib/pipeline/indexer.h"
#include "lib/pipeline/mdb_load.h"
#include "lib/pipeline/mdb_rebuild.h"
#include "lib/pipeline/pending_work.h"
#include "lib/pipeline/recovery.h"
#include "lib/pipeline/write_guard.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"
#include "tools/progress_printer.h"
#include "tools/run_report.h"
#include "tools/slapd_tool_options.h"

namespace dirload::tools {
namespace {

struct IndexArgs {
  DatabaseArgs db;
  IndexBuildArgs build;
  std::vector<std::string> attributes;
  bool all = false;
  bool check_only = false;
  std::string progress = "auto";
  std::string stats_file;
  bool quick = false;     // slapindex -q
  bool truncate = false;  // slapindex -t
  bool continue_on_error = false;
  CommonToolArgs tool;
};

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

// slapindex on slapd's back-mdb format. Every configured index (or each
// named one) is emptied and rebuilt from id2e in place, one write
// transaction per batch of keys as MdbIndexWriter writes; index databases of
// attributes no longer configured are deleted with --all or when named.
int RunIndexMdb(const IndexArgs& a, const ResolvedDatabase& db, const Schema& schema,
                const IndexRunOptions& run) {
  Result<IndexConfig> config = BuildIndexConfig(schema, db);
  if (!config.ok()) return ReportError(config.status());
  Result<MdbIndexPlan> planned = PlanMdbIndexRebuild(db.dir, schema, *config, a.attributes, a.all);
  if (!planned.ok()) return ReportError(planned.status());
  const std::vector<IndexSpec>& rebuild = planned->rebuild;
  const std::vector<std::string>& drop = planned->drop;
  const std::vector<std::string>& missing = planned->missing;
  const std::vector<std::string>& unconfigured = planned->unconfigured;

  if (a.check_only) {
    std::fprintf(stderr,
                 "dirload: note: slapd's back-mdb format records no index state: --check cannot "
                 "tell a stale index from a current one (run 'dirload index' after changing "
                 "index lines)\n");
    if (!missing.empty()) {
      std::fprintf(stderr, "dirload: configured but never built: %s\n", JoinNames(missing).c_str());
    }
    if (!unconfigured.empty()) {
      std::fprintf(stderr, "dirload: index databases no longer configured: %s\n",
                   JoinNames(unconfigured).c_str());
    }
    return missing.empty() && unconfigured.empty() ? kExitOk : kExitRefused;
  }
  if (a.attributes.empty() && !a.all && !unconfigured.empty()) {
    std::fprintf(stderr,
                 "dirload: note: index databases of attributes no longer configured are kept: "
                 "%s (--all, or naming them, drops them)\n",
                 JoinNames(unconfigured).c_str());
  }
  if (rebuild.empty() && drop.empty()) {
    std::fprintf(stderr, "dirload: no index is configured for %s: nothing to build\n",
                 db.dir.c_str());
    return kExitOk;
  }

  PhaseClock clock;
  const mdb::MdbIndexOptions io = MdbIndexOptionsFor(db, run);
  // The rebuild writes in place: until it is done, dirload refuses the
  // database and `dirload recover` knows what to finish.
  std::vector<std::string> lines;
  for (const IndexSpec& spec : rebuild) lines.push_back(IndexConfig::CanonicalLine(spec));
  Result<WriteGuard> guard = WriteGuard::BeginIndex(db.dir, "mdb", lines);
  if (!guard.ok()) return ReportError(guard.status());
  Result<mdb::MdbIndexStats> built =
      RunMdbIndexRebuild(db.dir, db.store_options.lmdb_map_size, schema, *planned, io);
  if (built.ok()) {
    Status done = guard->Done();
    if (!done.ok()) return ReportError(done);
  }
  if (built.ok()) {
    for (const std::string& n : drop) {
      std::fprintf(stderr, "dirload: dropped index %s (no longer configured)\n", n.c_str());
    }
  }
  if (!built.ok()) {
    int code = ReportError(built.status());
    std::vector<std::string> names;
    for (const IndexSpec& spec : rebuild) names.emplace_back(spec.name());
    std::fprintf(stderr,
                 "dirload: the rebuild stopped: these indexes may be incomplete and slapd would "
                 "miss entries in searches using them: %s; run 'dirload index' again, or "
                 "'dirload recover', which finishes it\n",
                 JoinNames(names).c_str());
    return code;
  }
  if (a.db.verbose) {
    std::fprintf(stderr, "dirload: rebuilt %zu indexes from %llu entries (%llu keys)\n",
                 rebuild.size(), static_cast<unsigned long long>(built->entries),
                 static_cast<unsigned long long>(built->keys));
  }
  if (!a.stats_file.empty()) {
    RunStats stats;
    stats.command = "index";
    stats.backend = "mdb";
    stats.database = db.dir;
    stats.phases.push_back(MdbIndexPhaseStats(*built, clock));
    std::ofstream out(a.stats_file, std::ios::binary | std::ios::trunc);
    out << stats.ToJson();
    if (!out) return ReportError(Status::IoError(a.stats_file + ": cannot write stats"));
  }
  return kExitOk;
}

int RunIndex(IndexArgs a) {
  Result<int> debug = ParseDebugLevel(a.tool.debug);
  if (!debug.ok()) return ReportError(debug.status());
  if (*debug != 0) a.db.verbose = true;
  Result<ToolOptionValues> tool_options = ParseToolOptions(a.tool.options, ToolKind::kIndex);
  if (!tool_options.ok()) return ReportError(tool_options.status());
  if (a.quick) {
    std::fprintf(stderr,
                 "dirload: note: -q: dirload index always builds without per-entry "
                 "consistency work and syncs once at the end, as slapindex -q does\n");
  }
  if (a.truncate) {
    std::fprintf(stderr,
                 "dirload: note: -t: every index table dirload rebuilds is emptied before it "
                 "is built, as slapindex -t does\n");
  }
  Result<ResolvedDatabase> db = ResolveDatabase(a.db, /*creating=*/false);
  if (!db.ok()) return ReportError(db.status());
  PrintNotes(*db, a.db.verbose);
  Result<std::unique_ptr<Schema>> schema = BuildSchema(*db);
  if (!schema.ok()) return ReportError(schema.status());
  Result<IndexRunOptions> options = ResolveIndexBuild(a.build);
  if (!options.ok()) return ReportError(options.status());
  options->only = a.attributes;

  // The format first: the native checks below refuse slapd's database.
  Result<DatabaseFormat> format = DetectDatabaseFormat(db->dir);
  if (!format.ok()) return ReportError(format.status());
  // One writer per database, held until this command ends; --check only
  // reads.
  std::optional<DatabaseLock> lock;
  if (!a.check_only) {
    Result<DatabaseLock> locked = DatabaseLock::Acquire(db->dir);
    if (!locked.ok()) return ReportError(locked.status());
    lock.emplace(std::move(*locked));
  } else {
    Status quiet = RequireNoPendingWork(db->dir);
    if (!quiet.ok()) return ReportError(quiet);
    Result<std::optional<DatabaseLock>> reading =
        DatabaseLock::AcquireForReading(db->dir, db->backend == Backend::kBdb);
    if (!reading.ok()) return ReportError(reading.status());
    if (*reading) lock.emplace(std::move(**reading));
  }
  if (*format == DatabaseFormat::kMdb) return RunIndexMdb(a, *db, **schema, *options);

  StoreOptions so = db->store_options;
  so.read_only = a.check_only;
  Result<std::unique_ptr<Store>> store = Store::Open(db->backend, db->dir, so);
  if (!store.ok()) return ReportError(store.status());
  Result<DatabaseMeta> meta = ReadMeta(store->get(), nullptr);
  if (!meta.ok()) return ReportError(meta.status());
  Status ready = RequireReady(*meta, db->dir);
  if (!ready.ok()) return ReportError(ready);

  // An earlier run's work: an unfinished append or load is for recover; an
  // unfinished rebuild is this command's to finish.
  Result<std::optional<PendingWork>> pending = ReadPendingWork(db->dir);
  if (!pending.ok()) return ReportError(pending.status());
  if (*pending && (*pending)->kind != WorkKind::kIndex) {
    return ReportError(PendingWorkError(db->dir, **pending));
  }
  // The indexes an interrupted build left unfinished are finished, with the
  // lines they were being built with, and never dropped, even when the
  // configuration given no longer names them.
  Result<std::vector<IndexConfig::Line>> unfinished_lines =
      UnfinishedIndexLines(store->get(), db->dir);
  if (!unfinished_lines.ok()) return ReportError(unfinished_lines.status());
  Result<IndexConfig> unfinished = IndexConfig::Parse(**schema, *unfinished_lines);
  if (!unfinished.ok()) return ReportError(unfinished.status());

  // Without a configuration, the one the database was built with: rebuilding
  // must never drop every index because no configuration was given.
  Result<IndexConfig> config = Status::Internal("unset");
  if (db->index_lines.empty()) {
    Result<std::vector<IndexConfig::Line>> recorded = RecordedIndexLines(store->get());
    if (!recorded.ok()) return ReportError(recorded.status());
    config = IndexConfig::Parse(**schema, *recorded);
  } else {
    config = BuildIndexConfig(**schema, *db);
  }
  if (config.ok()) {
    for (const IndexSpec& spec : unfinished->specs()) {
      if (config->Find(spec.type) != nullptr) continue;
      if (!db->index_lines.empty()) {
        std::fprintf(stderr,
                     "dirload: note: %s was being built when a run stopped; it is finished "
                     "too, though the configuration does not name it\n",
                     IndexConfig::CanonicalLine(spec).c_str());
      }
      Status added =
          config->AddLine(**schema, IndexConfig::CanonicalLine(spec), "interrupted build");
      if (!added.ok()) return ReportError(added);
    }
  }
  if (!config.ok()) return ReportError(config.status());
  if (config->empty() && db->index_lines.empty()) {
    Result<std::vector<std::string>> tables = UnconfiguredIndexTables(store->get(), *config);
    if (!tables.ok()) return ReportError(tables.status());
    if (tables->empty()) {
      std::fprintf(stderr,
                   "dirload: no index is configured or recorded in %s: nothing to build (give "
                   "-f slapd.conf with index lines, or --index)\n",
                   db->dir.c_str());
      return kExitOk;
    }
  }

  Result<std::vector<IndexStatus>> status = CheckIndexes(store->get(), **schema, *config);
  if (!status.ok()) return ReportError(status.status());
  Result<std::vector<std::string>> unconfigured = UnconfiguredIndexTables(store->get(), *config);
  if (!unconfigured.ok()) return ReportError(unconfigured.status());
  std::vector<std::string> stale;
  for (IndexStatus& s : *status) {
    const bool interrupted = std::any_of(unfinished->specs().begin(), unfinished->specs().end(),
                                         [&](const IndexSpec& u) { return u.table() == s.table; });
    if (interrupted && s.fresh) {
      s.fresh = false;
      s.why = "a build did not finish";
    }
    if (s.fresh) continue;
    stale.push_back(s.table);
    if (a.check_only || a.db.verbose) {
      std::fprintf(stderr, "dirload: %s is stale: %s\n", s.table.c_str(), s.why.c_str());
    }
  }
  if (a.check_only) {
    for (const std::string& t : *unconfigured) {
      std::fprintf(stderr, "dirload: %s is no longer configured and would be dropped\n", t.c_str());
    }
    std::fprintf(stderr, "dirload: %zu of %zu indexes stale, %zu to drop\n", stale.size(),
                 status->size(), unconfigured->size());
    return stale.empty() && unconfigured->empty() ? kExitOk : kExitRefused;
  }
  // By default only what is stale is rebuilt; named attributes or --all say otherwise.
  if (options->only.empty() && !a.all) {
    for (const IndexSpec& spec : config->specs()) {
      if (std::find(stale.begin(), stale.end(), spec.table()) != stale.end()) {
        options->only.push_back(std::string(spec.name()));
      }
    }
    if (options->only.empty() && unconfigured->empty()) {
      std::fprintf(stderr, "dirload: all %zu indexes are up to date (--all rebuilds them)\n",
                   status->size());
      Status done = EndPendingWork(db->dir);
      return done.ok() ? kExitOk : ReportError(done);
    }
  }
  // The mark names what this run rebuilds, synced before the first write.
  std::vector<std::string> lines;
  for (const IndexSpec& spec : config->specs()) {
    bool wanted = options->only.empty();
    for (const std::string& name : options->only) wanted |= config->Find(**schema, name) == &spec;
    if (wanted) lines.push_back(IndexConfig::CanonicalLine(spec));
  }
  Result<WriteGuard> guard = WriteGuard::BeginIndex(db->dir, "native", lines);
  if (!guard.ok()) return ReportError(guard.status());
  ProgressPrinter progress(a.progress == "always"  ? ProgressMode::kAlways
                           : a.progress == "never" ? ProgressMode::kNever
                                                   : ProgressMode::kAuto);
  PhaseClock clock;
  Indexer indexer(store->get(), schema->get(), &*config, &progress);
  Result<IndexRunSummary> built = indexer.Run(*options);
  if (!built.ok()) {
    int code = ReportError(built.status());
    std::fprintf(stderr,
                 "dirload: the indexes being rebuilt are marked unfinished (searches do not use "
                 "them); run 'dirload index' again, or 'dirload recover', which finishes it\n");
    return code;
  }
  Status done = guard->Done();
  if (!done.ok()) return ReportError(done);
  for (const std::string& t : built->dropped) {
    std::fprintf(stderr, "dirload: dropped %s (no longer configured)\n", t.c_str());
  }
  if (!a.stats_file.empty()) {
    RunStats stats;
    stats.command = "index";
    stats.backend = std::string(BackendName(db->backend));
    stats.database = db->dir;
    stats.phases.push_back(IndexPhaseStats(*built, clock));
    AddSettings(store->get(), &*options, &stats);
    AddTableTotals(store->get(), &stats);
    std::ofstream out(a.stats_file, std::ios::binary | std::ios::trunc);
    out << stats.ToJson();
    if (!out) return ReportError(Status::IoError(a.stats_file + ": cannot write stats"));
  }
  return kExitOk;
}

}  // namespace

CommandRunner RegisterIndex(CLI::App* app) {
  auto a = std::make_shared<IndexArgs>();
  CLI::App* cmd = app->add_subcommand(
      "index",
      "rebuild the indexes of a database from its entries (slapindex): the stale "
      "ones, the attributes named, or --all; tables of indexes no longer configured "
      "are dropped. Without -f or --index, the configuration recorded in the database "
      "is used. On slapd's back-mdb format (slapindex's database), which records no "
      "index state: every configured index (-f) is rebuilt from id2e in place, or only "
      "the attributes named; index databases of attributes no longer configured are "
      "kept (and listed) unless --all is given or they are named; --check cannot tell "
      "stale indexes there and says so");
  cmd->add_option("attributes", a->attributes, "attributes whose indexes to rebuild (default all)");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/true);
  AddIndexBuildOptions(cmd, &a->build);
  cmd->add_flag("--all", a->all, "rebuild every configured index, not only the stale ones");
  cmd->add_flag("--check", a->check_only,
                "only say which indexes are stale or would be dropped (exit 3 when any)");
  cmd->add_option("--progress", a->progress, "progress line on stderr: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--stats", a->stats_file, "write measurements as JSON to this file");
  cmd->add_flag("-q,--quick", a->quick,
                "slapindex -q: accepted; dirload index always works this way (no per-entry "
                "consistency work, one sync at the end)");
  cmd->add_flag("-t,--truncate", a->truncate,
                "slapindex -t: accepted; each index dirload rebuilds is emptied first anyway");
  cmd->add_flag("-c,--continue", a->continue_on_error,
                "slapindex -c: accepted; dirload index stops at the first error, leaving the "
                "index stale, never half-built and marked current");
  AddCommonToolOptions(cmd, &a->tool, "syslog options only");
  return [a] { return RunIndex(*a); };
}

}  // namespace dirload::tools
