// Oracle of authzMatch: for authzTo and authzFrom values (the proxy
// authorization rules slapd checks against the normalised copies stored
// with the entry) slapadd stores beside each value the form saslauthz.c's
// authzNormalize gives it ("dn.exact:uid=A,o=B" as "dn:uid=a,o=b", group
// rules with canonical class and attribute names, ...). `dirload add -f` on
// the same LDIF (operational attributes given, so that every byte can
// agree) writes the same id2e (up to the padding slapd leaves unzeroed) and
// the same sub-databases, and slapcat prints the same LDIF. The rules are
// those of OpenLDAP's test028-idassert data and every other form slapd
// normalises.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "lib/util/ascii.h"
#include "tests/integration/dirload_process.h"
#include "tests/support/child_process.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::FirstDifference;
using testing::MaskId2ePadding;
using testing::MdbDatabases;
using testing::MdbDump;
using testing::ProcessResult;
using testing::RunDirload;
using testing::TempDir;

struct Db {
  std::string dir, conf;
};

Db MakeDb(const TempDir& tmp, const std::string& name) {
  Db db{tmp.File(name), ""};
  fs::create_directory(db.dir);
  db.conf = testing::SlapdConf()
                .LoadBackMdb()
                .Include({"core", "cosine", "inetorgperson"})
                .Database("mdb")
                .Suffix(testing::kExampleSuffix)
                .RootDn(testing::kExampleRootDn)
                .Directory(db.dir)
                .MaxSize(104857600)
                .Indexes({"objectClass eq", "cn eq"})
                .Write(tmp, name + ".conf");
  return db;
}

std::string Operational(int n, std::string_view structural) {
  char uuid[40];
  std::snprintf(uuid, sizeof(uuid), "4a7e0c2e-8f3e-4d0b-9d7a-%012d", n);
  return "entryUUID: " + std::string(uuid) +
         "\nentryCSN: 20240101000000.000000Z#000000#000#000000\n"
         "createTimestamp: 20240101000000Z\nmodifyTimestamp: 20240101000000Z\n"
         "creatorsName: cn=admin,dc=example,dc=com\n"
         "modifiersName: cn=admin,dc=example,dc=com\n"
         "structuralObjectClass: " +
         std::string(structural) + "\n";
}

constexpr const char* kAuthzTo[] = {
    // test-idassert1.ldif's
    "dn.subtree:ou=People,dc=example,dc=it",
    "dn.exact:cn=Sandbox,ou=Admin,dc=example,dc=com",
    "dn.exact:",
    // the other DN styles, spaces and case
    "dn:CN=Some One, OU=Admin,dc=example,dc=com",
    "DN.Children:ou=Admin,dc=example,dc=com",
    "dn.onelevel:   ou=People,dc=EXAMPLE,dc=com",
    "dn.subtree:*",
    "dn.regex:^uid=[^,]+,ou=People,dc=example,dc=com$",
    "dn.regex:*",
    // SASL user names, groups, a plain DN, a canonical URL
    "u:bjensen",
    "U.DIGEST-MD5/EXAMPLE.COM:bjensen",
    "group/groupOfNames/member:cn=Group,dc=example,dc=com",
    "group/GROUPOFUNIQUENAMES/UNIQUEMEMBER:cn=G2,DC=Example,dc=com",
    "group:cn=G3, dc=example,dc=com",
    "cn=Plain,dc=Example,dc=com",
    "ldap:///ou=people,dc=example,dc=com??sub?(uid=x)",
};

constexpr const char* kAuthzFrom[] = {
    "dn.exact:uid=jaj,o=Example,c=US",
    "dn.subtree:ou=People,dc=example,dc=it",
    "dn:*",
};

std::string Directory() {
  std::string ldif =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "o: Example\ndc: example\n" +
      Operational(0, "organization") + "\n";
  ldif += "dn: cn=proxy,dc=example,dc=com\nobjectClass: inetOrgPerson\ncn: proxy\nsn: P\n";
  for (const char* v : kAuthzTo) ldif += "authzTo: " + std::string(v) + "\n";
  ldif += Operational(1, "inetOrgPerson") + "\n";
  ldif += "dn: cn=target,dc=example,dc=com\nobjectClass: inetOrgPerson\ncn: target\nsn: T\n";
  for (const char* v : kAuthzFrom) ldif += "authzFrom: " + std::string(v) + "\n";
  ldif += Operational(2, "inetOrgPerson") + "\n";
  return ldif;
}

std::string Slapcat(const Db& db) {
  ProcessResult r = testing::RunSlapcat({"-f", db.conf}, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return r.out;
}

TEST_CASE("authz oracle: authzTo and authzFrom normalised copies as slapadd writes them") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP();
  TempDir tmp;
  const std::string input = tmp.Write("authz.ldif", Directory());
  Db theirs = MakeDb(tmp, "slapadd");
  ProcessResult a = testing::RunSlapadd({"-q", "-f", theirs.conf, "-l", input}, 60);
  REQUIRE_MESSAGE(a.exit_code == 0, a.Describe());
  Db mine = MakeDb(tmp, "dirload");
  ProcessResult b = RunDirload({"add", "-f", mine.conf, "-l", input, "--progress", "never"}, 60);
  REQUIRE_MESSAGE(b.exit_code == 0, b.Describe());

  const std::vector<std::string> dbs = MdbDatabases(theirs.dir);
  CHECK(MdbDatabases(mine.dir) == dbs);
  for (const std::string& name : dbs) {
    CAPTURE(name);
    std::string x = MdbDump(mine.dir, name), y = MdbDump(theirs.dir, name);
    if (name == "id2e") {
      size_t mine_dirty = 0, theirs_dirty = 0;
      x = MaskId2ePadding(x, &mine_dirty);
      y = MaskId2ePadding(y, &theirs_dirty);
      CHECK(mine_dirty == 0);
      // The normalised copies are really there, as slapd writes them.
      for (const char* normalized :
           {"dn:uid=jaj,o=example,c=us", "dn:cn=sandbox,ou=admin,dc=example,dc=com",
            "group/groupOfUniqueNames/uniqueMember:cn=g2,dc=example,dc=com"}) {
        CAPTURE(normalized);
        CHECK(y.find(HexEncode(normalized)) != std::string::npos);
      }
    }
    CHECK(FirstDifference(x, y) == "");
  }
  CHECK(FirstDifference(Slapcat(mine), Slapcat(theirs)) == "");
}

}  // namespace
}  // namespace dirload
