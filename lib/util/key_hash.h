// A fast 64-bit hash of short byte strings (index keys are mostly 3-40
// bytes) for in-memory hash tables. Not stable across versions and never
// stored: on-disk digests use KeyDigest (lib/index/index_keys.h).
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace dirload {

inline uint64_t HashMix(uint64_t a, uint64_t b) {
  unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
}

inline uint64_t HashBytes(const char* p, size_t n, uint64_t seed) {
  constexpr uint64_t k0 = 0x9E3779B97F4A7C15ull;
  constexpr uint64_t k1 = 0xBF58476D1CE4E5B9ull;
  constexpr uint64_t k2 = 0x94D049BB133111EBull;
  uint64_t h = HashMix(seed ^ k0, n ^ k1);
  while (n >= 16) {
    uint64_t a, b;
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + 8, 8);
    h = HashMix(h ^ a ^ k1, b ^ k2);
    p += 16;
    n -= 16;
  }
  uint64_t a = 0, b = 0;
  if (n >= 8) {
    std::memcpy(&a, p, 8);
    std::memcpy(&b, p + n - 8, 8);  // overlapping read of the last 8 bytes
  } else if (n >= 4) {
    uint32_t x, y;
    std::memcpy(&x, p, 4);
    std::memcpy(&y, p + n - 4, 4);
    a = x;
    b = y;
  } else if (n > 0) {
    a = (uint64_t{static_cast<unsigned char>(p[0])} << 16) |
        (uint64_t{static_cast<unsigned char>(p[n >> 1])} << 8) |
        static_cast<unsigned char>(p[n - 1]);
  }
  return HashMix(h ^ a ^ k2, b ^ k0);
}

}  // namespace dirload
