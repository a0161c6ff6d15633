#include "ldif/base64.h"

#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace dirload::ldif {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// kEncodePairs.p[v]: the two characters encoding the 12-bit value v.
struct EncodePairs {
  std::array<std::array<char, 2>, 4096> p;
};

constexpr EncodePairs MakeEncodePairs() {
  EncodePairs e{};
  for (size_t v = 0; v < 4096; ++v) e.p[v] = {kAlphabet[v >> 6], kAlphabet[v & 63]};
  return e;
}

constexpr EncodePairs kEncodePairs = MakeEncodePairs();

// An input byte outside the alphabet maps to this in every decode table. It
// lies above the 24 data bits, so OR-ing the four lookups of a quad keeps it
// and one test per block of input finds any bad byte without a branch per
// character.
constexpr uint32_t kInvalid = 0x80000000u;

// kDecode[k][c]: the 6-bit value of character `c` shifted into place for
// position k of a quad (18, 12, 6, 0 bits), or kInvalid.
struct DecodeTables {
  std::array<std::array<uint32_t, 256>, 4> t;
};

constexpr DecodeTables MakeDecodeTables() {
  DecodeTables d{};
  for (auto& table : d.t) table.fill(kInvalid);
  for (uint32_t v = 0; v < 64; ++v) {
    auto c = static_cast<unsigned char>(kAlphabet[v]);
    d.t[0][c] = v << 18;
    d.t[1][c] = v << 12;
    d.t[2][c] = v << 6;
    d.t[3][c] = v;
  }
  return d;
}

constexpr DecodeTables kDecode = MakeDecodeTables();

bool InAlphabet(unsigned char c) { return kDecode.t[3][c] != kInvalid; }

// 'c' for printable ASCII, '\xNN' otherwise, so a message never carries raw
// control bytes or broken UTF-8.
std::string Quote(unsigned char c) {
  char buf[8];
  if (c >= 0x20 && c < 0x7f) {
    std::snprintf(buf, sizeof buf, "'%c'", c);
  } else {
    std::snprintf(buf, sizeof buf, "'\\x%02x'", c);
  }
  return buf;
}

// The slow path: runs only once decoding has failed, and finds the first
// problem in input order so the message names one position.
Status Diagnose(std::string_view in) {
  const size_t n = in.size();
  for (size_t i = 0; i < n; ++i) {
    auto c = static_cast<unsigned char>(in[i]);
    if (c == '=') {
      // Padding may fill the last one or two places, and a '=' in the
      // second-to-last place must be followed by another.
      bool ok = i + 2 >= n && (i + 1 == n || in[n - 1] == '=');
      if (!ok) {
        return Status::ParseError("misplaced base64 padding '=' at position " + std::to_string(i));
      }
    } else if (!InAlphabet(c)) {
      return Status::ParseError("invalid base64 character " + Quote(c) + " at position " +
                                std::to_string(i));
    }
  }
  if (n % 4 != 0) {
    return Status::ParseError("base64 length " + std::to_string(n) + " is not a multiple of 4");
  }
  size_t pads = (in[n - 1] == '=') + (in[n - 2] == '=');
  size_t last = n - 1 - pads;
  return Status::ParseError("base64 character " + Quote(static_cast<unsigned char>(in[last])) +
                            " at position " + std::to_string(last) + " has non-zero pad bits");
}

inline uint32_t Quad(const unsigned char* p) {
  return kDecode.t[0][p[0]] | kDecode.t[1][p[1]] | kDecode.t[2][p[2]] | kDecode.t[3][p[3]];
}

}  // namespace

void Base64Encode(std::string_view in, std::string* out) {
  const size_t n = in.size();
  const size_t old = out->size();
  out->resize(old + (n + 2) / 3 * 4);
  auto* src = reinterpret_cast<const unsigned char*>(in.data());
  char* dst = out->data() + old;
  size_t i = 0;
  // Two output characters per lookup of 12 input bits, stored together.
  for (; i + 3 <= n; i += 3, dst += 4) {
    uint32_t v = (uint32_t{src[i]} << 16) | (uint32_t{src[i + 1]} << 8) | src[i + 2];
    std::memcpy(dst, kEncodePairs.p[v >> 12].data(), 2);
    std::memcpy(dst + 2, kEncodePairs.p[v & 0xfff].data(), 2);
  }
  if (i < n) {
    uint32_t v = uint32_t{src[i]} << 16;
    if (i + 1 < n) v |= uint32_t{src[i + 1]} << 8;
    dst[0] = kAlphabet[v >> 18];
    dst[1] = kAlphabet[(v >> 12) & 63];
    dst[2] = i + 1 < n ? kAlphabet[(v >> 6) & 63] : '=';
    dst[3] = '=';
  }
}

Status Base64Decode(std::string_view in, std::string* out) {
  const size_t n = in.size();
  if (n == 0) return Status::Ok();
  if (n % 4 != 0) return Diagnose(in);

  auto* src = reinterpret_cast<const unsigned char*>(in.data());
  const size_t old = out->size();
  out->resize(old + n / 4 * 3);
  auto* dst = reinterpret_cast<unsigned char*>(out->data() + old);

  // Every quad but the last has no padding: decode without branching and
  // check the accumulated invalid bit once at the end.
  uint32_t bad = 0;
  const unsigned char* end = src + n - 4;
  for (; src < end; src += 4, dst += 3) {
    uint32_t v = Quad(src);
    bad |= v;
    dst[0] = static_cast<unsigned char>(v >> 16);
    dst[1] = static_cast<unsigned char>(v >> 8);
    dst[2] = static_cast<unsigned char>(v);
  }

  // The last quad: "xxxx", "xxx=" or "xx==".
  size_t pads = 0;
  if (src[3] == '=') pads = src[2] == '=' ? 2 : 1;
  // Padding places decode as 'A' (zero bits) so the same table lookup serves.
  const unsigned char zero = 'A';
  const unsigned char q[4] = {src[0], src[1], pads == 2 ? zero : src[2], pads ? zero : src[3]};
  uint32_t v = Quad(q);
  bad |= v;
  // The bits below the last data character's share of the output bytes must
  // be zero, or two different encodings would decode to the same bytes.
  if (pads == 1) bad |= (v & 0xff) ? kInvalid : 0;
  if (pads == 2) bad |= (v & 0xffff) ? kInvalid : 0;
  if (bad & kInvalid) {
    out->resize(old);
    return Diagnose(in);
  }
  dst[0] = static_cast<unsigned char>(v >> 16);
  dst[1] = static_cast<unsigned char>(v >> 8);
  dst[2] = static_cast<unsigned char>(v);
  out->resize(out->size() - pads);
  return Status::Ok();
}

}  // namespace dirload::ldif
