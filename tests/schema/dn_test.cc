#include "lib/schema/dn.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "lib/schema/schema.h"
#include "lib/util/coding.h"
#include "tests/schema/builtin_fixture.h"

namespace dirload {
namespace {

using testing::BuiltinSchema;

std::string Norm(std::string_view dn) {
  Result<std::string> n = NormalizeDn(BuiltinSchema(), dn);
  REQUIRE_MESSAGE(n.ok(), dn, ": ", n.status().ToString());
  return std::move(n).value();
}

TEST_CASE("ParseDn splits RDNs and AVAs and resolves escapes") {
  Result<Dn> dn = ParseDn(" CN = A\\,b\\2B + sn=\"x, y\" ; o=#0403666F6F ,dc=com ");
  REQUIRE_MESSAGE(dn.ok(), dn.status().ToString());
  REQUIRE(dn->size() == 3);
  REQUIRE(dn->rdns[0].size() == 2);
  CHECK(dn->rdns[0][0].type == "CN");
  CHECK(dn->rdns[0][0].value == "A,b+");
  CHECK(dn->rdns[0][1].type == "sn");
  CHECK(dn->rdns[0][1].value == "x, y");
  CHECK(dn->rdns[1][0].ber);
  CHECK(dn->rdns[1][0].value == std::string("\x04\x03"
                                            "foo"));
  CHECK(dn->rdns[2][0].value == "com");
  CHECK(dn->Parent().size() == 2);
  CHECK(dn->Parent().rdns[0][0].type == "o");
  CHECK(dn->ToString() == "CN=A\\,b\\++sn=x\\, y,o=#0403666F6F,dc=com");

  // Escaped trailing spaces are kept, unescaped ones dropped.
  CHECK(ParseDn("cn=a\\ ")->rdns[0][0].value == "a ");
  CHECK(ParseDn("cn=a\\20 ")->rdns[0][0].value == "a ");
  CHECK(ParseDn("cn=a  ")->rdns[0][0].value == "a");
  CHECK(ParseDn("cn=a b")->rdns[0][0].value == "a b");
  // Options on types are accepted and dropped.
  CHECK(ParseDn("cn;lang-en=x")->rdns[0][0].type == "cn");
  CHECK(ParseDn("2.5.4.3=x")->rdns[0][0].type == "2.5.4.3");
  CHECK(ParseDn("")->empty());
}

TEST_CASE("ParseDn errors name the offending offset") {
  struct Case {
    const char* dn;
    const char* message;
  };
  const Case cases[] = {
      {"cn=a\\", "unterminated escape at offset 4"},
      {"cn=a\\4", "incomplete hex escape at offset 4"},
      {"cn=ab\\2", "incomplete hex escape at offset 5"},
      {"cn=a\\zz", "invalid escape '\\z' at offset 4"},
      {"=x", "empty attribute type at offset 0"},
      {"cn", "'=' expected after attribute type 'cn' at offset 2"},
      {"cn=a,,dc=x", "attribute type expected at offset 5"},
      {",dc=com", "attribute type expected at offset 0"},
      {"dc=com,", "separator at the end, RDN missing at offset 7"},
      {"cn=a;", "separator at the end, RDN missing at offset 5"},
      {"cn=a+", "attribute type missing at offset 5"},
      {"cn=\"a", "unterminated quoted value at offset 3"},
      {"cn=\"a\"b", "characters after a quoted value at offset 6"},
      {"cn=a\"", "unescaped '\"' in value at offset 4"},
      {"cn=<", "unescaped '<' in value at offset 3"},
      {"cn=#", "hex pairs expected after '#' at offset 4"},
      {"cn=##", "hex pairs expected after '#' at offset 4"},
      {"cn=#041", "bad character in #hex value at offset 6"},
      {"cn=\\c3", "value is not valid UTF-8 at offset 3"},
      {"1.2..3=x", "malformed numeric OID at offset 0"},
      {"01.2=x", "malformed numeric OID at offset 0"},
      {"OID.2.5.4.3=x", "'=' expected after attribute type 'OID' at offset 3"},
      {"c_n=x", "'=' expected after attribute type 'c' at offset 1"},
      {" ", "DN consists only of spaces at offset 1"},
      {"cn=a b c,o=x,", "separator at the end, RDN missing at offset 13"},
  };
  for (const Case& c : cases) {
    Result<Dn> dn = ParseDn(c.dn);
    INFO(c.dn);
    REQUIRE_FALSE(dn.ok());
    CHECK(dn.status().code() == StatusCode::kInvalidArgument);
    CHECK_MESSAGE(dn.status().message().find(c.message) != std::string::npos,
                  dn.status().message());
    CHECK(dn.status().message().find("invalid DN '") == 0);
  }
}

TEST_CASE("ParseDn into a Dn used before gives what a fresh parse gives") {
  Dn reused;
  const std::vector<std::string> texts = {
      "cn=a+sn=b,ou=x,dc=example,dc=com", "uid=jo", "cn=Smith\\, John,dc=com",
      "cn=x,dc=a,dc=b,dc=c,dc=d",         "",       "uid=one"};
  for (const std::string& t : texts) {
    CAPTURE(t);
    REQUIRE(ParseDn(t, &reused).ok());
    Result<Dn> fresh = ParseDn(t);
    REQUIRE(fresh.ok());
    CHECK(reused.size() == fresh->size());
    CHECK(reused.ToString() == fresh->ToString());
    for (size_t r = 0; r < reused.size(); ++r)
      CHECK(reused.rdns[r].size() == fresh->rdns[r].size());
  }
  // A failure is reported as the fresh parse reports it.
  Status bad = ParseDn("cn=a,,dc=com", &reused);
  CHECK_FALSE(bad.ok());
  CHECK(bad.message() == ParseDn("cn=a,,dc=com").status().message());
}

TEST_CASE("ParseLeftmostRdn gives the leftmost RDN a full parse gives") {
  Dn rdn;
  const std::vector<std::string> texts = {"uid=jo,ou=x,dc=example,dc=com",
                                          "cn=a+sn=b,ou=x,dc=com",
                                          "cn=Smith\\, John,dc=com",
                                          "cn=#04024869,dc=com",
                                          "uid=one",
                                          ""};
  for (const std::string& t : texts) {
    CAPTURE(t);
    REQUIRE(ParseLeftmostRdn(t, &rdn).ok());
    Result<Dn> full = ParseDn(t);
    REQUIRE(full.ok());
    if (full->empty()) {
      CHECK(rdn.empty());
      continue;
    }
    REQUIRE(rdn.size() == 1);
    REQUIRE(rdn.rdns[0].size() == full->rdns[0].size());
    for (size_t i = 0; i < rdn.rdns[0].size(); ++i) {
      CHECK(rdn.rdns[0][i].type == full->rdns[0][i].type);
      CHECK(rdn.rdns[0][i].value == full->rdns[0][i].value);
      CHECK(rdn.rdns[0][i].ber == full->rdns[0][i].ber);
    }
  }
  // A name that does not parse past its first RDN is refused as a whole.
  CHECK_FALSE(ParseLeftmostRdn("cn=a,,dc=com", &rdn).ok());
}

TEST_CASE("a raw NUL byte is not allowed in a DN") {
  Result<Dn> dn = ParseDn(std::string_view("cn=a\0b", 6));
  REQUIRE_FALSE(dn.ok());
  CHECK(dn.status().message().find("NUL byte in value at offset 4") != std::string::npos);
}

TEST_CASE("NormalizeDn matches slapdn -N") {
  // Each pair was printed by `slapdn -N` of OpenLDAP 2.5.13 with the core,
  // cosine, inetorgperson and nis schemas.
  struct Case {
    const char* in;
    const char* out;
  };
  const Case cases[] = {
      {"CN=Foo  Bar ,dc=Example+ou=X", "cn=foo bar,dc=example+ou=x"},
      {"ou=X+dc=Example", "dc=example+ou=x"},
      {"uid=A\\2C b,DC=COM", "uid=a\\2C b,dc=com"},
      {"cn=a\\+b+sn=z,o=x", "cn=a\\2Bb+sn=z,o=x"},
      {"commonName=ÅNGSTRÖM", "cn=ångström"},
      {"cn=ｆｏｏ", "cn=foo"},
      {"c=us", "c=us"},
      {"member=cn=foo\\,dc=x", "member=cn\\3Dfoo\\2Cdc\\3Dx"},
      {"seeAlso=CN=X", "seeAlso=cn\\3Dx"},
      {"cn=a\\\"b\\<\\>\\;\\=c", "cn=a\\22b\\3C\\3E\\3B\\3Dc"},
      {"cn=\\#x", "cn=\\23x"},
      {"cn=\\ x\\ ", "cn=x"},
      {"cn=\\20\\20x", "cn=x"},
      {"2.5.4.3=Foo", "cn=foo"},
      {"cn=a ; o=b", "cn=a,o=b"},
      {"cn = a , o = b", "cn=a,o=b"},
      {"  cn=x  ", "cn=x"},
      {"cn=a,  o=b", "cn=a,o=b"},
      {"cn=a b   +sn=c", "cn=a b+sn=c"},
      {"cn=a#b", "cn=a#b"},
      {"cn=a=b", "cn=a\\3Db"},
      {"cn;lang-en=x", "cn=x"},
      {"cn;binary=x", "cn=x"},
      {"createTimestamp=20240101120000Z", "createTimestamp=20240101120000Z"},
      {"createTimestamp=20240101120000.5Z", "createTimestamp=20240101120000.5Z"},
      {"modifyTimestamp=20240101120000\\2B0100", "modifyTimestamp=20240101110000Z"},
      {"createTimestamp=20241231233000-0130", "createTimestamp=20250101010000Z"},
      {"ou=  multiple    spaces  ", "ou=multiple spaces"},
      {"cn=\\c3\\a5", "cn=å"},
      {"cn=\\E2\\84\\AB", "cn=å"},
      {"cn=ﬁ", "cn=fi"},
      {"st=x+l=y+cn=z", "cn=z+l=y+st=x"},
      {"uid=a b+cn=z", "cn=z+uid=a b"},
      {"ou=x+cn=y+dc=z+uid=w+l=q+mail=m", "cn=y+dc=z+l=q+mail=m+ou=x+uid=w"},
      {"displayName=a+dITRedirect=cn\\3Dx", "dITRedirect=cn\\3Dx+displayName=a"},
      {"cn=a\\\\b", "cn=a\\5Cb"},
      {"o=a\\\\\\,b", "o=a\\5C\\2Cb"},
      {"cn=\"quoted, value\"", "cn=quoted\\2C value"},
      {"cn = \"a\"  , o=x", "cn=a,o=x"},
      {"cn=\"a\\\"b\"", "cn=a\\22b"},
      {"mail=Foo@Example.COM", "mail=foo@example.com"},
      {"uidNumber=12", "uidNumber=12"},
      {"userPassword=Secret", "userPassword=Secret"},
      {"userPassword=\\20x\\20", "userPassword=\\20x\\20"},
      {"postalCode=AB 12", "postalCode=ab 12"},
      {"telephoneNumber=\\2B1 555-12 34", "telephoneNumber=\\2B15551234"},
      {"name=Foo", "name=foo"},
      {"ou=a\\,b", "ou=a\\2Cb"},
      {"ou=-", "ou=-"},
      {"o=x;dc=y", "o=x,dc=y"},
      {"dc=x\\2c", "dc=x\\2C"},
      {"cn=a\\0Ab", "cn=a\nb"},  // slapd keeps LF, unescaped
      {"cn=a\\09b", "cn=a\tb"},  // and TAB
      {"cn=\\C4\\B0", "cn=i"},   // slapd: U+0130 folds to "i"
      {"cn=a\\C2\\A0b", "cn=a b"},
      {"uniqueMember=cn=x#'0101'B", "uniqueMember=cn\\3Dx#'0101'B"},
      {"x500UniqueIdentifier='0101'B", "x500UniqueIdentifier='0101'B"},
      {"", ""},
  };
  for (const Case& c : cases) CHECK_MESSAGE(Norm(c.in) == c.out, c.in);
}

TEST_CASE("NormalizeDn where dirload deliberately differs from slapd") {
  // objectIdentifierMatch values fold to numeric OIDs (slapd keeps the name
  // as written, so it would treat these two DNs as different entries).
  CHECK(Norm("objectClass=inetOrgPerson") == "objectClass=2.16.840.1.113730.3.2.2");
  CHECK(Norm("OBJECTCLASS=INETORGPERSON") == "objectClass=2.16.840.1.113730.3.2.2");
  // U+00DF is lower case already and stays, as in slapd.
  CHECK(Norm("cn=Stra\\C3\\9Fe") ==
        "cn=stra\xC3\x9F"
        "e");
  // UUIDs are lower-cased.
  CHECK(Norm("entryUUID=ABCDEF01-2345-6789-abcd-ef0123456789") ==
        "entryUUID=abcdef01-2345-6789-abcd-ef0123456789");
}

TEST_CASE("NormalizeDn rejects what slapd rejects") {
  struct Case {
    const char* dn;
    const char* message;
  };
  const Case cases[] = {
      {"cn=#0403666f6f,dc=x", "#hex (BER) value of 'cn' is not supported"},
      {"x500UniqueIdentifier=#0303", "#hex (BER) value"},
      {"foo=bar", "undefined attribute type 'foo'"},
      {"1.2.3.4=y", "undefined attribute type '1.2.3.4'"},
      {"cn=", "empty value for 'cn'"},
      {"dc=", "empty value for 'dc'"},
      {"uidNumber=007", "leading zero"},
      {"uidNumber=-0", "leading zero or negative zero"},
      {"c=USA", "Country String"},
      {"c=u", "Country String"},
      {"dc=Ä", "IA5 String"},
      {"cn=a+cn=b", "attribute type 'cn' twice in one RDN"},
      {"cn=a+commonName=b", "attribute type 'cn' twice in one RDN"},
      {"jpegPhoto=x", "attribute type 'jpegPhoto' has no equality matching rule"},
      {"modifyTimestamp=20240101123000-2400", "generalized time"},
      {"seeAlso=not a dn", "invalid DN 'not a dn'"},
      {"userPassword=\\ff\\01", "not valid UTF-8"},
  };
  for (const Case& c : cases) {
    Result<std::string> n = NormalizeDn(BuiltinSchema(), c.dn);
    INFO(c.dn);
    REQUIRE_FALSE(n.ok());
    CHECK_MESSAGE(n.status().message().find(c.message) != std::string::npos, n.status().message());
  }
  // The message shows the DN as the caller wrote it.
  CHECK(NormalizeDn(BuiltinSchema(), "CN=a+cn=b").status().message() ==
        "invalid DN 'CN=a+cn=b': attribute type 'cn' twice in one RDN");
}

TEST_CASE("normalised DNs are fixed points") {
  for (const char* dn :
       {"CN=Foo  Bar ,dc=Example+ou=X", "member=cn=foo\\,dc=x", "cn=a\\\"b\\<\\>\\;\\=c",
        "userPassword=\\20x\\20", "cn=\\#x", "telephoneNumber=\\2B1 555-12 34", "o=a\\\\\\,b"}) {
    const std::string once = Norm(dn);
    CHECK_MESSAGE(Norm(once) == once, dn);
  }
}

TEST_CASE("ParentDn and IsUnder on normalised DNs") {
  CHECK(ParentDn("cn=a,ou=x,dc=com") == "ou=x,dc=com");
  CHECK(ParentDn("dc=com") == "");
  CHECK(ParentDn("") == "");
  CHECK(ParentDn(Norm("cn=a\\,b,dc=com")) == "dc=com");

  CHECK(IsUnder("ou=x,dc=com", "dc=com"));
  CHECK(IsUnder("dc=com", "dc=com"));
  CHECK(IsUnder("dc=com", ""));
  CHECK(IsUnder("", ""));
  CHECK_FALSE(IsUnder("ou=x,xdc=com", "dc=com"));
  CHECK_FALSE(IsUnder("dc=com", "ou=x,dc=com"));
  CHECK_FALSE(IsUnder("", "dc=com"));
  // An escaped comma is not an RDN boundary.
  CHECK_FALSE(IsUnder(Norm("cn=a\\,dc=com"), "dc=com"));
  CHECK(IsUnder(Norm("CN=A, DC=Example, DC=COM"), Norm("dc=example,dc=com")));
}

TEST_CASE("DnSortKey layout") {
  CHECK(DnSortKey("cn=a,ou=x,dc=com") == std::string("dc=com\0ou=x\0cn=a", 16));
  CHECK(DnSortKey("dc=com") == "dc=com");
  CHECK(DnSortKey("") == "");
  CHECK(DnSortKey("cn=a\\2Cb,dc=com") == std::string("dc=com\0cn=a\\2Cb", 15));
  CHECK(DnSortKey("cn=a+sn=b,dc=com") == std::string("dc=com\0cn=a+sn=b", 16));
  CHECK(DnDescendantPrefix("dc=com") == std::string("dc=com\0", 7));
  CHECK(DnDescendantPrefix("") == "");
  CHECK(DnSortKeyParent(std::string("dc=com\0ou=x\0cn=a", 16)) == std::string("dc=com\0ou=x", 11));
  CHECK(DnSortKeyParent("dc=com") == "");
}

TEST_CASE("DnSortKey puts every subtree in one contiguous key range") {
  // A fixed-seed random tree, with RDN values chosen to collide on prefixes
  // ("a", "a b", "ab", "a,b" ...) where a naive string layout would interleave
  // subtrees.
  std::mt19937 rng(20240601);
  const char* values[] = {"a", "a b", "ab", "a\\,b", "a\\2B", "b", "\\#a", "A0", "z"};
  std::vector<std::string> dns = {"dc=com", "dc=org"};
  while (dns.size() < 400) {
    const std::string& parent = dns[rng() % dns.size()];
    const char* type = (rng() % 2) ? "cn" : "ou";
    std::string dn = std::string(type) + "=" + values[rng() % std::size(values)];
    if (rng() % 5 == 0) dn += "+sn=" + std::string(values[rng() % std::size(values)]);
    dn += "," + parent;
    Result<std::string> n = NormalizeDn(BuiltinSchema(), dn);
    REQUIRE_MESSAGE(n.ok(), dn);
    if (std::find(dns.begin(), dns.end(), *n) == dns.end()) dns.push_back(*n);
  }
  std::vector<std::pair<std::string, std::string>> keyed;  // (key, dn)
  for (const std::string& dn : dns) keyed.emplace_back(DnSortKey(dn), dn);
  std::sort(keyed.begin(), keyed.end());
  for (size_t i = 1; i < keyed.size(); ++i) CHECK(keyed[i - 1].first != keyed[i].first);

  for (size_t i = 0; i < keyed.size(); ++i) {
    const auto& [key, dn] = keyed[i];
    CHECK(DnSortKeyParent(key) == DnSortKey(ParentDn(dn)));
    const std::string prefix = DnDescendantPrefix(key);
    // Descendants are exactly the entries right after this one that share
    // the prefix; nothing with the prefix appears elsewhere.
    size_t j = i + 1;
    while (j < keyed.size() && keyed[j].first.starts_with(prefix)) {
      CHECK(IsUnder(keyed[j].second, dn));
      CHECK(keyed[j].second != dn);
      ++j;
    }
    size_t expected = 0;
    for (const auto& other : keyed) {
      if (other.second != dn && IsUnder(other.second, dn)) ++expected;
    }
    CHECK_MESSAGE(j - i - 1 == expected, dn);
    // Children: in the range, with no separator after the prefix.
    for (size_t k = i + 1; k < j; ++k) {
      const bool child = keyed[k].first.find('\0', prefix.size()) == std::string::npos;
      CHECK(child == (ParentDn(keyed[k].second) == dn));
    }
  }
}

}  // namespace
}  // namespace dirload

