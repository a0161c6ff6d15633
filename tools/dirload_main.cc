// The dirload command: CLI11 subcommands over lib/. Exceptions from CLI11 and
// the standard library are caught here and nowhere else.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <fstream>
#include <map>

#include "lib/util/damage_signal.h"
#include "lib/util/heap_headroom.h"
#include "lib/util/library_versions.h"
#include "lib/util/malloc_huge_pages.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"

namespace dirload::tools {

int ExitStatusFor(const Status& status) {
  if (status.ok()) return kExitOk;
  // The origin, where a layer marked it, decides; the code is the fallback
  // for errors nobody classified.
  switch (status.origin()) {
    case ErrorOrigin::kUsage:
    case ErrorOrigin::kConfiguration:
      return kExitUsage;
    case ErrorOrigin::kInput:
      return kExitBadData;
    case ErrorOrigin::kDatabase:
      return kExitRefused;
    case ErrorOrigin::kStorage:
      return kExitStorage;
    case ErrorOrigin::kUnspecified:
      break;
  }
  switch (status.code()) {
    case StatusCode::kParseError:
      return kExitBadData;
    case StatusCode::kInvalidArgument:
    case StatusCode::kUnsupported:
      return kExitUsage;
    case StatusCode::kCorruption:
    case StatusCode::kNotFound:
      return kExitRefused;
    default:
      return kExitStorage;
  }
}

int ReportError(const Status& status) {
  std::fprintf(stderr, "dirload: %s\n", status.message().c_str());
  return ExitStatusFor(status);
}

void PrintNotice(std::string_view line) {
  std::fprintf(stderr, "dirload: %.*s\n", static_cast<int>(line.size()), line.data());
}

Status WriteStats(const RunStats& stats, const std::string& path) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << stats.ToJson();
  if (!out) return Status::IoError(path + ": cannot write stats");
  return Status::Ok();
}

}  // namespace dirload::tools

int main(int argc, char** argv) {
  using namespace dirload::tools;
  // Before anything is allocated: the heap on huge pages (malloc_huge_pages.h).
  dirload::StartWithMallocHugePages(argv);
  dirload::ReserveHeapHeadroom();  // heap_headroom.h
  // A damaged database file faults instead of failing: say so, exit 4.
  dirload::InstallDamageSignalHandlers();
  CLI::App app{
      "dirload: bulk loader, offline indexer and exporter for LDAP directory data.\n"
      "Exit status: 0 success, 1 bad input records, 2 usage or configuration error, "
      "3 database refused (incomplete or missing), 4 storage or I/O error."};
  // Asked of the libraries when --version is given, not before: the versions
  // loaded now, which may be newer than those the build saw.
  app.set_version_flag("--version", [] {
    return dirload::VersionText("dirload", dirload::RuntimeLibraryVersions());
  });
  app.require_subcommand(1);
  std::map<std::string, CommandRunner> runners;
  runners["add"] = RegisterAdd(&app);
  runners["cat"] = RegisterCat(&app);
  runners["compare"] = RegisterCompare(&app);
  runners["index"] = RegisterIndex(&app);
  runners["recover"] = RegisterRecover(&app);
  runners["schema-check"] = RegisterSchemaCheck(&app);
  runners["modify"] = RegisterModify(&app);
  runners["search"] = RegisterSearch(&app);
  runners["stat"] = RegisterStat(&app);
  runners["verify"] = RegisterVerify(&app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : kExitUsage;
  }
  try {
    for (CLI::App* sub : app.get_subcommands()) return runners.at(sub->get_name())();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dirload: internal error: %s\n", e.what());
    return kExitStorage;
  }
  return kExitUsage;
}
