// What `search` and `cat -a` need to search a database: the store opened for
// reading, its dictionary, the schema, and the index configuration (from
// slapd.conf or --index, else as recorded in the database), with stale
// indexes set aside so that results stay exact.
//
// The format is detected first. On slapd's back-mdb format the session holds
// an MdbReader instead of a store (store is null), the dictionary is ad2i's,
// and the indexes are the configured ones (slapd records none) whose index
// databases exist and are not empty; the others are listed in `stale`.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/format/format_detect.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/index/index_spec.h"
#include "lib/pipeline/database_lock.h"
#include "lib/schema/schema.h"
#include "lib/search/search.h"
#include "lib/store/store.h"
#include "tools/database_args.h"

namespace dirload::tools {

struct SearchSession {
  ResolvedDatabase db;
  std::optional<DatabaseLock> reader_lock;  // Berkeley DB: excludes writers
  std::unique_ptr<Schema> schema;
  std::unique_ptr<Store> store;
  AttributeDictionary dictionary;
  std::string suffix;
  IndexConfig indexes;             // fresh indexes only
  std::vector<std::string> stale;  // "idx.cn: why"
  DatabaseFormat format = DatabaseFormat::kNative;
  std::unique_ptr<mdb::MdbReader> mdb;  // kMdb only
  mdb::MdbKeyOptions mdb_keys;          // kMdb: slapd.conf's index_* settings
};

Result<std::unique_ptr<SearchSession>> OpenSearchSession(const DatabaseArgs& args);

// Runs `request` on the session's database, whichever its format (on slapd's,
// through dn2i and its index databases). `request.indexes` is ignored: the
// session's fresh indexes are used unless request.use_indexes is false.
Result<SearchResult> RunSessionSearch(SearchSession& session, SearchRequest request,
                                      const SearchCallback& callback);

}  // namespace dirload::tools
