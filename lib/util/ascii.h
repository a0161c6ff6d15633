// ASCII-only character helpers for protocol text (attribute descriptions,
// keywords, option values, hex escapes): case folding that touches only the
// letters A-Z, so a byte of UTF-8 or any other non-ASCII byte is kept as it
// is whatever the C locale says; hex digits both ways. Nothing here needs
// Unicode tables.
//
// Thread safety: pure functions and constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace dirload {

inline constexpr char kLowerHexDigits[] = "0123456789abcdef";
inline constexpr char kUpperHexDigits[] = "0123456789ABCDEF";

constexpr char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }
constexpr char AsciiUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; }
constexpr bool IsAsciiAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
constexpr bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }
constexpr bool IsHexDigit(char c) {
  return IsAsciiDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// The value (0-15) of the hex digit `c`, either case, or -1 when `c` is not one.
constexpr int HexDigitValue(char c) {
  if (IsAsciiDigit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

inline std::string AsciiLowerCopy(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

// True when no byte has its high bit set. Eight bytes at a time: values are
// checked by the million and are mostly ASCII.
inline bool IsAllAscii(std::string_view s) {
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    if (w & 0x8080808080808080ull) return false;
  }
  for (; i < s.size(); ++i) {
    if (static_cast<unsigned char>(s[i]) >= 0x80) return false;
  }
  return true;
}

// Appends the two hex digits of `byte`, high first, from `digits`
// (kLowerHexDigits or kUpperHexDigits).
inline void AppendHexByte(unsigned char byte, std::string* out,
                          const char* digits = kLowerHexDigits) {
  out->push_back(digits[byte >> 4]);
  out->push_back(digits[byte & 0xF]);
}

// Every byte of `bytes` as two lower-case hex digits.
inline std::string HexEncode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) AppendHexByte(c, &out);
  return out;
}

}  // namespace dirload
