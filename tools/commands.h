// The dirload subcommands. Each registers its options on the app and returns
// a callback that runs it and yields the exit status (tools/exit_codes.h).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

#include "lib/util/status.h"

namespace dirload::tools {

using CommandRunner = std::function<int()>;

CommandRunner RegisterAdd(CLI::App* app);
CommandRunner RegisterCat(CLI::App* app);
CommandRunner RegisterIndex(CLI::App* app);
CommandRunner RegisterSearch(CLI::App* app);
CommandRunner RegisterStat(CLI::App* app);

// Prints "dirload: MESSAGE" to stderr and returns the exit status that fits
// the status code.
int ReportError(const Status& status);

}  // namespace dirload::tools
