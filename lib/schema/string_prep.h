// String preparation for the character-string matching rules, exactly as
// slapd 2.5 prepares them (servers/slapd/schema_init.c), so that keys,
// stored normalised values and DNs are byte for byte slapd's:
//
//   Directory String rules (caseIgnore*, caseExact*; UTF8StringNormalize):
//     lunicode::Normalize (liblunicode's case folding, compatibility
//     decomposition and canonical composition, lunicode.h), then insignificant
//     spaces: only U+0020 is a space (TAB, NBSP-turned-space aside, and every
//     other character are kept as they are); runs collapse to one; leading and
//     trailing ones go, except at an edge a substring fragment shares with
//     another fragment (SubstringPosition); a value of spaces only is " ".
//   IA5 rules (IA5StringNormalize): leading spaces dropped, runs of spaces
//     collapsed, one trailing space dropped, A-Z lowered unless exact; the
//     value ends at a NUL byte; the position of a fragment does not matter.
//   numericString (numericStringNormalize): every space removed, the value
//     ends at a NUL byte; nothing left is " ".
//   telephoneNumber (telephoneNumberNormalize): every space and '-'
//     removed, case kept; nothing left is " ".
//
// Values made only of ASCII bytes (most directory data) take a byte loop
// with no Unicode tables and no allocation beyond `out`.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload {

// Where a string sits, which decides which of its edge spaces are
// significant: slapd's SLAP_MR_SUBSTR_{INITIAL,ANY,FINAL} usage flags.
enum class SubstringPosition : uint8_t {
  kWhole,    // an attribute value or equality assertion: trim both ends
  kInitial,  // the initial fragment: trim leading, keep one trailing space
  kAny,      // an any fragment: keep one space at each edge
  kFinal,    // the final fragment: keep one leading space, trim trailing
};

namespace schema_internal {

// Directory String preparation into *out (replacing its contents). Fails
// (InvalidArgument) where slapd's normaliser does: bytes that are not UTF-8
// by libldap's rules (lunicode::IsSlapdUtf8). An empty value stays empty.
Status PrepareUnicode(std::string_view in, bool fold_case, SubstringPosition pos, std::string* out);

// IA5 preparation. Bytes >= 0x80 are kept as they are (the IA5 String syntax
// refuses them before a value gets here).
void PrepareIA5(std::string_view in, bool fold_case, std::string* out);

// numericString and telephoneNumber preparation.
void PrepareNumericString(std::string_view in, std::string* out);
void PrepareTelephoneNumber(std::string_view in, std::string* out);

}  // namespace schema_internal
}  // namespace dirload
