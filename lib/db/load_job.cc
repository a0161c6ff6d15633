#include "lib/db/load_job.h"

#include <cstdio>
#include <filesystem>

#include "lib/config/replication.h"
#include "lib/db/lmdb_presence.h"
#include "lib/db/load_target.h"
#include "lib/db/mdb_load_options.h"
#include "lib/db/online_load.h"
#include "lib/db/run_report.h"
#include "lib/db/write_guard.h"
#include "lib/format/mdb/mdb_build_dir.h"
#include "lib/format/mdb/mdb_key_maker.h"
#include "lib/format/mdb/mdb_rebuild.h"
#include "lib/format/mdb/mdb_staged_load.h"
#include "lib/format/native/native_sink.h"
#include "lib/load/dry_run_sink.h"
#include "lib/util/text_table.h"

namespace dirload {

namespace {

// A load keeps all of its input or none of it. slapadd keeps the entries
// before the one that failed, so its -j LINE resumes; after dirload's
// failed run there is nothing to resume from.
constexpr std::string_view kNothingKept =
    "; no entry of this input was kept, so load the whole input again once it is fixed "
    "(not with -j LINE, which resumes only a load that kept the entries before LINE)";

// add -u: every check, nothing written.
class DryRun final : public LoadJob::Target {
 public:
  EntrySink* sink() override { return &sink_; }
  Status Phase2(RunStats*) override { return Status::Ok(); }
  Status Commit(RunStats*) override { return Status::Ok(); }
  void RollBack(bool) override {}

 private:
  DryRunSink sink_;
};

}  // namespace

// dirload's native format: the loader writes the store; a WriteGuard makes
// the write survivable (pending-work mark, undo copy of an append).
class NativeLoad final : public LoadJob::Target {
 public:
  explicit NativeLoad(LoadJob::State* s) : s_(*s) {}

  Status Begin() {
    const ResolvedDatabase& db = s_.db->config();
    DIRLOAD_ASSIGN_OR_RETURN(WriteGuard guard,
                             WriteGuard::BeginLoad(db.dir, db.backend, db.store_options));
    guard_.emplace(std::move(guard));
    if (s_.options.verbose && guard_->kind() == WorkKind::kAppend) {
      char line[160];
      std::snprintf(
          line, sizeof line, "kept a copy of the database to go back to (%llu MB, %.2f s)",
          static_cast<unsigned long long>(guard_->copied_bytes() >> 20), guard_->copy_seconds());
      s_.Notice(line);
    }
    StoreOptions so = db.store_options;
    so.create = true;
    DIRLOAD_ASSIGN_OR_RETURN(store_, Store::Open(db.backend, db.dir, so));
    // An append without an index configuration keeps the database's own, so
    // that the appended entries are indexed like the others.
    if (guard_->kind() == WorkKind::kAppend && db.index_lines.empty()) {
      DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexConfig::Line> recorded,
                               RecordedIndexLines(store_.get()));
      DIRLOAD_ASSIGN_OR_RETURN(s_.index_config, IndexConfig::Parse(*s_.schema, recorded));
    }
    return Status::Ok();
  }

  EntrySink* sink() override { return sink_.get(); }

  Status BeforePhase1() override {
    const LoadJobOptions& o = s_.options;
    NativeSinkOptions so;
    so.commit_every = o.quick ? 200000 : 20000;
    // Phase 2's sort memory is not in use yet.
    so.dn2id_buffer_bytes = o.index.builder.sort_memory / 4;
    if (o.one_pass && s_.indexing()) {
      if (guard_->kind() != WorkKind::kLoad || o.index.method != IndexMethod::kSort) {
        s_.Notice(
            "--one-pass applies to a new database and the sort method: phase 2 reads the "
            "entries back");
      } else {
        // Phase 1's held dn2id records and the builder share --sort-memory.
        IndexRunOptions fed_options = o.index;
        fed_options.builder.sort_memory -= so.dn2id_buffer_bytes;
        NativeIndexer indexer(store_.get(), s_.schema, &s_.index_config, o.progress);
        DIRLOAD_ASSIGN_OR_RETURN(feed_, indexer.BeginFed(fed_options));
        so.index_feed = feed_.get();
      }
    }
    sink_ = std::make_unique<NativeSink>(store_.get(), so);
    return Status::Ok();
  }

