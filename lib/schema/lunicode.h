// slapd 2.5's Unicode normalisation of UTF-8 strings (OpenLDAP's liblunicode,
// UTF8bvnormalize in libraries/liblunicode/ucstr.c), the step before space
// handling in every Directory String matching rule and in DN values.
//
// What slapd does, and so what this does:
//   - Well-formed means what libldap's UTF-8 tables say: lead bytes C2..FD,
//     sequences of 2 to 6 bytes (code points up to 0x7FFFFFFF), no overlong
//     forms, every continuation byte 10xxxxxx. Surrogates and code points
//     above U+10FFFF are accepted and kept (IsSlapdUtf8).
//   - ASCII bytes are copied, lower-cased (A-Z only) when folding case. A
//     run of non-ASCII characters, together with the ASCII character just
//     before it, is normalised on its own: case folded one code point at a
//     time (uctolower: only code points of category Lu or Lt change, by
//     their simple mapping, so U+0130 becomes 'i', U+24B6 and U+216B stay),
//     then decomposed with the compatibility table (NFKD-like, but not
//     lower-cased again: U+24B6 becomes 'A'), then canonically composed by
//     liblunicode's own algorithm. Its tables are Unicode 3.2.0's: later
//     characters (U+1E9E among them) are unassigned, kept as they are.
//   - Nothing is removed or mapped to a space: TAB, U+200B, U+00AD, U+200C,
//     U+FE0F and controls stay.
//   - liblunicode quirks kept on purpose: the compatibility decompositions
//     of U+1D60F and above are never found (a bounds slip in uckdecomp);
//     U+D7A4..U+D7FF are "decomposed" as if Hangul syllables; U+11A7
//     following an LV syllable is absorbed into it.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload::lunicode {

// Whether slapd's UTF-8 checks (UTF8StringValidate) accept `s`.
bool IsSlapdUtf8(std::string_view s);

// uctolower: the code point slapd's case folding maps `c` to.
char32_t ToLower(char32_t c);

// UTF8bvnormalize(s, fold_case ? LDAP_UTF8_CASEFOLD : 0) into *out
// (replacing its contents). InvalidArgument where slapd's normaliser fails:
// a byte sequence that is not UTF-8 by IsSlapdUtf8's rules.
Status Normalize(std::string_view s, bool fold_case, std::string* out);

// UTF8bvnormalize(s, LDAP_UTF8_APPROX | (fold_case ? LDAP_UTF8_CASEFOLD : 0)),
// the first step of slapd's approximate matching: each code point is case
// folded (when asked), decomposed with the compatibility table, and only the
// ASCII code points of its decomposition are kept ("Émile" becomes "Emile",
// "中文" nothing). Spaces are not touched. Errors as Normalize.
Status NormalizeApprox(std::string_view s, bool fold_case, std::string* out);

}  // namespace dirload::lunicode
