// dirload modify: change records applied to a database offline (slapmodify,
// modrdn included); exit 1 when a record is refused.
#include <cstdio>
#include <memory>
#include <string>

#include "lib/db/modify_job.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"
#include "tools/progress_printer.h"

namespace dirload::tools {
namespace {

struct ModifyArgs {
  DatabaseArgs db;
  std::string ldif = "-";
  bool keep_going = false;
  std::string reject_file;
  bool dry_run = false;
  bool subtree = false;
  int sid = 0;
  bool context_csn = false;
  bool relax = false;
  size_t index_batch = 0;
  std::string progress = "auto";
  bool stats = false;
};

int RunModify(const ModifyArgs& a) {
  OpenOptions oo = ToOpenOptions(a.db, Access::kModify);
  oo.notice = PrintNotice;
  Result<std::unique_ptr<Database>> db = Database::Open(oo);
  if (!db.ok()) return ReportError(db.status());
  ProgressPrinter progress(ParseProgressMode(a.progress));
  ModifyOptions o;
  o.input = a.ldif;
  o.index_batch = a.index_batch;
  o.keep_going = a.keep_going;
  o.reject_file = a.reject_file;
  o.dry_run = a.dry_run;
  o.subtree = a.subtree;
  o.sid = a.sid;
  o.context_csn = a.context_csn;
  o.relax = a.relax;
  o.progress = &progress;
  Result<ModifySummary> r = ModifyDatabase(db->get(), o);
  if (!r.ok()) {
    const int code = ReportError(r.status());
    std::fprintf(stderr, "dirload: nothing was written\n");
    return code;
  }
  std::fprintf(stderr, "dirload: %llu records, %llu applied%s, %llu rejected%s%s\n",
               static_cast<unsigned long long>(r->records),
               static_cast<unsigned long long>(r->applied), a.dry_run ? " (dry run)" : "",
               static_cast<unsigned long long>(r->rejected),
               r->rejected > 0 && !a.reject_file.empty() ? "; see " : "",
               r->rejected > 0 ? a.reject_file.c_str() : "");
  if (a.stats) {
    for (const auto& [kind, n] : r->by_kind) {
      std::fprintf(stderr, "dirload: %s: %llu\n", ChangeKindName(kind),
                   static_cast<unsigned long long>(n));
    }
    std::fprintf(stderr,
                 "dirload: entries deleted %llu; index pairs added %llu, removed %llu; %.3f s\n",
                 static_cast<unsigned long long>(r->entries_deleted),
                 static_cast<unsigned long long>(r->index.index_ids_added),
                 static_cast<unsigned long long>(r->index.index_ids_removed), r->seconds);
    std::fprintf(stderr, "dirload: records %.3f s, index keys %.3f s, commit %.3f s\n",
                 r->seconds - r->index.index_seconds - r->index.commit_seconds,
                 r->index.index_seconds, r->index.commit_seconds);
  }
  return r->rejected > 0 ? kExitBadData : kExitOk;
}

}  // namespace

CommandRunner RegisterModify(CLI::App* app) {
  auto a = std::make_shared<ModifyArgs>();
  CLI::App* cmd = app->add_subcommand(
      "modify",
      "apply LDIF change records (add, delete, modify, modrdn/moddn) to a database offline "
      "(slapmodify, modrdn included), each checked as slapd checks it and refused with "
      "slapd's result code; every index follows. All or nothing: a refused record stops "
      "the run and nothing is written (unless -c). Records without changetype are adds. "
      "Both formats, slapd stopped");
  cmd->add_option("-l,--ldif", a->ldif, "the change records, plain or gzip ('-' or absent: stdin)");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/false);
  cmd->add_flag("-c,--continue", a->keep_going,
                "go on past refused records (each whole or not at all); they go to "
                "--reject-file, and the exit status is 1");
  cmd->add_option("--reject-file", a->reject_file,
                  "with -c: write each refused record here, after a comment with its line and "
                  "reason");
  cmd->add_flag("-u,--dry-run", a->dry_run,
                "check every record against the database, write "
                "nothing");
  cmd->add_flag("--subtree", a->subtree,
                "a delete of an entry with entries below it deletes them too (without it, "
                "notAllowedOnNonLeaf, as slapd)");
  cmd->add_option("-S,--sid", a->sid, "server ID in the entryCSNs made (0-4095)")
      ->check(CLI::Range(0, 0xfff));
  cmd->add_flag("-w,--context-csn", a->context_csn,
                "update contextCSN on the suffix entry with the greatest entryCSN made");
  cmd->add_flag("--relax", a->relax,
                "operational attributes (entryCSN, entryUUID, the timestamps, contextCSN) change "
                "as the records say, and a modify that sets entryCSN, modifiersName or "
                "modifyTimestamp keeps them (ldapmodify -e relax; what dirload compare writes "
                "needs it)");
  cmd->add_option("--index-batch", a->index_batch,
                  "index changes, as (key, ID) pairs, held in memory before they are applied "
                  "in key order (default 1048576, some 60 MB; bigger batches touch each key "
                  "less often)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--progress", a->progress,
                  "progress line on stderr: auto (when a terminal), always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--stats", a->stats, "print what was applied and the index pairs written");
  return [a] { return RunModify(*a); };
}

}  // namespace dirload::tools
