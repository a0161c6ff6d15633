// An index rebuild (`dirload index`, slapindex) of a Database opened with
// Access::kIndex or kIndexCheck, planned and then run.
//
// Native format: the configuration in force is the one given, else the one
// the database recorded; an index whose build was interrupted is finished
// with the line it was being built with, even when the configuration no
// longer names it. By default only stale indexes are rebuilt; named
// attributes or `all` say otherwise; tables no longer configured are
// dropped.
//
// slapd's format records no index state: every configured index (or each
// one named) is rebuilt from id2e in place; index databases of attributes
// no longer configured are kept (and listed) unless `all` is given or they
// are named; a check cannot tell a stale index from a current one and says
// so.
//
// While a rebuild writes, its pending-work mark (lib/db/
// pending_work.h) makes every command refuse the database until it is done
// or `dirload recover` finishes it.
//
// Thread safety: one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "lib/db/database.h"
#include "lib/util/run_stats.h"

namespace dirload {

struct IndexRequest {
  std::vector<std::string> attributes;  // empty: every configured (native: stale) index
  bool all = false;                     // every configured index; drop the unconfigured
  IndexRunOptions run;                  // method, memory, spill directory
  NoticeSink notice;                    // what the operator should know; may be empty
  bool verbose = false;
  // slapd's format: rebuilt beside a running slapd, one attribute per write
  // transaction (online_index.h).
  bool online = false;
};

struct IndexPlan {
  // kIndexCheck: whether every index is current and nothing is left to drop.
  bool current = true;
  // Nothing to build: the run ends here, successfully.
  bool nothing_to_do = false;
  // After a failed rebuild: what state the indexes are left in.
  std::string if_failed;

  struct State;
  std::shared_ptr<State> state;  // the format's own plan
};

struct IndexRebuild {
  RunStats stats;  // --stats
};

}  // namespace dirload
