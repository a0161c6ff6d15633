// Differences between two canonical entries and the change records that
// remove them.
#include "lib/compare/entry_diff.h"

#include <doctest/doctest.h>

#include <algorithm>

#include "ldif/writer.h"

namespace dirload {
namespace {

CanonicalAttribute Attr(std::string d, std::vector<std::string> values) {
  CanonicalAttribute a;
  a.description = std::move(d);
  a.values = values;
  a.sorted = values;
  std::sort(a.sorted.begin(), a.sorted.end());
  return a;
}

TEST_CASE("attributes differ by value sets; the modify gives B's values") {
  CanonicalEntry a, b;
  a.dn = "uid=ann,dc=example,dc=com";
  b.dn = "UID=ann,dc=example,dc=com";
  a.attributes = {Attr("description", {"old"}), Attr("mail", {"a@x", "b@x"}),
                  Attr("objectClass", {"top", "person"}), Attr("title", {"t"})};
  b.attributes = {Attr("mail", {"b@x", "a@x"}), Attr("objectClass", {"person", "top"}),
                  Attr("telephoneNumber", {"1"}), Attr("title", {"u", "t"})};
  std::vector<AttributeDifference> d = DiffEntries(a, b);
  REQUIRE(d.size() == 3);
  CHECK(d[0].description == "description");
  CHECK(d[0].in_a);
  CHECK_FALSE(d[0].in_b);
  CHECK(d[0].only_a == std::vector<std::string>{"old"});
  CHECK(d[1].description == "telephoneNumber");
  CHECK(d[1].only_b == std::vector<std::string>{"1"});
  CHECK(d[2].description == "title");
  CHECK(d[2].only_a.empty());
  CHECK(d[2].only_b == std::vector<std::string>{"u"});

  ldif::Record r;
  ModifyRecord(a, b, d, &r);
  CHECK(r.dn() == a.dn);
  CHECK(r.changetype() == "modify");
  std::vector<std::pair<std::string, std::string>> lines;
  for (size_t i = 0; i < r.size(); ++i) {
    lines.emplace_back(std::string(r.attribute(i).description), std::string(r.attribute(i).value));
  }
  const std::vector<std::pair<std::string, std::string>> want = {{"delete", "description"},
                                                                 {"-", ""},
                                                                 {"replace", "telephoneNumber"},
                                                                 {"telephoneNumber", "1"},
                                                                 {"-", ""},
                                                                 {"replace", "title"},
                                                                 {"title", "u"},
                                                                 {"title", "t"},
                                                                 {"-", ""}};
  CHECK(lines == want);

  AddRecord(b, &r);
  CHECK(r.changetype() == "add");
  CHECK(r.attribute(0).description == "objectClass");
  CHECK(r.attribute(0).value == "person");
  DeleteRecord(a, &r);
  CHECK(r.changetype() == "delete");
  CHECK(r.size() == 0);
  CHECK(DiffEntries(a, a).empty());
}

}  // namespace
}  // namespace dirload
