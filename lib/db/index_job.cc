#include "lib/db/index_job.h"

#include <algorithm>

#include "lib/db/lmdb_presence.h"
#include "lib/db/mdb_load_options.h"
#include "lib/db/online_index.h"
#include "lib/db/pending_work.h"
#include "lib/db/recovery.h"
#include "lib/db/run_report.h"
#include "lib/db/write_guard.h"
#include "lib/format/mdb/mdb_rebuild.h"
#include "lib/format/native/database_meta.h"
#include "lib/util/text_table.h"

namespace dirload {

struct IndexPlan::State {
  IndexRequest request;
  // slapd's format.
  MdbIndexPlan mdb;
  // Native: the store, the configuration in force, and what is rebuilt.
  std::unique_ptr<Store> store;
  IndexConfig config;
  IndexRunOptions run;
  std::vector<std::string> lines;  // the canonical lines being built, for the mark
  // What a rebuild did, said once it is done (dropped tables).
  std::vector<std::string> done;
};

namespace {

void Say(const IndexRequest& r, const std::string& line) {
  if (r.notice) r.notice(line);
}

Result<IndexPlan> PlanMdb(Database* db, const IndexRequest& request) {
  IndexPlan plan;
  plan.state = std::make_shared<IndexPlan::State>();
  IndexPlan::State& st = *plan.state;
  st.request = request;
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, db->schema());
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig config, db->ConfiguredIndexes());
  DIRLOAD_ASSIGN_OR_RETURN(
      st.mdb, PlanMdbIndexRebuild(db->dir(), *schema, config, request.attributes, request.all));
  const MdbIndexPlan& p = st.mdb;
  if (db->access() == Access::kIndexCheck) {
    Say(request,
        "note: slapd's back-mdb format records no index state: --check cannot tell a stale "
        "index from a current one (run 'dirload index' after changing index lines)");
    if (!p.missing.empty())
      Say(request, "configured but never built: " + JoinWithCommas(p.missing));
    if (!p.unconfigured.empty()) {
      Say(request, "index databases no longer configured: " + JoinWithCommas(p.unconfigured));
    }
    plan.current = p.missing.empty() && p.unconfigured.empty();
    return plan;
  }
  if (request.attributes.empty() && !request.all && !p.unconfigured.empty()) {
    Say(request, "note: index databases of attributes no longer configured are kept: " +
                     JoinWithCommas(p.unconfigured) + " (--all, or naming them, drops them)");
  }
  if (p.rebuild.empty() && p.drop.empty()) {
    Say(request, "no index is configured for " + db->dir() + ": nothing to build");
    plan.nothing_to_do = true;
    return plan;
  }
  std::vector<std::string> names;
  for (const IndexSpec& spec : p.rebuild) {
    names.emplace_back(spec.name());
    st.lines.push_back(IndexConfig::CanonicalLine(spec));
  }
  plan.if_failed = "the rebuild stopped before its copy was put in place: " + db->dir() +
                   " is as it was, its indexes unchanged (" + JoinWithCommas(names) + ")";
  return plan;
}

Result<IndexPlan> PlanMdbOnline(Database* db, const IndexRequest& request) {
  DIRLOAD_ASSIGN_OR_RETURN(IndexPlan plan, PlanMdb(db, request));
  if (plan.state != nullptr) plan.if_failed = OnlineIndexIfFailed(plan.state->mdb);
  return plan;
}

