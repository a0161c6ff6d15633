// End-to-end oracle of `dirload add -f slapd.conf` into slapd's back-mdb
// database: the real dirload binary and OpenLDAP's own tools side by side.
// A generated directory (non-ASCII values, multi-valued and escaped RDNs,
// attribute options, DN-valued attributes, a 60-level chain, a key over
// 65,535 entries) is loaded by slapadd and by dirload from the same slapcat
// export, so that entryUUID, entryCSN and the timestamps are fixed. Then:
// every sub-database as mdb_dump prints it is the same (id2e up to the
// padding slapd leaves unzeroed), slapcat and `dirload cat` print the same
// bytes, slapindex rebuilds no index differently, and slapd serving either
// database answers a matrix of searches with the same entries. Appending to
// a slapadd database, and loads killed mid-run, are checked the same way.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/ldif_generator.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/child_process.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::FindProgram;
using testing::FirstDifference;
using testing::MaskId2ePadding;
using testing::MdbDatabases;
using testing::MdbDump;
using testing::ProcessResult;
using testing::ReadFile;
using testing::RunDirload;
using testing::RunProcess;
using testing::Slapd;
using testing::SlapdConf;
using testing::SleepSeconds;
using testing::SplitRecords;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";

#define SKIP_WITHOUT_TOOLS() DIRLOAD_SKIP_WITHOUT_OPENLDAP("slapindex", "slapd", "ldapsearch")

const std::vector<std::string> kIndexLines = {
    "objectClass eq",    "cn,sn,mail,uid eq,sub",  "name eq",          "uidNumber,gidNumber eq",
    "member,manager eq", "telephoneNumber eq,sub", "description pres", "entryUUID eq",
};

// slapd.conf of a back-mdb database in `dir`. The unlimited size limit lets
// slapd return every entry of the key over 65,535 IDs.
SlapdConf Conf(const std::string& dir, const std::vector<std::string>& index_lines) {
  return SlapdConf()
      .LoadBackMdb()
      .Include(testing::kExampleSchemas)
      .Line("sizelimit unlimited")
      .Database("mdb")
      .Suffix(kSuffix)
      .RootDn(testing::kExampleRootDn)
      .Directory(dir)
      .MaxSize(1073741824)
      .Indexes(index_lines);
}

// A database directory and its slapd.conf, both in the test's TempDir.
struct Db {
  std::string dir, conf;
};

Db MakeDb(const TempDir& tmp, const std::string& name,
          const std::vector<std::string>& index_lines = kIndexLines) {
  Db db{tmp.File(name), ""};
  fs::create_directory(db.dir);
  db.conf = Conf(db.dir, index_lines).Write(tmp, name + ".conf");
  return db;
}

void Slapadd(const Db& db, const std::string& ldif, bool quick = true) {
  std::vector<std::string> argv = {"-f", db.conf, "-l", ldif};
  if (quick) argv.push_back("-q");
  ProcessResult r = testing::RunSlapadd(argv, 300);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
}

ProcessResult DirloadAdd(const Db& db, const std::string& ldif) {
  return RunDirload({"add", "-f", db.conf, "-l", ldif, "--progress", "never"}, 300);
}

std::string Slapcat(const Db& db) {
  ProcessResult r = testing::RunSlapcat({"-f", db.conf}, 300);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return r.out;
}

// ------------------------------------------------------------ generated data

// What the generated directory guarantees, for counts the searches must hit.
struct Expected {
  size_t entries = 0;
  size_t inet_org_persons = 0;
  size_t persons = 0;  // person and its subclasses
  size_t uid_number_ge_1000 = 0;
  size_t gid_101 = 0;
  size_t devices = 0;
  size_t descriptions = 0;  // entries with a description (any options)
  size_t dept1_subtree = 0;
  size_t managed_by_dept0 = 0;
  size_t lang_de = 0;   // entries with cn;lang-de
  size_t angstrom = 0;  // sn Ångström, precomposed or decomposed
  size_t mueller = 0;   // sn Müller
};

constexpr int kDeepLevels = 60;
constexpr int kPeoplePerDept = 40;
constexpr int kDepts = 4;

const char* const kSurnames[] = {
    "Müller",
    "Weiß",
    "Οδυσσεύς",
    "ΣΊΣΥΦΟΣ",
    "Ｆｕｌｌｗｉｄｔｈ",
    "Cafe\u0301",            // combining acute accent
    "ﬁnley",                 // the ligature U+FB01
    "Ångström",              // precomposed
    "A\u030Angstro\u0308m",  // the same, decomposed
    "Dvořák",
    "Nguyễn",
    "Smith",
    "Johnson",
    "Jones",
};
const char* const kGiven[] = {
    "Anna",     "Jörg",   "Zoë",         "François", "Ελένη",
    "Ｊｏｈｎ", "ﬂorian", "Rene\u0301e", "Bob",      "Łukasz",
};

class LdifText {
 public:
  void Entry(const std::string& dn, const std::vector<std::string>& lines) {
    text_ += "dn: " + dn + "\n";
    bool description = false;
    for (const std::string& l : lines) {
      text_ += l + "\n";
      if (l.starts_with("description")) description = true;
    }
    text_ += "\n";
    ++entries_;
    if (description) ++descriptions_;
  }
  const std::string& text() const { return text_; }
  size_t entries() const { return entries_; }
  size_t descriptions() const { return descriptions_; }

 private:
  std::string text_;
  size_t entries_ = 0, descriptions_ = 0;
};

std::string Upper(std::string s) {
  for (char& c : s) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return s;
}

