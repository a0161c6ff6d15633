// `dirload modify` against slapd: the same change records applied by
// dirload to one copy of a database and through slapd (ldapmodify, bound
// as the rootdn) to another give the same database: slapcat's output equal
// but for the values each run makes itself (entryCSN, timestamps, the
// entryUUIDs of added entries), dn2i, ad2i and every index database equal
// byte for byte, and `dirload verify` clean. Then the refusals: each bad
// record refused with the result code slapd gives for it, naming its line,
// and nothing written; -c with a reject file; a dry run.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/integration/held_load.h"
#include "tests/integration/ldif_compare.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

const std::vector<std::string> kIndexes = {"objectClass eq",  "cn,sn,uid eq,sub", "mail eq",
                                           "title eq,pres",   "description sub",  "member eq",
                                           "givenName approx"};

std::string Person(const std::string& uid, const std::string& ou, const std::string& cn,
                   const std::string& sn, const std::string& more = "") {
  return "dn: uid=" + uid + ",ou=" + ou +
         ",dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: " + uid + "\ncn: " + cn +
         "\nsn: " + sn + "\n" + more + "\n";
}

// People in several scripts, with the attributes the changes touch.
std::string Base() {
  std::string o =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\no: Example\n"
      "dc: example\n\n";
  for (const char* ou : {"people", "staff", "archive"}) {
    o += std::string("dn: ou=") + ou +
         ",dc=example,dc=com\nobjectClass: organizationalUnit\nou: " + ou + "\n\n";
  }
  const std::vector<std::pair<std::string, std::string>> names = {
      {"Zoë Ångström", "Ångström"}, {"山田 太郎", "山田"},   {"Ωmega Πeople", "Πeople"},
      {"Jürgen Weiß", "Weiß"},      {"Łukasz Żółw", "Żółw"}, {"Ana Núñez", "Núñez"},
      {"Плато Ленин", "Ленин"},     {"Lee Min", "Lee"}};
  for (int i = 0; i < 40; ++i) {
    const auto& [cn, sn] = names[i % names.size()];
    const std::string uid = "u" + std::to_string(i);
    o += Person(uid, i % 2 == 0 ? "people" : "staff", cn + " " + std::to_string(i), sn,
                "givenName: " + cn.substr(0, cn.find(' ')) + "\nmail: " + uid +
                    "@example.com\ntitle: Engineer\ntelephoneNumber: +1 555 01" +
                    std::to_string(10 + i) + "\ndescription: works on things " +
                    std::to_string(i % 5) + "\n");
  }
  o += "dn: uid=posix,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
       "objectClass: posixAccount\nuid: posix\ncn: Posix User\nsn: User\nuidNumber: 1000\n"
       "gidNumber: 100\nhomeDirectory: /home/posix\n\n";
  o += "dn: cn=team,ou=people,dc=example,dc=com\nobjectClass: groupOfNames\ncn: team\n"
       "member: uid=u0,ou=people,dc=example,dc=com\n"
       "member: uid=u2,ou=people,dc=example,dc=com\n\n";
  return o;
}