  void AddPhase1Figures(PhaseStats* p) override { AddCacheCounters(store_.get(), p); }

  Status Phase2(RunStats* stats) override {
    const LoadJobOptions& o = s_.options;
    if (s_.indexing()) {
      PhaseClock clock;
      CpuLedger ledger;
      IndexRunOptions run = o.index;
      if (o.collect_stats) run.builder.ledger = &ledger;
      Result<IndexRunSummary> built = [&]() -> Result<IndexRunSummary> {
        // Its threads add their figures to the ledger when it is gone.
        NativeIndexer indexer(store_.get(), s_.schema, &s_.index_config, o.progress);
        if (feed_ && feed_->abandoned()) {
          s_.Notice("--one-pass: " + feed_->why_abandoned() + "; phase 2 reads the entries back");
        }
        return feed_ ? indexer.FinishFed(std::move(feed_), run) : indexer.Run(run);
      }();
      DIRLOAD_RETURN_IF_ERROR(built.status());
      PhaseStats p = IndexPhaseStats(*built, clock);
      p.stages = ledger.stages();
      p.threads = ledger.roles();
      stats->phases.push_back(std::move(p));
      return Status::Ok();
    }
    if (guard_->kind() != WorkKind::kAppend) return Status::Ok();
    // The indexes lack the appended entries: no longer current.
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> marked, MarkIndexesUnfinished(store_.get()));
    DIRLOAD_RETURN_IF_ERROR(store_->Sync());
    if (!marked.empty()) {
      s_.Notice("--no-index: " + std::to_string(marked.size()) +
                " indexes now lack the appended entries and are marked stale; 'dirload "
                "index' rebuilds them");
    }
    return Status::Ok();
  }

  Status Commit(RunStats* stats) override {
    DIRLOAD_RETURN_IF_ERROR(guard_->Done());
    if (s_.options.collect_stats) {
      AddSettings(store_.get(), s_.indexing() ? &s_.options.index : nullptr, stats);
      AddTableTotals(store_.get(), stats);
    }
    return Status::Ok();
  }

  void RollBack(bool) override {
    const std::string& dir = s_.db->dir();
    sink_.reset();
    store_.reset();
    if (!guard_.has_value()) return;
    const bool append = guard_->kind() == WorkKind::kAppend;
    Status undone = guard_->RollBack();
    guard_.reset();
    if (!undone.ok()) {
      s_.Notice(undone.message());
      s_.Notice(dir + " could not be rolled back now; run 'dirload recover' on it");
      return;
    }
    s_.Notice((append ? "the append was rolled back: " + dir + " is as it was before it"
                      : "the load was undone: " + dir + " holds no database") +
              std::string(kNothingKept));
  }

 private:
  LoadJob::State& s_;
  std::optional<WriteGuard> guard_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<IndexFeed> feed_;
  std::unique_ptr<NativeSink> sink_;
};

// slapd's format: built aside and moved into place (mdb_staged_load.h).
class MdbLoad final : public LoadJob::Target {
 public:
  explicit MdbLoad(LoadJob::State* s) : s_(*s) {}

