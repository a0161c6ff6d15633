// The canonical form of an entry: one spelling per attribute description,
// values as a set, the DN normalized; its hash; the order-free sum.
#include "lib/compare/canonical_entry.h"

#include <doctest/doctest.h>

#include "ldif/record.h"
#include "lib/schema/schema.h"

namespace dirload {
namespace {

ldif::Record Record(std::string_view dn,
                    std::initializer_list<std::pair<std::string_view, std::string_view>> values) {
  ldif::Record r;
  r.SetDn(dn);
  for (const auto& [d, v] : values) r.Add(d, v);
  return r;
}

CanonicalEntry Canonical(const Schema& schema, const ldif::Record& r, CanonicalOptions o = {}) {
  EntryCanonicalizer c(schema, o);
  REQUIRE(c.status().ok());
  CanonicalEntry e;
  Status s = c.FromRecord(r, &e);
  REQUIRE_MESSAGE(s.ok(), s.message());
  return e;
}

TEST_CASE("spellings of one entry are one canonical entry with one hash") {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  CanonicalEntry a = Canonical(
      *schema, Record("cn=Ann Smith,ou=People,dc=example,dc=com", {{"objectClass", "person"},
                                                                   {"cn", "Ann Smith"},
                                                                   {"CN;Lang-EN", "Ann"},
                                                                   {"sn", "Smith"},
                                                                   {"cn", "Ann"}}));
  CanonicalEntry b = Canonical(
      *schema, Record("CN=Ann  Smith, ou=people,DC=Example,dc=COM", {{"sn", "Smith"},
                                                                     {"2.5.4.3", "Ann"},
                                                                     {"cn;lang-en", "Ann"},
                                                                     {"commonName", "Ann Smith"},
                                                                     {"objectclass", "person"}}));
  CHECK(a.ndn == b.ndn);
  CHECK(a.dn != b.dn);
  REQUIRE(a.attributes.size() == 4);
  CHECK(a.attributes[0].description == "cn");
  CHECK(a.attributes[1].description == "cn;lang-en");
  CHECK(a.Find("cn")->values == std::vector<std::string>{"Ann Smith", "Ann"});
  CHECK(a.Find("cn")->sorted == std::vector<std::string>{"Ann", "Ann Smith"});
  CHECK(EntryHash(a) == EntryHash(b));

  // A value's bytes count: case too.
  CanonicalEntry c = Canonical(
      *schema, Record("cn=Ann Smith,ou=People,dc=example,dc=com", {{"objectClass", "person"},
                                                                   {"cn", "Ann smith"},
                                                                   {"cn;lang-en", "Ann"},
                                                                   {"sn", "Smith"},
                                                                   {"cn", "Ann"}}));
  CHECK(EntryHash(c) != EntryHash(a));
}

TEST_CASE("ignored attributes and operational ones are left out when asked") {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  const ldif::Record r =
      Record("ou=x,dc=example,dc=com", {{"objectClass", "organizationalUnit"},
                                        {"ou", "x"},
                                        {"entryCSN", "20260101000000.000000Z#000000#001#000000"},
                                        {"description", "d"}});
  CHECK(Canonical(*schema, r).attributes.size() == 4);
  CanonicalOptions user;
  user.user_attributes_only = true;
  CHECK(Canonical(*schema, r, user).Find("entryCSN") == nullptr);
  CHECK(Canonical(*schema, r, user).attributes.size() == 3);
  CanonicalOptions ignore;
  ignore.ignore = {"DESCRIPTION"};
  CHECK(Canonical(*schema, r, ignore).Find("description") == nullptr);
  CHECK(Canonical(*schema, r, ignore).First("entryCSN") ==
        "20260101000000.000000Z#000000#001#000000");
  CanonicalOptions unknown;
  unknown.ignore = {"noSuchType"};
  EntryCanonicalizer c(*schema, unknown);
  CHECK(c.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("a change record is not an entry") {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  ldif::Record r = Record("ou=x,dc=example,dc=com", {});
  r.SetChangetype("delete");
  EntryCanonicalizer c(*schema, {});
  CanonicalEntry e;
  CHECK(c.FromRecord(r, &e).code() == StatusCode::kInvalidArgument);
}

TEST_CASE("HashSum does not depend on the order, and carries across bytes") {
  Sha1::Digest x = Sha1::Of("x"), y = Sha1::Of("y"), z = Sha1::Of("z");
  HashSum a, b;
  a.Add(x);
  a.Add(y);
  a.Add(z);
  b.Add(z);
  b.Add(x);
  b.Add(y);
  CHECK(a.value() == b.value());
  HashSum c;
  Sha1::Digest ones;
  ones.fill(0xff);
  Sha1::Digest one{};
  one[19] = 1;
  c.Add(ones);
  c.Add(one);
  CHECK(c.value() == Sha1::Digest{});  // 2^160 - 1 + 1 wraps to 0
  CHECK(HexDigest(one) == "0000000000000000000000000000000000000001");
  CHECK(NameKey("dc=example,dc=com") != NameKey("dc=example,dc=org"));
}

}  // namespace
}  // namespace dirload
