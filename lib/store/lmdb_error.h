// What an LMDB return code means as a StatusCode: the one place that decides
// it, for dirload's native engine (lmdb_store.cc) and for slapd's back-mdb
// environment (lib/format/mdb/mdb_env.cc), which build their own messages
// around it.
//
// Thread safety: pure function.
#pragma once

#include "lib/util/status.h"

namespace dirload {

// `rc` is an LMDB return code (MDB_*) or an errno value LMDB passed on.
StatusCode LmdbStatusCode(int rc);

}  // namespace dirload
