// RFC 4518 string preparation, the common core of the character-string
// matching rules: transcode (validate UTF-8), map (controls and zero-width
// characters to nothing, other separators to SPACE, optional case fold), NFKC
// normalisation, then insignificant-space handling.
//
// Values made only of ASCII bytes (the overwhelming majority in directory
// data) take a byte loop that needs no Unicode tables and no allocation beyond
// `out`; anything else goes through utf8proc.
//
// Deliberate simplifications, stated so nobody mistakes them for bugs: the
// RFC's "prohibit" step (unassigned and private-use code points) is skipped,
// because slapadd stores such values and a loader must not reject them; and
// insignificant spaces are collapsed to one SPACE (leading and trailing ones
// removed) instead of the RFC's two-space padding, which compares the same.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload {

// Where a string sits, which decides which of its edge spaces are significant
// (RFC 4518 section 2.6.1). A whole value loses both; a substring fragment
// keeps (as one SPACE) a space run at an edge that abuts another fragment.
enum class SubstringPosition : uint8_t {
  kWhole,    // an attribute value or equality assertion: trim both ends
  kInitial,  // the initial fragment: trim leading, keep one trailing space
  kAny,      // an any fragment: keep one space at each edge
  kFinal,    // the final fragment: keep one leading space, trim trailing
};

namespace schema_internal {

// Unicode preparation into *out (replacing its contents). Fails on malformed
// UTF-8. An empty or all-space whole value prepares to a single SPACE.
Status PrepareUnicode(std::string_view in, bool fold_case, SubstringPosition pos, std::string* out);

// IA5 preparation: ASCII only (bytes >= 0x80 pass through untouched, as
// slapadd accepts such bytes in IA5 attributes without complaint).
void PrepareIA5(std::string_view in, bool fold_case, SubstringPosition pos, std::string* out);

// Removes every SPACE from a prepared string (numericString rules).
void RemoveSpaces(std::string* s);
// Removes every SPACE and hyphen-like character (telephoneNumber rules,
// RFC 4518 section 2.6.3).
void RemoveSpacesAndHyphens(std::string* s);

}  // namespace schema_internal
}  // namespace dirload
