// dirload stat: what a database holds and how the engine keeps it, offline:
// counts and sizes per table, keys and IDs per index, ID-list length
// histograms, and the engine's settings and cache figures, as the database's
// format reports them (Database::Report).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "lib/compare/canonical_entry.h"
#include "lib/db/database.h"
#include "lib/db/digest_job.h"
#include "lib/format/database_report_json.h"
#include "lib/format/database_report_text.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"

namespace dirload::tools {
namespace {

struct StatArgs {
  DatabaseArgs db;
  std::string json;  // --json FILE; "-" for stdout (then no text report)
  bool digest = false;
};

Status WriteText(const std::string& text, const std::string& path) {
  FILE* f = path == "-" ? stdout : std::fopen(path.c_str(), "wb");
  if (f == nullptr) return Status::IoError(path + ": open: " + std::strerror(errno));
  size_t n = std::fwrite(text.data(), 1, text.size(), f);
  int flush = std::fflush(f);
  int err = errno;
  bool failed = n != text.size() || flush != 0 || std::ferror(f);
  if (f != stdout && std::fclose(f) != 0 && !failed) {
    err = errno;
    failed = true;
  }
  if (failed) {
    return Status::IoError((path == "-" ? std::string("stdout") : path) +
                           ": write: " + std::strerror(err));
  }
  return Status::Ok();
}

std::string DigestText(const DatabaseDigest& d) {
  std::string out = "digest: " + HexDigest(d.digest) + "\n";
  out += "content: " + HexDigest(d.content) + " (" + std::to_string(d.entries) + " entries)\n";
  out += "indexes: " + HexDigest(d.indexes) + " (" + std::to_string(d.index_tables) + " tables, " +
         std::to_string(d.index_keys) + " keys)\n";
  if (d.context_csn.empty()) out += "contextCSN: (none)\n";
  for (const std::string& csn : d.context_csn) out += "contextCSN: " + csn + "\n";
  return out;
}

int RunDigest(const StatArgs& a) {
  Result<std::unique_ptr<Database>> db = Database::Open(ToOpenOptions(a.db, Access::kRead));
  if (!db.ok()) return ReportError(db.status());
  PrintNotes((*db)->config(), a.db.verbose);
  Result<DatabaseDigest> d = DigestDatabase(db->get());
  if (!d.ok()) return ReportError(d.status());
  db->reset();
  Status s = WriteText(DigestText(*d), "-");
  return s.ok() ? kExitOk : ReportError(s);
}

int RunStat(const StatArgs& a) {
  if (a.digest) return RunDigest(a);
  Result<std::unique_ptr<Database>> db = Database::Open(ToOpenOptions(a.db, Access::kReport));
  if (!db.ok()) return ReportError(db.status());
  PrintNotes((*db)->config(), a.db.verbose);
  Result<DatabaseReport> report = (*db)->Report();
  if (!report.ok()) return ReportError(report.status());
  // The database is closed before anything is written out.
  db->reset();
  // The file first: when it cannot be written, nothing has been printed yet.
  if (!a.json.empty()) {
    Status s = WriteText(DatabaseReportToJson(*report), a.json);
    if (!s.ok()) return ReportError(s);
  }
  if (a.json != "-") {
    Status s = WriteText(DatabaseReportText(*report), "-");
    if (!s.ok()) return ReportError(s);
  }
  return kExitOk;
}

}  // namespace

CommandRunner RegisterStat(CLI::App* app) {
  auto a = std::make_shared<StatArgs>();
  CLI::App* cmd = app->add_subcommand(
      "stat",
      "show what a database holds: entries and sizes per table, keys and IDs per index, "
      "ID-list length histograms, and the engine's settings and cache figures (read-only)");
  // The suffix comes from the database itself, and the report needs no schema
  // or index configuration: those shared options would only mislead here.
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/false, /*with_suffix=*/false);
  cmd->remove_option(cmd->get_option("--schema"));
  cmd->remove_option(cmd->get_option("--index"));
  cmd->add_option("--json", a->json,
                  "also write the report as JSON to FILE; '-' writes only the JSON, to stdout, "
                  "instead of the text report")
      ->option_text("FILE");
  cmd->add_flag("--digest", a->digest,
                "print hashes instead of the report: content (the entries, contextCSN with "
                "them, as normalized values: equal across formats and entry IDs), indexes (the "
                "index tables as stored) and digest (both), to tell whether replicas hold the "
                "same directory")
      ->excludes("--json");
  return [a] { return RunStat(*a); };
}

}  // namespace dirload::tools
