// `dirload verify` on slapd's back-mdb format: every id2e record decodes in
// full with its descriptions in ad2i; dn2i forms one tree over the records
// (mdb_tree_check.h); and each configured index holds exactly the keys a
// rebuild would write: MdbIndexBuilder::Stream makes them from id2e as
// phase 2 does, sorted and spilled in the same bounded memory, and an
// MdbIndexComparer merges them against each index database in key order.
// Records that do not decode are left out of the expected keys (the pairs
// indexes hold for them show as extra). Index databases no configured
// index names are listed.
//
// Thread safety: one thread (the stream starts its own); the reader's
// environment must see no writer meanwhile for the result to mean
// anything, as with slapcat.
#pragma once

#include <optional>

#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/format/verify_report.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload::mdb {

// `config`: the index configuration given (nullopt: none, so no index can
// be checked and the report says so); `keys`: its index_* settings.
// Errors: an attribute named in options.attributes that `config` does not
// index (kUsage), the engine's; what is wrong with the database goes into
// *report.
Status VerifyMdbDatabase(MdbReader* reader, const Schema& schema,
                         const std::optional<IndexConfig>& config, const MdbKeyOptions& keys,
                         const VerifyOptions& options, VerifyReport* report);

}  // namespace dirload::mdb
