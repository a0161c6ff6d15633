// dirload compare: two copies of a directory, entry by entry. A is the
// database the usual options select (-f/-F/-b/-n/--db); B is a database the
// --with-* options select the same way, or an LDIF file (--with-ldif).
// Prints what is only in A, only in B, moved (one entryUUID under two
// names) and differing (attribute by attribute, entryCSN shown), and writes
// the change records that turn A into B (--changes). Exit 0 when equal, 1
// when not (lib/db/compare_job.h).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "lib/db/compare_job.h"
#include "lib/db/database.h"
#include "tools/commands.h"
#include "tools/database_args.h"
#include "tools/exit_codes.h"

namespace dirload::tools {
namespace {

// B's database, chosen as the usual options choose A's.
struct OtherArgs {
  std::string config_file;
  std::string config_dir;
  int database_number = 0;
  CLI::Option* database_number_option = nullptr;
  std::string suffix;
  CLI::Option* suffix_option = nullptr;
  std::string db_dir;
  std::string backend;
  std::string ldif;
};

struct CompareArgs {
  DatabaseArgs db;
  OtherArgs with;
  std::string changes;
  std::vector<std::string> ignore;
  bool user_attributes = false;
  size_t examples = 10;
};

bool HasDatabase(const OtherArgs& w) {
  return !w.config_file.empty() || !w.config_dir.empty() || !w.db_dir.empty() ||
         w.database_number_option->count() > 0 || w.suffix_option->count() > 0;
}

OpenOptions OtherOpenOptions(const CompareArgs& a) {
  OpenOptions o;
  o.access = Access::kRead;
  o.notice = PrintNotice;
  DatabaseOptions& d = o.database;
  d.config_file = a.with.config_file;
  d.config_dir = a.with.config_dir;
  if (a.with.database_number_option->count() > 0) d.database_number = a.with.database_number;
  if (a.with.suffix_option->count() > 0) d.suffix = a.with.suffix;
  d.db_dir = a.with.db_dir;
  d.backend = a.with.backend;
  // The same schema files for both sides, when given: one directory.
  d.schema_files = a.db.schema_files;
  return o;
}

// A value as text on one line: printable ASCII kept, other bytes as \xNN,
// long values cut.
std::string Shown(std::string_view v) {
  constexpr size_t kMax = 80;
  std::string out;
  for (size_t i = 0; i < v.size() && out.size() < kMax; ++i) {
    const unsigned char c = static_cast<unsigned char>(v[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    }
  }
  if (out.size() >= kMax) out += "...";
  return out;
}

std::string Csn(const std::string& csn) { return csn.empty() ? "(none)" : csn; }

void PrintLone(const char* title, const std::vector<LoneEntry>& list, size_t examples) {
  std::printf("%s: %zu\n", title, list.size());
  for (size_t i = 0; i < list.size() && i < examples; ++i) {
    std::printf("  %s (entryCSN %s)\n", list[i].dn.c_str(), Csn(list[i].entry_csn).c_str());
  }
  if (list.size() > examples) std::printf("  ... and %zu more\n", list.size() - examples);
}

void PrintReport(const CompareReport& r, const std::string& b_name, size_t examples,
                 const std::string& changes) {
  std::printf("entries: A %llu, B %llu (%s), equal %llu\n",
              static_cast<unsigned long long>(r.entries_a),
              static_cast<unsigned long long>(r.entries_b), b_name.c_str(),
              static_cast<unsigned long long>(r.equal));
  PrintLone("only in A", r.only_a, examples);
  PrintLone("only in B", r.only_b, examples);
  std::printf("moved (one entryUUID, a name on each side): %zu\n", r.moved.size());
  for (size_t i = 0; i < r.moved.size() && i < examples; ++i) {
    std::printf("  %s: %s -> %s\n", r.moved[i].entry_uuid.c_str(), r.moved[i].dn_a.c_str(),
                r.moved[i].dn_b.c_str());
  }
  if (r.moved.size() > examples) std::printf("  ... and %zu more\n", r.moved.size() - examples);
  std::printf("differing: %zu\n", r.differing.size());
  for (size_t i = 0; i < r.differing.size() && i < examples; ++i) {
    const DifferingEntry& d = r.differing[i];
    std::printf("  %s (entryCSN A %s, B %s)\n", d.dn.c_str(), Csn(d.csn_a).c_str(),
                Csn(d.csn_b).c_str());
    for (const AttributeDifference& attr : d.attributes) {
      std::printf("    %s:%s%s\n", attr.description.c_str(), attr.in_a ? "" : " only in B",
                  attr.in_b ? "" : " only in A");
      for (const std::string& v : attr.only_a) std::printf("      A: %s\n", Shown(v).c_str());
      for (const std::string& v : attr.only_b) std::printf("      B: %s\n", Shown(v).c_str());
    }
  }
  if (r.differing.size() > examples) {
    std::printf("  ... and %zu more\n", r.differing.size() - examples);
  }
  if (!changes.empty() && changes != "-") {
    std::printf("change records: %llu, in %s\n", static_cast<unsigned long long>(r.change_records),
                changes.c_str());
  }
  std::printf("%s\n", r.same() ? "equal" : "different");
}

int RunCompare(const CompareArgs& a) {
  const bool other_db = HasDatabase(a.with);
  if (other_db == !a.with.ldif.empty()) {
    return ReportError(
        Status::InvalidArgument("compare: name B either as a database (--with-config, "
                                "--with-config-dir, --with-n, --with-suffix, --with-db) or as an "
                                "LDIF file (--with-ldif), not both")
            .WithOrigin(ErrorOrigin::kUsage));
  }
  if (a.changes == "-" && a.examples > 0) {
    // The report and the change records would share standard output.
    return ReportError(
        Status::InvalidArgument("compare: --changes - needs --examples 0 (the report goes to "
                                "standard output too); or write the changes to a file")
            .WithOrigin(ErrorOrigin::kUsage));
  }
  Result<std::unique_ptr<Database>> db_a = Database::Open(ToOpenOptions(a.db, Access::kRead));
  if (!db_a.ok()) return ReportError(db_a.status());
  PrintNotes((*db_a)->config(), a.db.verbose);
  std::unique_ptr<Database> db_b;
  std::string b_name = a.with.ldif;
  if (other_db) {
    Result<std::unique_ptr<Database>> opened = Database::Open(OtherOpenOptions(a));
    if (!opened.ok()) return ReportError(opened.status().WithPrefix("B: "));
    db_b = std::move(*opened);
    PrintNotes(db_b->config(), a.db.verbose);
    b_name = db_b->dir();
  }
  CompareSide side_a{db_a->get(), ""};
  CompareSide side_b{db_b.get(), a.with.ldif};
  CompareOptions o;
  for (const std::string& list : a.ignore) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = std::min(list.find(',', start), list.size());
      if (comma > start) o.canonical.ignore.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  o.canonical.user_attributes_only = a.user_attributes;
  o.changes = a.changes;
  Result<CompareReport> r = CompareEntries(side_a, side_b, o);
  if (!r.ok()) return ReportError(r.status());
  if (a.changes != "-" || a.examples > 0) PrintReport(*r, b_name, a.examples, a.changes);
  return r->same() ? kExitOk : kExitBadData;
}

}  // namespace

CommandRunner RegisterCompare(CLI::App* app) {
  auto a = std::make_shared<CompareArgs>();
  CLI::App* cmd = app->add_subcommand(
      "compare",
      "compare two copies of a directory entry by entry: A, the database -f/-F/-b/-n/--db "
      "select, with B, the database the --with-* options select or an LDIF file: entries only "
      "in A, only in B, moved (one entryUUID, two names) and differing, attribute by "
      "attribute; --changes writes the change records that turn A into B. Exit 0 when equal, "
      "1 when different");
  AddDatabaseOptions(cmd, &a->db, /*engine_options=*/false);
  cmd->remove_option(cmd->get_option("--index"));
  OtherArgs& w = a->with;
  cmd->add_option("--with-config", w.config_file, "B: the slapd.conf to select B's database from")
      ->option_text("FILE");
  cmd->add_option("--with-config-dir", w.config_dir, "B: the slapd.d to select it from")
      ->option_text("DIR");
  w.database_number_option =
      cmd->add_option("--with-n", w.database_number, "B: its database number, as -n counts")
          ->option_text("N");
  w.suffix_option =
      cmd->add_option("--with-suffix", w.suffix,
                      "B: the database whose suffix holds DN, as -b selects (without a "
                      "configuration: the suffix of the --with-db database)")
          ->option_text("DN");
  cmd->add_option("--with-db", w.db_dir, "B: its database directory, as --db")->option_text("DIR");
  cmd->add_option("--with-backend", w.backend, "B: its storage engine, as --backend")
      ->check(CLI::IsMember({"lmdb", "bdb"}));
  cmd->add_option("--with-ldif", w.ldif,
                  "B is this LDIF file of entries (plain or gzip; read twice, so not standard "
                  "input)")
      ->option_text("FILE");
  cmd->add_option("--changes", a->changes,
                  "write the change records that turn A into B to FILE ('-': standard output, "
                  "with --examples 0), for dirload modify --relax or ldapmodify -e relax")
      ->option_text("FILE");
  cmd->add_option("--ignore", a->ignore,
                  "leave these attribute types out of the comparison (repeatable, or "
                  "comma-separated)")
      ->option_text("ATTR");
  cmd->add_flag("--user-attributes", a->user_attributes,
                "compare user attributes only: leave out entryUUID, entryCSN, the timestamps, "
                "contextCSN and every other operational attribute (as for an LDIF export "
                "without them)");
  cmd->add_option("--examples", a->examples,
                  "entries named per kind of difference (default 10; the rest are counted)");
  return [a] { return RunCompare(*a); };
}

}  // namespace dirload::tools
