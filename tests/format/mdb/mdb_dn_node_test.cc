#include "lib/format/mdb/mdb_dn_node.h"

#include <doctest/doctest.h>
#include <lmdb.h>

#include <algorithm>
#include <string>
#include <vector>

namespace dirload::mdb {
namespace {

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// Nodes as slapadd 2.5.13 wrote them for dc=example,dc=com and ou=People.
TEST_CASE("dn2i node: child and self nodes byte for byte") {
  MdbDnNode suffix{true, "dc=example,dc=com", "dc=example,dc=com", 1, 3};
  CHECK(*EncodeMdbDnNode(suffix) ==
        Unhex("801164633d6578616d706c652c64633d636f6d0064633d6578616d706c652c64633d636f6d00"
              "01000000000000000300000000000000"));
  MdbDnNode self{false, "ou=people", "ou=People", 1, 0};
  std::string self_bytes = *EncodeMdbDnNode(self);
  CHECK(self_bytes == Unhex("00096f753d70656f706c65006f753d50656f706c65000100000000000000"));
  CHECK(*DecodeMdbDnNode(self_bytes) == self);
  auto back = DecodeMdbDnNode(*EncodeMdbDnNode(suffix));
  REQUIRE(back.ok());
  CHECK(*back == suffix);
}

TEST_CASE("dn2i node: the dummy root node") {
  CHECK(MdbDummyRootNode() == std::string(12, '\0'));
  auto d = DecodeMdbDnNode(MdbDummyRootNode());
  REQUIRE(d.ok());
  CHECK(!d->child);
  CHECK(d->nrdn.empty());
  CHECK(d->rdn.empty());
  CHECK(d->id == 0);
}

TEST_CASE("dn2i node: long RDNs use both length bytes; limits") {
  MdbDnNode n{true, std::string(0x1234, 'a'), "A", 9, 1};
  std::string b = *EncodeMdbDnNode(n);
  CHECK(static_cast<unsigned char>(b[0]) == 0x92);
  CHECK(static_cast<unsigned char>(b[1]) == 0x34);
  CHECK(*DecodeMdbDnNode(b) == n);
  n.nrdn.assign(0x8000, 'a');
  CHECK(EncodeMdbDnNode(n).status().code() == StatusCode::kInvalidArgument);
  n.nrdn = std::string("a\0b", 3);
  CHECK(!EncodeMdbDnNode(n).ok());
  CHECK(!DecodeMdbDnNode(b.substr(0, b.size() - 1)).ok());
  CHECK(!DecodeMdbDnNode("\x80").ok());
}

TEST_CASE("dn2i dup compare: length bytes first, then the normalized RDN") {
  auto node = [](bool child, std::string nrdn, std::string rdn) {
    return *EncodeMdbDnNode(MdbDnNode{child, nrdn, rdn, 5, 1});
  };
  std::string self = node(false, "ou=zzzzzzzzzz", "ou=x");
  std::string a = node(true, "cn=b", "cn=B");
  std::string b = node(true, "cn=ab", "cn=AB");
  std::string c = node(true, "cn=ac", "cn=X");
  std::string c2 = *EncodeMdbDnNode(MdbDnNode{true, "cn=ac", "cn=other", 77, 9});
  std::string hi = node(true, "cn=\xc3\xa9t", "cn=e");  // bytes compare unsigned
  std::string lo = node(true, "cn=zzt", "cn=z");
  CHECK(CompareMdbDnNodes(self, a) < 0);  // self node first
  CHECK(CompareMdbDnNodes(MdbDummyRootNode(), a) < 0);
  CHECK(CompareMdbDnNodes(a, b) < 0);  // shorter first
  CHECK(CompareMdbDnNodes(b, c) < 0);
  CHECK(CompareMdbDnNodes(c, c2) == 0);  // only the nrdn counts
  CHECK(CompareMdbDnNodes(lo, hi) < 0);
  CHECK(CompareMdbDnNodes(hi, lo) > 0);
  MDB_val va{a.size(), a.data()}, vb{b.size(), b.data()};
  CHECK(MdbDn2iDupCompare(&va, &vb) < 0);
  CHECK(MdbDn2iDupCompare(&vb, &va) > 0);
  CHECK(MdbDn2iDupCompare(&va, &va) == 0);
}

}  // namespace
}  // namespace dirload::mdb
