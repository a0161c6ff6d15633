// What `search` and `cat -a` need to search a database: the store opened for
// reading, its dictionary, the schema, and the index configuration (from
// slapd.conf or --index, else as recorded in the database), with stale
// indexes set aside so that results stay exact.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/search/search.h"
#include "lib/store/store.h"
#include "tools/database_args.h"

namespace dirload::tools {

struct SearchSession {
  ResolvedDatabase db;
  std::unique_ptr<Schema> schema;
  std::unique_ptr<Store> store;
  AttributeDictionary dictionary;
  std::string suffix;
  IndexConfig indexes;             // fresh indexes only
  std::vector<std::string> stale;  // "idx.cn: why"
};

Result<std::unique_ptr<SearchSession>> OpenSearchSession(const DatabaseArgs& args);

}  // namespace dirload::tools
