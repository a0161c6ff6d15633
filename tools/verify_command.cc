// dirload verify: proves a database's tables agree with each other, on
// either format: every entry record decodes, the DN tree matches the
// entries, and every configured index is complete and clean (OpenDJ's
// verify-index definitions; lib/format/verify_report.h). --fix rebuilds the
// indexes found wrong. Exit 0 when clean, 1 when problems were found.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lib/db/database.h"
#include "lib/db/verify_job.h"
#include "lib/format/verify_report.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"
#include "tools/progress_printer.h"

namespace dirload::tools {
namespace {

struct VerifyArgs {
  DatabaseArgs db;
  IndexBuildArgs build;
  std::vector<std::string> attributes;
  std::string json;  // FILE, or "-": only the JSON, to stdout
  unsigned jobs = 2;
  size_t examples = 5;
  bool fix = false;
  std::string progress = "auto";
};

Status WriteFile(const std::string& text, const std::string& path) {
  FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IoError(path + ": cannot be opened for writing");
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool flushed = std::fflush(f) == 0;
  const bool closed = f == stdout || std::fclose(f) == 0;
  if (!written || !flushed || !closed) {
    return Status::IoError((path == "-" ? std::string("stdout") : path) + ": write failed");
  }
  return Status::Ok();
}

int RunVerify(const VerifyArgs& a) {
  Result<IndexRunOptions> run = ResolveIndexBuild(a.build);
  if (!run.ok()) return ReportError(run.status());
  VerifyRequest request;
  request.verify.attributes = a.attributes;
  request.verify.jobs = a.jobs;
  request.verify.memory = run->builder.sort_memory;
  request.verify.tmpdir = run->builder.tmpdir;
  request.verify.examples = a.examples;
  request.fix = a.fix;
  request.run = *run;
  request.run.builder.threads = a.jobs;
  request.notice = PrintNotice;
  ProgressPrinter progress(ParseProgressMode(a.progress));
  Result<VerifyReport> report =
      VerifyDatabase(ToOpenOptions(a.db, Access::kRead), request, &progress);
  if (!report.ok()) return ReportError(report.status());
  if (!a.json.empty()) {
    Status s = WriteFile(VerifyReportJson(*report), a.json);
    if (!s.ok()) return ReportError(s);
  }
  if (a.json != "-") {
    Status s = WriteFile(VerifyReportText(*report), "-");
    if (!s.ok()) return ReportError(s);
  }
  return report->clean() ? kExitOk : kExitBadData;
}

}  // namespace

CommandRunner RegisterVerify(CLI::App* app) {
  auto a = std::make_shared<VerifyArgs>();
  CLI::App* cmd = app->add_subcommand(
      "verify",
      "check that a database's tables agree: every entry record decodes, the DN tree "
      "(dn2i, dn2id) matches the entries with slapd's subtree counts exact, and every "
      "configured index (or those of the attributes named) is complete and clean: each key "
      "lists every entry holding a value that gives it, and no other. On slapd's format the "
      "indexes checked are those of the configuration given (slapd records none); on the "
      "native format the configuration given, else the recorded one. Exit 0 when clean, 1 "
      "when problems were found");
  cmd->add_option("attributes", a->attributes,
                  "attributes whose indexes to check (default every configured index)");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/false);
  AddIndexBuildOptions(cmd, &a->build);
  cmd->add_option("--json", a->json,
                  "also write the report as JSON to FILE; '-' writes only the JSON, to stdout")
      ->option_text("FILE");
  cmd->add_option("--jobs", a->jobs, "threads that scan the entries for the expected keys")
      ->check(CLI::Range(1u, 64u));
  cmd->add_option("--examples", a->examples, "problems named per kind (the rest are counted)");
  cmd->add_flag("--fix", a->fix,
                "rebuild the indexes found wrong (as 'dirload index ATTR...' does), then "
                "verify again");
  cmd->add_option("--progress", a->progress, "progress line on stderr: auto, always, never")
      ->check(CLI::IsMember({"auto", "always", "never"}));
  return [a] { return RunVerify(*a); };
}

}  // namespace dirload::tools
