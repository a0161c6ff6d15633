#include "lib/schema/dn_normalizer.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/schema/dn.h"
#include "tests/schema/builtin_fixture.h"

namespace dirload {
namespace {

using testing::BuiltinSchema;

// DnNormalizer must say exactly what NormalizeDn says: the same bytes, or
// the same error.
void CheckSameAsNormalizeDn(DnNormalizer* n, const std::string& dn) {
  std::string want, got = "left over";
  Status want_status = NormalizeDn(BuiltinSchema(), dn, &want);
  Status got_status = n->Normalize(dn, &got);
  CHECK_MESSAGE(got_status.ok() == want_status.ok(), dn);
  if (want_status.ok()) {
    CHECK_MESSAGE(got == want, dn);
  } else {
    CHECK_MESSAGE(got_status.message() == want_status.message(), dn);
  }
}

TEST_CASE("DnNormalizer gives NormalizeDn's result and errors, cached or not") {
  // Leftmost RDNs and parents that the split must leave to the parser:
  // escapes, quotes, ';' separators, spaces around ',', multi-valued RDNs,
  // #hex values, bad values, empty parts.
  const std::vector<std::string> rdns = {
      "uid=jo",
      "CN=Foo  Bar ",
      "cn=a\\,b",
      "cn=\"x, y\"",
      "cn=a ; o=b",
      "cn=a ",
      " cn=a",
      "cn=a+sn=B",
      "cn=#0403666F6F",
      "uidNumber=007",
      "foo=bar",
      "cn=",
      "mail=Foo@Example.COM",
      "cn=a=b",
      "cn=\\#x",
      "2.5.4.3=Foo",
      "",
      // One plain "type=value", which skips the parser: values that its
      // equality rule changes, refuses or must escape, types unknown or
      // spelt otherwise, bytes outside printable ASCII.
      "uid=a b",
      "cn=a   b",
      "CN=A",
      "objectClass=Person",
      "c=USA",
      "c=us",
      "cn=a>b",
      "cn=a<b",
      "dc=x-y",
      "cn=a\x01b",
      "cn=\xC3\xA9",
      "userPassword=Secret",
      "uidNumber=12",
      "l=San Diego",
      "x500UniqueIdentifier='0101'B",
      "seeAlso=cn",
      "member=x",
      "createTimestamp=20240101120000Z",
      "createTimestamp=2024",
      "telephoneNumber=555 12-34",
      "cn-x=y",
      "a=b",
      "cn=x#y",
      "cn =x",
      "cn= x",
      "cn=x\x7F",
  };
  const std::vector<std::string> parents = {
      "ou=People,dc=Example,dc=COM",
      " ou=x,dc=y",
      "ou=a\\,b,dc=y",
      "ou=\"q, r\",dc=y",
      "ou=x;dc=y",
      "dc=Ä",
      "ou=x,,dc=y",
      "ou=x,",
      "c=USA",
      "dc=com",
      "",
  };
  DnNormalizer n(&BuiltinSchema());
  for (int pass = 0; pass < 2; ++pass) {  // the second pass finds the parents cached
    for (const std::string& rdn : rdns) {
      CheckSameAsNormalizeDn(&n, rdn);
      for (const std::string& parent : parents) {
        CheckSameAsNormalizeDn(&n, rdn + "," + parent);
        CheckSameAsNormalizeDn(&n, rdn + ", " + parent);
        CheckSameAsNormalizeDn(&n, rdn + " ," + parent);
      }
    }
  }
  std::string out;
  REQUIRE(n.Normalize("UID=Jo,OU=People,DC=Example,DC=Com", &out).ok());
  CHECK(out == "uid=jo,ou=people,dc=example,dc=com");
}

TEST_CASE("DnNormalizer writes plain string values itself exactly as NormalizeDn does") {
  // A leftmost RDN of one plain value under a string rule is written
  // without the general path: Directory String with caseIgnoreMatch (uid,
  // cn) and caseExactMatch (vendorName), IA5 String with caseIgnoreIA5Match
  // (dc, mail) and caseExactIA5Match (homeDirectory), spelt in any case.
  // The other types here keep the general path. Every value of up to four
  // characters from an alphabet of letters, a digit, spaces and the
  // characters the parser or the escaping treats specially is compared.
  const std::vector<std::string> types = {
      "uid", "CN",       "vendorName", "DC", "mail", "homeDirectory", "telephoneNumber",
      "c",   "uidNumber"};
  const std::string alphabet = "aZ9 .#=,+\\\"<;";
  std::vector<std::string> values = {""};
  for (size_t len = 1; len <= 4; ++len) {
    const size_t before = values.size();
    for (size_t i = 0; i < before; ++i) {
      if (values[i].size() != len - 1) continue;
      for (char c : alphabet) values.push_back(values[i] + c);
    }
  }
  REQUIRE(values.size() == 1 + 13 + 13 * 13 + 13 * 13 * 13 + 13 * 13 * 13 * 13);
  DnNormalizer n(&BuiltinSchema());
  size_t lowered = 0;
  for (const std::string& type : types) {
    for (const std::string& value : values) {
      CheckSameAsNormalizeDn(&n, type + "=" + value + ",ou=People,dc=Example,dc=com");
      std::string out;
      if (type == "uid" && n.Normalize("uid=" + value + ",dc=x", &out).ok() &&
          out != "uid=" + value + ",dc=x") {
        ++lowered;
      }
    }
  }
  // The case of a caseIgnoreMatch value is folded.
  CHECK(lowered > 0);
  std::string out;
  REQUIRE(n.Normalize("vendorName=AbC,dc=x", &out).ok());
  CHECK(out == "vendorName=AbC,dc=x");
  REQUIRE(n.Normalize("homeDirectory=/Home/Jo,dc=x", &out).ok());
  CHECK(out == "homeDirectory=/Home/Jo,dc=x");
  REQUIRE(n.Normalize("MAIL=Jo@Example.COM,dc=x", &out).ok());
  CHECK(out == "mail=jo@example.com,dc=x");
  REQUIRE(n.Normalize("cn=Jo  Smith,dc=x", &out).ok());
  CHECK(out == "cn=jo smith,dc=x");
}

TEST_CASE("DnNormalizer stays right when its cache of parents starts again") {
  DnNormalizer n(&BuiltinSchema());
  const size_t count = DnNormalizer::kMaxCached * 2 + 10;
  for (size_t i = 0; i < count; ++i) {
    const std::string parent = "ou=Unit " + std::to_string(i) + ",dc=Example,dc=com";
    std::string out;
    REQUIRE(n.Normalize("cn=X," + parent, &out).ok());
    CHECK(out == "cn=x,ou=unit " + std::to_string(i) + ",dc=example,dc=com");
  }
  // Parents seen before the cache started again are normalised anew.
  for (size_t i = 0; i < 20; ++i) {
    std::string out;
    REQUIRE(n.Normalize("cn=Y,ou=Unit " + std::to_string(i) + ",dc=example,dc=COM", &out).ok());
    CHECK(out == "cn=y,ou=unit " + std::to_string(i) + ",dc=example,dc=com");
  }
}

}  // namespace
}  // namespace dirload
