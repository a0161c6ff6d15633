// dirload add: slapadd's job, a LoadJob (lib/db/load_job.h): phase 1 stores
// the entries, phase 2 builds the indexes, then the load is committed.
#include <cstdio>
#include <fstream>
#include <memory>

#include "lib/db/config_load.h"
#include "lib/db/database.h"
#include "lib/db/glued_load.h"
#include "tools/add_config_command.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"
#include "tools/progress_printer.h"
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
  bool online = false;
  uint32_t batch = 100;
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

// Entries stored with a value given twice: counted, and named with -v, since
// slapd would refuse them over LDAP although slapadd stores them.
void PrintRepeatedValues(const LoadSummary& summary, bool verbose) {
  if (summary.repeated_value_entries == 0) return;
  std::fprintf(stderr,
               "dirload: %llu entr%s with a value given twice in one attribute, stored as "
               "given (as slapadd stores it; -o repeated-values=reject refuses such "
               "entries)%s\n",
               static_cast<unsigned long long>(summary.repeated_value_entries),
               summary.repeated_value_entries == 1 ? "y" : "ies", verbose ? "" : "; -v names them");
  if (!verbose) return;
  for (const std::string& named : summary.repeated_values) {
    std::fprintf(stderr, "dirload: note: %s\n", named.c_str());
  }
  if (summary.repeated_value_entries > summary.repeated_values.size()) {
    std::fprintf(stderr, "dirload: note: and %llu more\n",
                 static_cast<unsigned long long>(summary.repeated_value_entries -
                                                 summary.repeated_values.size()));
  }
}

// -n 0 (or -b cn=config) with -F: the configuration's own database, written
// as slapd's LDIF tree rather than loaded into a database directory.
int RunAddToConfig(const AddArgs& a) {
  AddConfigArgs c{a.ldif, &a.db, a.dry_run, a.sid, {}};
  const std::pair<bool, const char*> given[] = {{!a.db.config_file.empty(), "-f"},
                                                {!a.db.db_dir.empty(), "--db"},
                                                {!a.db.index_lines.empty(), "--index"},
                                                {!a.db.schema_files.empty(), "--schema"},
                                                {a.continue_on_error, "-c"},
                                                {!a.reject_file.empty(), "--reject-file"},
                                                {a.online, "--online"},
                                                {a.context_csn, "-w"},
                                                {a.skip_to_line != 0, "-j"},
                                                {!a.rootdn.empty(), "--rootdn"},
                                                {!a.format.empty(), "--format"}};
  for (const auto& [set, name] : given) {
    if (set) c.not_applicable.push_back(name);
  }
  return RunAddConfig(c);
}

