#include "lib/search/filter.h"

#include <doctest/doctest.h>

#include <string>

namespace dirload {
namespace {

Filter Parse(std::string_view text) {
  Result<Filter> f = ParseFilter(text);
  INFO(text, " -> ", f.status().ToString());
  REQUIRE(f.ok());
  return std::move(f).value();
}

std::string ErrorOf(std::string_view text) {
  Result<Filter> f = ParseFilter(text);
  INFO(text);
  REQUIRE_FALSE(f.ok());
  return f.status().message();
}

TEST_CASE("filter items of every kind") {
  Filter f = Parse("(cn=Babs Jensen)");
  CHECK(f.kind == FilterKind::kEquality);
  CHECK(f.attribute == "cn");
  CHECK(f.value == "Babs Jensen");

  CHECK(Parse("(cn=*)").kind == FilterKind::kPresent);
  CHECK(Parse("(uidNumber>=100)").kind == FilterKind::kGreaterOrEqual);
  CHECK(Parse("(uidNumber<=100)").kind == FilterKind::kLessOrEqual);
  CHECK(Parse("(sn~=smith)").kind == FilterKind::kApprox);
  CHECK(Parse("(sn~=smith)").value == "smith");

  f = Parse("(cn=)");
  CHECK(f.kind == FilterKind::kEquality);
  CHECK(f.value.empty());

  f = Parse("(2.5.4.3;lang-EN=x)");
  CHECK(f.attribute == "2.5.4.3;lang-EN");
}

TEST_CASE("substring items keep initial, any and final apart") {
  Filter f = Parse("(cn=*jen*)");
  CHECK(f.kind == FilterKind::kSubstrings);
  CHECK_FALSE(f.initial.has_value());
  CHECK(f.any == std::vector<std::string>{"jen"});
  CHECK_FALSE(f.final.has_value());

  f = Parse("(o=univ*of*mich*)");
  CHECK(f.initial == "univ");
  CHECK(f.any == std::vector<std::string>{"of", "mich"});
  CHECK_FALSE(f.final.has_value());

  f = Parse("(cn=a*)");
  CHECK(f.initial == "a");
  CHECK(f.any.empty());

  f = Parse("(cn=*z)");
  CHECK(f.final == "z");
  CHECK_FALSE(f.initial.has_value());

  f = Parse("(cn=a*b)");
  CHECK(f.initial == "a");
  CHECK(f.final == "b");
  CHECK(f.any.empty());

  f = Parse("(cn= a * b *c )");
  CHECK(f.initial == " a ");
  CHECK(f.any == std::vector<std::string>{" b "});
  CHECK(f.final == "c ");
}

TEST_CASE("escapes: \\XX and the RFC 2254 single-character forms") {
  CHECK(Parse("(o=Parens R Us \\28for all your parenthetical needs\\29)").value ==
        "Parens R Us (for all your parenthetical needs)");
  CHECK(Parse("(cn=*\\2A*)").any == std::vector<std::string>{"*"});
  CHECK(Parse("(filename=C:\\5cMyFile)").value == "C:\\MyFile");
  CHECK(Parse("(bin=\\00\\00\\00\\04)").value == std::string("\0\0\0\4", 4));
  CHECK(Parse("(sn=Lu\\c4\\8di\\c4\\87)").value == "Lučić");
  CHECK(Parse("(cn=a\\*b)").value == "a*b");
  CHECK(Parse("(cn=\\(x\\)\\\\)").value == "(x)\\");
  CHECK(Parse("(sn=Müller)").value == "Müller");
}

TEST_CASE("and, or, not, nested, with spaces between list elements") {
  Filter f = Parse("(&(objectClass=person)(|(sn=Jensen)(cn=Babs J*))(!(uid=x)))");
  REQUIRE(f.kind == FilterKind::kAnd);
  REQUIRE(f.children.size() == 3);
  CHECK(f.children[0].kind == FilterKind::kEquality);
  CHECK(f.children[1].kind == FilterKind::kOr);
  CHECK(f.children[1].children.size() == 2);
  CHECK(f.children[1].children[1].initial == "Babs J");
  CHECK(f.children[2].kind == FilterKind::kNot);
  CHECK(f.children[2].children.at(0).value == "x");

  CHECK(Parse("  (& (a=1)\t(b=2) )  ") == Parse("(&(a=1)(b=2))"));
  CHECK(Parse("( uid=a)") == Parse("(uid=a)"));
  CHECK(Parse("(! (a=1))") == Parse("(!(a=1))"));

  // RFC 4526 absolute true and false.
  CHECK(Parse("(&)").kind == FilterKind::kAnd);
  CHECK(Parse("(&)").children.empty());
  CHECK(Parse("(|)").kind == FilterKind::kOr);

  // A bare item, as ldapsearch accepts it.
  CHECK(Parse("uid=a") == Parse("(uid=a)"));
  CHECK(Parse("cn=a*b") == Parse("(cn=a*b)"));
}

TEST_CASE("errors name the offset") {
  CHECK(ErrorOf("") == "filter: offset 0: empty filter");
  CHECK(ErrorOf("(uid=a") == "filter: offset 6: missing ')' for the '(' at offset 0");
  CHECK(ErrorOf("(uid=a))") == "filter: offset 7: unexpected ')' after the end of the filter");
  CHECK(ErrorOf("(uid =a)") == "filter: offset 4: expected '=', '>=', '<=' or '~=' after 'uid'");
  CHECK(ErrorOf("(=a)") == "filter: offset 1: expected an attribute description");
  CHECK(ErrorOf("(cn=**)") == "filter: offset 5: empty substring between two '*'");
  CHECK(ErrorOf("(cn=a**b)") == "filter: offset 6: empty substring between two '*'");
  CHECK(ErrorOf("(cn=a\\4)") ==
        "filter: offset 5: invalid escape: '\\' must be followed by two hexadecimal digits");
  CHECK(ErrorOf("(cn=a\\zz)") ==
        "filter: offset 5: invalid escape: '\\' must be followed by two hexadecimal digits");
  CHECK(ErrorOf("(cn=a(b)") == "filter: offset 5: unescaped '(' in a value (write \\28)");
  CHECK(ErrorOf("(uidNumber>=1*)") ==
        "filter: offset 13: '*' is only allowed in '=' items (write \\2a for a literal '*')");
  CHECK(ErrorOf("(&(a=1)x)") == "filter: offset 7: expected '(' or ')' in a filter list");
  CHECK(ErrorOf("(!(a=1)(b=2))") == "filter: offset 7: expected ')': '!' takes exactly one filter");
  CHECK(ErrorOf("(!a=1)") == "filter: offset 2: expected '(' after '!'");
  CHECK(ErrorOf("(&(a=1)") == "filter: offset 7: missing ')' for the '(' at offset 0");
  CHECK(ErrorOf("(1cn=x)") == "filter: offset 2: invalid attribute description '1cn'");
  CHECK(ErrorOf("(cn;=x)") == "filter: offset 4: invalid attribute description 'cn;'");
  CHECK(ErrorOf("(-cn=x)") == "filter: offset 1: invalid attribute description '-cn'");
  CHECK(ErrorOf("(2.05.4=x)") == "filter: offset 3: invalid attribute description '2.05.4'");
  CHECK(ErrorOf("uid=a)") == "filter: offset 5: unescaped ')' in a value (write \\29)");
  CHECK(ErrorOf(std::string_view("(cn=a\0b)", 8)) ==
        "filter: offset 5: NUL byte in a value (write \\00)");
}

TEST_CASE("extensible match is rejected as unsupported") {
  for (std::string_view text : {"(cn:=Betty)", "(cn:dn:2.4.6.8.10:=Dino)", "(:caseExactMatch:=x)",
                                "(:dn:2.4.6.8.10:=Dino)"}) {
    Result<Filter> f = ParseFilter(text);
    INFO(text);
    REQUIRE_FALSE(f.ok());
    CHECK(f.status().code() == StatusCode::kUnsupported);
    CHECK(f.status().message().find("extensible match filters are not supported") !=
          std::string::npos);
  }
  CHECK(ParseFilter("(&(a=1)(cn:=x))").status().message() ==
        "filter: offset 8: extensible match filters are not supported");
}

TEST_CASE("deep nesting is bounded") {
  std::string ok, deep;
  for (size_t i = 0; i < kMaxFilterDepth - 1; ++i) ok += "(!";
  ok += "(a=1)";
  for (size_t i = 0; i < kMaxFilterDepth - 1; ++i) ok += ")";
  CHECK(ParseFilter(ok).ok());
  for (size_t i = 0; i < 100000; ++i) deep += "(!";
  Result<Filter> f = ParseFilter(deep);
  REQUIRE_FALSE(f.ok());
  CHECK(f.status().message().find("nested deeper than") != std::string::npos);
}

TEST_CASE("ToString prints the canonical form and round-trips") {
  CHECK(Parse(" (& (a=1) (| (b=*) (!(c>=3)) ) (d<=4)(e~=5)) ").ToString() ==
        "(&(a=1)(|(b=*)(!(c>=3)))(d<=4)(e~=5))");
  CHECK(Parse("uid=a").ToString() == "(uid=a)");
  CHECK(Parse("(cn=*a*b*)").ToString() == "(cn=*a*b*)");
  CHECK(Parse("(cn=x*y)").ToString() == "(cn=x*y)");
  CHECK(Parse("(cn=\\2a\\28\\29\\5c)").ToString() == "(cn=\\2a\\28\\29\\5c)");
  CHECK(Parse("(cn=a\\*b)").ToString() == "(cn=a\\2ab)");
  CHECK(Parse("(bin=\\00\\ff\\0a)").ToString() == "(bin=\\00\\ff\\0a)");
  CHECK(Parse("(sn=Müller)").ToString() == "(sn=Müller)");
  CHECK(Parse("(&)").ToString() == "(&)");
  for (std::string_view text :
       {"(&(objectClass=person)(|(sn=Jensen)(cn=Babs J*)))", "(o=univ*of*mich*)",
        "(cn=\\00\\01 \\c3)", "(!(!(x=\\2a)))", "(cn;lang-en=*)", "(|)"}) {
    Filter f = Parse(text);
    CHECK(Parse(f.ToString()) == f);
  }
  Filter built = Filter::And({Filter::Item(FilterKind::kEquality, "cn", "a(b)*"),
                              Filter::Not(Filter::Item(FilterKind::kPresent, "sn"))});
  CHECK(built.ToString() == "(&(cn=a\\28b\\29\\2a)(!(sn=*)))");
  CHECK(Parse(built.ToString()) == built);
}

}  // namespace
}  // namespace dirload