// Every kind of change, in an order where later records rely on earlier
// ones.
std::string Changes() {
  std::string c;
  for (int i = 0; i < 12; ++i) {
    const std::string dn = "uid=u" + std::to_string(i) + (i % 2 == 0 ? ",ou=people" : ",ou=staff") +
                           ",dc=example,dc=com";
    c += "dn: " + dn + "\nchangetype: modify\nreplace: title\ntitle: Lead " + std::to_string(i) +
         "\n-\nadd: mail\nmail: alias" + std::to_string(i) +
         "@example.org\n-\ndelete: telephoneNumber\n-\n" +
         (i % 3 == 0 ? "add: cn\ncn: Ærøskøbing Ünïcode " + std::to_string(i) + "\n-\n"
                     : "replace: description\ndescription: first\ndescription: second\n-\n") +
         "\n";
  }
  c += "dn: uid=u16,ou=people,dc=example,dc=com\nchangetype: modify\ndelete: description\n-\n"
       "delete: givenName\ngivenName: Zoë\n-\n\n";
  c += "dn: uid=posix,ou=people,dc=example,dc=com\nchangetype: modify\nincrement: uidNumber\n"
       "uidNumber: 5\n-\nincrement: gidNumber\ngidNumber: -1\n-\n\n";
  c += "dn: cn=team,ou=people,dc=example,dc=com\nchangetype: modify\ndelete: member\n"
       "member: UID=u0, ou=People,dc=example,dc=com\n-\nadd: member\n"
       "member: uid=u4,ou=people,dc=example,dc=com\n-\n\n";
  c += "dn: uid=new1,ou=people,dc=example,dc=com\nchangetype: add\nobjectClass: inetOrgPerson\n"
       "uid: new1\ncn: Nouvelle Personne\nsn: Personne\ntitle: Intern\nmail: new1@example.com\n\n";
  c += "dn: cn=Émile Zola,ou=staff,dc=example,dc=com\nchangetype: add\n"
       "objectClass: inetOrgPerson\ncn: Émile Zola\nsn: Zola\ndescription: écrivain\n\n";
  c += "dn: uid=new2,ou=archive,dc=example,dc=com\nchangetype: add\nobjectClass: inetOrgPerson\n"
       "uid: new2\ncn: Third New\nsn: New\ntitle: Intern\n\n";
  c += "dn: uid=u30,ou=people,dc=example,dc=com\nchangetype: delete\n\n";
  c += "dn: uid=u31,ou=staff,dc=example,dc=com\nchangetype: delete\n\n";
  c += "dn: uid=u32,ou=people,dc=example,dc=com\nchangetype: modrdn\nnewrdn: uid=u32b\n"
       "deleteoldrdn: 1\n\n";
  c += "dn: uid=u33,ou=staff,dc=example,dc=com\nchangetype: modrdn\nnewrdn: cn=Kept Name\n"
       "deleteoldrdn: 0\n\n";
  c += "dn: uid=u34,ou=people,dc=example,dc=com\nchangetype: modrdn\nnewrdn: uid=u34\n"
       "deleteoldrdn: 1\nnewsuperior: ou=archive,dc=example,dc=com\n\n";
  c += "dn: uid=new1,ou=people,dc=example,dc=com\nchangetype: moddn\nnewrdn: uid=new1\n"
       "deleteoldrdn: 1\nnewsuperior: ou=staff,dc=example,dc=com\n\n";
  // A subtree moves whole: ou=archive with the entries just moved below it.
  c += "dn: ou=archive,dc=example,dc=com\nchangetype: modrdn\nnewrdn: ou=archive\n"
       "deleteoldrdn: 1\nnewsuperior: ou=people,dc=example,dc=com\n\n";
  c += "dn: uid=u35,ou=staff,dc=example,dc=com\nchangetype: modify\nreplace: title\n"
       "title: Moved Later\n-\n\n";
  return c;
}

// slapcat's output with the values each run makes itself masked.
std::string Masked(const std::string& slapcat) {
  static const std::regex made(
      "^(entryCSN|modifyTimestamp|createTimestamp|entryUUID|contextCSN): .*$",
      std::regex::multiline);
  return std::regex_replace(slapcat, made, "$1: *");
}

std::string Slapcat(const std::string& conf) {
  testing::ProcessResult r = testing::RunSlapcat({"-f", conf, "-o", "ldif-wrap=no"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return r.out;
}

// Twins: the base loaded by slapadd once, its data file copied.
struct Twins {
  testing::OracleDb mine, theirs;
};

Twins MakeTwins(const TempDir& t) {
  Twins w{testing::MakeOracleDb(t, "dirload", "", kIndexes, 268435456),
          testing::MakeOracleDb(t, "slapd", "", kIndexes, 268435456)};
  testing::ProcessResult r =
      testing::RunSlapadd({"-q", "-f", w.mine.conf, "-l", t.Write("base.ldif", Base())});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  std::filesystem::copy_file(w.mine.dir + "/data.mdb", w.theirs.dir + "/data.mdb");
  return w;
}

TEST_CASE("modify: change records give the database slapd gives") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "slapd", "ldapmodify");
  TempDir t;
  const Twins w = MakeTwins(t);
  const std::string changes = t.Write("changes.ldif", Changes());
  // A third twin applies the index changes a few at a time (memory bound
  // reached over and over): each key must still end as slapd leaves it.
  const testing::OracleDb batched = testing::MakeOracleDb(t, "batched", "", kIndexes, 268435456);
  std::filesystem::copy_file(w.mine.dir + "/data.mdb", batched.dir + "/data.mdb");

  RunResult mine =
      RunDirload({"modify", "-f", w.mine.conf, "-l", changes, "--progress", "never", "--stats"});
  REQUIRE_MESSAGE(mine.exit_code == 0, mine.Describe());
  CHECK(mine.err.find("26 records, 26 applied, 0 rejected") != std::string::npos);
  RunResult small = RunDirload(
      {"modify", "-f", batched.conf, "-l", changes, "--progress", "never", "--index-batch", "3"});
  REQUIRE_MESSAGE(small.exit_code == 0, small.Describe());
  {
    testing::Slapd slapd(t, "slapd", w.theirs.conf);
    testing::ProcessResult r = testing::RunLdapClient("ldapmodify", slapd.url(), changes);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  }

  CHECK(Masked(Slapcat(w.mine.conf)) == Masked(Slapcat(w.theirs.conf)));
  CHECK(Masked(Slapcat(batched.conf)) == Masked(Slapcat(w.theirs.conf)));
  for (const std::string& name : testing::MdbDatabases(w.theirs.dir)) {
    if (name == "id2e") continue;  // holds the values each run made: compared through slapcat
    CAPTURE(name);
    const std::string want = testing::MdbDump(w.theirs.dir, name);
    CHECK(testing::FirstDifference(testing::MdbDump(w.mine.dir, name), want) == "");
    CHECK(testing::FirstDifference(testing::MdbDump(batched.dir, name), want) == "");
  }
  RunResult verified = RunDirload({"verify", "-f", w.mine.conf});
  CHECK_MESSAGE(verified.exit_code == 0, verified.Describe());
}

