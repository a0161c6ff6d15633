// slapd 2.5's approximate matching (`~=`) and its index keys, as
// servers/slapd/schema_init.c (approxMatch, approxIndexer, approxFilter) and
// servers/slapd/phonetic.c define them in a default build (SLAPD_METAPHONE,
// no SLAPD_APPROX_INITIALS).
//
// Which types have it: those whose EQUALITY rule has slapd's associated
// approximate rule (HasApproxRule): caseIgnoreMatch and caseExactMatch
// (directoryStringApproxMatch), caseIgnoreIA5Match and caseExactIA5Match
// (IA5StringApproxMatch). Both rules are the same algorithm. Any other type
// matches `~=` with its equality rule, and slapd refuses an approx index on
// it.
//
// The algorithm, on a value already normalised by its equality rule (the
// copy slapd stores and indexes):
//   1. lunicode::NormalizeApprox without case folding: every non-ASCII code
//      point becomes the ASCII code points of its compatibility
//      decomposition ("é" -> "e", "ﬁ" -> "fi", CJK -> nothing).
//   2. Words: the pieces between single spaces (U+0020 only; empty pieces
//      count as words of their own when matching).
//   3. Each word's phonetic code (PhoneticCode): slapd's Metaphone variant,
//      at most 4 characters of A-Z and '0' (for "th"), computed on the part
//      of the word before its first digit or punctuation, so "o'brien" codes
//      as "o" and "123abc" as "" (nothing).
// An index (approxIndexer) holds one key per word of one or more characters
// whose code is not empty: the code's bytes themselves, not hashed and
// without a prefix, beside the attribute's hashed equality and substring
// keys in its back-mdb database (ApproxIndexCodes).
// An assertion (normalised as a value of the type, then steps 1-3) matches a
// value when each of its non-empty words, in order, has the same code as a
// word of the value after the one the previous word matched; an assertion
// without words matches nothing (ApproxCodesMatch). Index lookups
// (approxFilter) intersect the ID lists of the assertion words' codes; a
// word without a code has no key to read.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

struct MatchingRule;

// True when slapd associates its approximate rule with the EQUALITY rule
// `equality` (may be null).
bool HasApproxRule(const MatchingRule* equality);

// slapd's phonetic() of the word that starts `word`: reads up to the first
// byte that is not ASCII, a space, punctuation, a digit or NUL, keeps only
// its letters (the first 31), and codes them. "" when there are none.
std::string PhoneticCode(std::string_view word);

// The phonetic code of every word of a normalised value, in order, empty
// words and empty codes included (approxMatch's view of the value).
// InvalidArgument for bytes that are not UTF-8 by slapd's rules.
Status ApproxValueCodes(std::string_view normalized, std::vector<std::string>* codes);

// The codes of the words of a normalised assertion, in order, without its
// empty words; a code may be empty ("123").
Status ApproxAssertionCodes(std::string_view normalized, std::vector<std::string>* codes);

// The approx index keys of one normalised value: the non-empty codes of its
// words, in order, repeats kept.
Status ApproxIndexCodes(std::string_view normalized, std::vector<std::string>* codes);

// The codes an index lookup reads for a normalised assertion (approxFilter's
// keys that an index can hold): its words' non-empty codes, each once, in
// order.
Status ApproxLookupCodes(std::string_view normalized, std::vector<std::string>* codes);

// approxMatch: whether a value with word codes `value` matches an assertion
// with word codes `assertion` (as the two functions above make them).
bool ApproxCodesMatch(const std::vector<std::string>& value,
                      const std::vector<std::string>& assertion);

}  // namespace dirload
