// dirload index: slapindex's job. Rebuilds all indexes, or those named, from
// id2entry, after the index configuration or the schema changed.
#include <cstdio>
#include <fstream>

#include "lib/pipeline/database_meta.h"
#include "lib/pipeline/indexer.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"
#include "tools/progress_printer.h"
#include "tools/run_report.h"

namespace dirload::tools {
namespace {

struct IndexArgs {
  DatabaseArgs db;
  IndexBuildArgs build;
  std::vector<std::string> attributes;
  bool check_only = false;
  std::string progress = "auto";
  std::string stats_file;
};

int RunIndex(const IndexArgs& a) {
  Result<ResolvedDatabase> db = ResolveDatabase(a.db, /*creating=*/false);
  if (!db.ok()) return ReportError(db.status());
  if (a.db.verbose) {
    for (const std::string& n : db->notes) std::fprintf(stderr, "dirload: note: %s\n", n.c_str());
  }
  Result<std::unique_ptr<Schema>> schema = BuildSchema(*db);
  if (!schema.ok()) return ReportError(schema.status());
  Result<IndexConfig> config = BuildIndexConfig(**schema, *db);
  if (!config.ok()) return ReportError(config.status());
  Result<IndexRunOptions> options = ResolveIndexBuild(a.build);
  if (!options.ok()) return ReportError(options.status());
  options->only = a.attributes;

  StoreOptions so = db->store_options;
  so.read_only = a.check_only;
  Result<std::unique_ptr<Store>> store = Store::Open(db->backend, db->dir, so);
  if (!store.ok()) return ReportError(store.status());
  Result<DatabaseMeta> meta = ReadMeta(store->get(), nullptr);
  if (!meta.ok()) return ReportError(meta.status());
  Status ready = RequireReady(*meta, db->dir);
  if (!ready.ok()) return ReportError(ready);

  Result<std::vector<IndexStatus>> status = CheckIndexes(store->get(), **schema, *config);
  if (!status.ok()) return ReportError(status.status());
  size_t stale = 0;
  for (const IndexStatus& s : *status) {
    if (s.fresh) continue;
    ++stale;
    if (a.check_only || a.db.verbose) {
      std::fprintf(stderr, "dirload: %s is stale: %s\n", s.table.c_str(), s.why.c_str());
    }
  }
  if (a.check_only) {
    std::fprintf(stderr, "dirload: %zu of %zu indexes stale\n", stale, status->size());
    return stale == 0 ? kExitOk : kExitRefused;
  }
  if (config->empty()) {
    std::fprintf(stderr, "dirload: no index is configured (slapd.conf 'index' lines or --index)\n");
  }
  ProgressPrinter progress(a.progress == "always"  ? ProgressMode::kAlways
                           : a.progress == "never" ? ProgressMode::kNever
                                                   : ProgressMode::kAuto);
  PhaseClock clock;
  Indexer indexer(store->get(), schema->get(), &*config, &progress);
  Result<IndexRunSummary> built = indexer.Run(*options);
  if (!built.ok()) return ReportError(built.status());
  for (const std::string& t : built->dropped) {
    std::fprintf(stderr, "dirload: dropped %s (no longer configured)\n", t.c_str());
  }
  if (!a.stats_file.empty()) {
    RunStats stats;
    stats.command = "index";
    stats.backend = std::string(BackendName(db->backend));
    stats.database = db->dir;
    stats.phases.push_back(IndexPhaseStats(*built, clock));
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
      "index", "rebuild the indexes of a database from its entries (slapindex): all, or the "
               "attributes named; tables of indexes no longer configured are dropped");
  cmd->add_option("attributes", a->attributes, "attributes whose indexes to rebuild (default all)");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/true);
  AddIndexBuildOptions(cmd, &a->build);
  cmd->add_flag("--check", a->check_only,
                "only say which indexes are stale (exit 3 when any is)");
  cmd->add_option("--progress", a->progress, "progress line on stderr: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--stats", a->stats_file, "write measurements as JSON to this file");
  return [a] { return RunIndex(*a); };
}

}  // namespace dirload::tools
