// dn2i, back-mdb's DN tree: under each entry's ID, the entry's own "self"
// node (first duplicate) followed by one "child" node per child, all sorted
// by slapd's duplicate order. This module encodes and decodes those nodes and
// provides that order as an LMDB duplicate comparator.
//
// diskNode format (8-byte IDs little-endian, as slapd writes them on amd64):
//   2 bytes  length L of the normalized RDN, big-endian; the high bit 0x80 of
//            the first byte is set on child nodes, so L < 0x8000
//   L bytes  normalized RDN, then one NUL
//   bytes    the RDN as given, then one NUL
//   8 bytes  an ID: a child node's own ID, or a self node's parent ID
//   8 bytes  child nodes only: nsubs, 1 + the number of the child's
//            descendants (slapd sizes subtree searches with it)
// The suffix entry's "RDN" is the whole suffix DN and its parent is 0. Key 0
// also holds the dummy root node: 12 zero bytes (an empty self node with ID
// 0), which sorts before every child node.
//
// Duplicate order (slapd's dn2i dup-compare): the two length bytes compared
// as unsigned bytes, the high bit included (so the self node comes first and
// shorter RDNs before longer ones), then strncmp of the normalized RDNs over
// the first node's length. The rest of the node is not compared: two
// children with one normalized RDN are the same duplicate.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/util/status.h"

// LMDB's value type; only mdb_dn_node.cc and mdb_env.cc see its definition.
struct MDB_val;

namespace dirload::mdb {

inline constexpr size_t kMdbMaxNrdnLength = 0x7fff;

// The refusal (kInput) of entry `id` when its normalized RDN is longer than
// back-mdb stores; OK otherwise. Both writers check before writing anything.
Status CheckMdbNrdnLength(uint64_t id, std::string_view nrdn);

struct MdbDnNode {
  bool child = false;  // child node (under the parent) or self node (under itself)
  std::string nrdn;    // normalized RDN (the whole normalized suffix for the suffix entry)
  std::string rdn;     // RDN as given
  uint64_t id = 0;     // child: the child's ID; self: the parent's ID
  uint64_t nsubs = 0;  // child nodes only
  friend bool operator==(const MdbDnNode&, const MdbDnNode&) = default;
};

// InvalidArgument when the normalized RDN is longer than kMdbMaxNrdnLength
// or either RDN contains a NUL byte.
Status EncodeMdbDnNode(const MdbDnNode& node, std::string* out);
Result<std::string> EncodeMdbDnNode(const MdbDnNode& node);

// Corruption when `bytes` is not a node (lengths, NULs, trailing IDs). The
// dummy root node decodes as a self node with empty RDNs and ID 0.
Result<MdbDnNode> DecodeMdbDnNode(std::string_view bytes);

// What a writer holding encoded child nodes needs without decoding the
// RDNs: the bytes the dup order compares (length bytes and nrdn), the
// child's ID, and nsubs replaced in place.
// REQUIRES: `node` is an encoded child node (EncodeMdbDnNode).
std::string_view MdbChildNodeOrderBytes(std::string_view node);
uint64_t MdbChildNodeId(std::string_view node);
void SetMdbChildNodeNsubs(uint64_t nsubs, std::string* node);

// The 12 zero bytes slapd stores under key 0 before the suffix's child node.
std::string_view MdbDummyRootNode();

// slapd's duplicate order on encoded nodes: <0, 0, >0.
// REQUIRES: both are encoded nodes (at least 2 bytes, NUL after the nrdn).
int CompareMdbDnNodes(std::string_view a, std::string_view b);

// The same order with LMDB's comparator signature, for mdb_set_dupsort on
// dn2i. Declared extern "C" so that it can be handed to liblmdb as is.
extern "C" int MdbDn2iDupCompare(const MDB_val* a, const MDB_val* b);

}  // namespace dirload::mdb
