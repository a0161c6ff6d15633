// The operational attributes `dirload add` gives entries, compared with what
// OpenLDAP's slapadd gives them on the same input and slapd.conf: the same
// attributes in the same order, the same structuralObjectClass, creators and
// modifiers names, values of the same formats (times and UUIDs differ by
// nature), -S in entryCSN, -w contextCSN; a slapcat export that already holds
// them keeps them unchanged; -j skips what slapadd -j skips.
#include <doctest/doctest.h>

#include <filesystem>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/integration/ldif_compare.h"
#include "tests/support/child_process.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr char kRootDn[] = "cn=admin,dc=example,dc=com";

// Lines: suffix 1-5, people 7-9, a comment at 11 and uid=a's DN at 12.
constexpr char kInput[] =
    "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
    "o: Example\ndc: example\n\n"
    "dn: ou=People,dc=example,dc=com\nobjectClass: organizationalUnit\nou: People\n\n"
    "# the people\n"
    "dn: uid=a,ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: a\ncn: A\n"
    "sn: A\n\n"
    "dn: uid=b,ou=People,dc=example,dc=com\nobjectClass: account\n"
    "objectClass: posixAccount\nuid: b\ncn: B\nuidNumber: 1000\ngidNumber: 1000\n"
    "homeDirectory: /home/b\n\n"
    "dn: cn=g,dc=example,dc=com\nobjectClass: groupOfNames\ncn: g\n"
    "member: uid=a,ou=People,dc=example,dc=com\n\n";

std::string Config(const std::string& dir) {
  return testing::SlapdConf()
      .Include(testing::kExampleSchemas)
      .ModulePath("/usr/lib/ldap")
      .ModuleLoad("back_mdb")
      .Database("mdb")
      .Suffix(testing::kExampleSuffix)
      .RootDn(kRootDn)
      .Directory(dir)
      .Text();
}

// slapadd and slapcat are needed: the oracle is the point of these tests.
void RequireOpenLdap() {
  const std::string missing = testing::OpenLdapMissing({"slapadd", "slapcat"});
  REQUIRE_MESSAGE(missing.empty(), missing);
}

// One work directory: slapd.conf, slapadd's database and dirload's.
struct Work {
  TempDir tmp;
  std::string conf, slap_db, dl_db;
  Work() {
    slap_db = tmp.File("slapdb");
    dl_db = tmp.File("dldb");
    fs::create_directory(slap_db);
    conf = tmp.Write("slapd.conf", Config(slap_db));
  }
};

std::vector<ldif::Record> Records(const RunResult& r) {
  testing::LdifFile f = testing::ReadLdifText(r.out);
  REQUIRE_MESSAGE(f.ok(), f.error);
  return f.records;
}

bool IsOperational(std::string_view d) {
  static const std::set<std::string, std::less<>> kNames = {
      "structuralObjectClass", "entryUUID",       "creatorsName", "createTimestamp", "entryCSN",
      "modifiersName",         "modifyTimestamp", "contextCSN"};
  return kNames.count(d) != 0;
}

std::vector<std::string> Names(const ldif::Record& r, bool operational) {
  std::vector<std::string> out;
  for (size_t i = 0; i < r.size(); ++i) {
    if (IsOperational(r.attribute(i).description) == operational) {
      out.emplace_back(r.attribute(i).description);
    }
  }
  return out;
}

std::vector<std::string> Values(const ldif::Record& r, std::string_view name) {
  std::vector<std::string> out;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.attribute(i).description == name) out.emplace_back(r.attribute(i).value);
  }
  return out;
}

std::string One(const ldif::Record& r, std::string_view name) {
  std::vector<std::string> v = Values(r, name);
  return v.size() == 1 ? v[0] : "<" + std::to_string(v.size()) + " values>";
}

bool Matches(const std::string& value, const char* re) {
  return std::regex_match(value, std::regex(re));
}

