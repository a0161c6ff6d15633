// Fuzz target for back-mdb's dn2i node decoder (lib/format/mdb/
// mdb_dn_node.h): nodes come from databases slapd wrote, or that were
// damaged, so any byte string must decode or give Corruption, never read
// out of bounds. A decoded node must encode to bytes that decode to the same
// node. The input is also split in two at the position its first byte
// names; when both halves are nodes, slapd's duplicate order on them must be
// antisymmetric.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "lib/format/mdb/mdb_dn_node.h"

namespace {

int Sign(int v) { return (v > 0) - (v < 0); }

void CheckRoundTrip(const dirload::mdb::MdbDnNode& node) {
  using namespace dirload::mdb;
  dirload::Result<std::string> encoded = EncodeMdbDnNode(node);
  if (!encoded.ok()) std::abort();
  dirload::Result<MdbDnNode> again = DecodeMdbDnNode(*encoded);
  if (!again.ok() || !(*again == node)) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dirload;
  using namespace dirload::mdb;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);

  Result<MdbDnNode> node = DecodeMdbDnNode(bytes);
  if (node.ok()) CheckRoundTrip(*node);

  if (size < 1) return 0;
  size_t cut = 1 + static_cast<uint8_t>(bytes[0]);
  if (cut > size) return 0;
  std::string_view a = bytes.substr(1, cut - 1), b = bytes.substr(cut);
  Result<MdbDnNode> na = DecodeMdbDnNode(a), nb = DecodeMdbDnNode(b);
  if (!na.ok() || !nb.ok()) return 0;
  if (Sign(CompareMdbDnNodes(a, b)) != -Sign(CompareMdbDnNodes(b, a))) std::abort();
  if (CompareMdbDnNodes(a, a) != 0) std::abort();
  return 0;
}
