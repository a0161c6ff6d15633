#include "lib/format/mdb/mdb_dn_node.h"

#include <lmdb.h>

#include <cstring>

namespace dirload::mdb {
namespace {

void PutLittle64(uint64_t v, std::string* out) {
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t GetLittle64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

constexpr char kDummyRoot[12] = {};

// The normalized RDN's length, from a node's first two bytes (the child
// flag masked off). REQUIRES: at least 2 bytes.
size_t NrdnLength(std::string_view node) {
  return (static_cast<size_t>(static_cast<unsigned char>(node[0]) & 0x7f) << 8) |
         static_cast<unsigned char>(node[1]);
}

}  // namespace

Status EncodeMdbDnNode(const MdbDnNode& node, std::string* out) {
  if (node.nrdn.size() > kMdbMaxNrdnLength) {
    return Status::InvalidArgument("dn2i node: normalized RDN of " +
                                   std::to_string(node.nrdn.size()) +
                                   " bytes exceeds 32767: " + node.nrdn.substr(0, 64));
  }
  if (node.nrdn.find('\0') != std::string::npos || node.rdn.find('\0') != std::string::npos) {
    return Status::InvalidArgument("dn2i node: RDN contains a NUL byte");
  }
  size_t len = node.nrdn.size();
  out->push_back(static_cast<char>((len >> 8) | (node.child ? 0x80 : 0)));
  out->push_back(static_cast<char>(len & 0xff));
  out->append(node.nrdn);
  out->push_back('\0');
  out->append(node.rdn);
  out->push_back('\0');
  PutLittle64(node.id, out);
  if (node.child) PutLittle64(node.nsubs, out);
  return Status::Ok();
}

Result<std::string> EncodeMdbDnNode(const MdbDnNode& node) {
  std::string out;
  DIRLOAD_RETURN_IF_ERROR(EncodeMdbDnNode(node, &out));
  return out;
}

Result<MdbDnNode> DecodeMdbDnNode(std::string_view bytes) {
  if (bytes.size() < 2) return Status::Corruption("dn2i node: shorter than 2 bytes");
  MdbDnNode node;
  auto b0 = static_cast<unsigned char>(bytes[0]);
  node.child = (b0 & 0x80) != 0;
  const size_t len = NrdnLength(bytes);
  size_t tail = node.child ? 16 : 8;
  // nrdn NUL rdn NUL id [nsubs]
  if (bytes.size() < 2 + len + 1 + 1 + tail) {
    return Status::Corruption("dn2i node: " + std::to_string(bytes.size()) +
                              " bytes cannot hold a normalized RDN of " + std::to_string(len));
  }
  if (bytes[2 + len] != '\0') return Status::Corruption("dn2i node: no NUL after the nrdn");
  node.nrdn.assign(bytes.data() + 2, len);
  if (node.nrdn.find('\0') != std::string::npos) {
    return Status::Corruption("dn2i node: NUL inside the normalized RDN");
  }
  size_t rdn_start = 2 + len + 1;
  size_t rdn_end = bytes.size() - tail - 1;
  if (bytes[rdn_end] != '\0') return Status::Corruption("dn2i node: no NUL after the RDN");
  node.rdn.assign(bytes.data() + rdn_start, rdn_end - rdn_start);
  if (node.rdn.find('\0') != std::string::npos) {
    return Status::Corruption("dn2i node: NUL inside the RDN");
  }
  node.id = GetLittle64(bytes.data() + rdn_end + 1);
  if (node.child) node.nsubs = GetLittle64(bytes.data() + rdn_end + 9);
  return node;
}

std::string_view MdbChildNodeOrderBytes(std::string_view node) {
  return node.substr(0, 2 + NrdnLength(node));
}

uint64_t MdbChildNodeId(std::string_view node) {
  return GetLittle64(node.data() + node.size() - 16);
}

void SetMdbChildNodeNsubs(uint64_t nsubs, std::string* node) {
  for (size_t i = 0, at = node->size() - 8; i < 8; ++i) {
    (*node)[at + i] = static_cast<char>((nsubs >> (8 * i)) & 0xff);
  }
}

std::string_view MdbDummyRootNode() { return std::string_view(kDummyRoot, sizeof(kDummyRoot)); }

int CompareMdbDnNodes(std::string_view a, std::string_view b) {
  auto ua = reinterpret_cast<const unsigned char*>(a.data());
  auto ub = reinterpret_cast<const unsigned char*>(b.data());
  if (int d = ua[0] - ub[0]) return d;
  if (int d = ua[1] - ub[1]) return d;
  const size_t len = NrdnLength(a);
  // Same length on both sides; strncmp semantics: stop at a NUL, bytes unsigned.
  for (size_t i = 0; i < len; ++i) {
    unsigned char ca = ua[2 + i], cb = ub[2 + i];
    if (ca != cb) return ca - cb;
    if (ca == 0) return 0;
  }
  return 0;
}

extern "C" int MdbDn2iDupCompare(const MDB_val* a, const MDB_val* b) {
  return CompareMdbDnNodes(std::string_view(static_cast<const char*>(a->mv_data), a->mv_size),
                           std::string_view(static_cast<const char*>(b->mv_data), b->mv_size));
}

Status CheckMdbNrdnLength(uint64_t id, std::string_view nrdn) {
  if (nrdn.size() <= kMdbMaxNrdnLength) return Status::Ok();
  return Status::InvalidArgument("entry ID " + std::to_string(id) +
                                 ": normalized RDN longer than back-mdb allows")
      .WithOrigin(ErrorOrigin::kInput);
}

}  // namespace dirload::mdb
