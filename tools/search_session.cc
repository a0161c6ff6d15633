#include "tools/search_session.h"

#include "lib/format/mdb/mdb_search.h"
#include "lib/pipeline/database_meta.h"
#include "lib/pipeline/indexer.h"
#include "lib/pipeline/mdb_load.h"
#include "lib/pipeline/pending_work.h"

namespace dirload::tools {

Result<std::unique_ptr<SearchSession>> OpenSearchSession(const DatabaseArgs& args) {
  auto s = std::make_unique<SearchSession>();
  DIRLOAD_ASSIGN_OR_RETURN(s->db, ResolveDatabase(args, /*creating=*/false));
  DIRLOAD_ASSIGN_OR_RETURN(s->schema, BuildSchema(s->db));
  // The format first: the native checks below refuse slapd's database.
  DIRLOAD_RETURN_IF_ERROR(RequireNoPendingWork(s->db.dir));
  DIRLOAD_ASSIGN_OR_RETURN(s->format, DetectDatabaseFormat(s->db.dir));
  if (s->format == DatabaseFormat::kMdb) {
    DIRLOAD_ASSIGN_OR_RETURN(s->mdb, mdb::MdbReader::Open(s->db.dir));
    s->mdb->set_entry_checks(mdb::MdbEntryChecks::kBounds);
    s->dictionary = s->mdb->dictionary();
    s->suffix = s->db.suffix;
    s->mdb_keys = MdbKeyOptionsFrom(s->db.index_tuning);
    DIRLOAD_ASSIGN_OR_RETURN(IndexConfig configured, BuildIndexConfig(*s->schema, s->db));
    DIRLOAD_ASSIGN_OR_RETURN(
        s->indexes, mdb::MdbUsableIndexes(*s->mdb->env(), *s->schema, configured, &s->stale));
    return s;
  }
  DIRLOAD_ASSIGN_OR_RETURN(
      s->reader_lock, DatabaseLock::AcquireForReading(s->db.dir, s->db.backend == Backend::kBdb));
  StoreOptions so = s->db.store_options;
  so.read_only = true;
  DIRLOAD_ASSIGN_OR_RETURN(s->store, Store::Open(s->db.backend, s->db.dir, so));
  DIRLOAD_ASSIGN_OR_RETURN(DatabaseMeta meta, ReadMeta(s->store.get(), &s->dictionary));
  DIRLOAD_RETURN_IF_ERROR(RequireReady(meta, s->db.dir));
  s->suffix = meta.suffix;

  // Without a configuration, the indexes are those the database says it built.
  std::vector<IndexConfig::Line> lines;
  if (s->db.index_lines.empty()) {
    DIRLOAD_ASSIGN_OR_RETURN(lines, RecordedIndexLines(s->store.get()));
  } else {
    DIRLOAD_ASSIGN_OR_RETURN(IndexConfig configured, BuildIndexConfig(*s->schema, s->db));
    for (const IndexSpec& spec : configured.specs()) {
      lines.push_back({IndexConfig::CanonicalLine(spec), spec.where});
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(IndexConfig all, IndexConfig::Parse(*s->schema, lines));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<IndexStatus> status,
                           CheckIndexes(s->store.get(), *s->schema, all));
  std::vector<IndexConfig::Line> fresh;
  for (size_t i = 0; i < status.size(); ++i) {
    if (status[i].fresh) {
      fresh.push_back({status[i].line, "database"});
    } else {
      s->stale.push_back(status[i].table + ": " + status[i].why);
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(s->indexes, IndexConfig::Parse(*s->schema, fresh));
  return s;
}

Result<SearchResult> RunSessionSearch(SearchSession& s, SearchRequest request,
                                      const SearchCallback& callback) {
  request.indexes = &s.indexes;
  if (s.format != DatabaseFormat::kMdb) {
    return Search(s.store.get(), *s.schema, s.dictionary, request, callback);
  }
  mdb::MdbSearchRequest m;
  m.base = std::move(request.base);
  m.scope = request.scope;
  m.filter = std::move(request.filter);
  m.indexes = request.indexes;
  m.use_indexes = request.use_indexes;
  m.explain = request.explain;
  m.keys = s.mdb_keys;
  return mdb::MdbSearch(s.mdb.get(), *s.schema, m, callback);
}

}  // namespace dirload::tools