// The raw directory, for slapadd (it adds the operational attributes).
std::string GenerateLdif(size_t devices, Expected* x) {
  bench::Prng rng(20240611);
  LdifText l;
  l.Entry(kSuffix, {"objectClass: top", "objectClass: dcObject", "objectClass: organization",
                    "dc: example", "o: Example Corp"});
  l.Entry("ou=People,dc=example,dc=com",
          {"objectClass: organizationalUnit", "ou: People", "description: the  People   branch "});
  l.Entry("ou=Groups,dc=example,dc=com", {"objectClass: organizationalUnit", "ou: Groups"});
  l.Entry("ou=Special,dc=example,dc=com", {"objectClass: organizationalUnit", "ou: Special"});
  l.Entry("ou=Devices,dc=example,dc=com", {"objectClass: organizationalUnit", "ou: Devices"});
  l.Entry("ou=Deep,dc=example,dc=com", {"objectClass: organizationalUnit", "ou: Deep"});

  // People: under ou=DeptN,ou=People. The first of each department has a
  // uid RDN and manages the others; every 9th has a multi-valued RDN, every
  // 11th is a plain organizationalPerson.
  std::vector<std::vector<std::string>> member_dns(6);
  for (int d = 0; d < kDepts; ++d) {
    const std::string dept = "ou=Dept" + std::to_string(d) + ",ou=People,dc=example,dc=com";
    size_t before = l.entries();
    l.Entry(dept, {"objectClass: organizationalUnit", "ou: Dept" + std::to_string(d), "l: Zürich",
                   "telephoneNumber: +41 44 000 00 0" + std::to_string(d)});
    for (int k = 0; k < kPeoplePerDept; ++k) {
      const int i = d * kPeoplePerDept + k;
      const std::string num = std::to_string(i);
      const std::string sn = kSurnames[rng.Below(std::size(kSurnames))];
      const std::string given = kGiven[rng.Below(std::size(kGiven))];
      const bool plain = k % 11 == 7;
      const bool multi = !plain && k % 9 == 4;
      std::string rdn = plain   ? "cn=Person " + num
                        : multi ? "cn=Person " + num + "+sn=" + sn
                                : "uid=user" + num;
      std::string dn = rdn + "," + dept;
      std::vector<std::string> a;
      if (i % 3 == 0) a.push_back("objectClass: top");
      if (plain) {
        a.insert(a.end(), {"objectClass: person", "objectClass: organizationalPerson"});
      } else {
        a.insert(a.end(), {"objectClass: inetOrgPerson", "objectClass: posixAccount"});
      }
      a.push_back("cn: " + given + " " + sn);
      a.push_back("cn: Person " + num);
      a.push_back("sn: " + sn);
      if (sn == "Müller") ++x->mueller;
      if (sn.starts_with("Å") || sn.starts_with("A\u030A")) ++x->angstrom;
      if (i % 5 == 1) {
        a.push_back("cn;lang-de: " + given + " Deutsch");
        ++x->lang_de;
      }
      if (i % 3 == 1) a.push_back("description: person " + num + " of   Dept" + std::to_string(d));
      if (i % 6 == 2) a.push_back("description;lang-en;lang-de: tagged " + num);
      static const char* const kPhones[] = {"+1 555 0100 %d", "+1-555-0100-%d", "+15550100%d",
                                            "+1 (555) 0100 %d"};
      char phone[64];
      std::snprintf(phone, sizeof phone, kPhones[i % 4], i);
      a.push_back(std::string("telephoneNumber: ") + phone);
      if (i % 4 == 2) a.push_back("seeAlso: cn=Group1, ou=GROUPS, dc=example, dc=com");
      if (!plain) {
        ++x->inet_org_persons;
        a.push_back("uid: user" + num);
        const int uid_number = 900 + 5 * i;
        if (uid_number >= 1000) ++x->uid_number_ge_1000;
        a.push_back("uidNumber: " + std::to_string(uid_number));
        a.push_back("gidNumber: " + std::to_string(100 + d));
        if (d == 1) ++x->gid_101;
        a.push_back("homeDirectory: /home/user" + num);
        a.push_back(i % 2 == 0 ? "mail: User" + num + "@Example.COM"
                               : "mail: user" + num + "@example.com");
        if (k > 0) {
          // The department's first person, spelled oddly.
          a.push_back("manager: UID=USER" + std::to_string(d * kPeoplePerDept) + ", ou=dept" +
                      std::to_string(d) + " , OU=People,DC=Example,dc=COM");
          if (d == 0) ++x->managed_by_dept0;
        }
      }
      ++x->persons;
      l.Entry(dn, a);
      // Group members, some of them spelled oddly: upper-case types and
      // values, spaces after commas, the RDN's values in the other order.
      std::string member = dn;
      if (multi) {
        member = "SN=" + sn + "+CN=Person " + num + ", " + Upper(dept);
      } else if (i % 2 == 1) {
        member = Upper(rdn) + ", " + dept;
      }
      member_dns[i % 6].push_back(member);
    }
    if (d == 1) x->dept1_subtree = l.entries() - before;
  }
  member_dns[5].push_back("cn=Smith\\2C John,ou=special,dc=example,dc=com");
  for (int g = 0; g < 6; ++g) {
    std::vector<std::string> a = {"objectClass: groupOfNames", "cn: Group" + std::to_string(g)};
    for (const std::string& m : member_dns[g]) a.push_back("member: " + m);
    l.Entry("cn=Group" + std::to_string(g) + ",ou=Groups,dc=example,dc=com", a);
  }

  // RDNs with escaped characters and several values.
  const std::string special = ",ou=Special,dc=example,dc=com";
  auto person = [&](const std::string& rdn, const std::vector<std::string>& values) {
    std::vector<std::string> a = {"objectClass: person"};
    a.insert(a.end(), values.begin(), values.end());
    l.Entry(rdn + special, a);
    ++x->persons;
  };
  person("cn=Smith\\, John", {"cn: Smith, John", "sn: Smith"});
  person("cn=\\#hash", {"cn: #hash", "sn: hash"});
  person("cn=a\\+b", {"cn: a+b", "sn: b"});
  person("cn=a+sn=b", {"cn: a", "sn: b"});
  person("cn=semi\\;colon", {"cn: semi;colon", "sn: semi"});
  person("cn=Ünïcödé+sn=Σίσυφος", {"cn: Ünïcödé", "sn: Σίσυφος", "description: ünï"});

  // A chain of kDeepLevels organizational units under ou=Deep.
  std::string chain = "ou=Deep,dc=example,dc=com";
  for (int level = 1; level <= kDeepLevels; ++level) {
    chain = "ou=n" + std::to_string(level) + "," + chain;
    l.Entry(chain, {"objectClass: organizationalUnit", "ou: n" + std::to_string(level)});
  }
  l.Entry("cn=Bottom," + chain, {"objectClass: device", "cn: Bottom"});

  for (size_t i = 0; i < devices; ++i) {
    l.Entry("cn=dev" + std::to_string(i) + ",ou=Devices,dc=example,dc=com",
            {"objectClass: device", "cn: dev" + std::to_string(i)});
  }
  x->devices = devices + 1;  // and cn=Bottom
  x->entries = l.entries();
  x->descriptions = l.descriptions();
  return l.text();
}

