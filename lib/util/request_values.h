// The values a search benchmark puts into its filter, shared by dirload
// search --bench and bench/dirload-searchrate: a pattern file read once,
// and a filter template whose %s each value replaces.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

// One value per line; a '\r' before the '\n' is dropped (files from
// Windows) and empty lines are skipped. NotFound when the file cannot be
// opened, IoError when reading fails, InvalidArgument when it holds no
// value; messages start with `path`.
Result<std::vector<std::string>> ReadRequestValues(const std::string& path);

// `filter_template` with every %s replaced by `value`, escaped as RFC 4515
// asks (*, (, ), \ and NUL as \XX) unless `raw`: a value such as
// "O(Brien)" must stay one assertion value.
std::string FillFilterTemplate(std::string_view filter_template, std::string_view value,
                               bool raw = false);

}  // namespace dirload
