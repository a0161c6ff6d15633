#include "lib/db/verify_job.h"

#include <memory>

#include "lib/db/index_job.h"

namespace dirload {
namespace {

Result<VerifyReport> VerifyOnce(const OpenOptions& open, const VerifyOptions& options) {
  OpenOptions o = open;
  o.access = Access::kRead;
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(o));
  return db->Verify(options);
}

}  // namespace

Result<VerifyReport> Database::Verify(const VerifyOptions& options) {
  if (access_ != Access::kRead) {
    return Status::Internal("Verify on a database not opened for reading");
  }
  return reader_->Verify(options);
}

Result<VerifyReport> VerifyDatabase(OpenOptions open, const VerifyRequest& request,
                                    ProgressSink* progress) {
  DIRLOAD_ASSIGN_OR_RETURN(VerifyReport report, VerifyOnce(open, request.verify));
  const std::vector<std::string> wrong = report.WrongIndexes();
  if (!request.fix || wrong.empty()) return report;
  {
    // The reader is closed: slapd's format admits a rebuild only while no
    // one else has the environment open.
    OpenOptions o = open;
    o.access = Access::kIndex;
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<Database> db, Database::Open(o));
    IndexRequest index;
    index.attributes = wrong;
    index.run = request.run;
    index.notice = request.notice;
    DIRLOAD_ASSIGN_OR_RETURN(IndexPlan plan, db->PlanIndexes(index));
    if (!plan.nothing_to_do) {
      DIRLOAD_RETURN_IF_ERROR(db->RebuildIndexes(std::move(plan), progress).status());
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(VerifyReport after, VerifyOnce(open, request.verify));
  after.fixed = wrong;
  return after;
}

}  // namespace dirload
