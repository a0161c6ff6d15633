// `dirload index --online` on slapd's format: the planned rebuild
// (mdb_rebuild.h's plan) carried out beside a running slapd, one attribute
// per LMDB write transaction (mdb_online_index.h): slapd never sees a half
// index, its writes go on between attributes, and nothing needs recovering
// after a kill (the attributes not reached keep their old index). Index
// databases the plan would drop are kept: slapd has them open.
//
// Thread safety: one thread.
#pragma once

#include <string>

#include "lib/config/database_config.h"
#include "lib/db/index_job.h"
#include "lib/format/mdb/mdb_rebuild.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

Result<IndexRebuild> RebuildMdbOnline(const ResolvedDatabase& config, const Schema& schema,
                                      const MdbIndexPlan& plan, const IndexRequest& request);

// What a failed online rebuild of `plan` leaves, for the operator.
std::string OnlineIndexIfFailed(const MdbIndexPlan& plan);

}  // namespace dirload
