#include "lib/format/mdb/mdb_format_reader.h"

#include "lib/format/mdb/mdb_report.h"
#include "lib/format/mdb/mdb_search.h"
#include "lib/schema/dn.h"
#include "lib/search/evaluate.h"

namespace dirload::mdb {
namespace {

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

}  // namespace

MdbFormatReader::MdbFormatReader(std::string dir, std::optional<std::string> suffix,
                                 MdbKeyOptions keys, ReaderContext context)
    : dir_(std::move(dir)),
      suffix_(suffix.value_or("")),
      has_suffix_(suffix.has_value()),
      keys_(keys),
      context_(std::move(context)) {}

Status MdbFormatReader::Prepare() {
  DIRLOAD_ASSIGN_OR_RETURN(reader_, MdbReader::Open(dir_));
  return Status::Ok();
}

Status MdbFormatReader::SortIndexes(IndexConfig* usable, std::vector<std::string>* unusable) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, context_.schema());
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<IndexConfig> configured, context_.configured_indexes());
  if (!configured.has_value()) configured.emplace();
  DIRLOAD_ASSIGN_OR_RETURN(*usable,
                           MdbUsableIndexes(*reader_->env(), *schema, *configured, unusable));
  return Status::Ok();
}

// slapcat's scan: every entry in ID order, each checked in full. A selection
// filters the scan, each entry's normalized DN (from slapd's own normalized
// RDNs) against the base, and the filter evaluated with the schema; no
// index is used.
Status MdbFormatReader::ForEachEntry(const EntrySelection* selection,
                                     const EntryCallback& callback) {
  reader_->set_entry_checks(MdbEntryChecks::kFull);
  if (selection == nullptr) {
    return reader_->ForEach([&](const MdbReadEntry& e) { return callback(e.view); });
  }
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, context_.schema());
  FilterMatcher matcher(selection->filter, *schema);
  DescriptionTable descriptions(reader_->dictionary(), *schema);
  std::string base;
  if (selection->base.has_value() || has_suffix_) {
    Result<std::string> nbase = NormalizeDn(*schema, selection->base.value_or(suffix_));
    if (!nbase.ok()) return nbase.status().WithPrefix("base DN: ").WithOrigin(ErrorOrigin::kUsage);
    base = std::move(*nbase);
  }
  return reader_->ForEach([&](const MdbReadEntry& e) -> Status {
    if (!InScope(e.ndn, base, selection->scope)) return Status::Ok();
    DIRLOAD_ASSIGN_OR_RETURN(bool match, matcher.Matches(e.view, descriptions));
    if (!match) return Status::Ok();
    return callback(e.view);
  });
}

Result<SearchResult> MdbFormatReader::Search(SearchRequest request,
                                             const SearchCallback& callback) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, context_.schema());
  DIRLOAD_ASSIGN_OR_RETURN(const IndexConfig* indexes, UsableIndexes());
  // A search reads only the values its filter tests: bounds checks suffice.
  reader_->set_entry_checks(MdbEntryChecks::kBounds);
  MdbSearchRequest m;
  m.base = std::move(request.base);
  m.scope = request.scope;
  m.filter = std::move(request.filter);
  m.indexes = indexes;
  m.use_indexes = request.use_indexes;
  m.explain = request.explain;
  m.keys = keys_;
  return MdbSearch(reader_.get(), *schema, m, callback);
}

Result<DatabaseReport> MdbFormatReader::Report() {
  return BuildMdbReport(dir_, has_suffix_ ? std::optional<std::string>(suffix_) : std::nullopt);
}

}  // namespace dirload::mdb
