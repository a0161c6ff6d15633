// dirload cat: slapcat's job. LDIF of every entry in ID order.
#include <cstdio>

#include "ldif/writer.h"
#include "lib/entry/entry_codec.h"
#include "lib/pipeline/database_meta.h"
#include "lib/store/tables.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"

namespace dirload::tools {
namespace {

struct CatArgs {
  DatabaseArgs db;
  std::string output = "-";
  bool gzip = false;
  bool no_wrap = false;
};

Status Cat(const CatArgs& a, uint64_t* count) {
  DIRLOAD_ASSIGN_OR_RETURN(ResolvedDatabase db, ResolveDatabase(a.db, /*creating=*/false));
  StoreOptions so = db.store_options;
  so.read_only = true;
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(db.backend, db.dir, so));
  AttributeDictionary dictionary;
  DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(store.get(), &dictionary));
  DIRLOAD_RETURN_IF_ERROR(RequireReady(meta, db.dir));

  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSink> sink,
                           ldif::OpenByteSink(a.output, a.gzip));
  ldif::WriterOptions wo;
  wo.wrap = a.no_wrap ? 0 : 76;
  ldif::Writer writer(sink.get(), wo);
  std::unique_ptr<Cursor> cursor = store->NewCursor(kId2EntryTable);
  EntryView entry;
  ldif::Record record;
  for (cursor->SeekToFirst(); cursor->valid(); cursor->Next()) {
    DIRLOAD_RETURN_IF_ERROR(DecodeEntry(cursor->value(), &entry));
    record.Clear();
    record.SetDn(entry.dn);
    for (const ValueRef& v : entry.values) {
      if (v.description >= dictionary.size()) {
        return Status::Corruption("id2entry: entry '" + std::string(entry.dn) +
                                  "' names an unknown attribute description id");
      }
      record.Add(dictionary.Name(v.description), v.value);
    }
    DIRLOAD_RETURN_IF_ERROR(writer.Write(record));
    ++*count;
  }
  DIRLOAD_RETURN_IF_ERROR(cursor->status());
  DIRLOAD_RETURN_IF_ERROR(writer.Flush());
  return sink->Close();
}

}  // namespace

CommandRunner RegisterCat(CLI::App* app) {
  auto a = std::make_shared<CatArgs>();
  CLI::App* cmd = app->add_subcommand("cat", "write a database out as LDIF, in ID order (slapcat)");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/false);
  cmd->add_option("-l,--ldif", a->output, "output file ('-' or absent: stdout)");
  cmd->add_flag("--gzip", a->gzip, "gzip the output");
  cmd->add_flag("--no-wrap", a->no_wrap, "do not fold long lines (default: fold at 76 columns)");
  return [a] {
    uint64_t count = 0;
    Status s = Cat(*a, &count);
    if (!s.ok()) return ReportError(s);
    if (a->db.verbose) std::fprintf(stderr, "dirload: %llu entries written\n",
                                    static_cast<unsigned long long>(count));
    return kExitOk;
  };
}

}  // namespace dirload::tools
