// The text of `dirload stat` on slapd's back-mdb format: the same sections
// as the native report, with slapd's sub-databases for tables.
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "lib/format/mdb/mdb_report.h"

namespace dirload::mdb {

std::string MdbReportText(const MdbDatabaseReport& report);

}  // namespace dirload::mdb
