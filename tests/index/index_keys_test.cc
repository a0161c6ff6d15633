#include "lib/index/index_keys.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <set>

#include "lib/schema/normalize.h"
#include "tests/schema/builtin_fixture.h"

namespace dirload {
namespace {

using testing::BuiltinSchema;

const AttributeType& Type(std::string_view name) {
  const AttributeType* t = BuiltinSchema().FindAttribute(name);
  REQUIRE(t != nullptr);
  return *t;
}

IndexSpec Spec(std::string_view name, IndexMask mask) { return IndexSpec{&Type(name), mask, ""}; }

std::string Eq(std::string_view attr, std::string_view value) {
  auto k = EqualityKey(BuiltinSchema(), Type(attr), value);
  REQUIRE(k.ok());
  return *k;
}

std::set<std::string> ValueKeys(std::string_view attr, IndexMask mask, std::string_view value) {
  KeyList keys;
  std::string scratch;
  REQUIRE(AddValueKeys(BuiltinSchema(), Spec(attr, mask), value, &keys, &scratch).ok());
  auto v = keys.ToVector();
  return std::set<std::string>(v.begin(), v.end());
}

std::vector<std::string> AssertionKeys(std::string_view attr, const SubstringAssertion& a,
                                       IndexMask mask = kIndexSubstr) {
  auto k = SubstringAssertionKeys(BuiltinSchema(), Type(attr), a, mask);
  REQUIRE(k.ok());
  return *k;
}

SubstringAssertion Sub(std::optional<std::string> initial, std::vector<std::string> any,
                       std::optional<std::string> final) {
  SubstringAssertion a;
  if (initial) {
    a.has_initial = true;
    a.initial = *initial;
  }
  a.any = std::move(any);
  if (final) {
    a.has_final = true;
    a.final = *final;
  }
  return a;
}

TEST_CASE("a key list keeps every key exact as its buffer grows, is copied and cleared") {
  std::mt19937_64 rng(11);
  std::vector<std::string> model;
  KeyList keys;
  for (int i = 0; i < 3000; ++i) {
    // Empty to over-long bodies (hashed), some with NUL bytes.
    std::string body(rng() % 7 == 0 ? rng() % 400 : rng() % 9, 'x');
    for (char& c : body) c = static_cast<char>(rng() % 256);
    std::string key = "=" + body;
    if (rng() % 2 == 0) {
      keys.AddMade(key);  // kept as it is, however long
    } else {
      keys.Add('=', body);
      if (key.size() > kMaxIndexKeySize) {
        uint8_t digest[kKeyDigestBytes];
        KeyDigest(key, digest);
        key = std::string(1, kHashedKeyTag) + '=' +
              std::string(reinterpret_cast<const char*>(digest), kKeyDigestBytes);
      }
    }
    model.push_back(key);
  }
  REQUIRE(keys.size() == model.size());
  size_t text = 0;
  for (size_t i = 0; i < model.size(); ++i) {
    CHECK(keys[i] == model[i]);
    text += model[i].size();
  }
  CHECK(keys.bytes() == text + model.size() * sizeof(uint32_t));
  const KeyList copy = keys;
  KeyList assigned;
  assigned.Add('+', {});
  assigned = keys;
  CHECK(copy.ToVector() == model);
  CHECK(assigned.ToVector() == model);
  KeyList moved = std::move(assigned);
  CHECK(moved.ToVector() == model);
  // The list moved from is empty and takes keys again.
  CHECK(assigned.empty());  // NOLINT(bugprone-use-after-move)
  assigned.Add('=', "again");
  CHECK(assigned.ToVector() == std::vector<std::string>{"=again"});
  KeyList target;
  target.Add('=', "old");
  target = std::move(moved);
  CHECK(target.ToVector() == model);
  CHECK(moved.empty());  // NOLINT(bugprone-use-after-move)
  keys.Clear();
  CHECK(keys.empty());
  CHECK(keys.bytes() == 0);
  keys.Add('$', "ab");
  CHECK(keys.ToVector() == std::vector<std::string>{"$ab"});
  CHECK(copy.ToVector() == model);  // the copy owns its bytes
}

TEST_CASE("DN values give the same keys through a DnNormalizer, and the same refusals") {
  DnNormalizer dns(&BuiltinSchema());
  const IndexSpec spec = Spec("manager", kIndexEquality);
  // Twice each: the second time the parent's name comes from its cache.
  const std::vector<std::string> values = {"uid=jdoe,ou=Sales,dc=example,dc=com",
                                           "UID=JDoe, OU=sales,DC=Example,dc=COM",
                                           "cn=Smith\\, John,ou=Sales,dc=example,dc=com",
                                           "cn=a+sn=b,ou=Sales,dc=example,dc=com",
                                           "uid=x,ou=Sales,dc=example,dc=com",
                                           "cn=#hash,dc=example,dc=com",
                                           "nosuchtype=x,ou=Sales,dc=example,dc=com",
                                           "uid=,dc=example,dc=com",
                                           "not a dn",
                                           ""};
  for (int round = 0; round < 2; ++round) {
    int refused = 0;
    for (const std::string& v : values) {
      CAPTURE(v);
      KeyList plain, cached;
      std::string scratch, cached_scratch;
      const Status a = AddValueKeys(BuiltinSchema(), spec, v, &plain, &scratch);
      const Status b = AddValueKeys(BuiltinSchema(), spec, v, &cached, &cached_scratch, &dns);
      CHECK(a.ok() == b.ok());
      CHECK(a.message() == b.message());
      CHECK(plain.ToVector() == cached.ToVector());
      refused += a.ok() ? 0 : 1;
    }
    // The undefined type, the empty value and the text that is no DN.
    CHECK(refused >= 3);
  }
}

TEST_CASE("approx keys: '~' and the phonetic code of each word") {
  // The codes are slapadd's (tests/schema/approx_match_test.cc).
  CHECK(ValueKeys("cn", kIndexApprox, "John  Smith") == std::set<std::string>{"~JN", "~SM0"});
  CHECK(ValueKeys("cn", kIndexEquality | kIndexApprox, "Smyth") ==
        std::set<std::string>{"=smyth", "~SM0"});
  CHECK(ValueKeys("mail", kIndexApprox, "John.Smith@example.com") == std::set<std::string>{"~JN"});
  CHECK(ValueKeys("cn", kIndexApprox, "123 \xe4\xb8\xad").empty());
  CHECK(ValueKeys("cn", kIndexApprox | kIndexSubInitial, "Bo").count("~") == 0);
  auto keys = ApproxAssertionKeys(BuiltinSchema(), Type("cn"), "smyth  JOHN smith 123");
  REQUIRE(keys.ok());
  CHECK(*keys == std::vector<std::string>{"~SM0", "~JN"});
  CHECK(DescribeKey("~SM0") == "approx:SM0");
}

TEST_CASE("equality keys: case and space variants agree") {
  CHECK(Eq("cn", "John Smith") == "=john smith");
  CHECK(Eq("cn", "  JOHN    smith  ") == "=john smith");
  CHECK(Eq("sn", "ÅNGSTRÖM") == Eq("sn", "ångström"));
  // U+1E9E is not in slapd's Unicode 3.2 tables: slapd keeps it.
  CHECK(Eq("sn", "Straße") != Eq("sn", "STRAẞE"));
  CHECK(Eq("cn", "ｆｏｏ") == "=foo");  // compatibility decomposition
  CHECK(Eq("mail", "John.Smith@Example.COM") == "=john.smith@example.com");
  CHECK(Eq("telephoneNumber", "+1 555-0100") == "=+15550100");
  CHECK(Eq("telephoneNumber", "+1 555-0100") == Eq("telephoneNumber", "+15550100"));
  CHECK(Eq("objectClass", "inetOrgPerson") == Eq("objectClass", "INETORGPERSON"));
  CHECK(Eq("objectClass", "inetOrgPerson") == Eq("objectClass", "2.16.840.1.113730.3.2.2"));
  CHECK(Eq("member", "CN=A,DC=Example,DC=Com") == Eq("member", "cn=a, dc=example, dc=com"));
  CHECK(Eq("uid", "JSmith") == "=jsmith");
  // caseExact keeps case.
  CHECK(Eq("cn", "X") == Eq("cn", "x"));
  CHECK(PresenceKey() == "+");
  // Values the rule cannot normalise give no key.
  CHECK_FALSE(EqualityKey(BuiltinSchema(), Type("cn"), "\xff\xfe").ok());
  CHECK_FALSE(EqualityKey(BuiltinSchema(), Type("jpegPhoto"), "x").ok());  // no EQUALITY
}

TEST_CASE("long equality keys are hashed within the store's key limit") {
  std::string long_value(600, 'x');
  std::string k = Eq("cn", long_value);
  CHECK(k.size() == 2 + kKeyDigestBytes);
  CHECK(k[0] == kHashedKeyTag);
  CHECK(k[1] == kEqualityKeyTag);
  std::string upper(600, 'X');
  CHECK(Eq("cn", upper) == k);
  std::string other = long_value;
  other[300] = 'y';
  CHECK(Eq("cn", other) != k);
  // The boundary: a key of exactly kMaxIndexKeySize bytes stays plain.
  std::string edge(kMaxIndexKeySize - 1, 'a');
  CHECK(Eq("cn", edge).size() == kMaxIndexKeySize);
  CHECK(Eq("cn", edge + "a")[0] == kHashedKeyTag);
  CHECK(DescribeKey(Eq("cn", "ab")) == "eq:ab");
  CHECK(DescribeKey("+") == "pres");
  CHECK(DescribeKey(k).rfind("#eq:", 0) == 0);
}

TEST_CASE("substring keys of values: exact vectors") {
  CHECK(ValueKeys("cn", kIndexSubstr, "Smith") ==
        std::set<std::string>{"*smit", "*mith", "^sm", "^smi", "^smit", "$th", "$ith", "$mith"});
  CHECK(ValueKeys("cn", kIndexSubstr | kIndexEquality, "Smith").count("=smith") == 1);
  CHECK(ValueKeys("cn", kIndexSubInitial, "Smith") ==
        std::set<std::string>{"^sm", "^smi", "^smit"});
  CHECK(ValueKeys("cn", kIndexSubAny, "Smith") == std::set<std::string>{"*smit", "*mith"});
  CHECK(ValueKeys("cn", kIndexSubFinal, "Smith") == std::set<std::string>{"$th", "$ith", "$mith"});
  // Short values: 2-3 characters give initial/final keys only; 1 gives none.
  CHECK(ValueKeys("cn", kIndexSubstr, "Al") == std::set<std::string>{"^al", "$al"});
  CHECK(ValueKeys("cn", kIndexSubstr, "Bob") ==
        std::set<std::string>{"^bo", "^bob", "$ob", "$bob"});
  CHECK(ValueKeys("cn", kIndexSubstr, "x").empty());
  // Inner spaces are collapsed, edges trimmed, before fragments are cut.
  CHECK(ValueKeys("cn", kIndexSubAny, "  A   B c ") == std::set<std::string>{"*a b ", "* b c"});
  // Unicode: fragments are code points, not bytes.
  CHECK(ValueKeys("sn", kIndexSubstr, "Ångström") ==
        std::set<std::string>{"*ångs", "*ngst", "*gstr", "*strö", "*tröm", "^ån", "^ång", "^ångs",
                              "$öm", "$röm", "$tröm"});
  // IA5 rules count bytes.
  CHECK(ValueKeys("mail", kIndexSubstr, "A@B.c") ==
        std::set<std::string>{"*a@b.", "*@b.c", "^a@", "^a@b", "^a@b.", "$.c", "$b.c", "$@b.c"});
  // telephoneNumber-style folding applies to substring keys too.
  CHECK(ValueKeys("telephoneNumber", kIndexSubInitial, "+1 555") ==
        std::set<std::string>{"^+1", "^+15", "^+155"});
}

TEST_CASE("substring keys of assertions: exact vectors") {
  CHECK(AssertionKeys("cn", Sub("Smi", {}, std::nullopt)) == std::vector<std::string>{"^smi"});
  CHECK(AssertionKeys("cn", Sub("Smith", {}, std::nullopt)) ==
        std::vector<std::string>{"^smit"});  // 5 chars: no any key from position 3
  // 9 characters: initial key of 4, then any keys at positions 3 and 5.
  CHECK(AssertionKeys("cn", Sub("Johnathan", {}, std::nullopt)) ==
        std::vector<std::string>{"*nath", "*than", "^john"});
  // Without subinitial, the initial fragment is covered by any keys from 0.
  CHECK(AssertionKeys("cn", Sub("Johnathan", {}, std::nullopt), kIndexSubAny) ==
        std::vector<std::string>{"*atha", "*hnat", "*john"});
  // Final: key of the last 4, plus any keys at 0, 2, ... <= n-4.
  CHECK(AssertionKeys("cn", Sub(std::nullopt, {}, "abcdefg")) ==
        std::vector<std::string>{"$defg", "*abcd", "*cdef"});
  CHECK(AssertionKeys("cn", Sub(std::nullopt, {}, "th")) == std::vector<std::string>{"$th"});
  // Any fragments: positions 0, 2, 4, ...; shorter than 4 gives nothing.
  CHECK(AssertionKeys("cn", Sub(std::nullopt, {"abcdefgh", "xyz"}, std::nullopt)) ==
        std::vector<std::string>{"*abcd", "*cdef", "*efgh"});
  CHECK(AssertionKeys("cn", Sub("J", {"ab"}, "z")).empty());
  // Kinds not indexed give no keys.
  CHECK(AssertionKeys("cn", Sub("Smi", {}, "th"), kIndexSubFinal) ==
        std::vector<std::string>{"$th"});
  // Fragment edges keep one space where they abut other text.
  CHECK(AssertionKeys("cn", Sub("John  ", {}, std::nullopt)) == std::vector<std::string>{"^john"});
  CHECK(AssertionKeys("cn", Sub("Jo ", {}, std::nullopt)) == std::vector<std::string>{"^jo "});
  // No SUBSTR rule: an error, not an empty list.
  CHECK_FALSE(SubstringAssertionKeys(BuiltinSchema(), Type("member"), Sub("a", {}, std::nullopt),
                                     kIndexSubstr)
                  .ok());
}

// Normalised-substring matching, the semantics the keys must never miss.
bool Matches(std::string_view attr, const SubstringAssertion& a, std::string_view value) {
  const Schema& s = BuiltinSchema();
  std::string v = *NormalizeSubstring(s, Type(attr), value, SubstringPosition::kWhole);
  size_t pos = 0;
  if (a.has_initial) {
    std::string f = *NormalizeSubstring(s, Type(attr), a.initial, SubstringPosition::kInitial);
    if (v.compare(0, f.size(), f) != 0) return false;
    pos = f.size();
  }
  for (const std::string& any : a.any) {
    std::string f = *NormalizeSubstring(s, Type(attr), any, SubstringPosition::kAny);
    size_t at = v.find(f, pos);
    if (at == std::string::npos) return false;
    pos = at + f.size();
  }
  if (a.has_final) {
    std::string f = *NormalizeSubstring(s, Type(attr), a.final, SubstringPosition::kFinal);
    if (f.size() > v.size() - std::min(v.size(), pos) ||
        v.compare(v.size() - f.size(), f.size(), f) != 0) {
      return false;
    }
  }
  return true;
}

TEST_CASE("assertion keys are a subset of the keys of every matching value") {
  const uint64_t seed = 1234;
  std::mt19937_64 rng(seed);
  // A small alphabet (with spaces, case, and multi-byte characters) so that
  // random cuts of a value often match other values too.
  const std::vector<std::string> alphabet = {"a", "B", "c", " ", "é", "Ö", "ß", "x", "  "};
  const IndexMask masks[] = {kIndexSubstr, kIndexSubAny, kIndexSubInitial | kIndexSubAny,
                             kIndexSubFinal | kIndexSubAny, kIndexSubInitial};
  auto random_text = [&](size_t n) {
    std::string s;
    for (size_t i = 0; i < n; ++i) s += alphabet[rng() % alphabet.size()];
    return s;
  };
  int checked = 0;
  for (int round = 0; round < 3000; ++round) {
    const char* attr = round % 3 == 0 ? "mail" : "cn";
    std::string value = random_text(1 + rng() % 14);
    if (std::string(attr) == "mail") {
      for (char& c : value) {
        if (static_cast<unsigned char>(c) >= 0x80) c = 'q';
      }
    }
    // Cut an assertion out of the value: initial, some anys, final.
    std::string norm =
        *NormalizeSubstring(BuiltinSchema(), Type(attr), value, SubstringPosition::kWhole);
    SubstringAssertion a;
    size_t len = value.size();
    size_t cut1 = rng() % (len + 1), cut2 = rng() % (len + 1);
    if (cut1 > cut2) std::swap(cut1, cut2);
    // Cut on character boundaries of the raw value.
    auto boundary = [&](size_t p) {
      while (p < value.size() && (static_cast<unsigned char>(value[p]) & 0xC0) == 0x80) ++p;
      return p;
    };
    cut1 = boundary(cut1);
    cut2 = boundary(cut2);
    if (rng() % 2) {
      a.has_initial = true;
      a.initial = value.substr(0, cut1);
    }
    if (cut2 > cut1) a.any.push_back(value.substr(cut1, cut2 - cut1));
    if (rng() % 2) {
      a.has_final = true;
      a.final = value.substr(cut2);
    }
    if (!Matches(attr, a, value)) continue;  // normalisation at the cuts changed the text
    IndexMask mask = masks[rng() % std::size(masks)];
    auto want = SubstringAssertionKeys(BuiltinSchema(), Type(attr), a, mask);
    REQUIRE(want.ok());
    std::set<std::string> have = ValueKeys(attr, mask, value);
    for (const std::string& k : *want) {
      INFO("seed " << seed << " round " << round << " value '" << value << "' key '" << k
                   << "' normalised '" << norm << "'");
      CHECK(have.count(k) == 1);
    }
    ++checked;
  }
  CHECK(checked > 1000);
}

}  // namespace
}  // namespace dirload
