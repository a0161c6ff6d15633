#include "lib/db/load_job.h"

#include <filesystem>

#include "lib/db/run_report.h"
#include "lib/pipeline/mdb_rebuild.h"
#include "lib/pipeline/mdb_staged_load.h"
#include "lib/pipeline/write_guard.h"

namespace dirload {

struct LoadJob::State {
  Database* db = nullptr;  // borrowed: the job's Database outlives it
  LoadJobOptions options;
  const Schema* schema = nullptr;
  std::unique_ptr<EntryChecker> checker;
  IndexConfig index_config;
  std::unique_ptr<ldif::Reader> reader;
  // Native: the store and the guard that makes the write survivable.
  std::unique_ptr<Store> store;
  std::optional<WriteGuard> guard;
  // slapd's format: the build aside.
  std::unique_ptr<MdbStagedLoad> mdb_load;
};

LoadJob::LoadJob(std::unique_ptr<State> state) : s_(std::move(state)) {}

LoadJob::~LoadJob() { RollBack(); }

void LoadJob::Notice(const std::string& line) const {
  if (s_->options.notice) s_->options.notice(line);
}

void LoadJob::RollBack() {
  if (committed_) return;
  const std::string& dir = s_->db->dir();
  if (s_->mdb_load) {
    // Its destructor removes the build: the database was never touched.
    s_->mdb_load.reset();
    if (run_failed_) Notice("nothing was changed in " + dir);
    return;
  }
  s_->store.reset();
  if (!s_->guard.has_value()) return;
  const bool append = s_->guard->kind() == WorkKind::kAppend;
  Status undone = s_->guard->RollBack();
  s_->guard.reset();
  if (!undone.ok()) {
    Notice(std::string(undone.message()));
    Notice(dir + " could not be rolled back now; run 'dirload recover' on it");
    return;
  }
  Notice(append ? "the append was rolled back: " + dir + " is as it was before it"
                : "the load was undone: " + dir + " holds no database");
}

Result<std::unique_ptr<LoadJob>> Database::BeginLoad(const LoadJobOptions& o) {
  if (access_ != Access::kLoad && access_ != Access::kDryRun) {
    return Status::Internal("BeginLoad on a database not opened for loading");
  }
  auto s = std::make_unique<LoadJob::State>();
  s->db = this;
  s->options = o;
  DIRLOAD_ASSIGN_OR_RETURN(s->schema, schema());
  s->checker = std::make_unique<EntryChecker>(s->schema, o.schema_check);
  DIRLOAD_ASSIGN_OR_RETURN(s->index_config, ConfiguredIndexes());

  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSource> source, ldif::OpenByteSource(o.ldif));
  ldif::ReaderOptions reader_options;
  reader_options.max_record_size = o.max_record_size;
  if (o.ldif != "-") {
    reader_options.url_base_dir = std::filesystem::path(o.ldif).parent_path().string();
  }
  s->reader = std::make_unique<ldif::Reader>(std::move(source), reader_options);
  if (access_ == Access::kDryRun) return std::unique_ptr<LoadJob>(new LoadJob(std::move(s)));

