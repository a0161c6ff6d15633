// Shared by the tests of `dirload index` and `dirload search` on slapd's
// own database: slapd.conf, slapadd, mdb_dump and slapcat helpers. Test-only.
//
// Thread safety: the helpers run child processes; call from one thread.
#pragma once

#include <doctest/doctest.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/support/child_process.h"
#include "tests/support/hex.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload::mdb_search_testing {

using testing::RunDirload;
using testing::RunProcess;
using testing::TempDir;

inline constexpr const char* kSuffix = "dc=example,dc=com";

inline std::string Conf(const std::string& dir, const std::vector<std::string>& index_lines) {
  return testing::SlapdConf()
      .LoadBackMdb()
      .Include(testing::kExampleSchemas)
      .Database("mdb")
      .Suffix(kSuffix)
      .RootDn(testing::kExampleRootDn)
      .Directory(dir)
      .MaxSize(268435456)
      .Indexes(index_lines)
      .Text();
}

inline const std::vector<std::string> kIndexLines = {
    "objectClass eq", "cn,sn,mail,uid eq,sub",  "description pres,eq", "member eq",
    "entryUUID eq",   "telephoneNumber eq,sub", "uidNumber eq",
};

inline std::string Ldif() {
  std::string s =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "dc: example\no: Example\n\n"
      "dn: ou=People,dc=example,dc=com\nobjectClass: organizationalUnit\nou: People\n"
      "description: the  People   branch\n\n"
      "dn: ou=Groups,dc=example,dc=com\nobjectClass: organizationalUnit\nou: Groups\n\n"
      "dn: ou=Sub,ou=People,dc=example,dc=com\nobjectClass: organizationalUnit\nou: Sub\n\n";
  for (int i = 0; i < 30; ++i) {
    std::string parent = i % 3 == 0 ? "ou=Sub,ou=People" : "ou=People";
    s += "dn: uid=user" + std::to_string(i) + "," + parent + ",dc=example,dc=com\n";
    s += "objectClass: inetOrgPerson\n";
    if (i % 4 == 0)
      s += "objectClass: posixAccount\nuidNumber: " + std::to_string(1000 + i) +
           "\ngidNumber: 100\nhomeDirectory: /home/u" + std::to_string(i) + "\n";
    s += "cn: User " + std::to_string(i) + "\ncn: Nick" + std::to_string(i % 4) + "\n";
    s += "sn: Surname" + std::to_string(i % 5) + "\nuid: user" + std::to_string(i) + "\n";
    s += "mail: user" + std::to_string(i) + "@Example.com\n";
    if (i % 2) s += "description: desc " + std::to_string(i) + "\n";
    if (i % 5 == 1) s += "telephoneNumber: +1 555-01" + std::to_string(10 + i) + "\n";
    s += "\n";
  }
  s += "dn: uid=mueller,ou=People,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
       "cn: Hans M\xc3\xbcller\ncn;lang-de: Hansi\nsn: M\xc3\xbcller\nuid: mueller\n"
       "description:   Lots   of  Space  \n\n";
  s += "dn: cn=admins,ou=Groups,dc=example,dc=com\nobjectClass: groupOfNames\ncn: admins\n"
       "member: uid=user1,ou=People,dc=example,dc=com\n"
       "member: UID=User2, OU=People, DC=example, DC=com\n\n";
  return s;
}

struct Db {
  std::string dir, conf;
};

// slapadd's database of `ldif` in tmp/name, configured with `index_lines`
// while slapadd runs.
inline Db Slapadd(const TempDir& tmp, const std::string& name, const std::string& ldif,
                  const std::vector<std::string>& index_lines) {
  Db db;
  db.dir = tmp.File(name);
  std::filesystem::create_directory(db.dir);
  db.conf = tmp.Write(name + ".conf", Conf(db.dir, index_lines));
  std::string input = tmp.Write(name + ".ldif", ldif);
  auto r = testing::RunSlapadd({"-q", "-f", db.conf, "-l", input}, 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return db;
}

inline std::string Dump(const std::string& dir, const std::string& name) {
  auto r = testing::RunMdbDump({"-s", name, dir}, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return r.out;
}

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

inline std::vector<std::string> ListDbs(const std::string& dir) {
  auto r = testing::RunMdbDump({"-l", dir}, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return Lines(r.out);
}

inline bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A copy of `db` configured with `index_lines`, for slapindex.
inline Db Copy(const TempDir& tmp, const Db& db, const std::string& name,
               const std::vector<std::string>& index_lines) {
  Db copy;
  copy.dir = tmp.File(name);
  std::filesystem::create_directory(copy.dir);
  std::filesystem::copy_file(db.dir + "/data.mdb", copy.dir + "/data.mdb");
  copy.conf = tmp.Write(name + ".conf", Conf(copy.dir, index_lines));
  return copy;
}

inline std::vector<std::string> SortedDns(const std::string& out, bool ldif) {
  std::vector<std::string> dns;
  for (const std::string& l : Lines(out)) {
    if (!ldif) {
      dns.push_back(l);
    } else if (l.rfind("dn: ", 0) == 0) {
      dns.push_back(l.substr(4));
    }
  }
  std::sort(dns.begin(), dns.end());
  return dns;
}

inline std::vector<std::string> DirloadDns(const Db& db, const std::string& base,
                                           const std::string& scope, const std::string& filter,
                                           bool no_index) {
  std::vector<std::string> args = {"search", "-f", db.conf, "-b", base, "-s", scope, "--dn"};
  if (no_index) args.push_back("--no-index");
  args.push_back(filter);
  auto r = RunDirload(args, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return SortedDns(r.out, false);
}

inline std::vector<std::string> SlapcatDns(const Db& db, const std::string& base,
                                           const std::string& scope, const std::string& filter) {
  auto r = testing::RunSlapcat(
      {"-f", db.conf, "-o", "ldif-wrap=no", "-H",
       "ldap:///" + base + "??" + scope + "?" + testing::PercentEncode(filter, "=*&|!()@,")},
      60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return SortedDns(r.out, true);
}

// (slapcat -s aborts in 2.5.13 on this database; -a does not.)
inline std::string EntryUuidOf(const Db& db, const std::string& filter) {
  auto r = testing::RunSlapcat({"-f", db.conf, "-a", filter}, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  for (const std::string& l : Lines(r.out)) {
    if (l.rfind("entryUUID: ", 0) == 0) return l.substr(11);
  }
  FAIL("no entryUUID in " << filter);
  return "";
}

#define SKIP_WITHOUT_OPENLDAP()                                                \
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "slapindex", "mdb_dump"); \
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing())

}  // namespace dirload::mdb_search_testing
