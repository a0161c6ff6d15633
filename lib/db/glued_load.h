// GluedLoad: `dirload add` as slapadd runs it against a configuration: into
// the selected database and, when it stands for a glued tree
// (lib/config/glue.h), into the subordinate databases glued below it, every
// entry of one input going to the database whose suffix holds it most
// closely. An entry the selected database would not hold in slapd (another
// database's, or none's) is refused, as slapadd refuses it.
//
// Each database is loaded as on its own: opened and locked by its Database,
// in its own format, with its own indexes, built aside, by a LoadJob making
// one pass over the whole input that takes its own records and passes over
// the others (lib/load/record_router.h). The subordinates go first, the
// selected database last, so that -w's contextCSN on the superior's suffix
// entry covers every entry of the tree, as slapadd writes it. Nothing is
// committed until every pass has succeeded: a failed load leaves every
// database as it was. Standard input, read once per pass, is first copied
// to an unnamed temporary file.
//
// Without glue (one database, or -g, or -n) it is one LoadJob, as before.
//
// Thread safety: one thread.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/db/database.h"
#include "lib/db/load_job.h"
#include "lib/load/record_router.h"
#include "lib/util/file.h"

namespace dirload {

class GluedLoad {
 public:
  // `use_glue`: false with -g. Opens (and locks) every database first.
  static Result<std::unique_ptr<GluedLoad>> Begin(const OpenOptions& open,
                                                  const LoadJobOptions& job, bool use_glue);
  ~GluedLoad();  // what is not committed is rolled back, each database saying so
  GluedLoad(const GluedLoad&) = delete;
  GluedLoad& operator=(const GluedLoad&) = delete;

  // Where rejected records (-c) and progress go, for every pass; either may
  // be null. REQUIRES: before Run().
  void SetSinks(RejectSink* rejects, ProgressSink* progress) {
    job_.rejects = rejects;
    job_.progress = progress;
  }

  // The databases loaded, the selected one first.
  std::vector<const ResolvedDatabase*> databases() const;

  // Every pass; their summaries added up. On error nothing is committed.
  Result<LoadSummary> Run();
  // REQUIRES: Run() succeeded. Commits each database in turn; a failure
  // names the databases already committed.
  Status Commit();

  // The selected database's measurements (--stats).
  const RunStats& stats() const;

 private:
  struct Member {
    std::unique_ptr<Database> db;
    std::unique_ptr<LoadJob> job;
    LoadSummary summary;
    bool ran = false;        // Run() succeeded
    bool committed = false;  // Commit() was called
  };
  GluedLoad() = default;

  LoadJobOptions job_;
  // In the order loaded: the subordinates, then the selected database.
  std::vector<Member> members_;
  UniqueFd spooled_input_;  // standard input, copied for several passes
  // Set when records are routed (RecordRouter's arguments).
  std::optional<int> selected_;
  std::vector<RecordRouter::Owner> routing_holders_;
  std::vector<RecordRouter::Owner> routing_glued_;
  std::vector<std::pair<int, std::string>> routing_unloadable_;
};

}  // namespace dirload
