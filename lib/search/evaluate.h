// Exact evaluation of a search filter against a stored entry, with the
// matching rules of the schema (RFC 4511 section 4.5.1.7), in three-valued
// logic: an item is TRUE, FALSE or Undefined; AND, OR and NOT combine them as
// RFC 4511 says (NOT Undefined is Undefined), and an entry matches only when
// the whole filter is TRUE.
//
// How an item is decided, following slapd where RFC 4511 leaves room:
//   - Attribute descriptions: a filter on type T covers the values of T and of
//     its subtypes (a filter on `name` sees cn and sn). Its options must all be
//     present on a value's description ("cn;lang-en" sees only values tagged
//     lang-en; plain "cn" sees every cn value); an option ending in '-' is a
//     language range ("lang-en-" covers lang-en and lang-en-us, "lang-" every
//     language tag). ";binary" in the filter requires it on the value.
//   - The item is Undefined for every entry when its attribute type is
//     undefined, when the type has no matching rule for the item's kind (>=
//     on a type without ORDERING, for instance), or when the assertion value
//     is not in the syntax its rule asserts ("(uidNumber=01005)", "(cn=)",
//     "(mail=ü)") or cannot be normalised: slapd marks such items Undefined
//     when it parses the filter, and so does this module.
//   - Each value is compared with its own type's rule (a subtype may name a
//     rule of its own); the assertion is normalised once per distinct rule. A
//     stored value the rule cannot normalise counts as not matching.
//   - Equality compares equality keys. Approx (~=) is slapd's phonetic
//     approxMatch where the type's equality rule carries slapd's approximate
//     rule (the caseIgnore, caseExact and IA5 string rules: each word of the
//     assertion, in order, sounds like a word of the value; approx_match.h),
//     and equality elsewhere, as in slapd.
//   - objectClass equality (and approx) holds for superclasses, as slapd's
//     objectSubClassMatch does: (objectClass=person) matches an entry listing
//     only inetOrgPerson, and (objectClass=top) every entry. An asserted class
//     the schema does not define makes the item Undefined.
//   - Substrings: the value and the fragments are normalised with the SUBSTR
//     rule (RFC 4518 insignificant-space handling keeps one space at a
//     fragment's inner edges), then the fragments must occur in order without
//     overlapping.
//   - Ordering: CompareNormalized under the ORDERING rule.
//   - Presence: TRUE when any covered value exists.
//
// Thread safety: a DescriptionTable and a FilterMatcher are immutable after
// construction and may be shared by any number of threads; each evaluation
// keeps its scratch space on the stack.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/schema/schema.h"
#include "lib/search/filter.h"
#include "lib/util/status.h"

namespace dirload {

// The matching rule an item of `kind` applies to values of `type` (equality
// for = and ~=, ordering for >= and <=, substrings for *); null when the type
// has none, or for presence and the boolean kinds. ~= normalises with the
// equality rule, then matches phonetically when the rule has slapd's
// approximate rule (HasApproxRule).
const MatchingRule* MatchingRuleFor(FilterKind kind, const AttributeType* type);

enum class Truth : uint8_t { kFalse, kTrue, kUndefined };

std::string_view TruthName(Truth t);  // "FALSE", "TRUE", "Undefined"

// Three-valued connectives of RFC 4511.
Truth TruthAnd(Truth a, Truth b);
Truth TruthOr(Truth a, Truth b);
Truth TruthNot(Truth a);

// The attribute descriptions of a database's dictionary, each parsed against
// the schema once, so evaluation never parses a description.
class DescriptionTable {
 public:
  // REQUIRES: `schema` outlives the table (descriptions point into it).
  DescriptionTable(const AttributeDictionary& dictionary, const Schema& schema);

  size_t size() const { return entries_.size(); }
  // nullptr for a description the schema cannot resolve (an undefined type,
  // stored by a load without schema checks), whose values no filter sees.
  // REQUIRES: id < size()
  const AttributeDescription* Find(uint32_t id) const {
    return entries_[id] ? &*entries_[id] : nullptr;
  }

 private:
  std::vector<std::optional<AttributeDescription>> entries_;
};

// True when a filter on description `filter` sees a value stored under
// `value` (subtypes, options and language ranges as described above).
bool DescriptionCovers(const AttributeDescription& filter, const AttributeDescription& value);

// A filter bound to a schema: descriptions resolved and assertion values
// normalised once, then evaluated against any number of entries.
class FilterMatcher {
 public:
  // Never fails: what cannot be resolved becomes an Undefined item.
  // REQUIRES: `schema` outlives the matcher.
  FilterMatcher(const Filter& filter, const Schema& schema);
  ~FilterMatcher();
  FilterMatcher(FilterMatcher&&) noexcept;
  FilterMatcher& operator=(FilterMatcher&&) noexcept;

  // The filter's value for `entry`. Corruption when a value names a
  // description id outside `descriptions` (the entry and the dictionary do
  // not belong together).
  Result<Truth> Evaluate(const EntryView& entry, const DescriptionTable& descriptions) const;
  // Evaluate() == TRUE.
  Result<bool> Matches(const EntryView& entry, const DescriptionTable& descriptions) const;

  struct Node;

 private:
  const Schema* schema_;
  std::unique_ptr<Node> root_;
};

// One-off convenience: binds the filter and the dictionary, then evaluates.
// Searching many entries should build a FilterMatcher and a DescriptionTable
// once instead.
Result<bool> Matches(const Filter& filter, const EntryView& entry,
                     const AttributeDictionary& dictionary, const Schema& schema);

}  // namespace dirload
