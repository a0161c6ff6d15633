// `dirload verify` on dirload's native format (either engine): one scan of
// id2entry decodes every record in full, checks its descriptions against
// the attribute dictionary and its DN against dn2id, and feeds the entries
// to an IndexBuilder whose lists, instead of being written, are merged
// against each index table in key order (exact lists: complete and clean
// as verify_report.h defines them). dn2id must map each entry's
// normalized DN to its ID and nothing else, every DN's parent must be
// there up to the suffix. Index tables no configured index names are
// listed.
//
// Thread safety: one thread (the builder starts its own); the store must
// see no writer meanwhile.
#pragma once

#include <string>

#include "lib/entry/entry_codec.h"
#include "lib/format/verify_report.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/store/store.h"
#include "lib/util/status.h"

namespace dirload {

// `config`: the index configuration in force; `dictionary`: meta's.
// Errors: an attribute in options.attributes that `config` does not index
// (kUsage), the engine's; what is wrong in the database goes into *report.
Status VerifyNativeDatabase(Store* store, const Schema& schema,
                            const AttributeDictionary& dictionary, const std::string& suffix,
                            const IndexConfig& config, const VerifyOptions& options,
                            VerifyReport* report);

}  // namespace dirload