  const ResolvedDatabase& db = config_;
  if (format_ == DatabaseFormat::kMdb) {
    if (db.backend == Backend::kBdb) {
      return Status::InvalidArgument(
                 "slapd's back-mdb format is LMDB only: use --format native with --backend bdb")
          .WithOrigin(ErrorOrigin::kUsage);
    }
    if (!o.no_index && s->index_config.empty()) {
      // slapd records no index configuration: without one, the appended
      // entries would be missing from the indexes the database has.
      Result<MdbIndexPlan> existing =
          PlanMdbIndexRebuild(db.dir, *s->schema, s->index_config, {}, false);
      if (existing.ok() && !existing->unconfigured.empty()) {
        std::string names;
        for (const std::string& n : existing->unconfigured) {
          names += (names.empty() ? "" : ", ") + n;
        }
        return Status::InvalidArgument(db.dir + " has indexes (" + names +
                                       ") but no index configuration was given: give the "
                                       "configuration (-f, -F or --index) so that the appended "
                                       "entries are indexed, or --no-index")
            .WithOrigin(ErrorOrigin::kUsage);
      }
    }
    MdbStagedLoadOptions mo = MdbStagedLoadOptionsFor(
        db, o.no_index ? std::vector<IndexSpec>() : s->index_config.specs(), o.index);
    DIRLOAD_ASSIGN_OR_RETURN(s->mdb_load, MdbStagedLoad::Begin(db.dir, *s->schema, mo));
    std::unique_ptr<LoadJob> job(new LoadJob(std::move(s)));
    if (o.no_index && !job->s_->index_config.empty()) {
      job->Notice(
          "warning: --no-index on slapd's format: slapd records no index state and will "
          "answer indexed searches from empty indexes until 'dirload index' builds them");
    }
    return job;
  }

  DIRLOAD_ASSIGN_OR_RETURN(WriteGuard guard,
                           WriteGuard::BeginLoad(db.dir, db.backend, db.store_options));
  s->guard.emplace(std::move(guard));
  std::unique_ptr<LoadJob> job(new LoadJob(std::move(s)));
  LoadJob::State& st = *job->s_;
  if (o.verbose && st.guard->kind() == WorkKind::kAppend) {
    char line[160];
    std::snprintf(line, sizeof line, "kept a copy of the database to go back to (%llu MB, %.2f s)",
                  static_cast<unsigned long long>(st.guard->copied_bytes() >> 20),
                  st.guard->copy_seconds());
    job->Notice(line);
  }
  // From here on, a failure rolls back as the job is destroyed.
  StoreOptions so = db.store_options;
  so.create = true;
  DIRLOAD_ASSIGN_OR_RETURN(st.store, Store::Open(db.backend, db.dir, so));
  // An append without an index configuration keeps the database's own, so
  // that the appended entries are indexed like the others.
  if (st.guard->kind() == WorkKind::kAppend && db.index_lines.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexConfig::Line> recorded,
                             RecordedIndexLines(st.store.get()));
    DIRLOAD_ASSIGN_OR_RETURN(st.index_config, IndexConfig::Parse(*st.schema, recorded));
  }
  return job;
}

