// back-mdb's `multival` and slapd's `sortvals` against OpenLDAP itself:
// groups of a few thousand members (member, and uniqueMember with and
// without "#'..'B" UIDs) loaded by slapadd and by `dirload add` from the
// same slapcat export, with multival alone, sortvals alone and both. Then
// every sub-database as mdb_dump prints it is the same (id2v included, id2e
// up to the padding slapd leaves unzeroed), slapcat and `dirload cat` print
// the same bytes, `dirload index` (both methods) and `slapindex -q -t`
// leave the indexes as they are, `dirload verify` and `dirload search` read
// the values, and slapd serves the database: a member added and removed
// with ldapmodify, a big group added by `dirload add --online` beside it,
// after which `dirload verify` is still clean.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::FirstDifference;
using testing::MdbDatabases;
using testing::MdbDump;
using testing::ProcessResult;
using testing::RunDirload;
using testing::SlapdConf;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";
constexpr int kPeople = 3000;
constexpr char kMultival[] = "multival member,uniqueMember 100,10";
constexpr char kSortvals[] = "sortvals member uniqueMember cn description";

const std::vector<std::string> kIndexLines = {"objectClass eq", "member,uniqueMember eq",
                                              "cn eq,sub", "uid eq"};

std::string Person(int i) { return "uid=u" + std::to_string(i) + ",ou=people," + kSuffix; }

// People with two cn values and descriptions out of order, and groups
// past and below the multival threshold, their members in a scrambled
// order; uniqueMember values with UIDs among those without.
std::string Directory() {
  std::string s = std::string("dn: ") + kSuffix +
                  "\nobjectClass: dcObject\nobjectClass: organization\no: E\ndc: example\n\n";
  s +=
      std::string("dn: ou=people,") + kSuffix + "\nobjectClass: organizationalUnit\nou: people\n\n";
  s +=
      std::string("dn: ou=groups,") + kSuffix + "\nobjectClass: organizationalUnit\nou: groups\n\n";
  for (int i = 0; i < kPeople; ++i) {
    const std::string n = std::to_string(i);
    s += "dn: " + Person(i) + "\nobjectClass: inetOrgPerson\nuid: u" + n + "\ncn: Zed " + n +
         "\ncn: Al " + n + "\nsn: S" + n + "\ndescription: z" + n + "\ndescription: A" + n + "\n\n";
  }
  auto member = [](int k, int count) { return (k * 7919) % count; };
  const int sizes[] = {kPeople, 1500, 101, 50};
  for (int g = 0; g < 4; ++g) {
    s += "dn: cn=group" + std::to_string(g) + ",ou=groups," + kSuffix +
         "\nobjectClass: groupOfNames\ncn: group" + std::to_string(g) + "\n";
    for (int k = 0; k < sizes[g]; ++k) s += "member: " + Person(member(k, sizes[g])) + "\n";
    s += "\n";
  }
  const int unique_sizes[] = {2000, 150, 20};
  for (int g = 0; g < 3; ++g) {
    s += "dn: cn=unique" + std::to_string(g) + ",ou=groups," + kSuffix +
         "\nobjectClass: groupOfUniqueNames\ncn: unique" + std::to_string(g) + "\n";
    for (int k = 0; k < unique_sizes[g]; ++k) {
      const int p = member(k, unique_sizes[g]);
      std::string v = Person(p);
      if (p % 3 == 0) v += "#'" + std::string(p % 2 ? "1" : "01") + "'B";
      s += "uniqueMember: " + v + "\n";
    }
    s += "\n";
  }
  return s;
}

struct Db {
  std::string dir, conf;
};

Db MakeDb(const TempDir& tmp, const std::string& name, const std::vector<std::string>& global,
          const std::vector<std::string>& database) {
  Db db{tmp.File(name), ""};
  fs::create_directory(db.dir);
  SlapdConf conf;
  conf.LoadBackMdb().Include(testing::kExampleSchemas).Line("sizelimit unlimited").Lines(global);
  db.conf = conf.Database("mdb")
                .Suffix(kSuffix)
                .RootDn(testing::kExampleRootDn)
                .Line("rootpw secret")
                .Directory(db.dir)
                .MaxSize(uint64_t{1} << 30)
                .Indexes(kIndexLines)
                .Lines(database)
                .Write(tmp, name + ".conf");
  return db;
}