// One bad record after a good one: dirload refuses it with slapd's code,
// naming its line, and writes nothing; slapd refuses it with the same code.
TEST_CASE("modify: a refused record names slapd's result code and nothing is written") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "slapd", "ldapmodify");
  TempDir t;
  const Twins w = MakeTwins(t);
  const std::string before = Slapcat(w.mine.conf);
  const std::string good =
      "dn: uid=u1,ou=staff,dc=example,dc=com\nchangetype: modify\nreplace: title\n"
      "title: Fine\n-\n\n";
  struct Bad {
    std::string name, record;
    int code;
  };
  const std::vector<Bad> bad = {
      {"noSuchObject",
       "dn: uid=nobody,ou=staff,dc=example,dc=com\nchangetype: modify\nreplace: title\n"
       "title: x\n-\n\n",
       32},
      {"notAllowedOnNonLeaf", "dn: ou=staff,dc=example,dc=com\nchangetype: delete\n\n", 66},
      {"entryAlreadyExists",
       "dn: uid=u3,ou=staff,dc=example,dc=com\nchangetype: add\nobjectClass: inetOrgPerson\n"
       "uid: u3\ncn: x\nsn: x\n\n",
       68},
      {"noSuchAttribute",
       "dn: uid=u3,ou=staff,dc=example,dc=com\nchangetype: modify\ndelete: title\n"
       "title: Astronaut\n-\n\n",
       16},
      {"attributeOrValueExists",
       "dn: uid=u3,ou=staff,dc=example,dc=com\nchangetype: modify\nadd: title\n"
       "title: ENGINEER\n-\n\n",
       20},
      {"namingViolation",
       "dn: uid=u3,ou=staff,dc=example,dc=com\nchangetype: modify\ndelete: uid\n-\n\n", 64},
      {"objectClassViolation",
       "dn: uid=u3,ou=staff,dc=example,dc=com\nchangetype: modify\ndelete: sn\n-\n\n", 65},
      {"undefinedAttributeType",
       "dn: uid=u3,ou=staff,dc=example,dc=com\nchangetype: modify\nadd: frobnicate\n"
       "frobnicate: x\n-\n\n",
       17},
      {"noSuchObject",
       "dn: uid=u5,ou=staff,dc=example,dc=com\nchangetype: modrdn\nnewrdn: uid=u5\n"
       "deleteoldrdn: 1\nnewsuperior: ou=nowhere,dc=example,dc=com\n\n",
       32},
      {"entryAlreadyExists",
       "dn: uid=u5,ou=staff,dc=example,dc=com\nchangetype: modrdn\nnewrdn: uid=u7\n"
       "deleteoldrdn: 1\n\n",
       68},
      {"constraintViolation",
       "dn: uid=u3,ou=staff,dc=example,dc=com\nchangetype: modify\nreplace: entryUUID\n"
       "entryUUID: 00000000-0000-0000-0000-000000000000\n-\n\n",
       19},
  };
  testing::Slapd slapd(t, "slapd", w.theirs.conf);
  for (const Bad& b : bad) {
    CAPTURE(b.record);
    const std::string file = t.Write("bad.ldif", good + b.record);
    RunResult r = RunDirload({"modify", "-f", w.mine.conf, "-l", file, "--progress", "never"});
    CHECK(r.exit_code == 1);
    CHECK_MESSAGE(r.err.find(b.name + " (" + std::to_string(b.code) + ")") != std::string::npos,
                  r.err);
    CHECK_MESSAGE(r.err.find("bad.ldif:7:") != std::string::npos, r.err);
    CHECK(Slapcat(w.mine.conf) == before);
    // slapd says the same of the bad record alone.
    testing::ProcessResult s =
        testing::RunLdapClient("ldapmodify", slapd.url(), t.Write("alone.ldif", b.record));
    CHECK_MESSAGE(s.exit_code == b.code, s.Describe());
  }

  // -c: the good records in, the bad ones in the reject file, each whole.
  std::string all = good;
  for (const Bad& b : bad) all += b.record;
  const std::string rejects = t.File("rejects.ldif");
  RunResult kept = RunDirload({"modify", "-f", w.mine.conf, "-l", t.Write("all.ldif", all), "-c",
                               "--reject-file", rejects, "--progress", "never"});
  CHECK(kept.exit_code == 1);
  CHECK_MESSAGE(kept.err.find("12 records, 1 applied, 11 rejected") != std::string::npos, kept.err);
  const std::string rejected = testing::ReadFile(rejects);
  CHECK(rejected.find("# line 7: noSuchObject (32)") != std::string::npos);
  CHECK(rejected.find("dn: ou=staff,dc=example,dc=com\nchangetype: delete\n") != std::string::npos);
  const std::string after = Slapcat(w.mine.conf);
  CHECK(after.find("title: Fine\n") != std::string::npos);

  // A dry run checks and writes nothing.
  RunResult dry = RunDirload(
      {"modify", "-u", "-f", w.mine.conf, "-l", t.Write("dry.ldif", good), "--progress", "never"});
  CHECK_MESSAGE(dry.exit_code == 0, dry.Describe());
  CHECK(Slapcat(w.mine.conf) == after);
}

