// dirload search: an offline RFC 4515 search, exact whatever the indexes say:
// indexes only propose candidates, and every candidate is checked against
// the entry with the real matching rules.
#include <cstdio>

#include "ldif/writer.h"
#include "lib/db/database.h"
#include "lib/db/search_bench.h"
#include "lib/search/filter.h"
#include "lib/search/search.h"
#include "lib/util/request_values.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"

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
  std::vector<int> bench;  // worker counts, one run each
  std::string values_file;
  double bench_seconds = 5;
  uint64_t bench_requests = 0;
};

bool Wanted(const std::vector<std::string>& attrs, std::string_view description) {
  if (attrs.empty()) return true;
  std::string_view type = description.substr(0, description.find(';'));
  for (const std::string& a : attrs) {
    if (a == "*" || EqualsIgnoreCase(a, type)) return true;
  }
  return false;
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "dirload search: %s\n", message.c_str());
  return kExitUsage;
}

int RunBench(const SearchArgs& a) {
  SearchBenchOptions o;
  o.workers = a.bench;
  o.filter_template = a.filter;
  for (int w : o.workers) {
    if (w < 1 || w > 1024) return Usage("--bench: worker counts are 1 to 1024");
  }
  bool has_slot = a.filter.find("%s") != std::string::npos;
  if (!a.values_file.empty()) {
    if (!has_slot) return Usage("--values: the filter has no %s to put the values in");
    Result<std::vector<std::string>> values = ReadRequestValues(a.values_file);
    if (!values.ok()) return Usage(std::string(values.status().message()));
    o.values = std::move(*values);
  } else if (has_slot) {
    return Usage("the filter has %s but no --values file gives the values");
  }
  if (a.base_option->count() > 0) o.base = a.base;
  Result<SearchScope> scope = ParseSearchScope(a.scope);
  if (!scope.ok()) return ReportError(scope.status());
  o.scope = *scope;
  o.use_indexes = !a.no_index;
  o.seconds = a.bench_seconds;
  o.requests = a.bench_requests;
  if (o.requests == 0 && !(o.seconds > 0)) return Usage("--bench-seconds must be positive");
  Result<std::vector<SearchBenchRun>> runs = RunSearchBench(ToOpenOptions(a.db, Access::kRead), o);
  if (!runs.ok()) return ReportError(runs.status());
  Result<std::unique_ptr<ldif::ByteSink>> sink = ldif::OpenByteSink(a.output);
  if (!sink.ok()) return ReportError(sink.status());
  std::string text =
      "workers requests entries errors seconds requests_per_second mean_ms p50_ms p99_ms "
      "max_ms\n";
  char line[256];
  for (const SearchBenchRun& r : *runs) {
    std::snprintf(line, sizeof line, "%d %llu %llu %llu %.3f %.1f %.3f %.3f %.3f %.3f\n", r.workers,
                  static_cast<unsigned long long>(r.requests),
                  static_cast<unsigned long long>(r.entries),
                  static_cast<unsigned long long>(r.errors), r.seconds, r.requests_per_second,
                  r.mean_ms, r.p50_ms, r.p99_ms, r.max_ms);
    text += line;
    if (r.errors > 0) {
      std::fprintf(stderr,
                   "dirload search: %llu of %llu searches failed with %d workers; first: %s\n",
                   static_cast<unsigned long long>(r.errors),
                   static_cast<unsigned long long>(r.requests), r.workers, r.first_error.c_str());
    }
  }
  Status st = (*sink)->Write(text);
  if (st.ok()) st = (*sink)->Close();
  if (!st.ok()) return ReportError(st);
  for (const SearchBenchRun& r : *runs) {
    if (r.errors > 0) return kExitBadData;
  }
  return kExitOk;
}

int RunSearch(SearchArgs a) {
  // With a configuration of several databases, the base picks the one searched.
  if (a.base_option->count() > 0) a.db.select_dn = a.base;
  if (!a.bench.empty()) return RunBench(a);
  Result<std::unique_ptr<Database>> opened = Database::Open(ToOpenOptions(a.db, Access::kRead));
  if (!opened.ok()) return ReportError(opened.status());
  Database& db = **opened;
  Result<std::vector<std::string>> stale = db.UnusableIndexes();
  if (!stale.ok()) return ReportError(stale.status());
  for (const std::string& st : *stale) {
    std::fprintf(stderr, "dirload: warning: stale index not used: %s (run 'dirload index')\n",
                 st.c_str());
  }
  Result<Filter> filter = ParseFilter(a.filter);
  if (!filter.ok()) return ReportError(filter.status());
  Result<SearchScope> scope = ParseSearchScope(a.scope);
  if (!scope.ok()) return ReportError(scope.status());
  SearchRequest req;
  req.base = a.base_option->count() > 0 ? a.base : db.suffix();
  req.scope = *scope;
  req.filter = std::move(*filter);
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
      std::string_view d = db.dictionary().Name(v.description);
      if (Wanted(a.attributes, d)) record.Add(d, v.value);
    }
    return writer.Write(record);
  };
  Result<SearchResult> result = db.Search(std::move(req), emit);
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
  cmd->add_option(
         "-s,--scope", a->scope,
         "base, one, sub or children (every entry below the base, not the base; default sub)")
      ->check(CLI::IsMember({"base", "one", "sub", "children"}));
  cmd->add_flag("--no-index", a->no_index, "scan every entry instead of using indexes");
  cmd->add_flag("--explain", a->explain, "print the plan and candidate counts on stderr");
  cmd->add_flag("--count", a->count, "print only the number of matching entries");
  cmd->add_flag("--dn", a->dns_only, "print only the DNs of matching entries");
  cmd->add_option("-o,--output", a->output, "output file (default stdout)");
  cmd->add_option("--bench", a->bench,
                  "benchmark instead of printing: for each worker count W of the list "
                  "(e.g. 1,2,4), W worker processes, each with its own read session, run "
                  "the search at once and a line reports requests, entries, errors, "
                  "seconds, requests/s and latency (mean, p50, p99, max in ms); exit 1 "
                  "when a search failed")
      ->delimiter(',');
  cmd->add_option("--values", a->values_file,
                  "with --bench: a pattern file, one value per line; each search puts the "
                  "next value, escaped, in place of every %s of the filter (worker w of W "
                  "starts at value w*count/W)");
  cmd->add_option("--bench-seconds", a->bench_seconds,
                  "with --bench: how long each worker count runs (default 5)");
  cmd->add_option("--bench-requests", a->bench_requests,
                  "with --bench: searches per worker instead of a time");
  return [a] { return RunSearch(*a); };
}

}  // namespace dirload::tools
