// dirload schema-check: slapschema's job. Lists the entries the schema given
// now does not allow; exit 1 when there is one.
#include <cstdio>
#include <memory>
#include <optional>

#include "lib/db/schema_check.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/entry_selection_args.h"
#include "tools/exit_codes.h"

namespace dirload::tools {
namespace {

struct SchemaCheckArgs {
  DatabaseArgs db;
  SelectionArgs selection;
  std::string error_file;
  bool keep_going = false;
  bool quiet = false;
  unsigned jobs = 2;
};

Result<SchemaCheckSummary> Run(const SchemaCheckArgs& a) {
  OpenOptions oo = ToOpenOptions(a.db, Access::kRead);
  oo.notice = PrintNotice;
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(oo));
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntrySelection> selection, ParseSelection(a.selection));
  std::unique_ptr<ldif::ByteSink> out;
  if (!a.quiet) {
    DIRLOAD_ASSIGN_OR_RETURN(out, ldif::OpenByteSink("-"));
  }
  SchemaCheckOptions o;
  o.selection = selection ? &*selection : nullptr;
  o.keep_going = a.keep_going;
  o.error_file = a.error_file;
  o.listing = out.get();
  o.threads = a.jobs;
  DIRLOAD_ASSIGN_OR_RETURN(SchemaCheckSummary summary, CheckSchema(db.get(), o));
  if (out != nullptr) DIRLOAD_RETURN_IF_ERROR(out->Close());
  return summary;
}

}  // namespace

CommandRunner RegisterSchemaCheck(CLI::App* app) {
  auto a = std::make_shared<SchemaCheckArgs>();
  CLI::App* cmd = app->add_subcommand(
      "schema-check",
      "check every entry of a database against the schema given now (slapschema): "
      "attribute types defined, values valid for their syntax, one structural object class "
      "chain, MUST and MAY, SINGLE-VALUE, the stored structuralObjectClass and the RDN's "
      "values (in slapd's order). Each entry that does not conform is listed on "
      "stdout as slapschema lists it ('# (CODE) reason' and its DN); exit 1 when there is "
      "one. Unlike slapschema, values the syntax no longer allows and attributes the schema "
      "no longer defines are reported too");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/false);
  AddSelectionOptions(cmd, &a->selection);
  cmd->add_option("-l,--error-file", a->error_file,
                  "write each entry that does not conform, whole, as LDIF after a '# (CODE) "
                  "reason' comment (slapschema -l), to fix and load again");
  cmd->add_flag("-c,--continue", a->keep_going,
                "go on after the first entry that does not conform (default: stop there)");
  cmd->add_option("--jobs", a->jobs, "threads checking entries (default 2; reading is one more)")
      ->check(CLI::Range(1u, 256u));
  cmd->add_flag("-q,--quiet", a->quiet, "list nothing on stdout; the exit status and summary say");
  return [a] {
    Result<SchemaCheckSummary> r = Run(*a);
    if (!r.ok()) return ReportError(r.status());
    std::string by;
    for (const auto& [v, n] : r->by_violation) {
      by +=
          std::string(by.empty() ? " (" : ", ") + std::to_string(n) + " " + SchemaViolationName(v);
    }
    if (!by.empty()) by += ")";
    std::fprintf(stderr, "dirload: %llu entries checked, %llu do not conform%s%s\n",
                 static_cast<unsigned long long>(r->entries),
                 static_cast<unsigned long long>(r->problems), by.c_str(),
                 r->stopped ? "; stopped at the first (-c checks them all)" : "");
    return r->problems == 0 ? kExitOk : kExitBadData;
  };
}

}  // namespace dirload::tools
