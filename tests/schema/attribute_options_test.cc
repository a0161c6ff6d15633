#include "lib/schema/attribute_options.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace dirload {
namespace {

TEST_CASE("the default set is the lang- prefix") {
  AttributeOptions o;
  CHECK(o.is_default());
  CHECK(o.names() == std::vector<std::string>{"lang-"});
  CHECK(o.Accepts("lang-de"));
  CHECK(o.Accepts("LANG-DE"));
  CHECK(o.Accepts("lang-"));
  CHECK_FALSE(o.Accepts("lang"));
  CHECK_FALSE(o.Accepts("x-foo"));
  CHECK_FALSE(o.allows_equals());
}

TEST_CASE("declaring replaces the default, even with no names") {
  AttributeOptions empty;
  empty.Declare();
  CHECK_FALSE(empty.is_default());
  CHECK(empty.names().empty());
  CHECK_FALSE(empty.Accepts("lang-de"));

  AttributeOptions o;
  REQUIRE(o.Define("x-foo").ok());
  CHECK_FALSE(o.Accepts("lang-de"));
  CHECK(o.Accepts("X-FOO"));
  CHECK_FALSE(o.Accepts("x-foobar"));  // not a prefix: the name alone
  CHECK_FALSE(o.Accepts("x-fo"));
  // Later declarations add to earlier ones: lang- is back only if declared.
  o.Declare();
  REQUIRE(o.Define("lang-").ok());
  CHECK(o.Accepts("lang-de"));
  CHECK(o.Accepts("x-foo"));
}

TEST_CASE("names are kept in slapd's order, as written") {
  AttributeOptions o;
  for (const char* n : {"x-foo", "Lang-", "a", "X-bar"}) REQUIRE(o.Define(n).ok());
  CHECK(o.names() == std::vector<std::string>{"a", "Lang-", "X-bar", "x-foo"});
}

TEST_CASE("bad declarations are refused as slapd refuses them") {
  struct Bad {
    std::vector<const char*> before;
    const char* name;
    const char* message;
  };
  const Bad cases[] = {
      {{}, "binary", "already defined"},
      {{}, "BINARY", "already defined"},
      {{"x-foo"}, "X-FOO", "already defined"},
      {{"x-"}, "x-foo", "already defined"},  // the prefix covers it
      {{"x-"}, "x-", "already defined"},
      {{"x-foo"}, "x-", "overrides previous option \"x-foo\""},
      {{"lang-de"}, "LANG-", "overrides previous option"},
      {{}, "x_y", "illegal option name"},
      {{}, "x=y", "illegal option name"},
      {{}, "x.y", "illegal option name"},
      {{}, "", "empty"},
  };
  for (const Bad& c : cases) {
    INFO(c.name);
    AttributeOptions o;
    for (const char* b : c.before) REQUIRE(o.Define(b).ok());
    Status s = o.Define(c.name);
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == StatusCode::kInvalidArgument);
    CHECK_MESSAGE(s.message().find(c.message) != std::string::npos, s.message());
    CHECK(o.names().size() == c.before.size());  // nothing added
  }
  // What slapd lets through: a name may start with a digit or '-', and a
  // prefix may end in '=' (then '=' is allowed in descriptions).
  AttributeOptions o;
  CHECK(o.Define("1x").ok());
  CHECK(o.Define("-x").ok());
  CHECK_FALSE(o.allows_equals());
  CHECK(o.Define("range=").ok());
  CHECK(o.allows_equals());
  CHECK(o.Accepts("range=0-9"));
  // A non-prefix name does not cover longer ones.
  CHECK(o.Define("1xy").ok());
}

}  // namespace
}  // namespace dirload
