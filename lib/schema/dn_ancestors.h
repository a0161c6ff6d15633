// The ancestors of a normalised DN (dn.h's format: RDNs joined by ',', every
// other ',' escaped) as views into it, each with its hash, made in one pass
// over the DN. A child that comes before its parents reserves every missing
// ancestor; a DN thousands of RDNs deep has thousands of ancestors whose
// lengths add up to the square of its own, so they are never copied or
// hashed one by one: each hash extends the next ancestor's by the bytes in
// front of it (a polynomial over the DN read from its end, then mixed).
//
// DnName is a DN with its hash, the key type of the maps that hold such
// views (the loader's reserved names and the mdb sink's); whoever fills such
// a map keeps the bytes the views point into.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace dirload {

struct DnName {
  std::string_view ndn;
  uint64_t hash = 0;

  bool operator==(const DnName& o) const { return hash == o.hash && ndn == o.ndn; }
};

struct DnNameHash {
  size_t operator()(const DnName& n) const { return static_cast<size_t>(n.hash); }
};

// The hash ListAncestors gives `ndn` as an ancestor of a longer DN.
uint64_t HashDnName(std::string_view ndn);

inline DnName MakeDnName(std::string_view ndn) { return DnName{ndn, HashDnName(ndn)}; }

// Fills *out with the ancestors of `ndn`, the parent first, the one-RDN DN at
// the top last (nothing for a one-RDN or empty DN). Linear in the size of
// `ndn`; the views point into it.
void ListAncestors(std::string_view ndn, std::vector<DnName>* out);

}  // namespace dirload