std::string Slapcat(const Db& db) {
  ProcessResult r = testing::RunSlapcat({"-f", db.conf}, 300);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return r.out;
}

// Every sub-database of `mine` equals `theirs` as mdb_dump prints it, id2e
// up to slapd's unzeroed padding.
void CompareDatabases(const std::string& theirs, const std::string& mine) {
  const std::vector<std::string> dbs = MdbDatabases(theirs);
  CHECK(MdbDatabases(mine) == dbs);
  for (const std::string& name : dbs) {
    CAPTURE(name);
    std::string a = MdbDump(mine, name), b = MdbDump(theirs, name);
    if (name == "id2e") {
      size_t mine_dirty = 0, theirs_dirty = 0;
      a = testing::MaskId2ePadding(a, &mine_dirty);
      CHECK_MESSAGE(mine_dirty == 0, "dirload left non-zero padding in id2e");
      b = testing::MaskId2ePadding(b, &theirs_dirty);
    }
    CHECK(FirstDifference(a, b) == "");
  }
}

bool IsIndex(const std::string& name) {
  return name != "ad2i" && name != "dn2i" && name != "id2e" && name != "id2v";
}

// `slapindex -q -t` on a copy of `db` rebuilds every index to the same bytes.
void CheckSlapindexKeepsIndexes(const TempDir& tmp, const Db& db, const std::string& name,
                                const std::vector<std::string>& global,
                                const std::vector<std::string>& database) {
  Db copy = MakeDb(tmp, name, global, database);
  fs::copy_file(fs::path(db.dir) / "data.mdb", fs::path(copy.dir) / "data.mdb");
  std::vector<std::string> names;
  for (const std::string& n : MdbDatabases(copy.dir)) {
    if (IsIndex(n)) names.push_back(n);
  }
  REQUIRE(names.size() == 5);
  std::vector<std::string> before;
  for (const std::string& n : names) before.push_back(MdbDump(copy.dir, n));
  ProcessResult r = testing::RunSlapindex({"-q", "-t", "-f", copy.conf}, 300);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  for (size_t i = 0; i < names.size(); ++i) {
    CAPTURE(names[i]);
    CHECK(FirstDifference(MdbDump(copy.dir, names[i]), before[i]) == "");
  }
}

void CheckVerify(const Db& db) {
  ProcessResult v = RunDirload({"verify", "-f", db.conf, "--progress", "never"}, 300);
  CHECK_MESSAGE(v.exit_code == 0, v.Describe());
}