// -------------------------------------------------------------- sub-databases

bool IsIndex(const std::string& name) {
  return name != "ad2i" && name != "dn2i" && name != "id2e" && name != "id2v";
}

// Every sub-database of dirload's `mine` as mdb_dump prints it equals
// slapadd's `theirs` (id2e up to slapd's unzeroed padding, unless
// `with_id2e` is false).
void CompareDatabases(const std::string& theirs, const std::string& mine, bool with_id2e = true) {
  const std::vector<std::string> dbs = MdbDatabases(theirs);
  CHECK(MdbDatabases(mine) == dbs);
  for (const char* name : {"ad2i", "dn2i", "id2e", "objectClass", "cn", "name", "uidNumber"}) {
    CHECK_MESSAGE(std::find(dbs.begin(), dbs.end(), name) != dbs.end(), name);
  }
  for (const std::string& name : dbs) {
    if (name == "id2e" && !with_id2e) continue;
    CAPTURE(name);
    std::string a = MdbDump(mine, name), b = MdbDump(theirs, name);
    if (name == "id2e") {
      size_t mine_dirty = 0, theirs_dirty = 0;
      std::string masked = MaskId2ePadding(a, &mine_dirty);
      CHECK_MESSAGE(mine_dirty == 0, "dirload left non-zero padding in id2e");
      a = masked;
      b = MaskId2ePadding(b, &theirs_dirty);
      MESSAGE("slapadd's id2e values with non-zero padding: " << theirs_dirty);
    }
    CHECK(FirstDifference(a, b) == "");
  }
}

// `slapindex -q -t` on a copy of `db` rebuilds every index to the same bytes.
void CheckSlapindexKeepsIndexes(const TempDir& tmp, const Db& db) {
  Db copy = MakeDb(tmp, "slapindex-copy");
  fs::copy_file(fs::path(db.dir) / "data.mdb", fs::path(copy.dir) / "data.mdb");
  std::vector<std::string> names;
  for (const std::string& n : MdbDatabases(copy.dir)) {
    if (IsIndex(n)) names.push_back(n);
  }
  REQUIRE(names.size() >= 8);
  std::vector<std::string> before;
  for (const std::string& n : names) before.push_back(MdbDump(copy.dir, n));
  ProcessResult r = testing::RunSlapindex({"-q", "-t", "-f", copy.conf}, 300);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  for (size_t i = 0; i < names.size(); ++i) {
    CAPTURE(names[i]);
    CHECK(FirstDifference(before[i], MdbDump(copy.dir, names[i])) == "");
  }
}

// ------------------------------------------------------------------ slapd

struct Query {
  std::string base, scope, filter;
  long expect = -1;      // the number of entries the data guarantees, -1: unknown
  bool nonempty = true;  // the data guarantees a match
  std::vector<std::string> attrs = {"dn"};
  int status = 0;  // ldapsearch's exit status (32: no such object)
};

// Runs every query on both servers: the same exit status and entries, and
// the counts the data guarantees.
void CompareSearches(const Slapd& theirs, const Slapd& mine, const std::vector<Query>& queries) {
  for (const Query& q : queries) {
    CAPTURE(q.base);
    CAPTURE(q.scope);
    CAPTURE(q.filter);
    Slapd::Answer a = mine.Search(q.base, q.scope, q.filter, q.attrs);
    Slapd::Answer b = theirs.Search(q.base, q.scope, q.filter, q.attrs);
    CHECK_MESSAGE(b.exit_code == q.status, b.err);
    CHECK_MESSAGE(a.exit_code == b.exit_code, a.err);
    if (a.entries != b.entries) {
      std::vector<std::string> only_mine, only_theirs;
      std::set_difference(a.entries.begin(), a.entries.end(), b.entries.begin(), b.entries.end(),
                          std::back_inserter(only_mine));
      std::set_difference(b.entries.begin(), b.entries.end(), a.entries.begin(), a.entries.end(),
                          std::back_inserter(only_theirs));
      FAIL_CHECK("dirload's database answers "
                 << a.entries.size() << " entries, slapadd's " << b.entries.size()
                 << "; only dirload's: " << (only_mine.empty() ? "-" : only_mine[0])
                 << " only slapadd's: " << (only_theirs.empty() ? "-" : only_theirs[0]));
    }
    if (q.nonempty) CHECK(!b.entries.empty());
    if (q.expect >= 0) CHECK(b.entries.size() == static_cast<size_t>(q.expect));
  }
}