  Status Begin() {
    const ResolvedDatabase& db = s_.db->config();
    const LoadJobOptions& o = s_.options;
    if (db.backend == Backend::kBdb) {
      return Status::InvalidArgument(
                 "slapd's back-mdb format is LMDB only: use --format native with --backend bdb")
          .WithOrigin(ErrorOrigin::kUsage);
    }
    // A first load killed in phase 2 left complete entries: they are
    // finished by recover, never thrown away by the next run.
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<mdb::MdbCompleteEntries> complete,
                             mdb::ReadMdbCompleteEntries(db.dir));
    if (complete && !std::filesystem::exists(db.dir + "/data.mdb")) {
      return Status::Corruption(db.dir + ": a load did not finish; its " +
                                std::to_string(complete->entries) + " entries are complete in " +
                                mdb::MdbBuildDirPath(db.dir) +
                                ": run 'dirload recover' on it first, which builds their indexes "
                                "and puts them in place (or remove that directory to load again)")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
    if (!o.no_index) {
      DIRLOAD_RETURN_IF_ERROR(
          RequireIndexConfigurationFor(db, *s_.schema, s_.index_config, ", or --no-index"));
    }
    IndexRunOptions run = o.index;
    if (o.collect_stats) run.builder.ledger = &phase2_ledger_;
    MdbStagedLoadOptions mo = MdbStagedLoadOptionsFor(
        db, o.no_index ? std::vector<IndexSpec>() : s_.index_config.specs(), run);
    // Every index must be one back-mdb's keys can be made for, before phase
    // 1 stores anything: a configuration error found after it wastes the run.
    if (!o.no_index) {
      for (const IndexSpec& spec : s_.index_config.specs()) {
        Result<mdb::MdbKeyMaker> keys = mdb::MdbKeyMaker::Create(*s_.schema, spec, mo.index.keys);
        if (!keys.ok()) return keys.status().WithPrefix(spec.where + ": ");
      }
    }
    // From here to the install's rename nobody else opens the environment:
    // a slapd starting meanwhile waits, then opens the new file. (This
    // process does not open DIR's environment either until then.)
    DIRLOAD_ASSIGN_OR_RETURN(EnvironmentHold hold, EnvironmentHold::Acquire(db.dir));
    hold_.emplace(std::move(hold));
    DIRLOAD_ASSIGN_OR_RETURN(staged_, MdbStagedLoad::Begin(db.dir, *s_.schema, mo));
    if (o.no_index && !s_.index_config.empty()) {
      s_.Notice(
          "warning: --no-index on slapd's format: slapd records no index state and will "
          "answer indexed searches from empty indexes until 'dirload index' builds them");
    }
    return Status::Ok();
  }

  EntrySink* sink() override { return staged_->sink(); }

  Status BeforePhase1() override {
    if (s_.options.one_pass && !s_.options.no_index) {
      s_.Notice("--one-pass applies to dirload's native format only");
    }
    return Status::Ok();
  }

  Status AfterPhase1() override { return staged_->FinishEntries(); }

  Status Phase2(RunStats* stats) override {
    if (!s_.indexing()) return Status::Ok();
    PhaseClock clock;
    DIRLOAD_ASSIGN_OR_RETURN(mdb::MdbIndexStats built,
                             staged_->BuildIndexes(s_.index_config.specs()));
    PhaseStats p = MdbIndexPhaseStats(built, clock);
    p.stages = phase2_ledger_.stages();
    p.threads = phase2_ledger_.roles();
    stats->phases.push_back(std::move(p));
    return Status::Ok();
  }

  Status Commit(RunStats* stats) override {
    PhaseClock clock;
    DIRLOAD_RETURN_IF_ERROR(staged_->Install());
    stats->phases.push_back(TimedPhase("install", clock));
    stats->backend = "mdb";
    return Status::Ok();
  }

  void RollBack(bool run_failed) override {
    // Its destructor removes the build: the database was never touched.
    staged_.reset();
    if (run_failed) s_.Notice("nothing was changed in " + s_.db->dir() + std::string(kNothingKept));
  }

 private:
  LoadJob::State& s_;
  std::optional<EnvironmentHold> hold_;  // released after staged_ (declared first)
  // Before staged_: its index builder's threads report here (--stats).
  CpuLedger phase2_ledger_;
  std::unique_ptr<MdbStagedLoad> staged_;
};

LoadJob::LoadJob(std::unique_ptr<State> state) : s_(std::move(state)) {}

LoadJob::~LoadJob() {
  if (!committed_ && target_) target_->RollBack(run_failed_);
}

