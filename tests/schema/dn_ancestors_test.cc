#include "lib/schema/dn_ancestors.h"

#include <doctest/doctest.h>

#include <string>
#include <unordered_set>
#include <vector>

namespace dirload {
namespace {

std::vector<std::string> Names(std::string_view ndn) {
  std::vector<DnName> a;
  ListAncestors(ndn, &a);
  std::vector<std::string> out;
  for (const DnName& n : a) out.emplace_back(n.ndn);
  return out;
}

TEST_CASE("ancestors: the parent first, views into the DN") {
  CHECK(Names("cn=a,ou=b,dc=example,dc=com") ==
        std::vector<std::string>{"ou=b,dc=example,dc=com", "dc=example,dc=com", "dc=com"});
  CHECK(Names("dc=com").empty());
  CHECK(Names("").empty());
  // Normalised DNs escape the commas inside values: they split nothing.
  CHECK(Names("cn=a\\2Cb,dc=com") == std::vector<std::string>{"dc=com"});
  const std::string dn = "cn=x,dc=y";
  std::vector<DnName> a;
  ListAncestors(dn, &a);
  REQUIRE(a.size() == 1);
  CHECK(a[0].ndn.data() == dn.data() + 5);
}

TEST_CASE("ancestors: each hash is the DN's own, so maps of views find them") {
  std::string dn;
  for (int i = 3000; i >= 1; --i) dn += "ou=l" + std::to_string(i) + ",";
  dn += "dc=example,dc=com";
  std::vector<DnName> a;
  ListAncestors(dn, &a);
  REQUIRE(a.size() == 3001);
  std::unordered_set<uint64_t> hashes;
  for (const DnName& n : a) {
    CHECK(n.hash == HashDnName(n.ndn));
    hashes.insert(n.hash);
  }
  CHECK(hashes.size() == a.size());
  CHECK(MakeDnName("dc=com") == DnName{"dc=com", HashDnName("dc=com")});
  CHECK_FALSE(MakeDnName("dc=com") == MakeDnName("dc=org"));
  CHECK(HashDnName("dc=com") != HashDnName("dc=co"));
  CHECK(HashDnName("") != HashDnName(std::string(1, '\0')));
}

}  // namespace
}  // namespace dirload