Result<IndexPlan> PlanNative(Database* db, const IndexRequest& request) {
  IndexPlan plan;
  plan.state = std::make_shared<IndexPlan::State>();
  IndexPlan::State& st = *plan.state;
  st.request = request;
  st.run = request.run;
  st.run.only = request.attributes;
  const ResolvedDatabase& config = db->config();
  const bool check_only = db->access() == Access::kIndexCheck;
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, db->schema());

  StoreOptions so = config.store_options;
  so.read_only = check_only;
  DIRLOAD_ASSIGN_OR_RETURN(st.store, Store::Open(config.backend, config.dir, so));
  Store* store = st.store.get();
  DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(store, nullptr));
  DIRLOAD_RETURN_IF_ERROR(RequireReady(meta, config.dir));

  // An earlier run's work: an unfinished append or load is for recover; an
  // unfinished rebuild is this command's to finish.
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<PendingWork> pending, ReadPendingWork(config.dir));
  if (pending && pending->kind != WorkKind::kIndex) {
    return PendingWorkError(config.dir, *pending);
  }
  // The indexes an interrupted build left unfinished are finished, with the
  // lines they were being built with, and never dropped, even when the
  // configuration given no longer names them.
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexConfig::Line> unfinished_lines,
                           UnfinishedIndexLines(store, config.dir));
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig unfinished, IndexConfig::Parse(*schema, unfinished_lines));

  // Without a configuration, the one the database was built with: rebuilding
  // must never drop every index because no configuration was given.
  if (config.index_lines.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexConfig::Line> recorded, RecordedIndexLines(store));
    DIRLOAD_ASSIGN_OR_RETURN(st.config, IndexConfig::Parse(*schema, recorded));
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(st.config, db->ConfiguredIndexes());
  }
  for (const IndexSpec& spec : unfinished.specs()) {
    if (st.config.Find(spec.type) != nullptr) continue;
    if (!config.index_lines.empty()) {
      Say(request, "note: " + IndexConfig::CanonicalLine(spec) +
                       " was being built when a run stopped; it is finished too, though the "
                       "configuration does not name it");
    }
    DIRLOAD_RETURN_IF_ERROR(
        st.config.AddLine(*schema, IndexConfig::CanonicalLine(spec), "interrupted build"));
  }
  if (st.config.empty() && config.index_lines.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> tables,
                             UnconfiguredIndexTables(store, st.config));
    if (tables.empty()) {
      Say(request, "no index is configured or recorded in " + config.dir +
                       ": nothing to build (give -f slapd.conf with index lines, or --index)");
      plan.nothing_to_do = true;
      return plan;
    }
  }

  DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexStatus> status,
                           CheckIndexes(store, *schema, st.config));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> unconfigured,
                           UnconfiguredIndexTables(store, st.config));
  std::vector<std::string> stale;
  for (IndexStatus& s : status) {
    const bool interrupted = std::any_of(unfinished.specs().begin(), unfinished.specs().end(),
                                         [&](const IndexSpec& u) { return u.table() == s.table; });
    if (interrupted && s.fresh) {
      s.fresh = false;
      s.why = "a build did not finish";
    }
    if (s.fresh) continue;
    stale.push_back(s.table);
    if (check_only || request.verbose) Say(request, s.table + " is stale: " + s.why);
  }
  if (check_only) {
    for (const std::string& t : unconfigured) {
      Say(request, t + " is no longer configured and would be dropped");
    }
    Say(request, std::to_string(stale.size()) + " of " + std::to_string(status.size()) +
                     " indexes stale, " + std::to_string(unconfigured.size()) + " to drop");
    plan.current = stale.empty() && unconfigured.empty();
    return plan;
  }
  // By default only what is stale is rebuilt; named attributes or --all say otherwise.
  if (st.run.only.empty() && !request.all) {
    for (const IndexSpec& spec : st.config.specs()) {
      if (std::find(stale.begin(), stale.end(), spec.table()) != stale.end()) {
        st.run.only.push_back(std::string(spec.name()));
      }
    }
    if (st.run.only.empty() && unconfigured.empty()) {
      Say(request,
          "all " + std::to_string(status.size()) + " indexes are up to date (--all rebuilds them)");
      DIRLOAD_RETURN_IF_ERROR(EndPendingWork(config.dir));
      plan.nothing_to_do = true;
      return plan;
    }
  }
  // The mark names what this run rebuilds.
  for (const IndexSpec& spec : st.config.specs()) {
    bool wanted = st.run.only.empty();
    for (const std::string& name : st.run.only) wanted |= st.config.Find(*schema, name) == &spec;
    if (wanted) st.lines.push_back(IndexConfig::CanonicalLine(spec));
  }
  plan.if_failed =
      "the indexes being rebuilt are marked unfinished (searches do not use them); run "
      "'dirload index' again, or 'dirload recover', which finishes it";
  return plan;
}

