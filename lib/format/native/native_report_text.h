// The text of `dirload stat` on dirload's native format: the database's
// state, its tables, its indexes (keys per kind, ID-list lengths) and the
// engine's settings and cache figures.
//
// Thread safety: pure function.
#pragma once

#include <string>

#include "lib/pipeline/database_report.h"

namespace dirload {

std::string NativeReportText(const DatabaseReport& report);

}  // namespace dirload
