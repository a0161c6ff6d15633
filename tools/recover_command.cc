// dirload recover: brings a database back from an interrupted add or index
// (lib/db/recovery.h says how), under the writer's lock.
#include <cstdio>

#include "lib/db/database_lock.h"
#include "lib/db/recovery.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"

namespace dirload::tools {
namespace {

struct RecoverArgs {
  DatabaseArgs db;
  IndexBuildArgs build;
};

int RunRecover(const RecoverArgs& a) {
  Result<ResolvedDatabase> db = ResolveDatabase(a.db, /*creating=*/true);
  if (!db.ok()) return ReportError(db.status());
  PrintNotes(*db, a.db.verbose);
  Result<std::unique_ptr<Schema>> schema = BuildSchema(*db);
  if (!schema.ok()) return ReportError(schema.status());
  Result<IndexRunOptions> run = ResolveIndexBuild(a.build);
  if (!run.ok()) return ReportError(run.status());
  Result<DatabaseLock> lock = DatabaseLock::Acquire(db->dir);
  if (!lock.ok()) return ReportError(lock.status());
  Result<RecoveryReport> report = RecoverDatabase(*db, **schema, *run);
  if (!report.ok()) return ReportError(report.status());
  if (report->actions.empty()) {
    std::printf("dirload: %s: nothing to recover\n", db->dir.c_str());
  }
  for (const std::string& action : report->actions) {
    std::printf("dirload: %s: %s\n", db->dir.c_str(), action.c_str());
  }
  return kExitOk;
}

}  // namespace

CommandRunner RegisterRecover(CLI::App* app) {
  auto a = std::make_shared<RecoverArgs>();
  CLI::App* cmd = app->add_subcommand(
      "recover",
      "bring a database back after an add or index that did not finish (killed, crashed, "
      "out of space): an append is rolled back to the database as it was before it, "
      "indexes included; a load into an empty directory is removed; an index rebuild is "
      "finished with the configuration it was building; leftover copies, unfinished "
      "builds of slapd's format and the spill directories of killed runs are removed. "
      "Safe to run again: it then says there is nothing to recover");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/true);
  AddIndexBuildOptions(cmd, &a->build);
  return [a] { return RunRecover(*a); };
}

}  // namespace dirload::tools
