// `dirload index` and `dirload search` on slapd's own database. slapadd 2.5
// writes the databases; slapindex, slapcat and mdb_dump are the oracle:
//   - dirload index on a database slapadd wrote without index lines gives
//     index databases identical (mdb_dump -s) to slapindex's on a copy; a
//     named attribute rebuilds only its index; --all drops what is no longer
//     configured; too many index attributes are refused.
//   - --explain shows the indexes at work; a key over 65,535 IDs (stored as
//     a range) gives the right entries.
// The filter matrix is in mdb_search_matrix_test.cc. Skips when OpenLDAP is
// not installed.
#include <doctest/doctest.h>

#include "tests/format/mdb/mdb_search_support.h"

namespace dirload::mdb_search_testing {
namespace {

TEST_CASE("dirload index rebuilds slapd's indexes as slapindex does") {
  SKIP_WITHOUT_OPENLDAP();
  TempDir tmp;
  Db db = Slapadd(tmp, "db", Ldif(), {});
  // The configuration gains index lines after the load.
  db.conf = tmp.Write("db.conf", Conf(db.dir, kIndexLines));
  Db oracle = Copy(tmp, db, "oracle", kIndexLines);
  auto si = testing::RunSlapindex({"-q", "-f", oracle.conf}, 120);
  REQUIRE_MESSAGE(si.exit_code == 0, si.Describe());

  // Before the rebuild: the configured indexes have no databases; search
  // says so and still answers exactly.
  auto before = RunDirload({"search", "-f", db.conf, "--dn", "(cn=nick1)"}, 60);
  REQUIRE_MESSAGE(before.exit_code == 0, before.Describe());
  CHECK(before.err.find("stale index not used: cn") != std::string::npos);
  CHECK(SortedDns(before.out, false).size() == 8);

  SUBCASE("every configured index") {
    auto r = RunDirload({"index", "-f", db.conf}, 120);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    CHECK(ListDbs(db.dir) == ListDbs(oracle.dir));
    for (const char* name : {"objectClass", "cn", "sn", "mail", "uid", "description", "member",
                             "entryUUID", "telephoneNumber", "uidNumber"}) {
      CAPTURE(name);
      CHECK(Dump(db.dir, name) == Dump(oracle.dir, name));
    }
    // Rebuilding again changes nothing.
    auto again = RunDirload({"index", "-f", db.conf}, 120);
    REQUIRE_MESSAGE(again.exit_code == 0, again.Describe());
    CHECK(Dump(db.dir, "cn") == Dump(oracle.dir, "cn"));
    // --check cannot tell stale indexes here and says so.
    auto check = RunDirload({"index", "-f", db.conf, "--check"}, 60);
    CHECK(check.exit_code == 0);
    CHECK(check.err.find("cannot tell") != std::string::npos);
  }
  SUBCASE("only the attribute named") {
    auto r = RunDirload({"index", "-f", db.conf, "CN"}, 120);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    std::vector<std::string> dbs = ListDbs(db.dir);
    CHECK(Has(dbs, "cn"));
    CHECK_FALSE(Has(dbs, "sn"));
    CHECK_FALSE(Has(dbs, "objectClass"));
    CHECK(Dump(db.dir, "cn") == Dump(oracle.dir, "cn"));
  }
  SUBCASE("--all with fewer index lines drops the others") {
    auto r = RunDirload({"index", "-f", db.conf}, 120);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    const std::vector<std::string> fewer = {"objectClass eq", "cn eq,sub"};
    std::string conf2 = tmp.Write("fewer.conf", Conf(db.dir, fewer));
    // Without --all the others are kept, and listed.
    auto keep = RunDirload({"index", "-f", conf2}, 120);
    REQUIRE_MESSAGE(keep.exit_code == 0, keep.Describe());
    CHECK(keep.err.find("no longer configured") != std::string::npos);
    CHECK(Has(ListDbs(db.dir), "sn"));
    // Naming one drops just it.
    auto named = RunDirload({"index", "-f", conf2, "mail"}, 120);
    REQUIRE_MESSAGE(named.exit_code == 0, named.Describe());
    CHECK_FALSE(Has(ListDbs(db.dir), "mail"));
    CHECK(Has(ListDbs(db.dir), "sn"));
    auto all = RunDirload({"index", "-f", conf2, "--all"}, 120);
    REQUIRE_MESSAGE(all.exit_code == 0, all.Describe());
    std::vector<std::string> dbs = ListDbs(db.dir);
    CHECK(Has(dbs, "cn"));
    CHECK(Has(dbs, "objectClass"));
    for (const char* gone : {"sn", "uid", "description", "member", "entryUUID"}) {
      CAPTURE(gone);
      CHECK_FALSE(Has(dbs, gone));
    }
    // What remains is what slapindex builds for that configuration, and
    // slapcat still reads the database.
    Db oracle2 = Copy(tmp, Db{db.dir, conf2}, "oracle2", fewer);
    auto si2 = testing::RunSlapindex({"-q", "-f", oracle2.conf}, 120);
    REQUIRE_MESSAGE(si2.exit_code == 0, si2.Describe());
    CHECK(Dump(db.dir, "cn") == Dump(oracle2.dir, "cn"));
    auto cat = testing::RunSlapcat({"-f", conf2}, 60);
    CHECK_MESSAGE(cat.exit_code == 0, cat.Describe());
  }
}

TEST_CASE("dirload index refuses more index attributes than back-mdb opens") {
  SKIP_WITHOUT_OPENLDAP();
  TempDir tmp;
  Db db = Slapadd(tmp, "db", Ldif(), {});
  // Every attribute type of the schema files, presence-indexed.
  std::vector<std::string> names;
  for (const char* file : {"core", "cosine", "inetorgperson", "nis"}) {
    auto r = RunProcess({"/bin/sh", "-c",
                         std::string("grep -v '^#' /etc/ldap/schema/") + file +
                             ".schema | tr '\\n\\t' '  ' | grep -oE \"attributetype +\\( *[0-9.]+ "
                             "+NAME +\\(? *'[A-Za-z0-9-]+'\" | "
                             "sed -E \"s/.*'([A-Za-z0-9-]+)'$/\\1/\""},
                        30);
    for (const std::string& n : Lines(r.out)) names.push_back(n + " pres");
  }
  // A type may be defined in two files (the second definition is ignored).
  std::sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return strcasecmp(a.c_str(), b.c_str()) < 0;
  });
  names.erase(std::unique(names.begin(), names.end(),
                          [](const std::string& a, const std::string& b) {
                            return strcasecmp(a.c_str(), b.c_str()) == 0;
                          }),
              names.end());
  REQUIRE(names.size() > 124);
  std::string conf = tmp.Write("many.conf", Conf(db.dir, names));
  auto r = RunDirload({"index", "-f", conf}, 60);
  CHECK_MESSAGE(r.exit_code == 2, r.Describe());
  CHECK(r.err.find("at most 124") != std::string::npos);
  CHECK(ListDbs(db.dir).size() == 4);  // nothing was written
}