Result<LoadSummary> LoadJob::Run() {
  State& st = *s_;
  const ResolvedDatabase& db = st.db->config();
  const LoadJobOptions& o = st.options;
  LoadOptions lo = o.load;
  lo.suffix = db.suffix;
  lo.lastmod = db.lastmod;
  if (lo.rootdn.empty()) lo.rootdn = db.rootdn;
  // Phase 2's sort memory is not in use yet.
  lo.dn2id_buffer_bytes = o.index.builder.sort_memory / 4;
  if (st.mdb_load) lo.sink = st.mdb_load->sink();
  const bool indexing = st.store && !o.no_index && !st.index_config.empty();
  std::unique_ptr<IndexFeed> feed;
  if (o.one_pass && indexing) {
    if (st.guard->kind() != WorkKind::kLoad || o.index.method != IndexMethod::kSort) {
      Notice(
          "--one-pass applies to a new database and the sort method: phase 2 reads the "
          "entries back");
    } else {
      // Phase 1's held dn2id records and the builder share --sort-memory.
      IndexRunOptions fed_options = o.index;
      fed_options.builder.sort_memory -= lo.dn2id_buffer_bytes;
      NativeIndexer indexer(st.store.get(), st.schema, &st.index_config, o.progress);
      Result<std::unique_ptr<IndexFeed>> begun = indexer.BeginFed(fed_options);
      if (!begun.ok()) {
        run_failed_ = true;
        return begun.status();
      }
      feed = std::move(*begun);
      lo.index_feed = feed.get();
    }
  } else if (o.one_pass && st.mdb_load && !o.no_index) {
    Notice("--one-pass applies to dirload's native format only");
  }

  stats_.command = "add";
  stats_.backend = std::string(BackendName(db.backend));
  stats_.database = db.dir;
  PhaseClock clock;
  // The loader's memory (its name filter, the line of each entry loaded)
  // goes before phase 2 allocates its own.
  Result<LoadSummary> summary = [&] {
    Loader loader(lo, st.mdb_load ? st.mdb_load->scratch() : st.store.get(), st.checker.get(),
                  o.rejects, o.progress);
    return loader.Run(st.reader.get());
  }();
  if (summary.ok() && st.mdb_load) {
    Status finished = st.mdb_load->FinishEntries();
    if (!finished.ok()) summary = finished;
  }
  if (!summary.ok()) {
    run_failed_ = true;
    return summary;
  }
  {
    PhaseStats p;
    p.name = "load";
    p.wall_seconds = clock.wall_seconds();
    p.cpu_seconds = clock.cpu_seconds();
    p.entries = summary->entries_loaded;
    p.bytes = summary->input_bytes;
    p.peak_rss_bytes = PeakRssBytes();
    p.counters.push_back({"rejected", static_cast<double>(summary->rejected)});
    if (st.store) AddCacheCounters(st.store.get(), &p);
    stats_.phases.push_back(std::move(p));
  }
  if (st.mdb_load) {
    if (!o.no_index && !st.index_config.empty()) {
      PhaseClock clock2;
      Result<mdb::MdbIndexStats> built = st.mdb_load->BuildIndexes(st.index_config.specs());
      if (!built.ok()) {
        run_failed_ = true;
        return built.status();
      }
      stats_.phases.push_back(MdbIndexPhaseStats(*built, clock2));
    }
    return summary;
  }
  // Phase 2, unless asked not to or nothing is configured.
  if (indexing) {
    PhaseClock clock2;
    NativeIndexer indexer(st.store.get(), st.schema, &st.index_config, o.progress);
    if (feed && feed->abandoned()) {
      Notice("--one-pass: " + feed->why_abandoned() + "; phase 2 reads the entries back");
    }
    Result<IndexRunSummary> built =
        feed ? indexer.FinishFed(std::move(feed), o.index) : indexer.Run(o.index);
    if (!built.ok()) {
      run_failed_ = true;
      return built.status();
    }
    stats_.phases.push_back(IndexPhaseStats(*built, clock2));
  } else if (st.store && st.guard && st.guard->kind() == WorkKind::kAppend) {
    // The indexes lack the appended entries: no longer current.
    Result<std::vector<std::string>> marked = MarkIndexesUnfinished(st.store.get());
    Status synced = marked.ok() ? st.store->Sync() : marked.status();
    if (!synced.ok()) {
      run_failed_ = true;
      return synced;
    }
    if (!marked->empty()) {
      Notice("--no-index: " + std::to_string(marked->size()) +
             " indexes now lack the appended entries and are marked stale; 'dirload index' "
             "rebuilds them");
    }
  }
  return summary;
}

Status LoadJob::Commit() {
  State& st = *s_;
  committed_ = true;
  if (st.mdb_load) {
    PhaseClock clock;
    DIRLOAD_RETURN_IF_ERROR(st.mdb_load->Install());
    PhaseStats p;
    p.name = "install";
    p.wall_seconds = clock.wall_seconds();
    p.cpu_seconds = clock.cpu_seconds();
    stats_.phases.push_back(std::move(p));
    stats_.backend = "mdb";
    return Status::Ok();
  }
  if (st.guard) DIRLOAD_RETURN_IF_ERROR(st.guard->Done());
  if (st.options.collect_stats && st.store) {
    const bool indexed = !st.options.no_index && !st.index_config.empty();
    AddSettings(st.store.get(), indexed ? &st.options.index : nullptr, &stats_);
    AddTableTotals(st.store.get(), &stats_);
  }
  return Status::Ok();
}

}  // namespace dirload
