// `dirload search` on slapd's own database (slapadd 2.5's, with its own
// indexes) over a matrix of filters, scopes and bases: the indexed search
// equals the scan (--no-index) and slapcat -H, as sorted DN sets. Skips when
// OpenLDAP is not installed.
#include <doctest/doctest.h>

#include "tests/format/mdb/mdb_search_support.h"

namespace dirload::mdb_search_testing {
namespace {

// slapadd's database of Ldif() with kIndexLines, and the entryUUID of
// uid=user7 in upper case (the filters match it case-insensitively).
struct Fixture {
  TempDir tmp;
  Db db = Slapadd(tmp, "db", Ldif(), kIndexLines);
  std::string upper_uuid;
  Fixture() {
    upper_uuid = EntryUuidOf(db, "(uid=user7)");
    for (char& c : upper_uuid) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
};

const std::vector<std::string> kBases = {kSuffix, "ou=People,dc=example,dc=com",
                                         "ou=Sub,ou=People,dc=example,dc=com"};

// Each filter under every base and scope: the indexed search equals slapcat's
// answer and, on subtrees, the scan.
void CheckFilters(const Db& db, const std::vector<std::string>& filters) {
  // slapcat once per filter over the whole database; each scope's answer is
  // then the DNs at or below the base (the bases are written as stored).
  auto in_scope = [](const std::string& dn, const std::string& base, std::string_view scope) {
    if (scope == "base") return dn == base;
    if (dn.size() <= base.size() + 1 || !dn.ends_with("," + base))
      return scope == "sub" && dn == base;
    if (scope == "sub") return true;
    std::string rdn = dn.substr(0, dn.size() - base.size() - 1);
    return rdn.find(',') == std::string::npos;  // no escaped commas in these DNs
  };
  for (const std::string& f : filters) {
    std::vector<std::string> everything = SlapcatDns(db, kSuffix, "sub", f);
    for (const char* scope : {"base", "one", "sub"}) {
      for (const std::string& base : kBases) {
        CAPTURE(f);
        CAPTURE(scope);
        CAPTURE(base);
        std::vector<std::string> want;
        for (const std::string& dn : everything) {
          if (in_scope(dn, base, scope)) want.push_back(dn);
        }
        std::vector<std::string> indexed = DirloadDns(db, base, scope, f, false);
        CHECK(indexed == want);
        // The scan differs from the indexed search only in its candidates,
        // not in its scoping: compared on subtrees.
        if (std::string_view(scope) == "sub") {
          CHECK(indexed == DirloadDns(db, base, scope, f, true));
        }
      }
    }
    // slapcat's own scoping, once per filter.
    CHECK(DirloadDns(db, kBases[1], "one", f, false) == SlapcatDns(db, kBases[1], "one", f));
  }
}

// The matrix is cut into cases by kind of filter, so that they can run side
// by side; each loads its own small database.
TEST_CASE("search matrix on slapd's database: equality and substrings on names") {
  SKIP_WITHOUT_OPENLDAP();
  Fixture x;
  CheckFilters(x.db, {
                         "(cn=user 3)",
                         "(cn=  USER   4 )",
                         "(cn=Nick1)",
                         "(sn=surname2*)",
                         "(cn=*ser 1*)",
                         "(sn=*name4)",
                         "(mail=*@example.com)",
                         "(cn=hans m\xc3\x9cller)",
                         "(cn=hansi)",
                     });
}

TEST_CASE("search matrix on slapd's database: presence, objectClass and boolean filters") {
  SKIP_WITHOUT_OPENLDAP();
  Fixture x;
  CheckFilters(x.db, {
                         "(description=*)",
                         "(description=lots of space)",
                         "(objectClass=person)",
                         "(objectClass=posixAccount)",
                         "(&(cn=nick2)(sn=Surname4))",
                         "(|(uid=user5)(uid=user7)(ou=Sub))",
                         "(!(cn=Nick0))",
                         "(&(objectClass=inetOrgPerson)(!(description=*)))",
                     });
}

TEST_CASE("search matrix on slapd's database: DN, integer, telephone and UUID values") {
  SKIP_WITHOUT_OPENLDAP();
  Fixture x;
  CheckFilters(x.db, {
                         "(member=uid=user2,ou=people,dc=example,dc=com)",
                         "(uidNumber=1008)",
                         "(uidNumber>=1010)",
                         "(telephoneNumber=+15550111)",
                         "(telephoneNumber=*555*)",
                         "(entryUUID=" + x.upper_uuid + ")",
                     });
}

TEST_CASE("search on slapd's database: results known by construction, and the output") {
  SKIP_WITHOUT_OPENLDAP();
  Fixture x;
  const Db& db = x.db;
  // A few results known by construction, so that the matrix cannot pass on
  // empty answers.
  CHECK(DirloadDns(db, kSuffix, "sub", "(cn=Nick1)", false).size() == 8);
  CHECK(DirloadDns(db, kSuffix, "sub", "(entryUUID=" + x.upper_uuid + ")", false) ==
        std::vector<std::string>{"uid=user7,ou=People,dc=example,dc=com"});
  CHECK(DirloadDns(db, "ou=People,dc=example,dc=com", "one", "(objectClass=*)", false).size() ==
        22);

  // Output as the native search prints it.
  auto full = RunDirload({"search", "-f", db.conf, "(uid=user7)", "sn", "uid"}, 60);
  REQUIRE_MESSAGE(full.exit_code == 0, full.Describe());
  CHECK(full.out == "dn: uid=user7,ou=People,dc=example,dc=com\nsn: Surname2\nuid: user7\n\n");
  auto count = RunDirload({"search", "-f", db.conf, "--count", "(objectClass=person)"}, 60);
  REQUIRE_MESSAGE(count.exit_code == 0, count.Describe());
  CHECK(count.out == "31\n");
  auto missing =
      RunDirload({"search", "-f", db.conf, "-b", "ou=None,dc=example,dc=com", "(cn=x)"}, 60);
  CHECK(missing.exit_code != 0);
}

}  // namespace
}  // namespace dirload::mdb_search_testing