std::vector<Query> QueryMatrix(const Expected& x) {
  const std::string s = kSuffix;
  const std::string dept1 = "ou=Dept1,ou=People," + s;
  const std::string leaf = "uid=user41," + dept1;
  std::string deep_mid = "ou=Deep," + s;
  for (int level = 1; level <= kDeepLevels / 2; ++level) {
    deep_mid = "ou=n" + std::to_string(level) + "," + deep_mid;
  }
  auto sub = [&](const std::string& filter, long expect = -1, bool nonempty = true) {
    return Query{s, "sub", filter, expect, nonempty};
  };
  auto n = [](size_t v) { return static_cast<long>(v); };
  return {
      // objectClass, superclasses included.
      sub("(objectClass=inetOrgPerson)", n(x.inet_org_persons)),
      sub("(objectClass=person)", n(x.persons)),
      sub("(objectClass=organizationalPerson)"),
      sub("(objectClass=top)", n(x.entries)),
      sub("(objectClass=*)", n(x.entries)),
      sub("(objectClass=device)", n(x.devices)),
      sub("(OBJECTCLASS=INETORGPERSON)", n(x.inet_org_persons)),
      sub("(objectClass=2.16.840.1.113730.3.2.2)", n(x.inet_org_persons)),
      sub("(objectClass=groupOfNames)", 6),
      sub("(objectClass=alias)", 0, false),
      // Equality on each indexed attribute, with case and space variants.
      sub("(uid=user17)", 1),
      sub("(uid=USER17)", 1),
      sub("(uid= user17 )", 1),
      sub("(mail=user8@example.com)", 1),
      sub("(mail=USER9@EXAMPLE.COM)", 1),
      sub("(cn=Person 12)", 1),
      sub("(cn=person   12)", 1),
      sub("(cn=  PERSON 12  )", 1),
      sub("(sn=Smith)"),
      sub("(uidNumber=1005)", 1),
      sub("(uidNumber=01005)", -1, false),
      sub("(gidNumber=101)", n(x.gid_101)),
      sub("(entryUUID=*)", n(x.entries)),
      // The supertype index receives cn, sn, ou and their kin.
      sub("(name=Müller)", n(x.mueller)),
      sub("(name=Dept2)", 1),
      sub("(name=Person 3)", 1),
      sub("(name=example corp)", 1),
      // Attribute options.
      sub("(cn;lang-de=*)", n(x.lang_de)),
      sub("(cn;lang-de=Anna Deutsch)", -1, false),
      sub("(description;lang-en=*)"),
      sub("(description;lang-de;lang-en=tagged 2)", 1),
      sub("(description=tagged 8)", 1),
      // Non-ASCII values: case folding, composition, compatibility forms.
      sub("(sn=Müller)", n(x.mueller)),
      sub("(sn=MÜLLER)"),
      sub("(sn=müller)"),
      sub("(sn=Weiß)"),
      sub("(sn=WEISS)", -1, false),
      sub("(sn=Οδυσσεύς)"),
      sub("(sn=ΟΔΥΣΣΕΎΣ)", -1, false),  // slapd folds Σ to σ, never to the final ς
      sub("(sn=σίσυφος)"),
      sub("(sn=Σίσυφος)"),
      sub("(sn=ΣΊΣΥΦΟΣ)"),
      sub("(sn=Ｆｕｌｌｗｉｄｔｈ)"),
      sub("(sn=fullwidth)"),
      sub("(sn=Café)"),
      sub("(sn=cafe\u0301)"),
      sub("(sn=ﬁnley)"),
      sub("(sn=finley)"),
      sub("(sn=Ångström)", n(x.angstrom)),
      sub("(sn=A\u030Angstro\u0308m)", n(x.angstrom)),
      sub("(cn=Ünïcödé)", 1),
      sub("(cn=*ünï*)", 1),
      sub("(cn=Rene\u0301e*)", -1, false),
      sub("(cn=Renée*)", -1, false),
      // Substrings: initial, any, final, combined.
      sub("(cn=Pers*)"),
      sub("(cn=*son 1*)"),
      sub("(cn=*on 17)", 1),
      sub("(cn=P*s*n*1*7)"),
      sub("(sn=*öm)"),
      sub("(sn=Ng*)"),
      sub("(uid=user1*)"),
      sub("(uid=*ser3*)"),
      sub("(mail=*@example.com)", n(x.inet_org_persons)),
      sub("(mail=user1*@EXAMPLE.*)"),
      sub("(cn=a+b)", 1),
      sub("(cn=*+*)", 1),
      sub("(cn=Smith, John)", 1),
      sub("(cn=#hash)", 1),
      sub("(cn=\\23hash)", 1),
      sub("(cn=semi;colon)", 1),
      sub("(cn=de*)"),  // the devices
      // Telephone numbers: spaces and hyphens do not count.
      sub("(telephoneNumber=+1 555 0100 5)", 1),
      sub("(telephoneNumber=+1-555-0100-6)", 1),
      sub("(telephoneNumber=+155501008)", 1),
      sub("(telephoneNumber=*0100*)"),
      sub("(telephoneNumber=+41*)", kDepts),
      sub("(telephoneNumber=*00 02)", 1),
      // Presence.
      sub("(description=*)", n(x.descriptions)),
      sub("(telephoneNumber=*)"),
      sub("(manager=*)", n(x.inet_org_persons - kDepts)),
      sub("(member=*)", 6),
      sub("(seeAlso=*)"),
      // DN-valued attributes, spelled oddly.
      sub("(manager=uid=user0,ou=Dept0,ou=People,dc=example,dc=com)", n(x.managed_by_dept0)),
      sub("(manager=UID=USER0, OU=DEPT0, OU=PEOPLE, DC=EXAMPLE, DC=COM)", n(x.managed_by_dept0)),
      sub("(member=uid=user1,ou=dept0,ou=people,dc=example,dc=com)", 1),
      sub("(member=UID=USER6 , OU=Dept0,ou=People,dc=example,dc=com)", 1),
      sub("(member=cn=Smith\\5C, John,ou=Special,dc=example,dc=com)", 1),
      sub("(member=CN=SMITH\\5C2C JOHN,OU=SPECIAL,DC=EXAMPLE,DC=COM)", 1),
      sub("(seeAlso=cn=group1,ou=groups,dc=example,dc=com)"),
      // Ordering (no ordering index: slapd tests every candidate).
      sub("(uidNumber>=1000)", n(x.uid_number_ge_1000)),
      sub("(uidNumber<=950)"),
      // Combinations.
      sub("(&(objectClass=person)(sn=Smith))"),
      sub("(|(uid=user1)(uid=user2)(cn=a))", 3),
      sub("(&(objectClass=device)(!(cn=dev1*)))"),
      sub("(&(objectClass=inetOrgPerson)(uidNumber>=1500)(mail=*example*))"),
      sub("(!(objectClass=device))", n(x.entries - x.devices)),
      // Scopes from the suffix, a middle level, a leaf and down the chain.
      Query{s, "base", "(objectClass=*)", 1},
      Query{s, "one", "(objectClass=*)", 5},
      Query{"ou=People," + s, "one", "(objectClass=*)", kDepts},
      Query{dept1, "base", "(objectClass=*)", 1},
      Query{dept1, "one", "(objectClass=*)", kPeoplePerDept},
      Query{dept1, "sub", "(objectClass=*)", n(x.dept1_subtree)},
      Query{dept1, "children", "(objectClass=*)", n(x.dept1_subtree - 1)},
      Query{dept1, "sub", "(uid=user4*)"},
      Query{leaf, "base", "(objectClass=*)", 1},
      Query{leaf, "one", "(objectClass=*)", 0, false},
      Query{leaf, "sub", "(objectClass=*)", 1},
      Query{"ou=Deep," + s, "sub", "(objectClass=*)", kDeepLevels + 2},
      Query{deep_mid, "sub", "(objectClass=*)", kDeepLevels - kDeepLevels / 2 + 2},
      Query{deep_mid, "one", "(objectClass=*)", 1},
      Query{deep_mid, "sub", "(cn=Bottom)", 1},
      Query{"ou=Devices," + s, "one", "(cn=dev1*)"},
      // Escaped and multi-valued RDNs as the base, in other spellings.
      Query{"cn=Smith\\, John,ou=Special," + s, "base", "(objectClass=*)", 1},
      Query{"CN=smith\\2c john,ou=special," + s, "base", "(objectClass=*)", 1},
      Query{"cn=\\#hash,ou=Special," + s, "base", "(objectClass=*)", 1},
      Query{"cn=a\\+b,ou=Special," + s, "base", "(objectClass=*)", 1},
      Query{"sn=b+cn=a,ou=Special," + s, "base", "(objectClass=*)", 1},
      Query{"sn=Σίσυφος+cn=Ünïcödé,ou=Special," + s, "base", "(objectClass=*)", 1},
      Query{"ou=Special," + s, "one", "(objectClass=*)", 6},
      Query{"cn=nothing," + s, "sub", "(objectClass=*)", 0, false, {"dn"}, 32},
      // hasSubordinates with the operational attributes: their values too.
      Query{s, "sub", "(hasSubordinates=TRUE)", -1, true, {"+"}},
      Query{s, "sub", "(hasSubordinates=FALSE)", -1, true, {"hasSubordinates"}},
      Query{dept1, "sub", "(objectClass=*)", -1, true, {"*", "+"}},
      Query{deep_mid, "sub", "(objectClass=*)", -1, true, {"*", "+"}},
  };
}