constexpr char kUuid[] = "[0-9a-f]{8}-[0-9a-f]{4}-1[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}";
constexpr char kTime[] = "[0-9]{14}Z";
constexpr char kCsnSid5[] = "[0-9]{14}\\.[0-9]{6}Z#[0-9a-f]{6}#005#000000";

TEST_CASE("dirload add gives entries the operational attributes slapadd gives them") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  RequireOpenLdap();
  Work w;
  std::string in = w.tmp.Write("in.ldif", kInput);
  RunResult sa = testing::RunSlapadd({"-f", w.conf, "-l", in, "-S", "5", "-w"}, 60);
  REQUIRE_MESSAGE(sa.exit_code == 0, sa.Describe());
  RunResult sc = testing::RunSlapcat({"-f", w.conf}, 60);
  REQUIRE_MESSAGE(sc.exit_code == 0, sc.Describe());
  RunResult da = RunDirload({"add", "-f", w.conf, "--db", w.dl_db, "-l", in, "-S", "5", "-w"});
  REQUIRE_MESSAGE(da.exit_code == 0, da.Describe());
  RunResult dc = RunDirload({"cat", "-f", w.conf, "--db", w.dl_db});
  REQUIRE_MESSAGE(dc.exit_code == 0, dc.Describe());

  std::vector<ldif::Record> want = Records(sc), got = Records(dc);
  REQUIRE(want.size() == 5);
  REQUIRE(got.size() == want.size());
  std::set<std::string> uuids;
  std::string greatest_csn;
  for (size_t i = 0; i < want.size(); ++i) {
    const ldif::Record &s = want[i], &d = got[i];
    CAPTURE(s.dn());
    CHECK(d.dn() == s.dn());
    CHECK(Names(d, false) == Names(s, false));
    CHECK(Names(d, true) == Names(s, true));  // which ones, in slapadd's order
    CHECK(One(d, "structuralObjectClass") == One(s, "structuralObjectClass"));
    CHECK(One(d, "creatorsName") == kRootDn);
    CHECK(One(s, "creatorsName") == kRootDn);
    CHECK(One(d, "modifiersName") == kRootDn);
    for (const ldif::Record* r : {&s, &d}) {
      CHECK(Matches(One(*r, "entryUUID"), kUuid));
      CHECK(Matches(One(*r, "createTimestamp"), kTime));
      CHECK(Matches(One(*r, "modifyTimestamp"), kTime));
      CHECK(Matches(One(*r, "entryCSN"), kCsnSid5));
    }
    uuids.insert(One(d, "entryUUID"));
    greatest_csn = std::max(greatest_csn, One(d, "entryCSN"));
  }
  CHECK(One(want[3], "structuralObjectClass") == "account");
  CHECK(uuids.size() == got.size());
  // -w: on the suffix, the greatest entryCSN of the load (as slapadd -w).
  CHECK(One(got[0], "contextCSN") == greatest_csn);
  CHECK(Matches(One(want[0], "contextCSN"), kCsnSid5));
}

