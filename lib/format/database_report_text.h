// The text of `dirload stat`: a DatabaseReport laid out the same way for
// both formats (the database, its tables, its indexes, the engine). A column
// or line whose figure the format does not know is left out.
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "lib/format/database_report.h"

namespace dirload {

std::string DatabaseReportText(const DatabaseReport& report);

}  // namespace dirload