Status RebuildMdb(const ResolvedDatabase& config, const Schema& schema, IndexPlan::State& st,
                  RunStats* stats) {
  PhaseClock clock;
  CpuLedger ledger;
  mdb::MdbIndexOptions io = MdbIndexOptionsFor(config, st.request.run);
  io.ledger = &ledger;
  // From the copy to the install's rename nobody else opens the
  // environment: a slapd starting meanwhile waits, then opens the rebuilt
  // file, never the old one about to be replaced.
  DIRLOAD_ASSIGN_OR_RETURN(EnvironmentHold hold, EnvironmentHold::Acquire(config.dir));
  DIRLOAD_ASSIGN_OR_RETURN(
      mdb::MdbIndexStats built,
      RunMdbIndexRebuild(config.dir, config.store_options.lmdb_map_size, schema, st.mdb, io));
  for (const std::string& n : st.mdb.drop)
    st.done.push_back("dropped index " + n + " (no longer configured)");
  if (st.request.verbose) {
    st.done.push_back("rebuilt " + std::to_string(st.mdb.rebuild.size()) + " indexes from " +
                      std::to_string(built.entries) + " entries (" + std::to_string(built.keys) +
                      " keys)");
  }
  stats->backend = "mdb";
  PhaseStats p = MdbIndexPhaseStats(built, clock);
  p.stages = ledger.stages();
  p.threads = ledger.roles();
  stats->phases.push_back(std::move(p));
  return Status::Ok();
}

Status RebuildNative(const ResolvedDatabase& config, const Schema& schema, IndexPlan::State& st,
                     ProgressSink* progress, RunStats* stats) {
  PhaseClock clock;
  CpuLedger ledger;
  IndexRunOptions run = st.run;
  run.builder.ledger = &ledger;
  Result<IndexRunSummary> result = [&] {
    // Its threads add their figures to the ledger when it is gone.
    NativeIndexer indexer(st.store.get(), &schema, &st.config, progress);
    return indexer.Run(run);
  }();
  DIRLOAD_ASSIGN_OR_RETURN(IndexRunSummary built, std::move(result));
  for (const std::string& t : built.dropped)
    st.done.push_back("dropped " + t + " (no longer configured)");
  stats->backend = std::string(BackendName(config.backend));
  PhaseStats p = IndexPhaseStats(built, clock);
  p.stages = ledger.stages();
  p.threads = ledger.roles();
  stats->phases.push_back(std::move(p));
  AddSettings(st.store.get(), &st.run, stats);
  AddTableTotals(st.store.get(), stats);
  return Status::Ok();
}

}  // namespace

Result<IndexPlan> Database::PlanIndexes(const IndexRequest& request) {
  if (access_ != Access::kIndex && access_ != Access::kIndexCheck) {
    return Status::Internal("PlanIndexes on a database not opened for indexing");
  }
  if (format_ == DatabaseFormat::kMdb && request.online) return PlanMdbOnline(this, request);
  return format_ == DatabaseFormat::kMdb ? PlanMdb(this, request) : PlanNative(this, request);
}

Result<IndexRebuild> Database::RebuildIndexes(IndexPlan plan, ProgressSink* progress) {
  if (access_ != Access::kIndex || plan.nothing_to_do || plan.state == nullptr) {
    return Status::Internal("RebuildIndexes without a plan to carry out");
  }
  IndexPlan::State& st = *plan.state;
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, this->schema());
  if (st.request.online) return RebuildMdbOnline(config_, *schema, st.mdb, st.request);
  IndexRebuild result;
  result.stats.command = "index";
  result.stats.database = dir();
  if (format_ == DatabaseFormat::kMdb) {
    // Built aside and put in place whole: nothing is left to finish when
    // it stops.
    DIRLOAD_RETURN_IF_ERROR(RebuildMdb(config_, *schema, st, &result.stats));
  } else {
    // The mark is synced before the first write: until the rebuild is
    // done, dirload refuses the database and `dirload recover` knows what
    // to finish.
    DIRLOAD_ASSIGN_OR_RETURN(WriteGuard guard, WriteGuard::BeginIndex(dir(), format_, st.lines));
    DIRLOAD_RETURN_IF_ERROR(RebuildNative(config_, *schema, st, progress, &result.stats));
    DIRLOAD_RETURN_IF_ERROR(guard.Done());
  }
  for (const std::string& line : st.done) Say(st.request, line);
  return result;
}

}  // namespace dirload
