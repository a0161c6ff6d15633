// dirload cat: slapcat's job. LDIF of every entry in ID order.
#include <cstdio>
#include <memory>
#include <optional>

#include "ldif/writer.h"
#include "lib/entry/entry_codec.h"
#include "lib/format/format_detect.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/pipeline/database_lock.h"
#include "lib/pipeline/database_meta.h"
#include "lib/pipeline/entry_record.h"
#include "lib/pipeline/pending_work.h"
#include "lib/schema/dn.h"
#include "lib/search/evaluate.h"
#include "lib/search/ldap_url.h"
#include "lib/store/tables.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"
#include "tools/search_session.h"
#include "tools/slapd_tool_options.h"

namespace dirload::tools {
namespace {

struct CatArgs {
  DatabaseArgs db;
  std::string filter;  // -a: only entries matching it
  std::string output = "-";
  std::string subtree;  // -s: only this subtree
  std::string url;      // -H ldap:///BASE??SCOPE?FILTER
  bool gzip = false;
  bool no_wrap = false;
  bool continue_on_error = false;
  CommonToolArgs tool;
  size_t wrap = 78;  // from -o ldif-wrap and --no-wrap
};

// Writes `e` with its descriptions resolved through `dictionary`.
Status WriteEntry(const EntryView& e, const AttributeDictionary& dictionary, ldif::Record* record,
                  ldif::Writer* writer) {
  DIRLOAD_RETURN_IF_ERROR(EntryToRecord(e, dictionary, record));
  return writer->Write(*record);
}

// The scope, base and filter of -H, -s and -a: as in slapcat, -a wins over
// the URL's filter and -s over its base.
Result<ToolUrl> Selection(const CatArgs& a) {
  ToolUrl url;
  if (!a.url.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(url, ParseToolUrl(a.url));
  }
  if (!a.subtree.empty()) {
    url.base = a.subtree;
    url.scope = SearchScope::kSub;
  }
  if (!a.filter.empty()) url.filter = a.filter;
  return url;
}

bool Filtered(const CatArgs& a) {
  return !a.filter.empty() || !a.subtree.empty() || !a.url.empty();
}

// True when the normalized DN `ndn` is in `scope` of the normalized `base`.
bool InScope(std::string_view ndn, std::string_view base, SearchScope scope) {
  switch (scope) {
    case SearchScope::kBase:
      return ndn == base;
    case SearchScope::kOne:
      return !ndn.empty() && ParentDn(ndn) == base;
    case SearchScope::kSub:
      while (ndn.size() > base.size()) ndn = ParentDn(ndn);
      return ndn == base;
  }
  return false;
}

// slapcat on slapd's back-mdb format: every entry in ID order, as slapcat
// writes it (its base64 rule included). -a, -s and -H filter the scan: each
// entry's normalized DN (from slapd's own normalized RDNs) against the base,
// and the filter evaluated with the schema; no index is used.
Status CatMdb(const CatArgs& a, const ResolvedDatabase& db, uint64_t* count) {
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<mdb::MdbReader> reader, mdb::MdbReader::Open(db.dir));
  std::unique_ptr<Schema> schema;
  std::optional<FilterMatcher> matcher;
  std::optional<DescriptionTable> descriptions;
  std::string base;
  SearchScope scope = SearchScope::kSub;
  const bool filtered = Filtered(a);
  if (filtered) {
    DIRLOAD_ASSIGN_OR_RETURN(ToolUrl url, Selection(a));
    DIRLOAD_ASSIGN_OR_RETURN(schema, BuildSchema(db));
    Result<Filter> filter = ParseFilter(url.filter.value_or("(objectClass=*)"));
    if (!filter.ok()) return filter.status().WithOrigin(ErrorOrigin::kUsage);
    matcher.emplace(*filter, *schema);
    descriptions.emplace(reader->dictionary(), *schema);
    scope = url.scope;
    if (url.base.has_value() || db.has_suffix) {
      Result<std::string> nbase = NormalizeDn(*schema, url.base.value_or(db.suffix));
      if (!nbase.ok())
        return nbase.status().WithPrefix("base DN: ").WithOrigin(ErrorOrigin::kUsage);
      base = std::move(*nbase);
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSink> sink,
                           ldif::OpenByteSink(a.output, a.gzip));
  ldif::WriterOptions wo;
  wo.wrap = a.wrap;
  wo.slapcat_base64 = true;
  ldif::Writer writer(sink.get(), wo);
  ldif::Record record;
  DIRLOAD_RETURN_IF_ERROR(reader->ForEach([&](const mdb::MdbReadEntry& e) -> Status {
    if (filtered) {
      if (!InScope(e.ndn, base, scope)) return Status::Ok();
      DIRLOAD_ASSIGN_OR_RETURN(bool match, matcher->Matches(e.view, *descriptions));
      if (!match) return Status::Ok();
    }
    ++*count;
    return WriteEntry(e.view, reader->dictionary(), &record, &writer);
  }));
  DIRLOAD_RETURN_IF_ERROR(writer.Flush());
  return sink->Close();
}

// cat -a, -s, -H: the entries in a scope that match a filter, found as
// `dirload search` finds them, in ID order as slapcat writes them. As in
// slapcat, -a wins over the URL's filter and -s over its base.
Status CatFiltered(const CatArgs& a, ldif::Writer* writer, uint64_t* count) {
  DIRLOAD_ASSIGN_OR_RETURN(ToolUrl url, Selection(a));
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<SearchSession> s, OpenSearchSession(a.db));
  Result<Filter> filter = ParseFilter(url.filter.value_or("(objectClass=*)"));
  if (!filter.ok()) return filter.status().WithOrigin(ErrorOrigin::kUsage);
  SearchRequest req;
  req.base = url.base.value_or(s->suffix);
  req.scope = url.scope;
  req.filter = std::move(*filter);
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
  // The format first: the native checks below refuse slapd's database.
  DIRLOAD_ASSIGN_OR_RETURN(ResolvedDatabase db, ResolveDatabase(a.db, /*creating=*/false));
  DIRLOAD_RETURN_IF_ERROR(RequireNoPendingWork(db.dir));
  DIRLOAD_ASSIGN_OR_RETURN(DatabaseFormat format, DetectDatabaseFormat(db.dir));
  if (format == DatabaseFormat::kMdb) return CatMdb(a, db, count);
  if (Filtered(a)) {
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSink> sink,
                             ldif::OpenByteSink(a.output, a.gzip));
    ldif::WriterOptions wo;
    wo.wrap = a.wrap;
    ldif::Writer writer(sink.get(), wo);
    DIRLOAD_RETURN_IF_ERROR(CatFiltered(a, &writer, count));
    DIRLOAD_RETURN_IF_ERROR(writer.Flush());
    return sink->Close();
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<DatabaseLock> reader_lock,
                           DatabaseLock::AcquireForReading(db.dir, db.backend == Backend::kBdb));
  StoreOptions so = db.store_options;
  so.read_only = true;
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(db.backend, db.dir, so));
  AttributeDictionary dictionary;
  DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(store.get(), &dictionary));
  DIRLOAD_RETURN_IF_ERROR(RequireReady(meta, db.dir));

  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSink> sink,
                           ldif::OpenByteSink(a.output, a.gzip));
  ldif::WriterOptions wo;
  wo.wrap = a.wrap;
  ldif::Writer writer(sink.get(), wo);
  std::unique_ptr<Cursor> cursor = store->NewCursor(kId2EntryTable);
  EntryView entry;
  ldif::Record record;
  for (cursor->SeekToFirst(); cursor->valid(); cursor->Next()) {
    // A record that does not decode is damage in the database: say which.
    DIRLOAD_RETURN_IF_ERROR(DecodeEntry(cursor->value(), &entry).WithPrefix(db.dir + ": "));
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
  cmd->add_option("-s,--subtree", a->subtree,
                  "only the entries of this subtree (slapcat -s; the same as -H ldap:///DN)");
  cmd->add_option("-H,--url", a->url,
                  "only the entries in the URL's base, scope and filter (slapcat -H "
                  "'ldap:///BASE??SCOPE?FILTER'; no base: the suffix; no scope: sub)");
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
