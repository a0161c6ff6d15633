#include "lib/index/index_spec.h"

#include <doctest/doctest.h>

#include "tests/schema/builtin_fixture.h"

namespace dirload {
namespace {

using testing::BuiltinSchema;

Result<IndexConfig> ParseLines(const std::vector<std::string>& lines) {
  std::vector<IndexConfig::Line> in;
  for (size_t i = 0; i < lines.size(); ++i) {
    in.push_back({lines[i], "slapd.conf:" + std::to_string(10 + i)});
  }
  return IndexConfig::Parse(BuiltinSchema(), in);
}

TEST_CASE("index lines: attributes, kinds, defaults") {
  auto c = ParseLines({"index objectClass eq", "index default pres,eq", "index uid",
                       "index cn,sn pres,eq,sub", "index mail   EQ,SubInitial",
                       "index description approx"});
  REQUIRE(c.ok());
  const Schema& s = BuiltinSchema();
  REQUIRE(c->specs().size() == 6);
  CHECK(c->Find(s, "objectclass")->mask == kIndexEquality);
  CHECK(c->Find(s, "UID")->mask == (kIndexPresence | kIndexEquality));
  CHECK(c->Find(s, "cn")->mask == (kIndexPresence | kIndexEquality | kIndexSubstr));
  CHECK(c->Find(s, "2.5.4.3") == c->Find(s, "cn"));  // by OID
  CHECK(c->Find(s, "mail")->mask == (kIndexEquality | kIndexSubInitial));
  CHECK(c->Find(s, "description")->mask == kIndexApprox);
  CHECK(c->Find(s, "givenName") == nullptr);
  CHECK(c->default_mask() == (kIndexPresence | kIndexEquality));
  CHECK(c->Find(s, "cn")->table() == "idx.cn");
  CHECK(c->Find(s, "objectClass")->table() == "idx.objectclass");
  CHECK(c->Find(s, "uid")->where == "slapd.conf:12");

  CHECK(IndexMaskToString(kIndexPresence | kIndexEquality | kIndexSubstr) == "pres,eq,sub");
  CHECK(IndexMaskToString(kIndexSubAny | kIndexNoSubtypes) == "subany,nosubtypes");
  CHECK(c->Canonical() ==
        "cn pres,eq,sub\ndescription approx\nmail eq,subinitial\nobjectclass eq\n"
        "sn pres,eq,sub\nuid pres,eq\n");

  // A leading "index" is optional; "default" accumulates.
  IndexConfig d;
  REQUIRE(d.AddLine(s, "default pres", "--index 1").ok());
  REQUIRE(d.AddLine(s, "index default eq", "--index 2").ok());
  REQUIRE(d.AddLine(s, "sn", "--index 3").ok());
  CHECK(d.Find(s, "sn")->mask == (kIndexPresence | kIndexEquality));
}

TEST_CASE("index lines: errors name the line") {
  struct Case {
    std::vector<std::string> lines;
    std::string message;
  };
  const Case cases[] = {
      {{"index cn eq", "index foo eq"}, "slapd.conf:11: index attribute 'foo' undefined"},
      {{"index uid"}, "slapd.conf:10: index: no indexes selected"},
      {{"index uid", "index default eq"}, "slapd.conf:10: index: no indexes selected"},
      {{"index cn eq,bogus"}, "slapd.conf:10: index type 'bogus' undefined"},
      {{"index cn eq", "index sn,cn pres"},
       "slapd.conf:11: duplicate index definition for attr 'cn'"},
      {{"index cn, sn eq"}, "slapd.conf:10: index: expected"},
      {{"index"}, "slapd.conf:10: index: expected"},
      {{"index member sub"}, "slapd.conf:10: substr index of attribute 'member' disallowed"},
      {{"index jpegPhoto eq"}, "slapd.conf:10: equality index of attribute 'jpegPhoto' disallowed"},
      // slapd 2.5: 'approx index of attribute "telephoneNumber" disallowed'
      // (its rule has no approximate rule), checked before eq.
      {{"index telephoneNumber approx"},
       "slapd.conf:10: approx index of attribute 'telephoneNumber' disallowed"},
      {{"index uidNumber eq,approx"},
       "slapd.conf:10: approx index of attribute 'uidNumber' disallowed"},
      {{"index default approx", "index member"},
       "slapd.conf:11: approx index of attribute 'member' disallowed"},
      {{"index cn;lang-en eq"}, "slapd.conf:10: index attribute 'cn;lang-en'"},
      {{"index , eq"}, "slapd.conf:10: index: no attributes specified"},
  };
  for (const Case& c : cases) {
    INFO(c.lines.back());
    auto r = ParseLines(c.lines);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().rfind(c.message, 0) == 0);
  }
  // A failing line changes nothing: sn is not added when cn is a duplicate.
  IndexConfig c;
  REQUIRE(c.AddLine(BuiltinSchema(), "cn eq", "a").ok());
  CHECK_FALSE(c.AddLine(BuiltinSchema(), "sn,cn eq", "b").ok());
  CHECK(c.Find(BuiltinSchema(), "sn") == nullptr);
}

TEST_CASE("index on a supertype covers subtypes without their own index") {
  const Schema& s = BuiltinSchema();
  const AttributeType* name = s.FindAttribute("name");
  const AttributeType* cn = s.FindAttribute("cn");
  const AttributeType* sn = s.FindAttribute("sn");
  const AttributeType* uid = s.FindAttribute("uid");
  REQUIRE(Schema::IsSubtypeOf(cn, name));

  auto c = ParseLines({"index name eq,sub", "index sn eq"});
  REQUIRE(c.ok());
  // Searches: cn has no index of its own and uses name's; sn has its own.
  CHECK(c->ForSearch(cn) == c->Find(name));
  CHECK(c->ForSearch(sn) == c->Find(sn));
  CHECK(c->ForSearch(name) == c->Find(name));
  CHECK(c->ForSearch(uid) == nullptr);
  // Building: cn values go into name's table; sn values into both sn's and
  // name's (nearest first).
  CHECK(c->Targets(cn) == std::vector<const IndexSpec*>{c->Find(name)});
  CHECK(c->Targets(sn) == std::vector<const IndexSpec*>{c->Find(sn), c->Find(name)});
  CHECK(c->Targets(uid).empty());

  // nosubtypes: the supertype's index serves only the supertype itself.
  auto n = ParseLines({"index name eq,nosubtypes"});
  REQUIRE(n.ok());
  CHECK(n->ForSearch(cn) == nullptr);
  CHECK(n->ForSearch(name) == n->Find(name));
  CHECK(n->Targets(cn).size() == 1);  // still built, as back-mdb does
}

}  // namespace
}  // namespace dirload
