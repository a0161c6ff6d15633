#include "lib/db/online_index.h"

#include "lib/db/mdb_load_options.h"
#include "lib/db/run_report.h"
#include "lib/format/mdb/mdb_online_index.h"
#include "lib/util/text_table.h"

namespace dirload {

std::string OnlineIndexIfFailed(const MdbIndexPlan&) {
  return "the online rebuild stopped: each index it had committed is rebuilt whole, the "
         "others are as they were (slapd never saw a half index); run 'dirload index "
         "--online' again";
}

Result<IndexRebuild> RebuildMdbOnline(const ResolvedDatabase& config, const Schema& schema,
                                      const MdbIndexPlan& plan, const IndexRequest& request) {
  auto say = [&](const std::string& line) {
    if (request.notice) request.notice(line);
  };
  if (!plan.drop.empty()) {
    say("note: --online keeps the index databases of " + JoinWithCommas(plan.drop) +
        " (slapd has them open); drop them with slapd stopped");
  }
  IndexRebuild result;
  result.stats.command = "index";
  result.stats.database = config.dir;
  result.stats.backend = "mdb";
  PhaseClock clock;
  DIRLOAD_ASSIGN_OR_RETURN(
      mdb::MdbOnlineIndexStats built,
      mdb::RebuildMdbIndexesOnline(
          config.dir, schema, plan.rebuild, MdbKeyOptionsFrom(config.index_tuning),
          [&](std::string_view name, double seconds) {
            if (request.verbose) {
              char ms[32];
              std::snprintf(ms, sizeof ms, "%.1f", seconds * 1000);
              say("rebuilt index " + std::string(name) + " in one transaction (" + ms + " ms)");
            }
          }));
  PhaseStats p = TimedPhase("index", clock);
  p.entries = built.entries;
  p.counters.push_back({"indexes", static_cast<double>(built.indexes)});
  p.counters.push_back({"keys", static_cast<double>(built.keys)});
  p.counters.push_back({"ids", static_cast<double>(built.ids)});
  p.counters.push_back({"ranges", static_cast<double>(built.ranges)});
  p.counters.push_back({"longest_txn_ms", built.max_txn_seconds * 1000});
  result.stats.phases.push_back(std::move(p));
  return result;
}

}  // namespace dirload