TEST_CASE("dirload search --explain shows the indexes used on slapd's database") {
  SKIP_WITHOUT_OPENLDAP();
  TempDir tmp;
  Db db = Slapadd(tmp, "db", Ldif(), kIndexLines);
  auto r = RunDirload({"search", "-f", db.conf, "--explain", "--count", "(cn=user 3)"}, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK(r.out == "1\n");
  CHECK(r.err.find("index cn eq:") != std::string::npos);
  CHECK(r.err.find("indexed: 1 candidates, 1 entries examined, 1 matched") != std::string::npos);
  auto scan = RunDirload(
      {"search", "-f", db.conf, "--explain", "--count", "--no-index", "(cn=user 3)"}, 60);
  REQUIRE_MESSAGE(scan.exit_code == 0, scan.Describe());
  CHECK(scan.out == "1\n");
  CHECK(scan.err.find("scan:") != std::string::npos);
  // An unindexed attribute falls back to a scan.
  auto ou = RunDirload({"search", "-f", db.conf, "--explain", "--count", "(ou=Sub)"}, 60);
  REQUIRE_MESSAGE(ou.exit_code == 0, ou.Describe());
  CHECK(ou.out == "1\n");
  CHECK(ou.err.find("not indexed: no index on ou") != std::string::npos);
}

TEST_CASE("dirload search reads a key stored as a range of IDs") {
  SKIP_WITHOUT_OPENLDAP();
  TempDir tmp;
  const int kDevices = 66000;
  std::string ldif =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "dc: example\no: Example\n\n"
      "dn: ou=d,dc=example,dc=com\nobjectClass: organizationalUnit\nou: d\n\n";
  for (int i = 0; i < kDevices; ++i) {
    ldif += "dn: cn=d" + std::to_string(i) + ",ou=d,dc=example,dc=com\nobjectClass: device\ncn: d" +
            std::to_string(i) + "\n\n";
  }
  Db db = Slapadd(tmp, "db", ldif, {"objectClass eq", "cn eq"});
  // slapadd stored objectClass=device as the range {0, lo, hi}.
  auto devices =
      RunDirload({"search", "-f", db.conf, "--count", "--explain", "(objectClass=device)"}, 120);
  REQUIRE_MESSAGE(devices.exit_code == 0, devices.Describe());
  CHECK(devices.out == std::to_string(kDevices) + "\n");
  CHECK(devices.err.find("(range ") != std::string::npos);
  auto both =
      RunDirload({"search", "-f", db.conf, "--dn", "(&(objectClass=device)(cn=d65999))"}, 120);
  REQUIRE_MESSAGE(both.exit_code == 0, both.Describe());
  CHECK(both.out == "cn=d65999,ou=d,dc=example,dc=com\n");
  auto top =
      RunDirload({"search", "-f", db.conf, "--count", "-s", "one", "(objectClass=top)"}, 120);
  REQUIRE_MESSAGE(top.exit_code == 0, top.Describe());
  CHECK(top.out == "1\n");
  auto under = RunDirload({"search", "-f", db.conf, "--count", "-b", "ou=d,dc=example,dc=com", "-s",
                           "one", "(objectClass=device)"},
                          120);
  REQUIRE_MESSAGE(under.exit_code == 0, under.Describe());
  CHECK(under.out == std::to_string(kDevices) + "\n");
}

// An index database that is empty while entries exist was never built
// (stale), unless no entry holds the attribute: then it is right, and
// search uses it without a warning. ad2i tells which attributes entries hold.
TEST_CASE("search: an empty index is stale only when entries hold its attribute") {
  SKIP_WITHOUT_OPENLDAP();
  TempDir tmp;
  const std::vector<std::string> lines = {"objectClass eq", "cn eq", "employeeType eq,pres"};
  // slapadd builds every index; no entry has an employeeType.
  Db db = Slapadd(tmp, "db", Ldif(), lines);
  auto r = RunDirload({"search", "-f", db.conf, "--dn", "--explain", "(employeeType=*)"}, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK_MESSAGE(r.err.find("stale") == std::string::npos, r.err);
  CHECK(SortedDns(r.out, false).empty());
  // Without phase 2 there are no index databases; made empty (mdb_load,
  // with back-mdb's flags), cn's is stale and employeeType's is not.
  const std::string mdb_load = testing::FindProgram("mdb_load");
  if (mdb_load.empty()) return;
  Db unbuilt;
  unbuilt.dir = tmp.File("unbuilt");
  std::filesystem::create_directory(unbuilt.dir);
  unbuilt.conf = tmp.Write("unbuilt.conf", Conf(unbuilt.dir, lines));
  auto add = RunDirload({"add", "-f", unbuilt.conf, "-l", tmp.Write("in.ldif", Ldif()),
                         "--no-index", "--progress", "never"},
                        60);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  for (const char* name : {"objectClass", "cn", "employeeType"}) {
    const std::string empty =
        tmp.Write(std::string(name) + ".dump",
                  "VERSION=3\nformat=bytevalue\ndatabase=" + std::string(name) +
                      "\ntype=btree\ndupsort=1\ndupfixed=1\nintegerdup=1\nHEADER=END\nDATA=END\n");
    auto load = testing::RunProcess({mdb_load, "-f", empty, unbuilt.dir}, 60);
    REQUIRE_MESSAGE(load.exit_code == 0, load.Describe());
  }
  r = RunDirload({"search", "-f", unbuilt.conf, "--dn", "(|(cn=nick1)(employeeType=x))"}, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK_MESSAGE(
      r.err.find("stale index not used: cn: index database is empty") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("employeeType") == std::string::npos, r.err);
  CHECK(SortedDns(r.out, false).size() == 8);
}

}  // namespace
}  // namespace dirload::mdb_search_testing
