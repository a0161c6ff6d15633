// The Unicode tables slapd 2.5 normalises Directory Strings with: OpenLDAP's
// liblunicode data (Unicode 3.2.0, as its ucgendat derives it), generated
// into lunicode_tables.cc by gen/gen_lunicode_tables.py. Every array is
// sorted by its first field, for binary search. lunicode.h is their user.
//
// Thread safety: immutable data.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dirload::lunicode {

// uctolower(code) == lower, for every code point it changes.
struct CaseEntry {
  char32_t code;
  char32_t lower;
};
// Canonical combining class of first..last (non-zero classes only).
struct ClassRange {
  char32_t first;
  char32_t last;
  uint8_t klass;
};
// code decomposes (fully, compatibility included) into
// kDecompositionData[offset .. offset + length).
struct DecompEntry {
  char32_t code;
  uint16_t offset;
  uint8_t length;
};
// first followed by second composes to composite (sorted by first, second).
struct CompositionEntry {
  char32_t first;
  char32_t second;
  char32_t composite;
};

extern const CaseEntry kLowerCase[];
extern const size_t kLowerCaseSize;
extern const ClassRange kCombiningClass[];
extern const size_t kCombiningClassSize;
extern const DecompEntry kDecomposition[];
extern const size_t kDecompositionSize;
extern const char32_t kDecompositionData[];
extern const CompositionEntry kComposition[];
extern const size_t kCompositionSize;

}  // namespace dirload::lunicode
