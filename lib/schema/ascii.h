// Character helpers of the schema module: descriptor / numeric-OID
// recognition (RFC 4512 section 1.4) and UTF-8 well-formedness, with the
// generic ASCII ones (case folding, hex digits; lib/util/ascii.h) brought in
// under the names schema code uses. Schema names are ASCII by definition, so
// none of this needs Unicode tables.
//
// Thread safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "lib/util/ascii.h"

namespace dirload::schema_internal {

inline bool IsKeyChar(char c) { return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '-'; }

// descr = leadkeychar *keychar (RFC 4512 1.4).
inline bool IsDescr(std::string_view s) {
  if (s.empty() || !IsAsciiAlpha(s[0])) return false;
  for (char c : s) {
    if (!IsKeyChar(c)) return false;
  }
  return true;
}

// numericoid = number 1*( DOT number ); number = DIGIT / ( LDIGIT 1*DIGIT ).
// Leading zeros are not allowed, so every OID has exactly one spelling.
inline bool IsNumericOid(std::string_view s) {
  size_t i = 0, components = 0;
  while (i < s.size()) {
    size_t start = i;
    while (i < s.size() && IsAsciiDigit(s[i])) ++i;
    if (i == start) return false;
    if (s[start] == '0' && i - start > 1) return false;
    ++components;
    if (i == s.size()) break;
    if (s[i] != '.') return false;
    ++i;
    if (i == s.size()) return false;
  }
  return components >= 2;
}

// Returns the length of the well-formed UTF-8 sequence starting at s[i] and
// stores its code point, or returns 0 if the bytes there are not well formed
// (overlong forms, surrogates and values above U+10FFFF are rejected).
inline size_t DecodeUtf8(std::string_view s, size_t i, int32_t* cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    *cp = b0;
    return 1;
  }
  size_t len;
  int32_t v;
  int32_t min;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, v = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, v = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, v = b0 & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

inline bool IsValidUtf8(std::string_view s) {
  if (IsAllAscii(s)) return true;
  size_t i = 0;
  while (i < s.size()) {
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    int32_t cp;
    size_t n = DecodeUtf8(s, i, &cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

inline void AppendUtf8(int32_t cp, std::string* out) {
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out->push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Hash and equality for unordered maps keyed by std::string that are probed
// with std::string_view (no temporary string per lookup).
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace dirload::schema_internal