// -------------------------------------------------------------------- tests

// The export slapadd and dirload both load: slapcat's of slapadd's load of
// the generated directory, so it holds fixed operational attributes.
std::string Export(const TempDir& tmp, size_t devices, Expected* x) {
  const std::string raw = tmp.Write("raw.ldif", GenerateLdif(devices, x));
  Db db0 = MakeDb(tmp, "db0");
  Slapadd(db0, raw);
  const std::string exported = Slapcat(db0);
  REQUIRE(SplitRecords(exported).size() == x->entries);
  return tmp.Write("export.ldif", exported);
}

double Since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

TEST_CASE("mdb oracle: dirload add -f writes slapadd's database, and slapd serves it alike") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  auto start = std::chrono::steady_clock::now();
  Expected x;
  const std::string exported = Export(tmp, 300, &x);
  Db a = MakeDb(tmp, "slapadd");
  Slapadd(a, exported);
  Db b = MakeDb(tmp, "dirload");
  ProcessResult add = DirloadAdd(b, exported);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  CHECK_FALSE(fs::exists(fs::path(b.dir) / ".dirload-build"));
  MESSAGE("loads: " << Since(start) << " s");

  {
    INFO("every sub-database, as mdb_dump prints it");
    CompareDatabases(a.dir, b.dir);
  }
  const std::string cat_a = Slapcat(a);
  {
    INFO("slapcat of both, and dirload cat, print the same bytes");
    CHECK(FirstDifference(Slapcat(b), cat_a) == "");
    CHECK(FirstDifference(cat_a, ReadFile(exported)) == "");
    ProcessResult cat = RunDirload({"cat", "-f", b.conf}, 120);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    CHECK(FirstDifference(cat.out, cat_a) == "");
  }
  {
    INFO("slapindex -q -t on a copy of dirload's database changes no index");
    CheckSlapindexKeepsIndexes(tmp, b);
  }
  {
    INFO("dirload stat reads the database");
    ProcessResult stat = RunDirload({"stat", "-f", b.conf}, 120);
    CHECK_MESSAGE(stat.exit_code == 0, stat.Describe());
    CHECK_FALSE(stat.out.empty());
  }
  MESSAGE("offline checks: " << Since(start) << " s");

  Slapd theirs(tmp, "slapadd", a.conf);
  {
    Slapd mine(tmp, "dirload", b.conf);
    INFO("slapd answers the same on both databases");
    CompareSearches(theirs, mine, QueryMatrix(x));
  }
  MESSAGE("searches: " << Since(start) << " s");

  {
    INFO("append: slapadd loads the first half, dirload add -f the rest");
    std::vector<std::string> records = SplitRecords(ReadFile(exported));
    const size_t half = records.size() / 2;
    std::string first, second;
    for (size_t i = 0; i < records.size(); ++i) (i < half ? first : second) += records[i];
    Db h = MakeDb(tmp, "appended");
    Slapadd(h, tmp.Write("first.ldif", first));
    ProcessResult more = DirloadAdd(h, tmp.Write("second.ldif", second));
    REQUIRE_MESSAGE(more.exit_code == 0, more.Describe());
    CHECK_FALSE(fs::exists(fs::path(h.dir) / ".dirload-build"));
    CHECK(FirstDifference(Slapcat(h), cat_a) == "");
    CompareDatabases(a.dir, h.dir);
    Slapd appended(tmp, "appended", h.conf);
    const std::string s = kSuffix;
    CompareSearches(
        theirs, appended,
        {
            Query{s, "sub", "(objectClass=person)", static_cast<long>(x.persons)},
            Query{s, "sub", "(uid=user1)", 1},
            Query{s, "sub", "(cn=dev29*)", 11},
            Query{s, "sub", "(cn=Bottom)", 1},
            Query{s, "sub", "(manager=uid=user120,ou=dept3,ou=people,dc=example,dc=com)"},
            Query{s, "sub", "(sn=Σίσυφος)"},
            Query{"ou=Deep," + s, "sub", "(objectClass=*)", kDeepLevels + 2},
            Query{s, "sub", "(hasSubordinates=TRUE)", -1, true, {"+"}},
        });
  }
  MESSAGE("total: " << Since(start) << " s");
}