int RunAdd(AddArgs a) {
  if (SelectsConfigDatabase(ToDatabaseOptions(a.db))) return RunAddToConfig(a);
  Result<int> debug = ParseDebugLevel(a.tool.debug);
  if (!debug.ok()) return ReportError(debug.status());
  if (*debug != 0) a.db.verbose = true;
  Result<ToolOptionValues> o = ParseToolOptions(a.tool.options, ToolKind::kAdd);
  if (!o.ok()) return ReportError(o.status());
  if (o->schema_check.has_value()) a.no_schema_check = !*o->schema_check;
  const bool reject_repeated = o->reject_repeated_values.value_or(false);
  if (o->value_check.has_value() && a.db.verbose) {
    // slapadd's value-check adds syntax checks; dirload checks every value's
    // syntax whenever the schema is checked, since it must normalise them.
    std::fprintf(stderr,
                 "dirload: note: -o value-check: values are checked against their syntax "
                 "whenever the schema is checked (-s turns both off)\n");
  }
  LoadJobOptions job;
  job.ldif = a.ldif;
  Result<uint64_t> max_record = ParseByteSize(a.max_record_size);
  if (!max_record.ok()) return ReportError(max_record.status());
  job.max_record_size = *max_record;
  Result<IndexRunOptions> index_options = ResolveIndexBuild(a.index_build);
  if (!index_options.ok()) return ReportError(index_options.status());
  job.index = *index_options;
  job.load.continue_on_error = a.continue_on_error;
  job.quick = a.quick;
  job.load.threads = a.threads;
  job.load.rootdn = a.rootdn;
  job.load.sid = a.sid;
  job.load.write_context_csn = a.context_csn;
  job.load.skip_to_line = a.skip_to_line;
  job.load.repeated_values = reject_repeated ? RepeatedValues::kReject : RepeatedValues::kStore;
  if (o->uuid_from_dn) job.load.uuid_name_space = o->uuid_name_space.value_or(kX500NameSpace);
  job.load.csn_time = o->csn_time;
  job.load.remove_sids = o->remove_sids;
  job.schema_check = !a.no_schema_check;
  job.no_index = a.no_index;
  job.one_pass = a.one_pass;
  job.verbose = a.db.verbose;
  job.collect_stats = !a.stats_file.empty() || a.db.verbose;
  job.notice = PrintNotice;
  job.online = a.online;
  job.online_batch = a.batch;
  OpenOptions options = ToOpenOptions(a.db, a.dry_run ? Access::kDryRun : Access::kLoad);
  options.format = a.format;
  options.online = a.online;
  Result<std::unique_ptr<GluedLoad>> begun = GluedLoad::Begin(options, job, !a.tool.no_glue);
  if (!begun.ok()) return ReportError(begun.status());
  std::unique_ptr<GluedLoad> load = std::move(*begun);
  PrintNotes(load->databases(), a.db.verbose);
  std::unique_ptr<RejectSink> rejects;
  if (!a.reject_file.empty()) {
    std::ofstream out(a.reject_file, std::ios::binary | std::ios::trunc);
    if (!out) return ReportError(Status::IoError(a.reject_file + ": cannot create reject file"));
    rejects = std::make_unique<RejectFile>(std::move(out));
  } else if (a.continue_on_error) {
    rejects = std::make_unique<StderrRejects>();
  }
  ProgressPrinter progress(ParseProgressMode(a.progress));
  load->SetSinks(rejects.get(), &progress);
  Result<LoadSummary> summary = load->Run();
  if (!summary.ok()) {
    int code = ReportError(summary.status());
    load.reset();  // rolls back, and says so
    return code;
  }
  Status committed = load->Commit();
  if (!committed.ok()) return ReportError(committed);
  if (!a.stats_file.empty()) {
    Status written = WriteStats(load->stats(), a.stats_file);
    if (!written.ok()) return ReportError(written);
  }
  if (a.db.verbose) PrintCpuSummary(load->stats());
  PrintRepeatedValues(*summary, a.db.verbose);
  for (const std::string& w : summary->warnings) {
    std::fprintf(stderr, "dirload: warning: %s\n", w.c_str());
  }
  if (!job.load.remove_sids.empty() && a.db.verbose) {
    std::fprintf(stderr, "dirload: note: -o remove-sids: %llu entryCSN(s) replaced\n",
                 static_cast<unsigned long long>(summary->replaced_csns));
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
  cmd->add_option("-S,--sid", a->sid,
                  "server ID in the entryCSNs made for entries (0-4095). When the "
                  "configuration has several serverIDs (several providers), one of theirs, "
                  "not 0: anything else is refused")
      ->check(CLI::Range(0, 0xfff));
  cmd->add_flag("-w,--context-csn", a->context_csn,
                "write contextCSN on the suffix entry: the greatest entryCSN per server ID (a "
                "warning says when that overwrites a contextCSN the input gives)");
  cmd->add_option("-j,--skip-to-line", a->skip_to_line,
                  "skip the records that start before this input line (as slapadd -j)");
  cmd->add_option("--rootdn", a->rootdn,
                  "creatorsName and modifiersName of the entries (default: the rootdn)");
  cmd->add_flag("--online", a->online,
                "slapd's format, beside a running slapd (as slapadd without -q): the entries "
                "go into the live database in LMDB write transactions of --batch entries, "
                "each with its DN tree nodes and index keys, so slapd serves each batch as it "
                "commits and loses none of its own writes. A failed or killed run keeps the "
                "batches it committed and says which -j LINE goes on from them ('dirload "
                "recover' says it after a kill). Without it, dirload refuses (exit 3) while "
                "slapd has the database open");
  cmd->add_option("--batch", a->batch,
                  "with --online: entries per write transaction; slapd's writers wait for one "
                  "batch at most (default 100)")
      ->check(CLI::Range(1u, 1000000u));
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
  AddCommonToolOptions(
      cmd, &a->tool,
      "ldif-wrap=N|no, schema-check=yes|no, value-check=yes|no, repeated-values=store|reject "
      "(a value given twice in one attribute: stored as slapadd stores it, "
      "or the entry refused); for replicas loaded apart: uuid=dn|time (dn: each entryUUID "
      "made is the name-based UUID, RFC 4122 version 5, of the entry's normalized DN, the "
      "same in every load; time: time-based, the default), uuid-namespace=UUID (the name "
      "space of uuid=dn; default RFC 4122's X.500 one, "
      "6ba7b814-9dad-11d1-80b4-00c04fd430c8), csn-time=TIME (GeneralizedTime such as "
      "20260101000000Z: every entryCSN, createTimestamp and modifyTimestamp made has this "
      "time, the CSN counters counting up in input order; with uuid=dn the same LDIF and "
      "options give a new database in slapd's format the same data.mdb, byte for byte, on "
      "every replica), remove-sids=SID,... "
      "(OpenLDAP 2.7's: an input entryCSN with one of these server IDs is replaced by a new "
      "one with -S's, contextCSN keeps none of them; implies -w). Values the input gives "
      "are kept");
  return [a] { return RunAdd(*a); };
}

}  // namespace dirload::tools