// Each entry's lines sorted: slapmodify appends modifiersName,
// modifyTimestamp and entryCSN before it applies the record, slapd after
// (and dirload as slapd), so only the order of attributes differs.
std::string SortedEntries(const std::string& ldif) {
  std::string out;
  for (std::string record : testing::SplitRecords(ldif)) {
    std::vector<std::string> lines;
    std::istringstream in(record);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) lines.push_back(line);
    }
    std::sort(lines.begin(), lines.end());
    for (const std::string& l : lines) out += l + "\n";
    out += "\n";
  }
  return out;
}

TEST_CASE("modify: slapmodify's twin holds the same entries, its indexes stale") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "slapmodify");
  TempDir t;
  const Twins w = MakeTwins(t);
  // What slapmodify supports: everything but the renames.
  std::string changes;
  for (const std::string& record : testing::SplitRecords(Changes())) {
    if (record.find("changetype: modrdn") == std::string::npos &&
        record.find("changetype: moddn") == std::string::npos) {
      changes += record;
    }
  }
  const std::string file = t.Write("changes.ldif", changes);
  RunResult mine = RunDirload({"modify", "-f", w.mine.conf, "-l", file, "--progress", "never"});
  REQUIRE_MESSAGE(mine.exit_code == 0, mine.Describe());
  testing::ProcessResult r =
      testing::RunOpenLdapTool("slapmodify", {"-f", w.theirs.conf, "-l", file});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK(SortedEntries(Masked(Slapcat(w.mine.conf))) ==
        SortedEntries(Masked(Slapcat(w.theirs.conf))));
  // slapmodify rewrites a modified entry's record and leaves the index keys
  // of its old and new values as they were: verify finds them; dirload's
  // indexes followed.
  RunResult stale = RunDirload({"verify", "-f", w.theirs.conf});
  CHECK(stale.exit_code == 1);
  CHECK_MESSAGE(stale.out.find("index title (pres,eq): 16 keys, 80 IDs checked: incomplete (13 "
                               "missing), unclean (13 extra)") != std::string::npos,
                stale.out);
  RunResult clean = RunDirload({"verify", "-f", w.mine.conf});
  CHECK_MESSAGE(clean.exit_code == 0, clean.Describe());
}

