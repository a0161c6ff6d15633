// Generalized Time (RFC 4517 section 3.3.13): validation, normalisation to one
// canonical UTC spelling, and ordering of normalised values.
//
// Canonical form: "YYYYMMDDHHMMSS[.F]Z" where F is the fraction of a second
// without trailing zeros (absent when zero). A fraction written on the hour or
// the minute is converted to minutes and seconds as the RFC defines it
// ("2024010112.25Z" is 12:15:00), time-zone offsets are applied
// ("20240101120000+0100" is "20240101110000Z"), and a leap second ("60") is
// kept. For values with seconds this is the form slapd produces; slapd treats
// a fraction on the hour or minute as a fraction of a second instead.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload {

// Writes the canonical form of `value` to *out (replacing its contents), or
// returns InvalidArgument naming the offending part.
Status NormalizeGeneralizedTime(std::string_view value, std::string* out);

// Orders two values produced by NormalizeGeneralizedTime: <0, 0 or >0.
// (Plain byte order would put "...00.5Z" before "...00Z".)
int CompareNormalizedGeneralizedTime(std::string_view a, std::string_view b);

}  // namespace dirload
