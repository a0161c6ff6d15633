// dirload add: slapadd's job. Phase 1 (load) now; phase 2 (indexes) follows it.
#include <cstdio>
#include <fstream>
#include <memory>
#include <optional>

#include "ldif/reader.h"
#include "lib/pipeline/database_lock.h"
#include "lib/pipeline/entry_checker.h"
#include "lib/pipeline/indexer.h"
#include "lib/pipeline/loader.h"
#include "lib/pipeline/mdb_load.h"
#include "lib/pipeline/mdb_rebuild.h"
#include "lib/pipeline/run_stats.h"
#include "lib/pipeline/write_guard.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"
#include "tools/progress_printer.h"
#include "tools/run_report.h"
#include "tools/slapd_tool_options.h"

namespace dirload::tools {
namespace {

struct AddArgs {
  DatabaseArgs db;
  std::string ldif = "-";
  bool quick = false;
  bool continue_on_error = false;
  std::string reject_file;
  bool dry_run = false;
  bool no_schema_check = false;
  bool no_index = false;
  bool one_pass = false;
  unsigned threads = DefaultCheckingWorkers();
  std::string progress = "auto";
  std::string stats_file;
  std::string max_record_size = "64M";
  IndexBuildArgs index_build;
  int sid = 0;
  bool context_csn = false;
  uint64_t skip_to_line = 0;
  std::string rootdn;  // overrides the configuration's
  CommonToolArgs tool;
  std::string format;  // mdb, native; empty: as ChooseLoadFormat decides
};

// Without a reject file, -c still says what it rejected: each record's file,
// line and reason on stderr, as slapadd prints its rejections.
class StderrRejects final : public RejectSink {
 public:
  Status Reject(const std::string& message, std::string_view) override {
    std::fprintf(stderr, "dirload: rejected: %s\n", message.c_str());
    return Status::Ok();
  }
};

// Writes rejected records, each after a comment naming its line and reason.
class RejectFile final : public RejectSink {
 public:
  explicit RejectFile(std::ofstream out) : out_(std::move(out)) {}
  Status Reject(const std::string& message, std::string_view text) override {
    out_ << "# " << message << "\n";
    out_ << text;
    if (!text.empty() && text.back() != '\n') out_ << "\n";
    if (text.empty() || text.substr(text.size() - std::min<size_t>(2, text.size())) != "\n\n") {
      out_ << "\n";
    }
    if (!out_) return Status::IoError("cannot write the reject file");
    return Status::Ok();
  }

