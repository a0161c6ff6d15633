#include "lib/schema/dn_ancestors.h"

#include "lib/util/key_hash.h"

namespace dirload {
namespace {

constexpr uint64_t kMultiplier = 0x100000001B3ull;  // odd: no byte is lost to the modulus

// The polynomial of the bytes [at, end) given that of [end, size): read from
// the end, so a DN's hash extends its parent's.
uint64_t Extend(uint64_t h, std::string_view ndn, size_t at, size_t end) {
  for (size_t i = end; i > at; --i)
    h = h * kMultiplier + static_cast<unsigned char>(ndn[i - 1]) + 1;
  return h;
}

// The polynomial mixes its low bits poorly: hash tables take those.
uint64_t Finish(uint64_t h, size_t size) {
  return HashMix(h ^ 0x9E3779B97F4A7C15ull, size ^ 0xBF58476D1CE4E5B9ull);
}

}  // namespace

uint64_t HashDnName(std::string_view ndn) {
  return Finish(Extend(0, ndn, 0, ndn.size()), ndn.size());
}

void ListAncestors(std::string_view ndn, std::vector<DnName>* out) {
  out->clear();
  // Each ancestor starts after a ',' of the DN (normalised DNs escape the
  // others), found left to right; the hashes are made right to left.
  for (size_t comma = ndn.find(','); comma != std::string_view::npos;
       comma = ndn.find(',', comma + 1)) {
    out->push_back(DnName{ndn.substr(comma + 1), 0});
  }
  uint64_t h = 0;
  size_t end = ndn.size();
  for (auto it = out->rbegin(); it != out->rend(); ++it) {
    const size_t at = ndn.size() - it->ndn.size();
    h = Extend(h, ndn, at, end);
    it->hash = Finish(h, it->ndn.size());
    end = at;
  }
}

}  // namespace dirload