// -S and -w: the entryCSNs made carry the server ID, and the suffix entry's
// contextCSN follows the greatest.
TEST_CASE("modify: -S and -w") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat");
  TempDir t;
  const Twins w = MakeTwins(t);
  const std::string file = t.Write(
      "one.ldif",
      "dn: uid=u1,ou=staff,dc=example,dc=com\nchangetype: modify\nreplace: title\ntitle: x\n-\n\n");
  RunResult r =
      RunDirload({"modify", "-S", "5", "-w", "-f", w.mine.conf, "-l", file, "--progress", "never"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  const std::string out = Slapcat(w.mine.conf);
  std::smatch m;
  REQUIRE(
      std::regex_search(out, m, std::regex("\ntitle: x\n(?:.*\n)*?entryCSN: (\\S+#005#000000)")));
  CHECK(out.find("contextCSN: " + m[1].str() + "\n") != std::string::npos);
}

TEST_CASE("modify: --subtree deletes an entry with everything below it") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat");
  TempDir t;
  const Twins w = MakeTwins(t);
  const std::string file =
      t.Write("gone.ldif", "dn: ou=staff,dc=example,dc=com\nchangetype: delete\n\n");
  RunResult refused = RunDirload({"modify", "-f", w.mine.conf, "-l", file, "--progress", "never"});
  CHECK(refused.exit_code == 1);
  RunResult gone = RunDirload(
      {"modify", "--subtree", "-f", w.mine.conf, "-l", file, "--progress", "never", "--stats"});
  REQUIRE_MESSAGE(gone.exit_code == 0, gone.Describe());
  CHECK(gone.err.find("entries deleted 21") != std::string::npos);
  const std::string left = Slapcat(w.mine.conf);
  CHECK(left.find("ou=staff") == std::string::npos);
  RunResult verified = RunDirload({"verify", "-f", w.mine.conf});
  CHECK_MESSAGE(verified.exit_code == 0, verified.Describe());
}

// A kill in the middle of a run leaves the database as it was: the run is
// one write transaction that never committed. Nothing is pending, and the
// same records apply afterwards.
TEST_CASE("modify: killed midway, nothing of the run is in the database") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat");
  TempDir t;
  const Twins w = MakeTwins(t);
  const std::string before = Slapcat(w.mine.conf);
  {
    testing::HeldLoad held(t, "held", {"modify", "-f", w.mine.conf}, Changes());
    REQUIRE(held.WaitForLock(w.mine.dir));
    testing::SleepMs(300);  // the first half read and applied, uncommitted
    held.Kill();
  }
  CHECK(Slapcat(w.mine.conf) == before);
  RunResult again = RunDirload({"modify", "-f", w.mine.conf, "-l",
                                t.Write("changes.ldif", Changes()), "--progress", "never"});
  CHECK_MESSAGE(again.exit_code == 0, again.Describe());
  RunResult verified = RunDirload({"verify", "-f", w.mine.conf});
  CHECK_MESSAGE(verified.exit_code == 0, verified.Describe());
}

// Where dirload differs from slapd on purpose. A value whose substring key
// "comm" makes the key pass 65,535 IDs turns it into a range; back-mdb
// 2.5.13 (idl.c mdb_idl_insert_keys) then files the value's later keys
// under the range's upper bound instead of the entry's ID. dirload files
// the entry's own ID: its database verifies clean, slapd's does not.
TEST_CASE("modify: a key that becomes a range keeps the entry's ID under the value's other keys") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "slapd", "ldapmodify");
  TempDir t;
  const std::vector<std::string> indexes = {"objectClass eq", "description sub"};
  testing::OracleDb mine = testing::MakeOracleDb(t, "dirload", "", indexes, 1073741824);
  testing::OracleDb theirs = testing::MakeOracleDb(t, "slapd", "", indexes, 1073741824);
  std::string base =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\no: Example\n"
      "dc: example\n\ndn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
      "ou: people\n\n"
      // Below the IDs that follow: a range's upper bound is not its ID.
      "dn: cn=first,ou=people,dc=example,dc=com\nobjectClass: person\ncn: first\nsn: s\n\n";
  // 65,535 descriptions starting "comm": the key's list is full.
  for (int i = 0; i < 65535; ++i) {
    const std::string n = std::to_string(i);
    base += "dn: cn=p" + n + ",ou=people,dc=example,dc=com\nobjectClass: person\ncn: p" + n +
            "\nsn: s\ndescription: comm" + n + "\n\n";
  }
  testing::ProcessResult r =
      testing::RunSlapadd({"-q", "-f", mine.conf, "-l", t.Write("base.ldif", base)});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  std::filesystem::copy_file(mine.dir + "/data.mdb", theirs.dir + "/data.mdb");
  const std::string change =
      t.Write("change.ldif",
              "dn: cn=first,ou=people,dc=example,dc=com\nchangetype: modify\nadd: description\n"
              "description: commonplace zebra\n-\n\n");
  RunResult applied = RunDirload({"modify", "-f", mine.conf, "-l", change, "--progress", "never"});
  REQUIRE_MESSAGE(applied.exit_code == 0, applied.Describe());
  {
    testing::Slapd slapd(t, "slapd", theirs.conf);
    r = testing::RunLdapClient("ldapmodify", slapd.url(), change);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  }
  RunResult clean = RunDirload({"verify", "-f", mine.conf, "description"});
  CHECK_MESSAGE(clean.exit_code == 0, clean.Describe());
  CHECK(clean.out.find("ranges: complete and clean") != std::string::npos);
  // slapd's: the entry is missing from the value's other substring keys,
  // and the range's upper bound stands there instead.
  RunResult wrong = RunDirload({"verify", "-f", theirs.conf, "description"});
  CHECK(wrong.exit_code == 1);
  CHECK_MESSAGE(wrong.out.find("of 'commonplace zebra', entry 3 (cn=first,") != std::string::npos,
                wrong.out);
  CHECK_MESSAGE(wrong.out.find("entry 65538 (cn=p65534,") != std::string::npos, wrong.out);
}