TEST_CASE("mdb oracle: a key shared by more than 65,535 entries") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  auto start = std::chrono::steady_clock::now();
  Expected x;
  const std::string exported = Export(tmp, 66000, &x);
  MESSAGE("export: " << Since(start) << " s");
  Db a = MakeDb(tmp, "slapadd");
  Slapadd(a, exported);
  MESSAGE("slapadd: " << Since(start) << " s");
  Db b = MakeDb(tmp, "dirload");
  ProcessResult add = DirloadAdd(b, exported);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  MESSAGE("dirload add: " << Since(start) << " s");
  // The entries themselves are compared by the test above; here the keys
  // and dn2i of a large flat directory.
  CompareDatabases(a.dir, b.dir, /*with_id2e=*/false);
  MESSAGE("dumps: " << Since(start) << " s");
  // The cache method gives the same databases, also when lists are evicted
  // and merged into their keys again (20,000 lists for far more keys;
  // ranges included), and so does dirload index with it.
  Db c = MakeDb(tmp, "dirload-cache");
  ProcessResult cached = RunDirload({"add", "-f", c.conf, "-l", exported, "--progress", "never",
                                     "--index-method", "cache", "--idl-cache-size", "20000"},
                                    300);
  REQUIRE_MESSAGE(cached.exit_code == 0, cached.Describe());
  CompareDatabases(a.dir, c.dir, /*with_id2e=*/false);
  ProcessResult reindexed =
      RunDirload({"index", "-f", c.conf, "--progress", "never", "--index-method", "cache"}, 300);
  REQUIRE_MESSAGE(reindexed.exit_code == 0, reindexed.Describe());
  CompareDatabases(a.dir, c.dir, /*with_id2e=*/false);
  MESSAGE("cache method: " << Since(start) << " s");
  Slapd theirs(tmp, "slapadd", a.conf);
  Slapd mine(tmp, "dirload", b.conf);
  const std::string s = kSuffix;
  const auto n = [](size_t v) { return static_cast<long>(v); };
  CompareSearches(
      theirs, mine,
      {
          Query{s, "sub", "(objectClass=device)", n(x.devices)},
          Query{s, "sub", "(objectClass=top)", n(x.entries)},
          Query{s, "sub", "(&(objectClass=device)(cn=dev6553*))", 11},
          Query{s, "sub", "(cn=dev*)", 66000},
          Query{s, "sub", "(&(objectClass=device)(!(cn=dev*)))", 1},
          Query{s, "sub", "(objectClass=inetOrgPerson)", n(x.inet_org_persons)},
          Query{"ou=Devices," + s, "one", "(objectClass=device)", 66000},
          Query{"ou=Dept2,ou=People," + s, "sub", "(objectClass=top)", kPeoplePerDept + 1},
      });
  MESSAGE("total: " << Since(start) << " s");
}

// A digest of a file's bytes, read in large blocks: dirload's data.mdb is as
// large as the map (sparse), too large to read whole.
size_t FileDigest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::string block(1 << 20, '\0');
  size_t digest = 0;
  while (in) {
    in.read(block.data(), static_cast<std::streamsize>(block.size()));
    const auto got = static_cast<size_t>(in.gcount());
    digest = digest * 1099511628211u ^ std::hash<std::string_view>()({block.data(), got});
  }
  return digest;
}

// Starts `dirload add -f` of `input` into `db`, waits until its build
// directory holds a data.mdb (then a little more), checks it still runs,
// and kills it with SIGKILL.
void KillMidLoad(const TempDir& tmp, const Db& db, const std::string& input) {
  testing::Child child;
  std::string error;
  REQUIRE_MESSAGE(child.Start({"add", "-f", db.conf, "-l", input, "--progress", "never"},
                              tmp.File("killed.out"), tmp.File("killed.err"), &error),
                  error);
  const fs::path built = fs::path(db.dir) / ".dirload-build" / "data.mdb";
  auto start = std::chrono::steady_clock::now();
  while (child.Running() && !fs::exists(built) && Since(start) < 60) SleepSeconds(0.01);
  SleepSeconds(0.3);
  REQUIRE_MESSAGE(child.Running(), "dirload add finished before it was killed: "
                                       << ReadFile(tmp.File("killed.err")));
  CHECK(fs::exists(built));
  child.Kill(SIGKILL);
  ProcessResult killed;
  child.Wait(30, &killed);
  REQUIRE(killed.signal == SIGKILL);
}

TEST_CASE("mdb oracle: a killed dirload add leaves slapd nothing half-loaded") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  const std::vector<std::string> lines = {"objectClass eq", "cn,sn,mail,uid eq,sub",
                                          "uidNumber eq"};
  bench::GeneratorOptions go;
  go.seed = 7;
  go.suffix = kSuffix;
  go.entries = 1000;
  const std::string small = tmp.File("small.ldif");
  REQUIRE(bench::GenerateLdifFile(go, small).ok());
  go.entries = 60000;
  const std::string big = tmp.File("big.ldif");
  REQUIRE(bench::GenerateLdifFile(go, big).ok());

  Db db = MakeDb(tmp, "db", lines);
  {
    INFO("a new load killed mid-run leaves no data.mdb");
    KillMidLoad(tmp, db, big);
    CHECK_FALSE(fs::exists(fs::path(db.dir) / "data.mdb"));
    ProcessResult cat = testing::RunSlapcat({"-f", db.conf}, 60);
    CHECK(cat.out.empty());
  }
  {
    INFO("the next dirload add removes the stale build directory and loads");
    ProcessResult add = DirloadAdd(db, small);
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    CHECK_FALSE(fs::exists(fs::path(db.dir) / ".dirload-build"));
    CHECK(SplitRecords(Slapcat(db)).size() == 1000);
  }
  {
    INFO("an append killed mid-run leaves the old data.mdb as it was");
    const std::string data = db.dir + "/data.mdb";
    const size_t before = FileDigest(data);
    const fs::file_time_type written = fs::last_write_time(data);
    // A run with fewer entries is a byte prefix of a longer one.
    const std::string head = ReadFile(small);
    std::ifstream in(big, std::ios::binary);
    std::string prefix(head.size(), '\0');
    in.read(prefix.data(), static_cast<std::streamsize>(prefix.size()));
    REQUIRE(prefix == head);
    const std::string rest = tmp.File("rest.ldif");
    std::ofstream(rest, std::ios::binary) << in.rdbuf();
    REQUIRE(fs::file_size(rest) == fs::file_size(big) - head.size());
    KillMidLoad(tmp, db, rest);
    CHECK(FileDigest(data) == before);
    CHECK(fs::last_write_time(data) == written);
    CHECK(SplitRecords(Slapcat(db)).size() == 1000);
    ProcessResult stat = RunDirload({"stat", "-f", db.conf}, 60);
    CHECK_MESSAGE(stat.exit_code == 0, stat.Describe());
  }
}