 private:
  std::ofstream out_;
};

// A native load that failed: reports `error`, closes the store and rolls the
// database back (an append to the copy taken before it, a new load to
// nothing), saying what happened to the database.
int RollBack(const Status& error, const std::string& dir, std::optional<WriteGuard>* guard,
             std::unique_ptr<Store>* store) {
  int code = ReportError(error);
  if (store != nullptr) store->reset();
  if (!guard->has_value()) return code;
  const bool append = (*guard)->kind() == WorkKind::kAppend;
  Status undone = (*guard)->RollBack();
  guard->reset();
  if (!undone.ok()) {
    std::fprintf(stderr, "dirload: %s\n", undone.message().c_str());
    std::fprintf(stderr, "dirload: %s could not be rolled back now; run 'dirload recover' on it\n",
                 dir.c_str());
    return code;
  }
  if (append) {
    std::fprintf(stderr, "dirload: the append was rolled back: %s is as it was before it\n",
                 dir.c_str());
  } else {
    std::fprintf(stderr, "dirload: the load was undone: %s holds no database\n", dir.c_str());
  }
  return code;
}

int RunAdd(AddArgs a) {
  Result<int> debug = ParseDebugLevel(a.tool.debug);
  if (!debug.ok()) return ReportError(debug.status());
  if (*debug != 0) a.db.verbose = true;
  Result<ToolOptionValues> o = ParseToolOptions(a.tool.options, ToolKind::kAdd);
  if (!o.ok()) return ReportError(o.status());
  if (o->schema_check.has_value()) a.no_schema_check = !*o->schema_check;
  if (o->value_check.has_value() && a.db.verbose) {
    // slapadd's value-check adds syntax checks; dirload checks every value's
    // syntax whenever the schema is checked, since it must normalise them.
    std::fprintf(stderr,
                 "dirload: note: -o value-check: values are checked against their syntax "
                 "whenever the schema is checked (-s turns both off)\n");
  }
  Result<ResolvedDatabase> db = ResolveDatabase(a.db, /*creating=*/true);
  if (!db.ok()) return ReportError(db.status());
  if (!db->has_suffix) {
    return ReportError(Status::InvalidArgument("no suffix: give --suffix DN or -f slapd.conf"));
  }
  PrintNotes(*db, a.db.verbose);
  Result<uint64_t> max_record = ParseByteSize(a.max_record_size);
  if (!max_record.ok()) return ReportError(max_record.status());
  Result<std::unique_ptr<Schema>> schema = BuildSchema(*db);
  if (!schema.ok()) return ReportError(schema.status());
  EntryChecker checker(schema->get(), !a.no_schema_check);
  Result<IndexConfig> index_config = BuildIndexConfig(**schema, *db);
  if (!index_config.ok()) return ReportError(index_config.status());
  Result<IndexRunOptions> index_options = ResolveIndexBuild(a.index_build);
  if (!index_options.ok()) return ReportError(index_options.status());

  Result<std::unique_ptr<ldif::ByteSource>> source = ldif::OpenByteSource(a.ldif);
  if (!source.ok()) return ReportError(source.status());
  ldif::ReaderOptions reader_options;
  reader_options.max_record_size = *max_record;
  if (a.ldif != "-") {
    reader_options.url_base_dir = std::filesystem::path(a.ldif).parent_path().string();
  }
  ldif::Reader reader(std::move(*source), reader_options);

  DatabaseFormat format = DatabaseFormat::kNative;
  // One writer per database: held until this command ends.
  std::optional<DatabaseLock> lock;
  if (!a.dry_run) {
    Result<DatabaseLock> locked = DatabaseLock::Acquire(db->dir);
    if (!locked.ok()) return ReportError(locked.status());
    lock.emplace(std::move(*locked));
  }
  if (!a.dry_run) {
    // Berkeley DB asked for: dirload's own format, the only one it holds.
    std::string_view requested = a.format;
    if (requested.empty() && a.db.backend == "bdb") requested = "native";
    Result<DatabaseFormat> chosen = ChooseLoadFormat(db->dir, requested, db->database_type);
    if (!chosen.ok()) return ReportError(chosen.status());
    format = *chosen;
  }
  std::unique_ptr<Store> store;
  std::unique_ptr<MdbLoad> mdb_load;
  std::optional<WriteGuard> guard;
  if (!a.dry_run && format == DatabaseFormat::kMdb) {
    if (db->backend == Backend::kBdb) {
      return ReportError(Status::InvalidArgument("slapd's back-mdb format is LMDB only: use "
                                                 "--format native with --backend bdb")
                             .WithOrigin(ErrorOrigin::kUsage));
    }
    if (!a.no_index && index_config->empty()) {
      // slapd records no index configuration: without one, the appended
      // entries would be missing from the indexes the database has.
      Result<MdbIndexPlan> existing =
          PlanMdbIndexRebuild(db->dir, **schema, *index_config, {}, false);
      if (existing.ok() && !existing->unconfigured.empty()) {
        std::string names;
        for (const std::string& n : existing->unconfigured)
          names += (names.empty() ? "" : ", ") + n;
        return ReportError(
            Status::InvalidArgument(db->dir + " has indexes (" + names +
                                    ") but no index configuration was given: give the "
                                    "configuration (-f, -F or --index) so that the appended "
                                    "entries are indexed, or --no-index")
                .WithOrigin(ErrorOrigin::kUsage));
      }
    }
    MdbLoadOptions mo = MdbLoadOptionsFor(
        *db, a.no_index ? std::vector<IndexSpec>() : index_config->specs(), *index_options);
    Result<std::unique_ptr<MdbLoad>> begun = MdbLoad::Begin(db->dir, **schema, mo);
    if (!begun.ok()) return ReportError(begun.status());
    mdb_load = std::move(*begun);
    if (a.no_index && !index_config->empty()) {
      std::fprintf(stderr,
                   "dirload: warning: --no-index on slapd's format: slapd records no index "
                   "state and will answer indexed searches from empty indexes until "
                   "'dirload index' builds them\n");
    }
  } else if (!a.dry_run) {
    Result<WriteGuard> begun = WriteGuard::BeginLoad(db->dir, db->backend, db->store_options);
    if (!begun.ok()) return ReportError(begun.status());
    guard.emplace(std::move(*begun));
    if (a.db.verbose && guard->kind() == WorkKind::kAppend) {
      std::fprintf(stderr, "dirload: kept a copy of the database to go back to (%llu MB, %.2f s)\n",
                   static_cast<unsigned long long>(guard->copied_bytes() >> 20),
                   guard->copy_seconds());
    }
    StoreOptions so = db->store_options;
    so.create = true;
    Result<std::unique_ptr<Store>> opened = Store::Open(db->backend, db->dir, so);
    if (!opened.ok()) return RollBack(opened.status(), db->dir, &guard, nullptr);
    store = std::move(*opened);
    // An append without an index configuration keeps the database's own, so
    // that the appended entries are indexed like the others.
    if (guard->kind() == WorkKind::kAppend && db->index_lines.empty()) {
      Result<std::vector<IndexConfig::Line>> recorded = RecordedIndexLines(store.get());
      if (!recorded.ok()) return RollBack(recorded.status(), db->dir, &guard, &store);
      index_config = IndexConfig::Parse(**schema, *recorded);
      if (!index_config.ok()) return RollBack(index_config.status(), db->dir, &guard, &store);
    }
  }

  std::unique_ptr<RejectSink> rejects;
  if (!a.reject_file.empty()) {
    std::ofstream out(a.reject_file, std::ios::binary | std::ios::trunc);
    if (!out) return ReportError(Status::IoError(a.reject_file + ": cannot create reject file"));
    rejects = std::make_unique<RejectFile>(std::move(out));
  } else if (a.continue_on_error) {
    rejects = std::make_unique<StderrRejects>();
  }
  ProgressPrinter progress(a.progress == "always"  ? ProgressMode::kAlways
                           : a.progress == "never" ? ProgressMode::kNever
                                                   : ProgressMode::kAuto);
  LoadOptions lo;
  lo.suffix = db->suffix;
  lo.continue_on_error = a.continue_on_error;
  lo.dry_run = a.dry_run;
  lo.quick = a.quick;
  lo.threads = a.threads;
  lo.lastmod = db->lastmod;
  lo.rootdn = a.rootdn.empty() ? db->rootdn : a.rootdn;
  lo.sid = a.sid;
  lo.write_context_csn = a.context_csn;
  lo.skip_to_line = a.skip_to_line;
  // Phase 2's sort memory is not in use yet.
  lo.dn2id_buffer_bytes = index_options->builder.sort_memory / 4;
  if (mdb_load) lo.sink = mdb_load->sink();
  const bool indexing = store && !a.no_index && !index_config->empty();
  std::unique_ptr<IndexFeed> feed;
  if (a.one_pass && indexing) {
    if (guard->kind() != WorkKind::kLoad || index_options->method != IndexMethod::kSort) {
      std::fprintf(stderr,
                   "dirload: --one-pass applies to a new database and the sort method: phase 2 "
                   "reads the entries back\n");
    } else {
      // Phase 1's held dn2id records and the builder share --sort-memory.
      IndexRunOptions fed_options = *index_options;
      fed_options.builder.sort_memory -= lo.dn2id_buffer_bytes;
      Indexer indexer(store.get(), schema->get(), &*index_config, &progress);
      Result<std::unique_ptr<IndexFeed>> begun = indexer.BeginFed(fed_options);
      if (!begun.ok()) return RollBack(begun.status(), db->dir, &guard, &store);
      feed = std::move(*begun);
      lo.index_feed = feed.get();
    }
  } else if (a.one_pass && mdb_load && !a.no_index) {
    std::fprintf(stderr, "dirload: --one-pass applies to dirload's native format only\n");
  }
  PhaseClock clock;
  // The loader's memory (its name filter, the line of each entry loaded)
  // goes before phase 2 allocates its own.
  Result<LoadSummary> summary = [&] {
    Loader loader(lo, mdb_load ? mdb_load->scratch() : store.get(), &checker, rejects.get(),
                  &progress);
    return loader.Run(&reader);
  }();
  if (summary.ok() && mdb_load) {
    Status finished = mdb_load->FinishEntries();
    if (!finished.ok()) summary = finished;
  }
  if (!summary.ok() && mdb_load) {
    int code = ReportError(summary.status());
    std::fprintf(stderr, "dirload: nothing was changed in %s\n", db->dir.c_str());
    return code;
  }
  if (!summary.ok()) return RollBack(summary.status(), db->dir, &guard, &store);

  RunStats stats;
  stats.command = "add";
  stats.backend = std::string(BackendName(db->backend));
  stats.database = db->dir;
  {
    PhaseStats p;
    p.name = "load";
    p.wall_seconds = clock.wall_seconds();
    p.cpu_seconds = clock.cpu_seconds();
    p.entries = summary->entries_loaded;
    p.bytes = summary->input_bytes;
    p.peak_rss_bytes = PeakRssBytes();
    p.counters.push_back({"rejected", static_cast<double>(summary->rejected)});
    if (store) AddCacheCounters(store.get(), &p);
    stats.phases.push_back(std::move(p));
  }
  if (mdb_load) {
    if (!a.no_index && !index_config->empty()) {
      PhaseClock clock2;
      Result<mdb::MdbIndexStats> built = mdb_load->BuildIndexes(index_config->specs());
      if (!built.ok()) {
        int code = ReportError(built.status());
        std::fprintf(stderr, "dirload: nothing was changed in %s\n", db->dir.c_str());
        return code;
      }
      stats.phases.push_back(MdbIndexPhaseStats(*built, clock2));
    }
    PhaseClock clock3;
    Status installed = mdb_load->Install();
    if (!installed.ok()) return ReportError(installed);
    PhaseStats p;
    p.name = "install";
    p.wall_seconds = clock3.wall_seconds();
    p.cpu_seconds = clock3.cpu_seconds();
    stats.phases.push_back(std::move(p));
    stats.backend = "mdb";
  }
  // Phase 2, unless asked not to or nothing is configured.
  if (indexing) {
    PhaseClock clock2;
    Indexer indexer(store.get(), schema->get(), &*index_config, &progress);
    if (feed && feed->abandoned()) {
      std::fprintf(stderr, "dirload: --one-pass: %s; phase 2 reads the entries back\n",
                   feed->why_abandoned().c_str());
    }
    Result<IndexRunSummary> built =
        feed ? indexer.FinishFed(std::move(feed), *index_options) : indexer.Run(*index_options);
    if (!built.ok()) return RollBack(built.status(), db->dir, &guard, &store);
    stats.phases.push_back(IndexPhaseStats(*built, clock2));
  } else if (store && guard && guard->kind() == WorkKind::kAppend) {
    // The indexes lack the appended entries: no longer current.
    Result<std::vector<std::string>> marked = MarkIndexesUnfinished(store.get());
    if (!marked.ok()) return RollBack(marked.status(), db->dir, &guard, &store);
    if (!marked->empty()) {
      std::fprintf(stderr,
                   "dirload: --no-index: %zu indexes now lack the appended entries and are "
                   "marked stale; 'dirload index' rebuilds them\n",
                   marked->size());
    }
    Status synced = store->Sync();
    if (!synced.ok()) return RollBack(synced, db->dir, &guard, &store);
  }
  if (guard) {
    Status done = guard->Done();
    if (!done.ok()) return ReportError(done);
  }
  if (!a.stats_file.empty()) {
    if (store) {
      AddSettings(store.get(), a.no_index || index_config->empty() ? nullptr : &*index_options,
                  &stats);
      AddTableTotals(store.get(), &stats);
    }
    std::ofstream out(a.stats_file, std::ios::binary | std::ios::trunc);
    out << stats.ToJson();
    if (!out) return ReportError(Status::IoError(a.stats_file + ": cannot write stats"));
  }
  if (summary->rejected > 0) {
    std::fprintf(stderr, "dirload: %llu record(s) rejected%s%s\n",
                 static_cast<unsigned long long>(summary->rejected),
                 a.reject_file.empty() ? "" : "; see ", a.reject_file.c_str());
    return kExitBadData;
  }
  return kExitOk;
}

}  // namespace

CommandRunner RegisterAdd(CLI::App* app) {
  auto a = std::make_shared<AddArgs>();
  CLI::App* cmd = app->add_subcommand(
      "add",
      "load LDIF into a database (slapadd): phase 1 stores the entries, phase 2 builds "
      "the indexes. Into an existing database it appends, indexing the new entries with "
      "the configuration given or, on dirload's format, the one the database recorded; an "
      "append that fails is rolled back (the database as it was, indexes included), and "
      "one that was killed is refused by every command until 'dirload recover' rolls it "
      "back");
  cmd->add_option("-l,--ldif", a->ldif, "LDIF input, plain or gzip ('-' or absent: stdin)");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/true);
  cmd->add_flag("-q,--quick", a->quick, "fewer, larger transactions (as slapadd -q)");
  cmd->add_flag("-c,--continue", a->continue_on_error,
                "go on past bad records; each goes to --reject-file, or its line and reason to "
                "stderr, and the exit status is 1");
  cmd->add_option("--reject-file", a->reject_file,
                  "with -c: write each rejected record here, after a comment with its line "
                  "and reason");
  cmd->add_flag("-u,--dry-run", a->dry_run, "parse and check everything, write nothing");
  cmd->add_flag("-s,--no-schema-check", a->no_schema_check,
                "skip schema checks (DN, suffix, duplicate and parent checks still run)");
  cmd->add_option("--threads", a->threads,
                  "threads that read (one at a time), check and normalise entries beside the "
                  "writing thread, which checks too while it has nothing to write; 0: the "
                  "writing thread alone (default: one per processor but one, from 1 to 3)")
      ->check(CLI::Range(0u, 64u));
  cmd->add_option("-S,--sid", a->sid, "server ID in the entryCSNs made for entries (0-4095)")
      ->check(CLI::Range(0, 0xfff));
  cmd->add_flag("-w,--context-csn", a->context_csn,
                "write contextCSN on the suffix entry: the greatest entryCSN per server ID");
  cmd->add_option("-j,--skip-to-line", a->skip_to_line,
                  "skip the records that start before this input line (as slapadd -j)");
  cmd->add_option("--rootdn", a->rootdn,
                  "creatorsName and modifiersName of the entries (default: the rootdn)");
  cmd->add_flag("--no-index", a->no_index, "phase 1 only: store the entries, build no indexes");
  cmd->add_flag("--one-pass", a->one_pass,
                "make the index keys while phase 1 stores the entries, so that phase 2 only "
                "sorts and writes them instead of reading every entry back (a new database "
                "in dirload's native format, sort method; --sort-memory is shared with "
                "phase 1). When phase 1 has to change an entry it already handed over (a "
                "parent after its child, -c, -w), phase 2 reads the entries back as without "
                "it");
  cmd->add_option("--format", a->format,
                  "database format of a new database: mdb (slapd 2.5's back-mdb, served by "
                  "slapd; the default for a configuration with 'database mdb') or native "
                  "(dirload's own, on LMDB or Berkeley DB; the default otherwise). An existing "
                  "database keeps its format")
      ->check(CLI::IsMember({"mdb", "native"}));
  AddIndexBuildOptions(cmd, &a->index_build);
  cmd->add_option("--progress", a->progress,
                  "progress line on stderr: auto (when a terminal), "
                  "always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_option("--stats", a->stats_file, "write per-phase measurements as JSON to this file");
  cmd->add_option("--max-record-size", a->max_record_size,
                  "largest LDIF record accepted (default 64M)");
  AddCommonToolOptions(cmd, &a->tool, "ldif-wrap=N|no, schema-check=yes|no, value-check=yes|no");
  return [a] { return RunAdd(*a); };
}

}  // namespace dirload::tools
