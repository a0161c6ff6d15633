// dirload index: slapindex's job. Rebuilds all indexes, or those named, from
// id2entry, after the index configuration or the schema changed. On slapd's
// back-mdb format: from id2e, every configured index (slapd records no index
// state, so none can be known to be current).

#include <cstdio>
#include <memory>

#include "lib/db/database.h"
#include "lib/db/glued_tree.h"
#include "lib/db/index_job.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"
#include "tools/progress_printer.h"
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
  bool online = false;
  CommonToolArgs tool;
};

// One database's rebuild (or --check: *current goes false when it has a
// stale index). An exit status.
int IndexOne(const IndexArgs& a, const OpenOptions& options, const IndexRequest& request,
             bool* current) {
  Result<std::unique_ptr<Database>> db = Database::Open(options);
  if (!db.ok()) return ReportError(db.status());
  PrintNotes((*db)->config(), a.db.verbose);
  Result<IndexPlan> plan = (*db)->PlanIndexes(request);
  if (!plan.ok()) return ReportError(plan.status());
  if (a.check_only) {
    *current = *current && plan->current;
    return kExitOk;
  }
  if (plan->nothing_to_do) return kExitOk;
  const std::string if_failed = plan->if_failed;
  ProgressPrinter progress(ParseProgressMode(a.progress));
  Result<IndexRebuild> built = (*db)->RebuildIndexes(std::move(*plan), &progress);
  if (!built.ok()) {
    int code = ReportError(built.status());
    PrintNotice(if_failed);
    return code;
  }
  if (a.db.verbose) PrintCpuSummary(built->stats);
  if (!a.stats_file.empty()) {
    Status written = WriteStats(built->stats, a.stats_file);
    if (!written.ok()) return ReportError(written);
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
  IndexRequest request;
  Result<IndexRunOptions> run = ResolveIndexBuild(a.build);
  if (!run.ok()) return ReportError(run.status());
  request.run = *run;
  request.attributes = a.attributes;
  request.all = a.all;
  request.verbose = a.db.verbose;
  request.notice = PrintNotice;
  request.online = a.online;
  OpenOptions options = ToOpenOptions(a.db, a.check_only ? Access::kIndexCheck : Access::kIndex);
  options.online = a.online;
  // A glued tree is rebuilt database by database, as slapindex does.
  Result<std::vector<OpenOptions>> databases = GluedTreeDatabases(options, !a.tool.no_glue);
  if (!databases.ok()) return ReportError(databases.status());
  bool current = true;
  for (const OpenOptions& open : *databases) {
    const int code = IndexOne(a, open, request, &current);
    if (code != kExitOk) return code;
  }
  if (a.check_only && !current) return kExitRefused;
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
      "index state: every configured index (-f) is rebuilt from id2e, or only the "
      "attributes named, on a copy of data.mdb renamed into place when complete (room "
      "for the database twice is needed); index databases of attributes no longer "
      "configured are kept (and listed) unless --all is given or they are named; "
      "--check cannot tell stale indexes there and says so");
  cmd->add_option("attributes", a->attributes, "attributes whose indexes to rebuild (default all)");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/true);
  AddIndexBuildOptions(cmd, &a->build);
  cmd->add_flag("--all", a->all, "rebuild every configured index, not only the stale ones");
  cmd->add_flag("--online", a->online,
                "slapd's format, beside a running slapd (as slapindex without -q): each index "
                "is rebuilt inside one LMDB write transaction that reads the entries and "
                "replaces the index, so slapd answers from the old index until the commit and "
                "from the whole new one after it, and its writes wait for one index at most; "
                "index databases no longer configured are kept. Without it, dirload refuses "
                "(exit 3) while slapd has the database open");
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
