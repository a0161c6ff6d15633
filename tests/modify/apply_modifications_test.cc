// ApplyModifications: a modify's values applied as slapd's modify applies
// them, each refusal with slapd's result code.
#include "lib/modify/apply_modifications.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "lib/schema/schema.h"

namespace dirload {
namespace {

const Schema& TheSchema() {
  static const Schema schema = Schema::Builtin().value();
  return schema;
}

using Values = std::vector<EntryEditor::Value>;

Values Make(const std::vector<std::pair<std::string, std::string>>& pairs) {
  Values out;
  for (const auto& [d, v] : pairs) {
    EntryEditor::Value x;
    x.description = d;
    x.value = v;
    out.push_back(std::move(x));
  }
  return out;
}

std::vector<std::string> Lines(const Values& values) {
  std::vector<std::string> out;
  for (const auto& v : values) out.push_back(v.description + ": " + v.value);
  return out;
}

Status Apply(Values* values, std::vector<Modification> mods) {
  return ApplyModifications(TheSchema(), mods, values);
}

TEST_CASE("delete of one value keeps the others, whichever its place") {
  for (const char* gone : {"+1 555 0001", "+1 555 0002", "+1 555 0003"}) {
    CAPTURE(gone);
    Values v = Make({{"objectClass", "person"},
                     {"telephoneNumber", "+1 555 0001"},
                     {"telephoneNumber", "+1 555 0002"},
                     {"telephoneNumber", "+1 555 0003"},
                     {"sn", "x"}});
    // Matched under telephoneNumberMatch: spaces and hyphens do not count.
    std::string asserted = gone;
    asserted.erase(std::remove(asserted.begin(), asserted.end(), ' '), asserted.end());
    REQUIRE(Apply(&v, {{ModOp::kDelete, "telephoneNumber", {asserted}}}).ok());
    std::vector<std::string> want = {"objectClass: person"};
    for (const char* n : {"+1 555 0001", "+1 555 0002", "+1 555 0003"}) {
      if (std::string(n) != gone) want.push_back(std::string("telephoneNumber: ") + n);
    }
    want.push_back("sn: x");
    CHECK(Lines(v) == want);
  }
}

TEST_CASE("add appends to the attribute, or a new attribute at the end") {
  Values v = Make({{"cn", "a"}, {"sn", "x"}});
  REQUIRE(Apply(&v, {{ModOp::kAdd, "CN", {"b"}}, {ModOp::kAdd, "description", {"d"}}}).ok());
  CHECK(Lines(v) == std::vector<std::string>{"cn: a", "cn: b", "sn: x", "description: d"});
}

TEST_CASE("replace makes the attribute anew at the end; an empty replace removes it") {
  Values v = Make({{"cn", "a"}, {"title", "t"}, {"sn", "x"}});
  REQUIRE(Apply(&v, {{ModOp::kReplace, "title", {"u", "v"}}}).ok());
  CHECK(Lines(v) == std::vector<std::string>{"cn: a", "sn: x", "title: u", "title: v"});
  REQUIRE(Apply(&v, {{ModOp::kReplace, "title", {}}, {ModOp::kReplace, "l", {}}}).ok());
  CHECK(Lines(v) == std::vector<std::string>{"cn: a", "sn: x"});
}

TEST_CASE("increment adds to each integer value") {
  Values v = Make({{"uidNumber", "1000"}});
  REQUIRE(Apply(&v, {{ModOp::kIncrement, "uidNumber", {"-3"}}}).ok());
  CHECK(Lines(v) == std::vector<std::string>{"uidNumber: 997"});
  CHECK(LdapResultOf(Apply(&v, {{ModOp::kIncrement, "gidNumber", {"1"}}})) ==
        LdapResult::kNoSuchAttribute);
  Values s = Make({{"cn", "a"}});
  CHECK(LdapResultOf(Apply(&s, {{ModOp::kIncrement, "cn", {"1"}}})) ==
        LdapResult::kConstraintViolation);
}

TEST_CASE("refusals carry slapd's result codes") {
  Values v = Make({{"cn", "Alice"}, {"sn", "x"}});
  CHECK(LdapResultOf(Apply(&v, {{ModOp::kAdd, "cn", {"ALICE"}}})) ==
        LdapResult::kAttributeOrValueExists);
  CHECK(LdapResultOf(Apply(&v, {{ModOp::kAdd, "cn", {"b", "B"}}})) ==
        LdapResult::kAttributeOrValueExists);
  CHECK(LdapResultOf(Apply(&v, {{ModOp::kDelete, "cn", {"Bob"}}})) == LdapResult::kNoSuchAttribute);
  CHECK(LdapResultOf(Apply(&v, {{ModOp::kDelete, "title", {}}})) == LdapResult::kNoSuchAttribute);
  CHECK(LdapResultOf(Apply(&v, {{ModOp::kAdd, "frobnicate", {"x"}}})) ==
        LdapResult::kUndefinedAttributeType);
  CHECK(LdapResultOf(Apply(&v, {{ModOp::kReplace, "createTimestamp", {"20200101000000Z"}}})) ==
        LdapResult::kConstraintViolation);
  CHECK(LdapResultOf(Apply(&v, {{ModOp::kAdd, "uidNumber", {"ten"}}})) ==
        LdapResult::kInvalidAttributeSyntax);
}

TEST_CASE("a value is matched against the normalized copy the entry keeps") {
  // The copy was made under another rule: slapd compares with it.
  Values v = Make({{"cn", "Alice"}});
  v[0].beside = "stale";
  CHECK(LdapResultOf(Apply(&v, {{ModOp::kDelete, "cn", {"alice"}}})) ==
        LdapResult::kNoSuchAttribute);
}

}  // namespace
}  // namespace dirload
