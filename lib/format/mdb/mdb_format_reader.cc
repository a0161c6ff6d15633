#include "lib/format/mdb/mdb_format_reader.h"

#include <algorithm>
#include <vector>

#include "lib/format/mdb/mdb_report.h"
#include "lib/format/mdb/mdb_search_source.h"
#include "lib/format/mdb/mdb_verify.h"
#include "lib/util/ascii.h"

namespace dirload::mdb {

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
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig found,
                           MdbUsableIndexes(*reader_->env(), *schema, *configured, unusable));
  // slapd records nothing of a rebuild: what the pending mark names was
  // being rewritten in place, and is half there.
  const std::optional<std::vector<std::string>>& unfinished = context_.unfinished_indexes;
  std::vector<IndexConfig::Line> lines;
  for (const IndexSpec& spec : found.specs()) {
    const bool half =
        unfinished.has_value() &&
        (unfinished->empty() ||
         std::any_of(unfinished->begin(), unfinished->end(),
                     [&](const std::string& name) { return EqualsIgnoreCase(name, spec.name()); }));
    if (half) {
      unusable->push_back(std::string(spec.name()) + ": its rebuild did not finish");
    } else {
      lines.push_back({IndexConfig::CanonicalLine(spec), spec.where});
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(*usable, IndexConfig::Parse(*schema, lines));
  return Status::Ok();
}

// slapcat's scan: every entry in ID order, each checked in full. A selection
// is a search (search.h) that uses no index, since slapcat uses none and an
// index slapd cannot tell stale must not change what cat writes; as in
// slapcat, a base that is not stored selects nothing.
Status MdbFormatReader::ForEachEntry(const EntrySelection* selection,
                                     const EntryCallback& callback) {
  reader_->set_entry_checks(MdbEntryChecks::kFull);
  if (selection == nullptr) {
    return reader_->ForEach([&](const MdbReadEntry& e) { return callback(e.view); });
  }
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, context_.schema());
  MdbSearchSource source(reader_.get(), *schema, keys_);
  SearchRequest request;
  request.base = selection->base.value_or(suffix_);
  request.scope = selection->scope;
  request.filter = selection->filter;
  request.use_indexes = false;
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<SearchBase> base,
                           FindSearchBase(source, *schema, request.base));
  if (!base.has_value()) return Status::Ok();
  return dirload::Search(source, *schema, request,
                         [&](EntryId, const EntryView& e) { return callback(e); })
      .status();
}

Status MdbFormatReader::ForEachEntryThen(const EntrySelection* selection,
                                         const EntryCallback& callback,
                                         const std::function<Status()>& finish) {
  if (selection != nullptr) return FormatReader::ForEachEntryThen(selection, callback, finish);
  reader_->set_entry_checks(MdbEntryChecks::kFull);
  return reader_->ForEach([&](const MdbReadEntry& e) { return callback(e.view); }, nullptr, finish);
}

Result<SearchResult> MdbFormatReader::Search(SearchRequest request,
                                             const SearchCallback& callback) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, context_.schema());
  DIRLOAD_ASSIGN_OR_RETURN(const IndexConfig* indexes, UsableIndexes());
  // With no usable index database there is nothing to plan with: the plan
  // says no indexes are configured.
  request.indexes = indexes->empty() ? nullptr : indexes;
  // A search reads only the values its filter tests: bounds checks suffice.
  reader_->set_entry_checks(MdbEntryChecks::kBounds);
  MdbSearchSource source(reader_.get(), *schema, keys_);
  return dirload::Search(source, *schema, request, callback);
}

Result<DatabaseReport> MdbFormatReader::Report() {
  return BuildMdbReport(dir_, has_suffix_ ? std::optional<std::string>(suffix_) : std::nullopt);
}

Result<VerifyReport> MdbFormatReader::Verify(const VerifyOptions& options) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, context_.schema());
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<IndexConfig> configured, context_.configured_indexes());
  VerifyReport report;
  DIRLOAD_RETURN_IF_ERROR(
      VerifyMdbDatabase(reader_.get(), *schema, configured, keys_, options, &report));
  report.dir = dir_;
  return report;
}

// One read transaction over every index database (index_names() is sorted),
// the duplicates of each key gathered into one list.
Status MdbFormatReader::ForEachIndexList(const IndexListCallback& callback) {
  MdbEnv* env = reader_->env();
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env->Begin(false));
  std::string key;
  std::vector<uint64_t> ids;
  for (const std::string& name : env->index_names()) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbDb db, env->Index(name));
    ids.clear();
    DIRLOAD_RETURN_IF_ERROR(txn.Scan(db, [&](std::string_view k, std::string_view v) -> Status {
      if (!ids.empty() && k != key) {
        DIRLOAD_RETURN_IF_ERROR(callback(name, key, ids));
        ids.clear();
      }
      if (ids.empty()) key.assign(k);
      if (v.size() != 8) {
        return Status::Corruption(name + ": key " + HexEncode(k) + ": a duplicate of " +
                                  std::to_string(v.size()) + " bytes, not an 8-byte ID");
      }
      ids.push_back(MdbDecodeId(v));
      return Status::Ok();
    }));
    if (!ids.empty()) DIRLOAD_RETURN_IF_ERROR(callback(name, key, ids));
  }
  return Status::Ok();
}

}  // namespace dirload::mdb