TEST_CASE("mdb oracle: the loaded files take the database directory's owner") {
  SKIP_WITHOUT_TOOLS();
  if (::geteuid() != 0) {
    MESSAGE("not root: the owner cannot be changed; skipping");
    return;
  }
  TempDir tmp;
  Db db = MakeDb(tmp, "db", {"objectClass eq"});
  // Debian's slapd runs as openldap and must open what root loaded; any
  // other user stands in for it where that one does not exist.
  const uid_t uid = 4242;
  const gid_t gid = 4343;
  REQUIRE(::chown(db.dir.c_str(), uid, gid) == 0);
  bench::GeneratorOptions go;
  go.seed = 3;
  go.suffix = kSuffix;
  go.entries = 50;
  const std::string ldif = tmp.File("in.ldif");
  REQUIRE(bench::GenerateLdifFile(go, ldif).ok());
  ProcessResult add = DirloadAdd(db, ldif);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  struct stat st {};
  REQUIRE(::stat((db.dir + "/data.mdb").c_str(), &st) == 0);
  CHECK(st.st_uid == uid);
  CHECK(st.st_gid == gid);
}

TEST_CASE("mdb oracle: raw RDNs with escaped and repeated spaces are stored as slapd stores them") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  // Raw input, not a slapcat export: escaped spaces (\  and \20) in runs,
  // at the ends and inside values, and escaped separators in a two-AVA RDN.
  // slapd's pretty RDN keeps inner runs, writes the first leading and the
  // last trailing space as \20, and its normalized RDN folds the runs.
  const std::string ldif =
      tmp.Write("in.ldif",
                "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
                "dn: cn=x\\ \\ y,dc=example,dc=com\nobjectClass: person\n"
                "cn: x  y\nsn: s\n\n"
                "dn: cn=a\\20\\20b,dc=example,dc=com\nobjectClass: person\n"
                "cn: a  b\nsn: s\n\n"
                "dn: cn=\\ \\ lead  mid\\ ,dc=example,dc=com\n"
                "objectClass: person\ncn:: ICBsZWFkICBtaWQg\nsn: s\n\n"
                "dn: cn=t\\ \\ ,dc=example,dc=com\nobjectClass: person\n"
                "cn: t\nsn: s\n\n"
                "dn: cn=u\\,v+sn=w\\2Bz,dc=example,dc=com\nobjectClass: person\n"
                "cn: u,v\nsn: w+z\n\n");
  Db theirs = MakeDb(tmp, "theirs", {"objectClass eq", "cn eq"});
  Db mine = MakeDb(tmp, "mine", {"objectClass eq", "cn eq"});
  Slapadd(theirs, ldif);
  ProcessResult add = DirloadAdd(mine, ldif);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  CHECK(FirstDifference(MdbDump(mine.dir, "dn2i"), MdbDump(theirs.dir, "dn2i")) == "");
  auto dns = [](const std::string& ldif_text) {
    std::string out;
    for (const std::string& r : SplitRecords(ldif_text)) out += r.substr(0, r.find('\n')) + "\n";
    return out;
  };
  const std::string theirs_cat = Slapcat(theirs);
  CHECK(dns(Slapcat(mine)) == dns(theirs_cat));
  CHECK(theirs_cat.find("dn: cn=t \\20,dc=example,dc=com") != std::string::npos);
}

// slapadd 2.5 stores a value given twice as given, both copies (and their
// normalized copies) in id2e; its index keys are the same as for one copy.
// dirload stores them alike by default: every sub-database equal.
TEST_CASE("mdb oracle: values given twice are stored as slapadd stores them") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  const std::string ldif =
      tmp.Write("in.ldif",
                "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
                "dn: cn=a,dc=example,dc=com\nobjectClass: person\nobjectClass: 2.5.6.6\n"
                "cn: a\ncn: A\ncn: a\nsn: s\nsn: s\nuserPassword: jaj\nuserPassword: jaj\n"
                "description: d\ndescription: d\n"
                "telephoneNumber: +1 555 0100\ntelephoneNumber: +15550100\n\n"
                "dn: cn=g,dc=example,dc=com\nobjectClass: groupOfNames\ncn: g\n"
                "member: cn=a,dc=example,dc=com\nmember: CN=A, DC=example,DC=com\n"
                "member: cn=a,dc=example,dc=com\n\n");
  // Loaded once by slapadd and exported, so both loads get the same
  // operational values.
  Db first = MakeDb(tmp, "first");
  Slapadd(first, ldif);
  const std::string exported = tmp.Write("export.ldif", Slapcat(first));
  Db theirs = MakeDb(tmp, "theirs");
  Db mine = MakeDb(tmp, "mine");
  Slapadd(theirs, exported);
  ProcessResult add = DirloadAdd(mine, exported);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  CHECK_MESSAGE(add.err.find("2 entries with a value given twice") != std::string::npos, add.err);
  CompareDatabases(theirs.dir, mine.dir);
  CHECK(Slapcat(mine) == Slapcat(theirs));
}