size_t CountIn(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The whole run for one configuration. `id2v_used`: whether the
// configuration puts values in id2v.
void CheckConfiguration(const std::string& label, const std::vector<std::string>& global,
                        const std::vector<std::string>& database, bool id2v_used) {
  CAPTURE(label);
  TempDir tmp;
  // An export with fixed operational attributes, from a load without the
  // options, so that both loads below start from the same unsorted values.
  const std::string raw = tmp.Write("raw.ldif", Directory());
  Db db0 = MakeDb(tmp, "db0", {}, {});
  ProcessResult first = testing::RunSlapadd({"-q", "-f", db0.conf, "-l", raw}, 300);
  REQUIRE_MESSAGE(first.exit_code == 0, first.Describe());
  const std::string exported = tmp.Write("export.ldif", Slapcat(db0));

  Db theirs = MakeDb(tmp, "slapadd", global, database);
  ProcessResult added = testing::RunSlapadd({"-q", "-f", theirs.conf, "-l", exported}, 300);
  REQUIRE_MESSAGE(added.exit_code == 0, added.Describe());
  Db mine = MakeDb(tmp, "dirload", global, database);
  ProcessResult loaded =
      RunDirload({"add", "-f", mine.conf, "-l", exported, "--progress", "never"}, 300);
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());

  // The options change the database, or the comparison proves nothing.
  CHECK((MdbDump(theirs.dir, "id2v").find("\n ") != std::string::npos) == id2v_used);
  CHECK(FirstDifference(MdbDump(theirs.dir, "id2e"), MdbDump(db0.dir, "id2e")) != "");
  {
    INFO("every sub-database, as mdb_dump prints it");
    CompareDatabases(theirs.dir, mine.dir);
  }
  const std::string cat_theirs = Slapcat(theirs);
  {
    INFO("slapcat of both, and dirload cat, print the same bytes");
    CHECK(FirstDifference(Slapcat(mine), cat_theirs) == "");
    ProcessResult cat = RunDirload({"cat", "-f", mine.conf}, 300);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    CHECK(FirstDifference(cat.out, cat_theirs) == "");
  }
  {
    INFO("dirload index, both methods, rebuilds slapadd's indexes");
    for (const char* method : {"sort", "cache"}) {
      CAPTURE(method);
      ProcessResult r = RunDirload({"index", "-f", mine.conf, "--index-method", method, "member",
                                    "uniqueMember", "cn", "--progress", "never"},
                                   300);
      REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
      for (const char* name : {"member", "uniqueMember", "cn"}) {
        CAPTURE(name);
        CHECK(FirstDifference(MdbDump(mine.dir, name), MdbDump(theirs.dir, name)) == "");
      }
    }
  }
  {
    INFO("slapindex -q -t on a copy changes no index; verify, stat and search read it");
    CheckSlapindexKeepsIndexes(tmp, mine, "slapindex-copy", global, database);
    CheckVerify(mine);
    ProcessResult stat = RunDirload({"stat", "-f", mine.conf}, 120);
    CHECK_MESSAGE(stat.exit_code == 0, stat.Describe());
    ProcessResult found = RunDirload(
        {"search", "-f", mine.conf, "-b", kSuffix, "--dn", "(member=" + Person(2999) + ")"}, 120);
    REQUIRE_MESSAGE(found.exit_code == 0, found.Describe());
    CHECK(CountIn(found.out, "cn=group") == 1);
    // Person 3's uniqueMember values carry the UID '1'B, in all three groups.
    ProcessResult unindexed = RunDirload({"search", "-f", mine.conf, "-b", kSuffix, "--no-index",
                                          "--dn", "(uniqueMember=" + Person(3) + "#'1'B)"},
                                         120);
    REQUIRE_MESSAGE(unindexed.exit_code == 0, unindexed.Describe());
    CHECK(CountIn(unindexed.out, "cn=unique") == 3);
    ProcessResult unique =
        RunDirload({"search", "-f", mine.conf, "-b", kSuffix, "(cn=unique0)", "uniqueMember"}, 120);
    REQUIRE_MESSAGE(unique.exit_code == 0, unique.Describe());
    CHECK(CountIn(unique.out, "uniqueMember: ") == 2000);
  }
  {
    INFO("slapd serves dirload's database: a member added and removed");
    testing::Slapd slapd(tmp, "dirload", mine.conf);
    const std::string group = std::string("cn=group0,ou=groups,") + kSuffix;
    auto members = [&]() {
      testing::Slapd::Answer a = slapd.Search(group, "base", "(objectClass=*)", {"member"});
      REQUIRE_MESSAGE(a.exit_code == 0, a.err);
      REQUIRE(a.entries.size() == 1);
      return CountIn(a.entries[0], "member: ");
    };
    CHECK(members() == static_cast<size_t>(kPeople));
    const std::string extra = std::string("cn=admin,") + kSuffix;
    const std::string add = tmp.Write("add.ldif", "dn: " + group +
                                                      "\nchangetype: modify\nadd: member\n"
                                                      "member: " +
                                                      extra + "\n\n");
    ProcessResult r = testing::RunLdapClient("ldapmodify", slapd.url(), add);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    CHECK(members() == static_cast<size_t>(kPeople) + 1);
    testing::Slapd::Answer with = slapd.Search(kSuffix, "sub", "(member=" + extra + ")");
    CHECK(with.entries.size() == 1);
    const std::string del = tmp.Write(
        "del.ldif", "dn: " + group + "\nchangetype: modify\ndelete: member\nmember: " + Person(17) +
                        "\n-\ndelete: member\nmember: " + extra + "\n\n");
    r = testing::RunLdapClient("ldapmodify", slapd.url(), del);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    CHECK(members() == static_cast<size_t>(kPeople) - 1);
    testing::Slapd::Answer gone = slapd.Search(group, "base", "(member=" + Person(17) + ")");
    CHECK(gone.entries.empty());

    // dirload add --online beside slapd: a big group, which slapd then
    // serves from id2v and finds by its index.
    std::string big = std::string("dn: cn=online,ou=groups,") + kSuffix +
                      "\nobjectClass: groupOfNames\ncn: online\n";
    for (int k = 0; k < 500; ++k) big += "member: " + Person((k * 13) % kPeople) + "\n";
    const size_t id2v_lines = CountIn(MdbDump(mine.dir, "id2v"), "\n ");
    ProcessResult online = RunDirload({"add", "--online", "-f", mine.conf, "-l",
                                       tmp.Write("online.ldif", big + "\n"), "--progress", "never"},
                                      300);
    REQUIRE_MESSAGE(online.exit_code == 0, online.Describe());
    testing::Slapd::Answer found =
        slapd.Search(kSuffix, "sub", "(&(cn=online)(member=" + Person(13) + "))", {"member"});
    REQUIRE_MESSAGE(found.exit_code == 0, found.err);
    REQUIRE(found.entries.size() == 1);
    CHECK(CountIn(found.entries[0], "member: ") == 500);
    // With multival, its 500 values went to id2v (a key line and a value
    // line each), as slapd's own add puts them.
    CHECK(CountIn(MdbDump(mine.dir, "id2v"), "\n ") - id2v_lines == (id2v_used ? 1000u : 0u));
  }
  {
    INFO("after slapd's changes, dirload still reads it: verify clean, cat equal to slapcat");
    CheckVerify(mine);
    ProcessResult cat = RunDirload({"cat", "-f", mine.conf}, 300);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    CHECK(FirstDifference(cat.out, Slapcat(mine)) == "");
  }
}

