#include "tools/add_config_command.h"

#include <cstdio>

#include "lib/db/config_load.h"
#include "tools/commands.h"
#include "tools/exit_codes.h"

namespace dirload::tools {

int RunAddConfig(const AddConfigArgs& a) {
  if (!a.not_applicable.empty()) {
    std::string list;
    for (const std::string& o : a.not_applicable) list += (list.empty() ? "" : ", ") + o;
    return ReportError(Status::InvalidArgument(list + ": not for the cn=config database (-n 0)")
                           .WithOrigin(ErrorOrigin::kUsage));
  }
  ConfigLoadOptions options;
  options.ldif = a.ldif;
  options.dir = a.db->config_dir;
  options.dry_run = a.dry_run;
  options.sid = a.sid;
  Result<ConfigLoadSummary> summary = LoadConfigDatabase(options);
  if (!summary.ok()) return ReportError(summary.status());
  if (a.db->verbose) {
    std::fprintf(stderr, "dirload: %llu cn=config entr%s %s %s\n",
                 static_cast<unsigned long long>(summary->entries),
                 summary->entries == 1 ? "y" : "ies", a.dry_run ? "checked for" : "written to",
                 options.dir.c_str());
  }
  return kExitOk;
}

}  // namespace dirload::tools
