#include "lib/format/native/native_reader.h"

#include <algorithm>
#include <string>
#include <vector>

#include "lib/format/native/native_indexer.h"
#include "lib/format/native/native_report.h"
#include "lib/format/native/native_search_source.h"
#include "lib/format/native/native_verify.h"
#include "lib/idl/idl_store.h"
#include "lib/store/tables.h"

namespace dirload {

Result<std::unique_ptr<NativeReader>> NativeReader::Open(const std::string& dir, Backend backend,
                                                         StoreOptions options,
                                                         ReaderContext context) {
  std::unique_ptr<NativeReader> r(new NativeReader(dir, std::move(context)));
  options.read_only = true;
  DIRLOAD_ASSIGN_OR_RETURN(r->store_, Store::Open(backend, dir, options));
  return r;
}

Status NativeReader::Prepare() {
  DIRLOAD_ASSIGN_OR_RETURN(meta_, ReadMeta(store_.get(), &dictionary_));
  return RequireReady(meta_, dir_);
}

// The configuration in force (given, else the one the database says it
// built), split into the indexes meta records as built with it and the rest.
Status NativeReader::SortIndexes(IndexConfig* usable, std::vector<std::string>* unusable) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, context_.schema());
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<IndexConfig> configured, context_.configured_indexes());
  std::vector<IndexConfig::Line> lines;
  if (!configured.has_value()) {
    DIRLOAD_ASSIGN_OR_RETURN(lines, RecordedIndexLines(store_.get()));
  } else {
    for (const IndexSpec& spec : configured->specs()) {
      lines.push_back({IndexConfig::CanonicalLine(spec), spec.where});
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig all, IndexConfig::Parse(*schema, lines));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexStatus> status,
                           CheckIndexes(store_.get(), *schema, all));
  std::vector<IndexConfig::Line> fresh;
  for (const IndexStatus& s : status) {
    if (s.fresh) {
      fresh.push_back({s.line, "database"});
    } else {
      unusable->push_back(s.table + ": " + s.why);
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(*usable, IndexConfig::Parse(*schema, fresh));
  return Status::Ok();
}

Status NativeReader::ForEachEntry(const EntrySelection* selection, const EntryCallback& callback) {
  if (selection != nullptr) {
    // The entries `dirload search` finds, in ID order.
    SearchRequest req;
    req.base = selection->base.value_or(meta_.suffix);
    req.scope = selection->scope;
    req.filter = selection->filter;
    return Search(std::move(req), [&](EntryId, const EntryView& e) { return callback(e); })
        .status();
  }
  std::unique_ptr<Cursor> cursor = store_->NewCursor(kId2EntryTable);
  EntryView entry;
  for (cursor->SeekToFirst(); cursor->valid(); cursor->Next()) {
    // A record that does not decode is damage in the database: say which.
    DIRLOAD_RETURN_IF_ERROR(DecodeEntry(cursor->value(), &entry).WithPrefix(dir_ + ": "));
    DIRLOAD_RETURN_IF_ERROR(callback(entry));
  }
  return cursor->status();
}

Result<SearchResult> NativeReader::Search(SearchRequest request, const SearchCallback& callback) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, context_.schema());
  DIRLOAD_ASSIGN_OR_RETURN(request.indexes, UsableIndexes());
  NativeSearchSource source(store_.get(), *schema, dictionary_);
  return dirload::Search(source, *schema, request, callback);
}

Result<DatabaseReport> NativeReader::Report() { return BuildNativeReport(store_.get()); }

// The configuration in force, as for a search: given, else recorded.
Result<VerifyReport> NativeReader::Verify(const VerifyOptions& options) {
  DIRLOAD_ASSIGN_OR_RETURN(const Schema* schema, context_.schema());
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<IndexConfig> configured, context_.configured_indexes());
  IndexConfig config;
  if (configured.has_value()) {
    config = std::move(*configured);
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexConfig::Line> lines,
                             RecordedIndexLines(store_.get()));
    DIRLOAD_ASSIGN_OR_RETURN(config, IndexConfig::Parse(*schema, lines));
  }
  VerifyReport report;
  DIRLOAD_RETURN_IF_ERROR(VerifyNativeDatabase(store_.get(), *schema, dictionary_, meta_.suffix,
                                               config, options, &report));
  report.dir = dir_;
  return report;
}

// Every "idx." table, in name order, list by list with the search's decoder.
Status NativeReader::ForEachIndexList(const IndexListCallback& callback) {
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> tables, store_->ListTables());
  std::sort(tables.begin(), tables.end());
  Status failed = Status::Ok();
  for (const std::string& table : tables) {
    if (!table.starts_with(kIndexTablePrefix)) continue;
    DIRLOAD_RETURN_IF_ERROR(
        ForEachIdList(store_.get(), table, [&](std::string_view key, const IdList& ids) {
          failed = callback(table, key, ids.ids());
          return failed.ok();
        }));
    DIRLOAD_RETURN_IF_ERROR(failed);
  }
  return Status::Ok();
}

}  // namespace dirload