Result<std::unique_ptr<LoadJob>> Database::BeginLoad(const LoadJobOptions& o) {
  if (access_ != Access::kLoad && access_ != Access::kDryRun) {
    return Status::Internal("BeginLoad on a database not opened for loading");
  }
  // Refused before anything is written: options that contradict each other
  // or the configuration's replication.
  DIRLOAD_RETURN_IF_ERROR(Loader::CheckOptions(o.load));
  DIRLOAD_RETURN_IF_ERROR(CheckLoadServerId(config_.replication, o.load.sid, config_.config_path));
  auto s = std::make_unique<LoadJob::State>();
  s->db = this;
  s->options = o;
  DIRLOAD_ASSIGN_OR_RETURN(s->schema, schema());
  s->checker = std::make_unique<EntryChecker>(s->schema, o.schema_check, o.load.repeated_values);
  DIRLOAD_ASSIGN_OR_RETURN(s->index_config, ConfiguredIndexes());

  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSource> source,
                           ldif::OpenByteSource(o.ldif, o.ldif_name));
  ldif::ReaderOptions reader_options;
  reader_options.max_record_size = o.max_record_size;
  if (o.ldif != "-" && o.ldif_name.empty()) {
    reader_options.url_base_dir = std::filesystem::path(o.ldif).parent_path().string();
  }
  s->reader = std::make_unique<ldif::Reader>(std::move(source), reader_options);

  std::unique_ptr<LoadJob> job(new LoadJob(std::move(s)));
  if (access_ == Access::kDryRun) {
    job->target_ = std::make_unique<DryRun>();
  } else if (format_ == DatabaseFormat::kMdb && o.online) {
    DIRLOAD_ASSIGN_OR_RETURN(job->target_, BeginOnlineLoad(job->s_.get()));
  } else if (format_ == DatabaseFormat::kMdb) {
    auto target = std::make_unique<MdbLoad>(job->s_.get());
    MdbLoad* begun = target.get();
    job->target_ = std::move(target);
    DIRLOAD_RETURN_IF_ERROR(begun->Begin());
  } else {
    auto target = std::make_unique<NativeLoad>(job->s_.get());
    NativeLoad* begun = target.get();
    job->target_ = std::move(target);
    // A failure from here on rolls back as the job is destroyed.
    DIRLOAD_RETURN_IF_ERROR(begun->Begin());
  }
  return job;
}

Result<LoadSummary> LoadJob::Run() {
  Result<LoadSummary> summary = RunPhases();
  if (!summary.ok()) run_failed_ = true;
  return summary;
}

Result<LoadSummary> LoadJob::RunPhases() {
  State& st = *s_;
  const ResolvedDatabase& db = st.db->config();
  LoadOptions lo = st.options.load;
  lo.suffix = db.suffix;
  lo.lastmod = st.options.lastmod.value_or(db.lastmod);
  if (lo.rootdn.empty()) lo.rootdn = db.rootdn;
  DIRLOAD_RETURN_IF_ERROR(target_->BeforePhase1());

  stats_.command = "add";
  stats_.backend = std::string(BackendName(db.backend));
  stats_.database = db.dir;
  PhaseClock clock;
  CpuLedger ledger;
  if (st.options.collect_stats) lo.ledger = &ledger;
  // The loader's memory (its name filter, the line of each entry loaded)
  // goes before phase 2 allocates its own.
  Result<LoadSummary> summary = [&] {
    Loader loader(lo, target_->sink(), st.checker.get(), st.options.rejects, st.options.progress);
    return loader.Run(st.reader.get());
  }();
  if (!summary.ok()) return summary;
  DIRLOAD_RETURN_IF_ERROR(target_->AfterPhase1());
  PhaseStats p = TimedPhase("load", clock);
  p.entries = summary->entries_loaded;
  p.bytes = summary->input_bytes;
  p.peak_rss_bytes = PeakRssBytes();
  p.counters.push_back({"rejected", static_cast<double>(summary->rejected)});
  p.stages = ledger.stages();
  p.threads = ledger.roles();
  target_->AddPhase1Figures(&p);
  stats_.phases.push_back(std::move(p));
  DIRLOAD_RETURN_IF_ERROR(target_->Phase2(&stats_));
  return summary;
}

Status LoadJob::Commit() {
  committed_ = true;
  return target_->Commit(&stats_);
}

}  // namespace dirload