namespace dirload {
namespace {

// A sort key of `levels` RDNs below dc=com: "dc=com\0ou=l1\0ou=l2...".
std::string ChainKey(int levels, std::string_view leaf = {}) {
  std::string dn = "dc=com";
  for (int i = 1; i <= levels; ++i) dn = "ou=l" + std::to_string(i) + "," + dn;
  if (!leaf.empty()) dn = std::string(leaf) + "," + dn;
  return DnSortKey(dn);
}

TEST_CASE("dn2id keys: plain up to 511 bytes, cut and hashed beyond") {
  std::string buffer;
  const std::string short_key = ChainKey(3);
  CHECK(Dn2IdKey(short_key, &buffer) == short_key);
  CHECK(Dn2IdKey(short_key, &buffer).data() == short_key.data());  // no copy
  const std::string at_limit(kDn2IdMaxPlainKey, 'x');
  CHECK(Dn2IdKey(at_limit, &buffer) == at_limit);

  const std::string long_key = ChainKey(200);
  REQUIRE(long_key.size() > kDn2IdMaxPlainKey);
  const std::string stored(Dn2IdKey(long_key, &buffer));
  CHECK(stored.size() == kDn2IdKeyPrefix + 8);
  CHECK(stored.size() <= kDn2IdMaxPlainKey);
  CHECK(stored.compare(0, kDn2IdKeyPrefix, long_key, 0, kDn2IdKeyPrefix) == 0);
  CHECK(GetBigEndian64(std::string_view(stored).substr(kDn2IdKeyPrefix)) == Dn2IdHash(long_key));
  // One more byte: same prefix, another key.
  std::string other_buffer;
  CHECK(Dn2IdKey(long_key + "x", &other_buffer) != stored);
  // The hash is part of the format: fixed values.
  CHECK(Dn2IdHash("dc=com") == 0xced8b605bf06c6b4ull);  // computed independently
  CHECK(Dn2IdHash("a") != Dn2IdHash("b"));
  CHECK(Dn2IdHash(std::string(600, 'a')) != Dn2IdHash(std::string(601, 'a')));
}

TEST_CASE("dn2id values: plain records are the bare ID, long ones carry the key") {
  std::string value;
  AppendDn2IdValue(7, ChainKey(2), &value);
  CHECK(value == std::string("\0\0\0\0\0\0\0\x07", 8));
  Dn2IdRecord r;
  const std::string plain_key = ChainKey(2);
  REQUIRE(DecodeDn2IdRecord(plain_key, value, &r));
  CHECK(r.id == 7);
  CHECK(r.sort_key == plain_key);

  const std::string long_key = ChainKey(150, "cn=x");
  std::string buffer;
  const std::string stored(Dn2IdKey(long_key, &buffer));
  value.clear();
  AppendDn2IdValue(9, long_key, &value);
  CHECK(value.size() == 8 + long_key.size());
  REQUIRE(DecodeDn2IdRecord(stored, value, &r));
  CHECK(r.id == 9);
  CHECK(r.sort_key == long_key);

  // Malformed: short values, a long value under a key that is not its own,
  // a "long" value holding a key that fits.
  CHECK_FALSE(DecodeDn2IdRecord(stored, value.substr(0, 7), &r));
  CHECK_FALSE(DecodeDn2IdRecord(stored + "x", value, &r));
  std::string wrong;
  AppendDn2IdValue(9, long_key, &wrong);
  wrong.back() = 'y';
  CHECK_FALSE(DecodeDn2IdRecord(stored, wrong, &r));
  std::string fits(
      "\0\0\0\0\0\0\0\x01"
      "abc",
      11);
  CHECK_FALSE(DecodeDn2IdRecord("abc", fits, &r));
}

TEST_CASE("dn2id collisions: a record under a long key naming another DN is told apart") {
  // A real 64-bit collision cannot be made here; what a lookup sees is the
  // same: a record under Dn2IdKey(K) whose sort key is not K. A plain record
  // whose key happens to equal a long key is one such.
  const std::string long_key = ChainKey(200, "cn=victim");
  std::string buffer;
  const std::string stored(Dn2IdKey(long_key, &buffer));
  std::string plain;
  AppendDn2IdValue(3, stored, &plain);
  REQUIRE(plain.size() == 8);
  Dn2IdRecord r;
  REQUIRE(DecodeDn2IdRecord(stored, plain, &r));
  CHECK(r.sort_key == stored);
  CHECK(r.sort_key != long_key);  // what LookupDn2Id reports as a collision
}

TEST_CASE("dn2id long keys sort under their cut prefix, so subtree ranges still hold") {
  // Keys of a chain and of leaves at every level, short and long.
  std::vector<std::string> sort_keys;
  for (int i = 0; i <= 200; ++i) {
    sort_keys.push_back(ChainKey(i));
    sort_keys.push_back(ChainKey(i, "cn=a"));
    sort_keys.push_back(ChainKey(i, "cn=b"));
  }
  std::vector<std::pair<std::string, std::string>> stored;  // (store key, sort key), sorted
  for (const std::string& k : sort_keys) {
    std::string buffer;
    stored.emplace_back(std::string(Dn2IdKey(k, &buffer)), k);
  }
  std::sort(stored.begin(), stored.end());
  for (int base_level : {0, 10, 100, 110, 120, 150, 200}) {
    CAPTURE(base_level);
    const std::string base = ChainKey(base_level);
    const std::string prefix = DnDescendantPrefix(base);
    const std::string_view scan = Dn2IdScanPrefix(prefix);
    CHECK(scan.size() <= kDn2IdKeyPrefix);
    CHECK(Dn2IdScanIsExact(prefix) == (prefix.size() <= kDn2IdKeyPrefix));
    // Every descendant's store key lies in the scan range, and the range is
    // contiguous in store order.
    size_t want = 0, in_range = 0, in_range_descendants = 0;
    for (const std::string& k : sort_keys) want += k.starts_with(prefix);
    bool seen = false, ended = false;
    for (const auto& [key, k] : stored) {
      const bool in = key.starts_with(scan);
      if (in) {
        CHECK_FALSE(ended);
        seen = true;
        ++in_range;
        in_range_descendants += k.starts_with(prefix);
      } else if (seen) {
        ended = true;
      }
    }
    CHECK(in_range_descendants == want);
    if (Dn2IdScanIsExact(prefix)) CHECK(in_range == want);
    // Where descendants follow the base, seeking base + 0x01 passes them all.
    if (Dn2IdDescendantsFollow(base)) {
      const std::string past = base + '\x01';
      for (const auto& [key, k] : stored) {
        if (k.starts_with(prefix)) CHECK(key > base);
        if (k.starts_with(prefix)) CHECK(key < past);
      }
    }
  }
}

TEST_CASE("a plain DN is stored as written: IsPlainDn") {
  // Plain: each RDN one descriptor=value of printable ASCII with nothing to
  // escape, trim or split; then the stored form (ToString) is the text.
  for (const char* dn :
       {"uid=jjones,ou=Support,ou=People,dc=example,dc=com", "cn=A  b", "o=x",
        "ou=Human Resources,dc=x", "mail=a@b.example,dc=x", "cn-x=y", "cn=a#b", "l=San Diego"}) {
    CAPTURE(dn);
    CHECK(IsPlainDn(dn));
    Result<Dn> parsed = ParseDn(dn);
    REQUIRE(parsed.ok());
    CHECK(parsed->ToString() == dn);
  }
  // Not plain: what the parser unescapes, trims, splits or rewrites, and
  // what it refuses.
  for (const char* dn :
       {"",          " cn=a",    "cn=a ",     "cn=a, o=b",    "cn=a ,o=b", "cn =a",
        "cn= a",     "cn=a\\,b", "cn=\"a\"",  "cn=a+sn=b",    "cn=a;o=b",  "cn=#04",
        "cn=a=b",    "cn=a<b",   "2.5.4.3=a", "cn;lang-en=a", "cn=",       "=a",
        "cn=a,,o=b", "cn=a,",    ",cn=a",     "cn=\xC3\xA9",  "cn=a\tb"}) {
    CAPTURE(dn);
    CHECK_FALSE(IsPlainDn(dn));
  }
}

}  // namespace
}  // namespace dirload
