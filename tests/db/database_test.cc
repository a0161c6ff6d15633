// Database: what Open refuses, what a LoadJob leaves when it is destroyed
// without Commit, and reading and index planning through the format seam,
// on both formats.
#include "lib/db/database.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lib/db/index_job.h"
#include "lib/db/load_job.h"
#include "lib/format/database_report_json.h"
#include "lib/format/database_report_text.h"
#include "lib/db/pending_work.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::TempDir;

constexpr const char* kSuffix = "dc=example,dc=com";

std::string People(int first, int count) {
  std::string ldif;
  if (first == 0) {
    ldif +=
        "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
        "dc: example\no: Example\n\n"
        "dn: ou=People,dc=example,dc=com\nobjectClass: organizationalUnit\nou: People\n\n";
  }
  for (int i = first; i < first + count; ++i) {
    std::string uid = "u" + std::to_string(i);
    ldif += "dn: uid=" + uid +
            ",ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: " + uid +
            "\ncn: User " + std::to_string(i) + "\nsn: Surname" + std::to_string(i % 7) + "\n\n";
  }
  return ldif;
}

OpenOptions Options(const TempDir& t, Access access, const std::string& format = "") {
  OpenOptions o;
  o.database.db_dir = t.File("db");
  o.database.suffix = kSuffix;
  o.database.index_lines = {"uid,cn eq", "sn eq,sub"};
  o.access = access;
  o.format = format;
  return o;
}

struct Notices {
  std::vector<std::string> lines;
  NoticeSink sink() {
    return [this](std::string_view l) { lines.emplace_back(l); };
  }
  bool Has(std::string_view part) const {
    for (const std::string& l : lines) {
      if (l.find(part) != std::string::npos) return true;
    }
    return false;
  }
};

// Loads `ldif` and commits; REQUIREs success.
void Load(const TempDir& t, const std::string& format, const std::string& ldif) {
  auto db = Database::Open(Options(t, Access::kLoad, format));
  REQUIRE_MESSAGE(db.ok(), db.status().message());
  LoadJobOptions o;
  o.ldif = t.Write("in.ldif", ldif);
  o.load.threads = 0;
  auto job = (*db)->BeginLoad(o);
  REQUIRE_MESSAGE(job.ok(), job.status().message());
  auto summary = (*job)->Run();
  REQUIRE_MESSAGE(summary.ok(), summary.status().message());
  Status committed = (*job)->Commit();
  REQUIRE_MESSAGE(committed.ok(), committed.message());
}

std::vector<std::string> Dns(const TempDir& t) {
  auto db = Database::Open(Options(t, Access::kRead));
  REQUIRE_MESSAGE(db.ok(), db.status().message());
  std::vector<std::string> dns;
  Status s = (*db)->ForEachEntry(nullptr, [&](const EntryView& e) {
    dns.emplace_back(e.dn);
    return Status::Ok();
  });
  REQUIRE_MESSAGE(s.ok(), s.message());
  return dns;
}

}  // namespace

TEST_CASE("Open refuses what is not there, a second writer, and pending work") {
  TempDir t;
  SUBCASE("no database to read") {
    auto db = Database::Open(Options(t, Access::kRead));
    REQUIRE_FALSE(db.ok());
    CHECK(db.status().code() == StatusCode::kNotFound);
  }
  SUBCASE("a load needs a suffix") {
    OpenOptions o = Options(t, Access::kLoad);
    o.database.suffix.reset();
    auto db = Database::Open(o);
    REQUIRE_FALSE(db.ok());
    CHECK(db.status().message().find("no suffix") != std::string::npos);
  }
  SUBCASE("one writer at a time") {
    auto first = Database::Open(Options(t, Access::kLoad));
    REQUIRE(first.ok());
    auto second = Database::Open(Options(t, Access::kLoad));
    REQUIRE_FALSE(second.ok());
    CHECK(second.status().origin() == ErrorOrigin::kDatabase);
    CHECK(second.status().message().find("in use by process") != std::string::npos);
    first->reset();
    CHECK(Database::Open(Options(t, Access::kLoad)).ok());
  }
  SUBCASE("work that did not finish names dirload recover") {
    Load(t, "native", People(0, 3));
    PendingWork work;
    work.kind = WorkKind::kAppend;
    work.format = DatabaseFormat::kNative;
    work.command = "dirload add";
    REQUIRE(BeginPendingWork(t.File("db"), work).ok());
    for (Access access : {Access::kRead, Access::kReport}) {
      auto db = Database::Open(Options(t, access));
      REQUIRE_FALSE(db.ok());
      CHECK(db.status().origin() == ErrorOrigin::kDatabase);
      CHECK(db.status().message().find("dirload recover") != std::string::npos);
    }
  }
  SUBCASE("a format the database does not have") {
    Load(t, "native", People(0, 3));
    auto db = Database::Open(Options(t, Access::kLoad, "mdb"));
    REQUIRE_FALSE(db.ok());
    CHECK(db.status().message().find("holds a native database") != std::string::npos);
  }
}

