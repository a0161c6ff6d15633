// dirload cat: slapcat's job. LDIF of every entry in ID order.
#include <cstdio>
#include <memory>
#include <optional>

#include "ldif/writer.h"
#include "lib/db/database.h"
#include "lib/db/glued_tree.h"
#include "lib/entry/entry_record.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/entry_selection_args.h"
#include "tools/exit_codes.h"
#include "tools/slapd_tool_options.h"

namespace dirload::tools {
namespace {

struct CatArgs {
  DatabaseArgs db;
  SelectionArgs selection;
  std::string output = "-";
  bool gzip = false;
  bool no_wrap = false;
  bool continue_on_error = false;
  CommonToolArgs tool;
  size_t wrap = 78;  // from -o ldif-wrap and --no-wrap
};

Status Cat(const CatArgs& a, uint64_t* count) {
  // A glued tree is written database by database, as slapcat writes it.
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<OpenOptions> databases,
                           GluedTreeDatabases(ToOpenOptions(a.db, Access::kRead), !a.tool.no_glue));
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<EntrySelection> selection, ParseSelection(a.selection));
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSink> sink,
                           ldif::OpenByteSink(a.output, a.gzip));
  std::optional<ldif::Writer> writer;
  ldif::Record record;
  for (const OpenOptions& open : databases) {
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(open));
    if (!writer) {
      ldif::WriterOptions wo;
      wo.wrap = a.wrap;
      wo.slapcat_base64 = db->slapcat_ldif();
      writer.emplace(sink.get(), wo);
    }
    DIRLOAD_RETURN_IF_ERROR(
        db->ForEachEntry(selection ? &*selection : nullptr, [&](const EntryView& e) -> Status {
          ++*count;
          DIRLOAD_RETURN_IF_ERROR(EntryToRecord(e, db->dictionary(), &record));
          return writer->Write(record);
        }));
  }
  DIRLOAD_RETURN_IF_ERROR(writer->Flush());
  return sink->Close();
}

}  // namespace

CommandRunner RegisterCat(CLI::App* app) {
  auto a = std::make_shared<CatArgs>();
  CLI::App* cmd = app->add_subcommand("cat", "write a database out as LDIF, in ID order (slapcat)");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/false);
  cmd->add_option("-l,--ldif", a->output, "output file ('-' or absent: stdout)");
  AddSelectionOptions(cmd, &a->selection);
  cmd->add_flag("--gzip", a->gzip, "gzip the output");
  cmd->add_flag("--no-wrap", a->no_wrap,
                "do not fold long lines (= -o ldif-wrap=no; default: fold at 78 columns, as "
                "slapcat)");
  cmd->add_flag("-c,--continue", a->continue_on_error,
                "slapcat -c: accepted; dirload stops at the first damaged entry, since it "
                "cannot write one it cannot read");
  AddCommonToolOptions(cmd, &a->tool, "ldif-wrap=N|no (columns; 0: slapcat's 78)");
  return [a] {
    Result<int> debug = ParseDebugLevel(a->tool.debug);
    if (!debug.ok()) return ReportError(debug.status());
    if (*debug != 0) a->db.verbose = true;
    Result<ToolOptionValues> o = ParseToolOptions(a->tool.options, ToolKind::kCat);
    if (!o.ok()) return ReportError(o.status());
    if (o->ldif_wrap.has_value()) a->wrap = static_cast<size_t>(*o->ldif_wrap);
    if (a->no_wrap) a->wrap = 0;
    uint64_t count = 0;
    Status s = Cat(*a, &count);
    if (!s.ok()) return ReportError(s);
    if (a->db.verbose)
      std::fprintf(stderr, "dirload: %llu entries written\n",
                   static_cast<unsigned long long>(count));
    return kExitOk;
  };
}

}  // namespace dirload::tools
