// A verification (`dirload verify`) of a database, whichever its format:
// the entries, the DN tree and the configured indexes checked against each
// other (lib/format/verify_report.h says what complete and clean mean), by
// the format's reader. With `fix`, the indexes found wrong are rebuilt as
// `dirload index ATTR...` rebuilds them, and the database is verified
// again: the report is the second verification's, naming what was fixed.
//
// Thread safety: one thread (the format's checks start their own).
#pragma once

#include "lib/db/database.h"
#include "lib/format/verify_report.h"
#include "lib/index/index_builder.h"
#include "lib/util/progress.h"
#include "lib/util/status.h"

namespace dirload {

struct VerifyRequest {
  VerifyOptions verify;
  bool fix = false;
  IndexRunOptions run;  // fix: how the rebuild runs
  NoticeSink notice;    // what the operator should know; may be empty
};

// Opens the database as `open` says (its access is decided here: reading,
// and for a fix the indexer's), verifies it and, with request.fix, repairs
// the indexes. Errors: the database's refusal to open, the request's
// (kUsage), the engine's; what is wrong in the database is in the report.
Result<VerifyReport> VerifyDatabase(OpenOptions open, const VerifyRequest& request,
                                    ProgressSink* progress);

}  // namespace dirload