// A native database loaded from the same entries, changed by the same
// records, holds what slapd's holds after ldapmodify (the values each run
// makes aside), its indexes verified clean. Then a run killed midway is
// rolled back by recover from the copy taken before it.
TEST_CASE("modify: dirload's native format, as slapd's after the same records") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "slapd", "ldapmodify");
  TempDir t;
  const Twins w = MakeTwins(t);
  const std::string exported = t.Write("export.ldif", Slapcat(w.theirs.conf));
  for (const std::string backend : {"lmdb", "bdb"}) {
    CAPTURE(backend);
    const std::string db = t.File("native-" + backend);
    std::vector<std::string> load = {"add",    "--format",   "native", "--backend", backend,
                                     "--db",   db,           "-f",     w.mine.conf, "-l",
                                     exported, "--progress", "never"};
    RunResult loaded = RunDirload(load);
    REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
    // The configuration gives the rootdn, modifiersName's value. On BDB the
    // index changes are applied a few at a time.
    RunResult changed = RunDirload({"modify", "-f", w.mine.conf, "--db", db, "-l",
                                    t.Write("changes.ldif", Changes()), "--progress", "never",
                                    "--index-batch", backend == "bdb" ? "2" : "1048576"});
    REQUIRE_MESSAGE(changed.exit_code == 0, changed.Describe());
    RunResult verified = RunDirload({"verify", "--db", db});
    CHECK_MESSAGE(verified.exit_code == 0, verified.Describe());
    if (backend == "lmdb") {
      testing::Slapd slapd(t, "slapd", w.theirs.conf);
      testing::ProcessResult r =
          testing::RunLdapClient("ldapmodify", slapd.url(), t.File("changes.ldif"));
      REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    }
    RunResult cat = RunDirload({"cat", "--db", db});
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    testing::LdifFile got = testing::ReadLdifText(Masked(cat.out));
    testing::LdifFile want = testing::ReadLdifText(Masked(Slapcat(w.theirs.conf)));
    REQUIRE(got.ok());
    REQUIRE(want.ok());
    CHECK(testing::CompareRecords(got.records, want.records, {}) == "");

    // Killed midway: pending until recover puts the copy back.
    const std::string before = RunDirload({"cat", "--db", db}).out;
    {
      testing::HeldLoad held(t, "held-" + backend, {"modify", "--db", db}, Changes());
      REQUIRE(held.WaitForLock(db));
      testing::SleepMs(300);
      held.Kill();
    }
    RunResult refused = RunDirload({"cat", "--db", db});
    CHECK(refused.exit_code == 3);
    CHECK_MESSAGE(refused.err.find("a modify did not finish") != std::string::npos, refused.err);
    RunResult recovered = RunDirload({"recover", "--db", db});
    CHECK_MESSAGE(recovered.exit_code == 0, recovered.Describe());
    CHECK(RunDirload({"cat", "--db", db}).out == before);
  }
}

}  // namespace
}  // namespace dirload