TEST_CASE("a LoadJob destroyed without Commit rolls back") {
  for (const std::string format : {"native", "mdb"}) {
    CAPTURE(format);
    TempDir t;
    SUBCASE("a new database: nothing is left") {
      Notices notices;
      {
        auto db = Database::Open(Options(t, Access::kLoad, format));
        REQUIRE(db.ok());
        LoadJobOptions o;
        o.ldif = t.Write("in.ldif", People(0, 50));
        o.notice = notices.sink();
        auto job = (*db)->BeginLoad(o);
        REQUIRE(job.ok());
        REQUIRE((*job)->Run().ok());
      }
      auto read = Database::Open(Options(t, Access::kRead));
      CHECK_FALSE(read.ok());
      CHECK_FALSE(std::filesystem::exists(t.File("db/.dirload-build")));
      CHECK_FALSE(std::filesystem::exists(t.File("db/dirload.pending")));
      if (format == "native") CHECK(notices.Has("the load was undone"));
    }
    SUBCASE("an append: the database is as it was") {
      Load(t, format, People(0, 20));
      const std::vector<std::string> before = Dns(t);
      REQUIRE(before.size() == 22);
      Notices notices;
      {
        auto db = Database::Open(Options(t, Access::kLoad));
        REQUIRE(db.ok());
        LoadJobOptions o;
        o.ldif = t.Write("more.ldif", People(20, 30));
        o.notice = notices.sink();
        auto job = (*db)->BeginLoad(o);
        REQUIRE(job.ok());
        REQUIRE((*job)->Run().ok());
      }
      CHECK(Dns(t) == before);
      CHECK_FALSE(std::filesystem::exists(t.File("db/dirload.pending")));
      if (format == "native") CHECK(notices.Has("the append was rolled back"));
    }
    SUBCASE("committed, the append is there") {
      Load(t, format, People(0, 20));
      Load(t, format, People(20, 30));
      const std::vector<std::string> dns = Dns(t);
      REQUIRE(dns.size() == 52);
      CHECK(dns.back() == "uid=u49,ou=People,dc=example,dc=com");
    }
  }
}

TEST_CASE("reading through the seam: entries, search, report, index plan") {
  for (const std::string format : {"native", "mdb"}) {
    CAPTURE(format);
    TempDir t;
    Load(t, format, People(0, 40));
    auto db = Database::Open(Options(t, Access::kRead));
    REQUIRE(db.ok());
    CHECK(DatabaseFormatName((*db)->format()) == format);
    CHECK((*db)->suffix() == kSuffix);
    CHECK((*db)->slapcat_ldif() == (format == "mdb"));

    // The same entries by index, by scan, and through a selection.
    for (bool use_indexes : {true, false}) {
      SearchRequest req;
      req.base = kSuffix;
      req.filter = *ParseFilter("(sn=Surname3)");
      req.use_indexes = use_indexes;
      std::vector<EntryId> ids;
      auto r = (*db)->Search(std::move(req), [&](EntryId id, const EntryView&) {
        ids.push_back(id);
        return Status::Ok();
      });
      REQUIRE_MESSAGE(r.ok(), r.status().message());
      CHECK(r->matched == 6);  // u3, u10, u17, u24, u31, u38
      CHECK(r->scanned == !use_indexes);
    }
    EntrySelection selection;
    selection.base = "ou=People,dc=example,dc=com";
    selection.scope = SearchScope::kOne;
    selection.filter = *ParseFilter("(cn=User 1*)");
    std::vector<std::string> dns;
    REQUIRE((*db)
                ->ForEachEntry(&selection,
                               [&](const EntryView& e) {
                                 dns.emplace_back(e.dn);
                                 return Status::Ok();
                               })
                .ok());
    CHECK(dns.size() == 11);  // User 1, 10-19
    auto report = (*db)->Report();
    REQUIRE(report.ok());
    CHECK(report->format == (*db)->format());
    CHECK(report->entries == 42);
    CHECK(report->indexes.size() == 3);  // cn, sn, uid
    CHECK(DatabaseReportText(*report).find("entries     42\n") != std::string::npos);
    CHECK(DatabaseReportToJson(*report).front() == '{');
    db->reset();

    // Nothing changed since the load: a check finds the indexes current on
    // the native format; slapd's format cannot tell, and finds none missing.
    auto check = Database::Open(Options(t, Access::kIndexCheck));
    REQUIRE(check.ok());
    auto plan = (*check)->PlanIndexes(IndexRequest{});
    REQUIRE_MESSAGE(plan.ok(), plan.status().message());
    CHECK(plan->current);
    check->reset();

    // A new index line: not built yet.
    OpenOptions more = Options(t, Access::kIndexCheck);
    more.database.index_lines.push_back("mail eq");
    auto changed = Database::Open(more);
    REQUIRE(changed.ok());
    auto stale = (*changed)->PlanIndexes(IndexRequest{});
    REQUIRE(stale.ok());
    CHECK_FALSE(stale->current);
  }
}

}  // namespace dirload