// The loader asks dn2i itself whether a DN is taken and what a parent's ID
// is, while dn2i is being written; entries that come before a reserved
// parent's ID wait outside it. Input that exercises every way a name is
// found (a child before its parent, a duplicate of an entry still waiting,
// duplicates spelt otherwise, an append onto slapadd's database) must give
// the DN tree slapadd gives, byte for byte, and reject what it rejects.
TEST_CASE("mdb oracle: duplicate and parent checks against dn2i judge names as slapadd does") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  auto person = [](const std::string& dn, const std::string& uid) {
    return "dn: " + dn + "\nobjectClass: inetOrgPerson\nuid: " + uid + "\ncn: " + uid +
           "\nsn: s\n\n";
  };
  auto ou = [](const std::string& dn, const std::string& name) {
    return "dn: " + dn + "\nobjectClass: organizationalUnit\nou: " + name + "\n\n";
  };
  const std::string s = kSuffix;
  const std::string first =
      "dn: " + s + "\nobjectClass: domain\ndc: example\n\n" +
      person("uid=a,ou=Later," + s, "a") +          // before its parent: ou=Later is reserved
      person("uid=b,ou=Later," + s, "b") +          // waits behind the reserved ID too
      person("UID=A,OU=later," + s, "A") +          // duplicate of an entry still waiting
      ou("ou=People," + s, "People") +              //
      person("uid=p1,ou=People," + s, "p1") +       //
      person("uid=p1, ou=people," + s, "p1") +      // duplicate, spelt otherwise
      ou("ou=Later," + s, "Later") +                // takes the reserved ID
      person("uid=c,ou=later," + s, "c") +          // under it, spelt otherwise
      person("uid=b,ou=Later," + s, "b") +          // duplicate of a written entry
      person("uid=d,ou=Deep,ou=Later," + s, "d") +  // two levels: one hole under a filled one
      ou("ou=Deep,ou=Later," + s, "Deep");
  const std::string second = person("UID=P1,OU=PEOPLE," + s, "p1") +      // already stored
                             person("uid=p2,ou=People," + s, "p2") +      // under a stored parent
                             person("uid=e,ou=New,ou=Later," + s, "e") +  // before a new parent
                             ou("ou=New,ou=Later," + s, "New") +
                             person("uid=c,ou=Later," + s, "c");  // stored, spelt otherwise
  const std::string in1 = tmp.Write("first.ldif", first);
  const std::string in2 = tmp.Write("second.ldif", second);
  const std::vector<std::string> indexes = {"objectClass eq", "uid eq"};
  Db theirs = MakeDb(tmp, "theirs", indexes);
  Db mine = MakeDb(tmp, "mine", indexes);
  // Without -q: slapadd -q -c loses the entries of the transaction a
  // rejected one aborts, ad2i records included (slapcat then crashes).
  auto slapadd_c = [&](const Db& db, const std::string& ldif) {
    ProcessResult r = testing::RunSlapadd({"-c", "-f", db.conf, "-l", ldif}, 300);
    CHECK_MESSAGE(r.exit_code != 0, "slapadd -c reports the duplicates: " << r.Describe());
  };
  auto dirload_c = [&](const Db& db, const std::string& ldif, const std::string& rejects) {
    ProcessResult r = RunDirload({"add", "-c", "-f", db.conf, "-l", ldif, "--reject-file",
                                  tmp.File(rejects), "--progress", "never"},
                                 300);
    CHECK_MESSAGE(r.exit_code == 1, r.Describe());
    return ReadFile(tmp.File(rejects));
  };
  auto dns = [](const std::string& ldif_text) {
    std::string out;
    for (const std::string& r : SplitRecords(ldif_text)) out += r.substr(0, r.find('\n')) + "\n";
    return out;
  };

  // Both tools load `ldif` with -c: the same DN tree, IDs and nsubs
  // included, the same entries, and dirload's rejects returned.
  auto load_both = [&](const std::string& ldif, const std::string& rejects) {
    slapadd_c(theirs, ldif);
    std::string rejected = dirload_c(mine, ldif, rejects);
    CHECK(FirstDifference(MdbDump(mine.dir, "dn2i"), MdbDump(theirs.dir, "dn2i")) == "");
    CHECK(dns(Slapcat(mine)) == dns(Slapcat(theirs)));
    return rejected;
  };
  {
    INFO("a new load");
    const std::string rejected = load_both(in1, "rejects1.ldif");
    CHECK(SplitRecords(rejected).size() == 3);
    CHECK(rejected.find("first.ldif:") != std::string::npos);
    CHECK(rejected.find("dn: UID=A,OU=later,") != std::string::npos);
    CHECK(rejected.find("dn: uid=p1, ou=people,") != std::string::npos);
  }
  {
    INFO("an append onto it: stored names are found in the copied dn2i");
    const std::string rejected = load_both(in2, "rejects2.ldif");
    CHECK(SplitRecords(rejected).size() == 2);
    CHECK(rejected.find("already in the database") != std::string::npos);
  }
  {
    INFO("a parent that never comes: the entries below it go to the reject file, values and all");
    Db orphans = MakeDb(tmp, "orphans", indexes);
    const std::string in = tmp.Write(
        "orphans.ldif", "dn: " + s + "\nobjectClass: domain\ndc: example\n\n" +
                            person("uid=o1,ou=Never," + s, "o1") + ou("ou=Kept," + s, "Kept") +
                            person("uid=o2,ou=Sub,ou=Never," + s, "o2") +
                            person("uid=k,ou=Kept," + s, "k"));
    const std::string rejected = dirload_c(orphans, in, "orphans-rejects.ldif");
    CHECK(SplitRecords(rejected).size() == 2);
    CHECK(rejected.find("parent entry 'ou=Never," + s + "' does not exist") != std::string::npos);
    CHECK(rejected.find("uid: o1\n") != std::string::npos);
    CHECK(rejected.find("uid: o2\n") != std::string::npos);
    CHECK(dns(Slapcat(orphans)) ==
          "dn: " + s + "\ndn: ou=Kept," + s + "\ndn: uid=k,ou=Kept," + s + "\n");
  }
}

}  // namespace
}  // namespace dirload
