// dirload search: an offline RFC 4515 search, exact whatever the indexes say:
// indexes only propose candidates, and every candidate is checked against
// the entry with the real matching rules.
#include <cstdio>

#include "ldif/writer.h"
#include "lib/format/mdb/mdb_search.h"
#include "lib/search/filter.h"
#include "lib/search/search.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"
#include "tools/search_session.h"

namespace dirload::tools {
namespace {

struct SearchArgs {
  DatabaseArgs db;
  std::string base;
  CLI::Option* base_option = nullptr;
  std::string scope = "sub";
  std::string filter;
  std::vector<std::string> attributes;
  bool no_index = false;
  bool explain = false;
  bool count = false;
  bool dns_only = false;
  std::string output = "-";
};

bool Wanted(const std::vector<std::string>& attrs, std::string_view description) {
  if (attrs.empty()) return true;
  std::string_view type = description.substr(0, description.find(';'));
  for (const std::string& a : attrs) {
    if (a == "*" || schema_internal::EqualsIgnoreCase(a, type)) return true;
  }
  return false;
}

int RunSearch(SearchArgs a) {
  // With a configuration of several databases, the base picks the one searched.
  if (a.base_option->count() > 0) a.db.select_dn = a.base;
  Result<std::unique_ptr<SearchSession>> session = OpenSearchSession(a.db);
  if (!session.ok()) return ReportError(session.status());
  SearchSession& s = **session;
  for (const std::string& st : s.stale) {
    std::fprintf(stderr, "dirload: warning: stale index not used: %s (run 'dirload index')\n",
                 st.c_str());
  }
  Result<Filter> filter = ParseFilter(a.filter);
  if (!filter.ok()) return ReportError(filter.status());
  Result<SearchScope> scope = ParseSearchScope(a.scope);
  if (!scope.ok()) return ReportError(scope.status());
  SearchRequest req;
  req.base = a.base_option->count() > 0 ? a.base : s.suffix;
  req.scope = *scope;
  req.filter = std::move(*filter);
  req.indexes = &s.indexes;
  req.use_indexes = !a.no_index;
  req.explain = a.explain;

  Result<std::unique_ptr<ldif::ByteSink>> sink = ldif::OpenByteSink(a.output);
  if (!sink.ok()) return ReportError(sink.status());
  ldif::Writer writer(sink->get());
  ldif::Record record;
  std::string line;
  auto emit = [&](EntryId, const EntryView& e) -> Status {
    if (a.count) return Status::Ok();
    if (a.dns_only) {
      line.assign(e.dn);
      line += '\n';
      return (*sink)->Write(line);
    }
    record.Clear();
    record.SetDn(e.dn);
    for (const ValueRef& v : e.values) {
      std::string_view d = s.dictionary.Name(v.description);
      if (Wanted(a.attributes, d)) record.Add(d, v.value);
    }
    return writer.Write(record);
  };
  Result<SearchResult> result = Status::Internal("unset");
  if (s.format == DatabaseFormat::kMdb) {
    // slapd's back-mdb: the same request through dn2i and its index databases.
    mdb::MdbSearchRequest mreq;
    mreq.base = req.base;
    mreq.scope = req.scope;
    mreq.filter = std::move(req.filter);
    mreq.indexes = req.indexes;
    mreq.use_indexes = req.use_indexes;
    mreq.explain = req.explain;
    mreq.keys = s.mdb_keys;
    result = mdb::MdbSearch(s.mdb.get(), *s.schema, mreq, emit);
  } else {
    result = Search(s.store.get(), *s.schema, s.dictionary, req, emit);
  }
  if (!result.ok()) return ReportError(result.status());
  Status st = writer.Flush();
  if (st.ok() && a.count) st = (*sink)->Write(std::to_string(result->matched) + "\n");
  if (st.ok()) st = (*sink)->Close();
  if (!st.ok()) return ReportError(st);
  if (a.explain) {
    std::fprintf(stderr, "%s", result->plan.ToString().c_str());
    std::fprintf(stderr, "%s: %llu candidates, %llu entries examined, %llu matched\n",
                 result->scanned ? "scan" : "indexed",
                 static_cast<unsigned long long>(result->candidates),
                 static_cast<unsigned long long>(result->examined),
                 static_cast<unsigned long long>(result->matched));
  }
  return kExitOk;
}

}  // namespace

CommandRunner RegisterSearch(CLI::App* app) {
  auto a = std::make_shared<SearchArgs>();
  CLI::App* cmd =
      app->add_subcommand("search",
                          "search a database offline with an RFC 4515 filter; results are exact, "
                          "indexes only narrow the candidates. On slapd's back-mdb format the "
                          "indexes are the configured ones (-f) whose index databases exist and "
                          "are not empty. slapd records no index state: an index whose lines "
                          "changed since it was built cannot be told stale, so run 'dirload "
                          "index' after changing index lines");
  cmd->add_option("filter", a->filter, "RFC 4515 filter, e.g. '(&(objectClass=person)(sn=Sm*))'")
      ->required();
  cmd->add_option("attributes", a->attributes, "attributes to show (default all)");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/false, /*with_suffix=*/false);
  a->base_option = cmd->add_option("-b,--base", a->base, "search base DN (default: the suffix)");
  cmd->add_option("-s,--scope", a->scope, "base, one or sub (default sub)")
      ->check(CLI::IsMember({"base", "one", "sub"}));
  cmd->add_flag("--no-index", a->no_index, "scan every entry instead of using indexes");
  cmd->add_flag("--explain", a->explain, "print the plan and candidate counts on stderr");
  cmd->add_flag("--count", a->count, "print only the number of matching entries");
  cmd->add_flag("--dn", a->dns_only, "print only the DNs of matching entries");
  cmd->add_option("-o,--output", a->output, "output file (default stdout)");
  return [a] { return RunSearch(*a); };
}

}  // namespace dirload::tools
