// Bytes as hex text and back, for test expectations and failure messages.
// Lower case, as mdb_dump prints values and as the expected keys in the
// format tests are written. Test-only.
#pragma once

#include <string>
#include <string_view>

#include "lib/util/ascii.h"

namespace dirload::testing {

// Two lower-case hex digits per byte.
inline std::string Hex(std::string_view bytes) { return HexEncode(bytes); }

// The bytes a hex string spells. The strings are the tests' own constants,
// so they are trusted: a trailing odd digit is dropped.
inline std::string FromHex(std::string_view hex) {
  std::string out;
  out.reserve(hex.size() / 2);
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(HexDigitValue(hex[i]) << 4 | HexDigitValue(hex[i + 1])));
  }
  return out;
}

// Percent-encoding for an LDAP URL (RFC 3986, upper-case digits): every byte
// but the unreserved characters and those in `keep` becomes %XX.
inline std::string PercentEncode(std::string_view s, std::string_view keep = "") {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out;
  for (char c : s) {
    const auto b = static_cast<unsigned char>(c);
    const bool plain = (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') || (b >= '0' && b <= '9') ||
                       c == '-' || c == '.' || c == '_' || c == '~' ||
                       keep.find(c) != std::string_view::npos;
    if (plain) {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kDigits[b >> 4]);
      out.push_back(kDigits[b & 0xf]);
    }
  }
  return out;
}

}  // namespace dirload::testing