TEST_CASE("-w on an append updates the stored suffix entry's contextCSN as slapadd -w does") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  RequireOpenLdap();
  // Every CSN given, so that both tools' contextCSN can be compared exactly.
  const std::string base =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "o: Example\ndc: example\nentryCSN: 20250101000000.000000Z#000000#003#000000\n\n";
  auto ou = [](const std::string& name, const std::string& csn) {
    return "dn: ou=" + name + ",dc=example,dc=com\nobjectClass: organizationalUnit\nou: " + name +
           "\nentryCSN: " + csn + "\n\n";
  };
  // Each step appends one file with -w; contextCSN after it, as slapadd leaves it.
  struct Step {
    std::string ldif;
    std::vector<std::string> context_csn;
  };
  const std::vector<Step> steps = {
      {base, {"20250101000000.000000Z#000000#003#000000"}},
      // A newer CSN of a stored server ID replaces it.
      {ou("a", "20290101000000.000000Z#000000#003#000000"),
       {"20290101000000.000000Z#000000#003#000000"}},
      // Only another server ID's: slapadd writes nothing, the new ID is not added.
      {ou("b", "20300101000000.000000Z#000000#009#000000"),
       {"20290101000000.000000Z#000000#003#000000"}},
      // A stored ID superseded again: every server ID seen in this load is written.
      {ou("c", "20310101000000.000000Z#000000#003#000000") +
           ou("d", "20200101000000.000000Z#000000#007#000000"),
       {"20310101000000.000000Z#000000#003#000000", "20200101000000.000000Z#000000#007#000000"}},
  };
  Work w;
  const std::string dl_conf = w.tmp.Write("dirload.conf", Config(w.dl_db));
  fs::create_directory(w.dl_db);
  for (size_t i = 0; i < steps.size(); ++i) {
    CAPTURE(i);
    const std::string in = w.tmp.Write("step" + std::to_string(i) + ".ldif", steps[i].ldif);
    RunResult sa = testing::RunSlapadd({"-f", w.conf, "-l", in, "-w"}, 60);
    REQUIRE_MESSAGE(sa.exit_code == 0, sa.Describe());
    RunResult da = RunDirload({"add", "-f", dl_conf, "-l", in, "-w"});
    REQUIRE_MESSAGE(da.exit_code == 0, da.Describe());
    // The suffix entry comes first (slapcat -s crashes on Debian's 2.5.13 here).
    RunResult sc = testing::RunSlapcat({"-f", w.conf}, 60);
    RunResult dc = RunDirload({"cat", "-f", dl_conf});
    REQUIRE_MESSAGE(sc.exit_code == 0, sc.Describe());
    REQUIRE_MESSAGE(dc.exit_code == 0, dc.Describe());
    const std::vector<ldif::Record> want = Records(sc), got = Records(dc);
    REQUIRE(!want.empty());
    REQUIRE(!got.empty());
    CHECK(Values(want[0], "contextCSN") == steps[i].context_csn);
    CHECK(Values(got[0], "contextCSN") == steps[i].context_csn);
  }
}

TEST_CASE("a slapcat export keeps its operational values through dirload add and cat") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  RequireOpenLdap();
  Work w;
  std::string in = w.tmp.Write("in.ldif", kInput);
  RunResult sa = testing::RunSlapadd({"-f", w.conf, "-l", in, "-w"}, 60);
  REQUIRE_MESSAGE(sa.exit_code == 0, sa.Describe());
  RunResult sc = testing::RunSlapcat({"-f", w.conf}, 60);
  REQUIRE_MESSAGE(sc.exit_code == 0, sc.Describe());
  std::string exported = w.tmp.Write("export.ldif", sc.out);
  RunResult da = RunDirload({"add", "-f", w.conf, "--db", w.dl_db, "-l", exported});
  REQUIRE_MESSAGE(da.exit_code == 0, da.Describe());
  RunResult dc = RunDirload({"cat", "-f", w.conf, "--db", w.dl_db});
  REQUIRE_MESSAGE(dc.exit_code == 0, dc.Describe());
  testing::CompareOptions exact;
  exact.ignore_description_case = false;
  std::string diff = testing::CompareRecords(Records(dc), Records(sc), exact);
  CHECK_MESSAGE(diff.empty(), diff);
  CHECK(dc.out == sc.out);  // the same text, byte for byte
}

