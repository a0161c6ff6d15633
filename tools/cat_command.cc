// dirload cat: slapcat's job. LDIF of every entry in ID order.
#include <cstdio>

#include "ldif/writer.h"
#include "lib/entry/entry_codec.h"
#include "lib/pipeline/database_meta.h"
#include "lib/pipeline/entry_record.h"
#include "lib/store/tables.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"
#include "tools/search_session.h"

namespace dirload::tools {
namespace {

struct CatArgs {
  DatabaseArgs db;
  std::string filter;  // -a: only entries matching it
  std::string output = "-";
  bool gzip = false;
  bool no_wrap = false;
};

// Writes `e` with its descriptions resolved through `dictionary`.
Status WriteEntry(const EntryView& e, const AttributeDictionary& dictionary, ldif::Record* record,
                  ldif::Writer* writer) {
  DIRLOAD_RETURN_IF_ERROR(EntryToRecord(e, dictionary, record));
  return writer->Write(*record);
}

// cat -a: the entries matching a filter, found as `dirload search` finds them.
Status CatFiltered(const CatArgs& a, ldif::Writer* writer, uint64_t* count) {
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<SearchSession> s, OpenSearchSession(a.db));
  DIRLOAD_ASSIGN_OR_RETURN(Filter filter, ParseFilter(a.filter));
  SearchRequest req;
  req.base = s->suffix;
  req.scope = SearchScope::kSub;
  req.filter = std::move(filter);
  req.indexes = &s->indexes;
  ldif::Record record;
  DIRLOAD_ASSIGN_OR_RETURN(
      SearchResult result,
      Search(s->store.get(), *s->schema, s->dictionary, req, [&](EntryId, const EntryView& e) {
        return WriteEntry(e, s->dictionary, &record, writer);
      }));
  *count = result.matched;
  return Status::Ok();
}

Status Cat(const CatArgs& a, uint64_t* count) {
  if (!a.filter.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSink> sink,
                             ldif::OpenByteSink(a.output, a.gzip));
    ldif::WriterOptions wo;
    wo.wrap = a.no_wrap ? 0 : 76;
    ldif::Writer writer(sink.get(), wo);
    DIRLOAD_RETURN_IF_ERROR(CatFiltered(a, &writer, count));
    DIRLOAD_RETURN_IF_ERROR(writer.Flush());
    return sink->Close();
  }
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
    DIRLOAD_RETURN_IF_ERROR(WriteEntry(entry, dictionary, &record, &writer));
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
  cmd->add_option("-a,--filter", a->filter,
                  "only entries matching this RFC 4515 filter (as 'dirload search' finds them)");
  cmd->add_flag("--gzip", a->gzip, "gzip the output");
  cmd->add_flag("--no-wrap", a->no_wrap, "do not fold long lines (default: fold at 76 columns)");
  return [a] {
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
