// The dirload subcommands. Each registers its options on the app and returns
// a callback that runs it and yields the exit status (tools/exit_codes.h).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <string_view>

#include "lib/util/run_stats.h"
#include "lib/util/status.h"

namespace dirload::tools {

using CommandRunner = std::function<int()>;

CommandRunner RegisterAdd(CLI::App* app);
CommandRunner RegisterCat(CLI::App* app);
CommandRunner RegisterCompare(CLI::App* app);
CommandRunner RegisterIndex(CLI::App* app);
CommandRunner RegisterModify(CLI::App* app);
CommandRunner RegisterRecover(CLI::App* app);
CommandRunner RegisterSchemaCheck(CLI::App* app);
CommandRunner RegisterSearch(CLI::App* app);
CommandRunner RegisterStat(CLI::App* app);
CommandRunner RegisterVerify(CLI::App* app);

// The exit status for an error: its origin decides (configuration 2, input 1,
// database refused 3, storage 4), its code where no layer marked an origin.
int ExitStatusFor(const Status& status);

// Prints "dirload: MESSAGE" to stderr and returns ExitStatusFor(status).
int ReportError(const Status& status);

// Prints "dirload: LINE" to stderr: what a library job wants the operator
// to know (lib/db's NoticeSink).
void PrintNotice(std::string_view line);

// Writes --stats' JSON to `path`.
Status WriteStats(const RunStats& stats, const std::string& path);

}  // namespace dirload::tools
