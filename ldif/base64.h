// Strict base64 (RFC 4648 section 4 alphabet, '=' padding) as LDIF uses it.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload::ldif {

// Appends the encoding of `in` to `out` (padded, no line breaks).
void Base64Encode(std::string_view in, std::string* out);

// Appends the decoded bytes of `in` to `out`. Strict: a character outside the
// alphabet, a length that is not a multiple of 4, misplaced '=' or non-zero
// pad bits is an error whose message names the offending position; `out` is
// then left as it was. Whitespace is not allowed (LDIF unfolds before this).
Status Base64Decode(std::string_view in, std::string* out);

}  // namespace dirload::ldif
