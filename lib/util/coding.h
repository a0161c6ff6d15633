// Fixed-width big-endian and LEB128 varint coding. Big-endian integers sort
// bytewise in numeric order, which is why entry IDs are stored that way.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace dirload {

inline void PutBigEndian32(uint32_t v, std::string* out) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16),
                     static_cast<char>(v >> 8), static_cast<char>(v)};
  out->append(b, 4);
}

inline std::string BigEndian32(uint32_t v) {
  std::string s;
  PutBigEndian32(v, &s);
  return s;
}

// REQUIRES: bytes.size() >= 4
inline uint32_t GetBigEndian32(std::string_view bytes) {
  const auto* b = reinterpret_cast<const unsigned char*>(bytes.data());
  return uint32_t{b[0]} << 24 | uint32_t{b[1]} << 16 | uint32_t{b[2]} << 8 | b[3];
}

inline void PutBigEndian64(uint64_t v, std::string* out) {
  char b[8];
  for (int i = 7; i >= 0; --i) {
    b[i] = static_cast<char>(v & 0xff);
    v >>= 8;
  }
  out->append(b, 8);
}

inline std::string BigEndian64(uint64_t v) {
  std::string s;
  PutBigEndian64(v, &s);
  return s;
}

// REQUIRES: bytes.size() >= 8
inline uint64_t GetBigEndian64(std::string_view bytes) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

inline void PutVarint(uint64_t v, std::string* out) {
  char b[10];
  int n = 0;
  while (v >= 0x80) {
    b[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  b[n++] = static_cast<char>(v);
  out->append(b, n);
}

// The bytes PutVarint writes for `v`.
inline size_t VarintLength(uint64_t v) {
  size_t n = 1;
  for (; v >= 0x80; v >>= 7) ++n;
  return n;
}

// PutVarint into memory with room for VarintLength(v) bytes; returns the
// end of what it wrote.
inline char* WriteVarint(uint64_t v, char* out) {
  while (v >= 0x80) {
    *out++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<char>(v);
  return out;
}

// Reads a varint from the front of `*in` and removes it. False when `*in` ends
// inside the varint or it is longer than 10 bytes.
inline bool GetVarint(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0, i = 0; i < 10 && i < static_cast<int>(in->size()); ++i, shift += 7) {
    unsigned char c = static_cast<unsigned char>((*in)[i]);
    result |= static_cast<uint64_t>(c & 0x7f) << shift;
    if (c < 0x80) {
      in->remove_prefix(i + 1);
      *v = result;
      return true;
    }
  }
  return false;
}

}  // namespace dirload