TEST_CASE("-j skips the records slapadd -j skips") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  RequireOpenLdap();
  // A resumed load: the first two records are in, then the whole file with -j.
  // uid=a's record starts with a comment at line 11, its DN is at 12.
  for (const char* line : {"11", "12"}) {
    CAPTURE(line);
    Work w;
    std::string head = w.tmp.Write(
        "head.ldif", std::string(kInput).substr(0, std::string(kInput).find("# the people")));
    std::string in = w.tmp.Write("in.ldif", kInput);
    REQUIRE(testing::ReadLdifFile(head).records.size() == 2);
    RunResult sa = testing::RunSlapadd({"-f", w.conf, "-l", head}, 60);
    REQUIRE_MESSAGE(sa.exit_code == 0, sa.Describe());
    sa = testing::RunSlapadd({"-f", w.conf, "-l", in, "-j", line}, 60);
    REQUIRE_MESSAGE(sa.exit_code == 0, sa.Describe());
    RunResult sc = testing::RunSlapcat({"-f", w.conf}, 60);
    REQUIRE(sc.exit_code == 0);

    RunResult da = RunDirload({"add", "-f", w.conf, "--db", w.dl_db, "-l", head});
    REQUIRE_MESSAGE(da.exit_code == 0, da.Describe());
    da = RunDirload({"add", "-f", w.conf, "--db", w.dl_db, "-l", in, "-j", line});
    REQUIRE_MESSAGE(da.exit_code == 0, da.Describe());
    RunResult dc = RunDirload({"cat", "-f", w.conf, "--db", w.dl_db});
    REQUIRE(dc.exit_code == 0);
    std::vector<std::string> want = testing::Dns(Records(sc)), got = testing::Dns(Records(dc));
    CHECK(got == want);
    CHECK(want.size() == (std::string(line) == "11" ? 5u : 4u));
  }
}

// slapadd 2.5 stores a value given twice (`ou: x` and `ou: X` under
// caseIgnoreMatch), both copies; dirload does the same by default, counts
// the entry and names it with -v. -o repeated-values=reject refuses it, as
// slapd refuses such an entry over LDAP.
TEST_CASE("a repeated value: stored as slapadd stores it, refused with repeated-values=reject") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  RequireOpenLdap();
  Work w;
  std::string in = w.tmp.Write(
      "in.ldif", std::string(kInput) +
                     "dn: ou=x,dc=example,dc=com\nobjectClass: organizationalUnit\nou: x\n"
                     "ou: X\n");  // lines 32-35
  RunResult sa = testing::RunSlapadd({"-f", w.conf, "-l", in}, 60);
  REQUIRE_MESSAGE(sa.exit_code == 0, sa.Describe());
  RunResult sc = testing::RunSlapcat({"-f", w.conf}, 60);
  CHECK(Records(sc).size() == 6);
  RunResult da = RunDirload({"add", "-f", w.conf, "--db", w.dl_db, "-l", in, "-v"});
  REQUIRE_MESSAGE(da.exit_code == 0, da.Describe());
  CHECK_MESSAGE(da.err.find("1 entry with a value given twice") != std::string::npos, da.err);
  CHECK_MESSAGE(da.err.find("in.ldif:32: ou=x,dc=example,dc=com: attribute 'ou': value 'X' at "
                            "line 35 equals 'x' at line 34") != std::string::npos,
                da.err);
  RunResult dc = RunDirload({"cat", "-f", w.conf, "--db", w.dl_db});
  std::vector<ldif::Record> got = Records(dc), want = Records(sc);
  REQUIRE(got.size() == 6);
  CHECK(testing::Dns(got) == testing::Dns(want));
  size_t ou_values = 0;
  for (size_t i = 0; i < got.back().size(); ++i) {
    if (got.back().attribute(i).description == "ou") ++ou_values;
  }
  CHECK(ou_values == 2);

  std::filesystem::remove_all(w.dl_db);
  da = RunDirload(
      {"add", "-f", w.conf, "--db", w.dl_db, "-l", in, "-c", "-o", "repeated-values=reject"});
  CHECK(da.exit_code == 1);
  CHECK_MESSAGE(da.err.find("in.ldif:32: ou=x,dc=example,dc=com: attribute 'ou': value 'X' at "
                            "line 35 equals 'x' at line 34") != std::string::npos,
                da.err);
  dc = RunDirload({"cat", "-f", w.conf, "--db", w.dl_db});
  CHECK(Records(dc).size() == 5);
}

}  // namespace
}  // namespace dirload
