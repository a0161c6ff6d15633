// Search filters in their RFC 4515 string form: parsing into a tree and
// printing back. The tree holds what the string says (attribute descriptions
// as written, assertion values with escapes resolved); binding it to a schema
// happens in evaluate.h and planner.h.
//
// Accepted beyond the strict grammar, as OpenLDAP's tools accept it:
//   - a bare item without the outer parentheses ("uid=a");
//   - spaces and tabs before a filter, after it, and between the filters of a
//     list ("(& (a=1) (b=2))"); spaces inside an item belong to the value;
//   - "(&)" and "(|)", the absolute true and false filters of RFC 4526;
//   - the RFC 2254 escapes "\(" "\)" "\*" "\\" besides RFC 4515's "\XX".
// Extensible match ("cn:dn:=x", ":caseExactMatch:=x") is rejected with an
// Unsupported status. Errors give the byte offset (0-based) in the input.
//
// Thread safety: pure functions; Filter is a plain value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

enum class FilterKind : uint8_t {
  kAnd,
  kOr,
  kNot,
  kEquality,        // attr=value
  kSubstrings,      // attr=[initial]*any*...*[final]
  kGreaterOrEqual,  // attr>=value
  kLessOrEqual,     // attr<=value
  kPresent,         // attr=*
  kApprox,          // attr~=value
};

// "and", "or", "not", "equality", "substrings", ">=", "<=", "present", "approx".
std::string_view FilterKindName(FilterKind kind);

struct Filter {
  FilterKind kind = FilterKind::kPresent;
  // kAnd / kOr: zero or more; kNot: exactly one. Empty for items.
  std::vector<Filter> children;
  // Items: the attribute description as written ("CN;lang-EN", "2.5.4.3").
  std::string attribute;
  // kEquality, kGreaterOrEqual, kLessOrEqual, kApprox: the assertion value,
  // unescaped (any bytes, NUL included).
  std::string value;
  // kSubstrings: the fragments, unescaped. Present fragments are never empty,
  // and at least one of them exists (otherwise the item is kPresent).
  std::optional<std::string> initial;
  std::vector<std::string> any;
  std::optional<std::string> final;

  // The RFC 4515 string: fully parenthesised, no spaces, attribute as written,
  // values escaped as \XX where the grammar requires (NUL ( ) * \) and where a
  // byte is not printable ASCII or part of valid UTF-8. Parse(ToString())
  // gives an equal filter.
  std::string ToString() const;

  bool operator==(const Filter& other) const = default;

  // Builders, mostly for tests and for code that makes filters itself.
  static Filter And(std::vector<Filter> children);
  static Filter Or(std::vector<Filter> children);
  static Filter Not(Filter child);
  static Filter Item(FilterKind kind, std::string attribute, std::string value = {});
};

// Nesting deeper than this is rejected, so that recursion over a filter tree
// stays well inside the stack.
inline constexpr size_t kMaxFilterDepth = 256;

// Parses an RFC 4515 filter. Errors: ParseError ("filter: offset 7: expected
// ')' ...") for malformed input, Unsupported for extensible match.
Result<Filter> ParseFilter(std::string_view text);

}  // namespace dirload