#define SKIP_WITHOUT_TOOLS()                                                     \
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing()); \
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "slapindex", "slapd", "ldapmodify", "mdb_dump")

TEST_CASE("multival oracle: member and uniqueMember past 100 values go to id2v as slapadd") {
  SKIP_WITHOUT_TOOLS();
  CheckConfiguration("multival", {}, {kMultival}, true);
}

TEST_CASE("multival oracle: sortvals sorts and flags values as slapadd does") {
  SKIP_WITHOUT_TOOLS();
  CheckConfiguration("sortvals", {kSortvals}, {}, false);
}

TEST_CASE("multival oracle: multival and sortvals together") {
  SKIP_WITHOUT_TOOLS();
  CheckConfiguration("both", {kSortvals}, {kMultival}, true);
}

TEST_CASE("multival oracle: olcDbMultival and olcSortVals from slapd.d") {
  SKIP_WITHOUT_TOOLS();
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slaptest");
  TempDir tmp;
  const std::string raw = tmp.Write("raw.ldif", Directory());
  Db theirs = MakeDb(tmp, "slapadd", {kSortvals}, {kMultival});
  ProcessResult added = testing::RunSlapadd({"-q", "-f", theirs.conf, "-l", raw}, 300);
  REQUIRE_MESSAGE(added.exit_code == 0, added.Describe());
  // The same configuration as slapd.d, for a database of dirload's.
  Db mine = MakeDb(tmp, "dirload", {kSortvals}, {kMultival});
  const std::string slapd_d = tmp.File("slapd.d");
  fs::create_directory(slapd_d);
  // slaptest opens the database it converts the configuration of: a copy of
  // slapadd's stands in for the one dirload writes after.
  fs::copy_file(fs::path(theirs.dir) / "data.mdb", fs::path(mine.dir) / "data.mdb");
  ProcessResult converted = testing::RunSlaptest({"-f", mine.conf, "-F", slapd_d});
  REQUIRE_MESSAGE(converted.exit_code == 0, converted.Describe());
  fs::remove_all(mine.dir);
  fs::create_directory(mine.dir);
  const std::string exported = tmp.Write("export.ldif", Slapcat(theirs));
  ProcessResult loaded =
      RunDirload({"add", "-F", slapd_d, "-l", exported, "--progress", "never"}, 300);
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
  CHECK(MdbDump(mine.dir, "id2v").find("\n ") != std::string::npos);
  CHECK(FirstDifference(MdbDump(mine.dir, "id2v"), MdbDump(theirs.dir, "id2v")) == "");
  ProcessResult cat = RunDirload({"cat", "-F", slapd_d}, 300);
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  CHECK(FirstDifference(cat.out, Slapcat(theirs)) == "");
}

TEST_CASE("multival oracle: thresholds slapd refuses are configuration errors") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  Db bad = MakeDb(tmp, "bad", {}, {"multival member 10,100"});
  ProcessResult r = RunDirload({"add", "-u", "-f", bad.conf, "-l", tmp.Write("in.ldif", "")});
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("multival") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("bad.conf:") != std::string::npos, r.err);
}

}  // namespace
}  // namespace dirload
