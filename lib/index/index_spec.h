// Index configuration in slapd.conf syntax, read as OpenLDAP's back-mdb reads
// it (servers/slapd/back-mdb/attr.c, slap_str2index):
//
//   index <attr>[,<attr>...] [<kind>[,<kind>...]]
//   index default <kinds>
//
// Kinds (case-insensitive): pres, eq, approx, sub (= subinitial,subany,
// subfinal; "substr" is a synonym), subinitial, subany, subfinal, nosubtypes,
// notags ("nolang" is a synonym).
//   - A line without kinds takes the default kinds set by the `index default`
//     lines *before* it (slapd reads lines in order); with no default in
//     force it is an error ("no indexes selected"), as in slapd.
//   - `default` lines accumulate (a second one adds kinds).
//   - Each attribute may be configured once: a second line naming it is an
//     error ("duplicate index definition"), as in slapd.
//   - The attribute must be defined in the schema (names and OIDs, any case);
//     attribute options ("cn;lang-en") are not supported here.
//   - eq needs an EQUALITY rule, sub* a SUBSTR rule, approx an approximate
//     rule: slapd's phonetic rule, which the caseIgnore, caseExact,
//     caseIgnoreIA5 and caseExactIA5 equality rules carry
//     (lib/schema/approx_match.h); elsewhere slapd refuses it ("approx index
//     of attribute "telephoneNumber" disallowed"), checked before eq as
//     slapd does.
//   - Tokens are separated by blanks; the lists are comma-separated without
//     blanks, as slapd splits them ("cn, sn eq" is three arguments: an error).
//
// Subtypes, as in back-mdb: the values of a type are indexed into the index
// of the type itself and into the index of every supertype that has one (cn
// values go into an index on `name`). A search on a type uses the type's own
// index, else the nearest supertype's index unless that one says nosubtypes
// (IndexConfig::ForSearch). notags only affects searches on tagged
// descriptions (cn;lang-en), which dirload's search does not distinguish.
//
// Thread safety: an IndexConfig is built by one thread, then read-only; it
// borrows AttributeType pointers from the Schema, which must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

// Bit mask of index kinds.
enum IndexKind : uint32_t {
  kIndexPresence = 1u << 0,
  kIndexEquality = 1u << 1,
  kIndexApprox = 1u << 2,
  kIndexSubInitial = 1u << 3,
  kIndexSubAny = 1u << 4,
  kIndexSubFinal = 1u << 5,
  kIndexSubstr = kIndexSubInitial | kIndexSubAny | kIndexSubFinal,
  // Flags, not kinds of keys.
  kIndexNoSubtypes = 1u << 8,
  kIndexNoTags = 1u << 9,
};
using IndexMask = uint32_t;
inline constexpr IndexMask kIndexKindsMask = 0xff;

// "pres,eq,sub" in slapd's order and spelling (sub when all three substring
// kinds are set, else the subinitial/subany/subfinal that are), then flags.
std::string IndexMaskToString(IndexMask mask);
// One kind word; ParseError naming the word when unknown.
Result<IndexMask> ParseIndexKind(std::string_view word);

struct IndexSpec {
  const AttributeType* type = nullptr;  // borrowed from the Schema
  IndexMask mask = 0;
  std::string where;  // "slapd.conf:12" (or "--index 2"), for messages

  std::string_view name() const { return type->name(); }  // canonical name
  // The table the index is stored in: IndexTableName(name()) ("idx.cn").
  std::string table() const;
  bool Has(IndexMask kinds) const { return (mask & kinds) != 0; }
};

class IndexConfig {
 public:
  IndexConfig() = default;

  // Adds one `index` line. `args` is what follows the word "index" (a leading
  // "index" is also accepted); `where` prefixes error messages
  // ("slapd.conf:12").
  Status AddLine(const Schema& schema, std::string_view args, std::string_view where);

  // All lines, in order; errors name the line's `where`.
  struct Line {
    std::string text;
    std::string where;
  };
  static Result<IndexConfig> Parse(const Schema& schema, const std::vector<Line>& lines);

  // Specs in configuration order.
  const std::vector<IndexSpec>& specs() const { return specs_; }
  bool empty() const { return specs_.empty(); }
  IndexMask default_mask() const { return default_mask_; }

  // The spec configured for exactly `type`; nullptr if none.
  const IndexSpec* Find(const AttributeType* type) const;
  // The spec for a case-insensitive name or OID; nullptr if none.
  const IndexSpec* Find(const Schema& schema, std::string_view name) const;
  // The index a search on `type` uses: its own, else the nearest supertype's
  // unless that says nosubtypes; nullptr if none.
  const IndexSpec* ForSearch(const AttributeType* type) const;

  // Specs whose tables receive the values of `type`: its own and every
  // supertype's (nearest first).
  std::vector<const IndexSpec*> Targets(const AttributeType* type) const;

  // One line per spec, sorted by table name: "cn eq,sub\nobjectclass eq\n".
  // Equal strings mean equal index contents for the same data and schema;
  // stored in meta to detect stale indexes.
  std::string Canonical() const;
  // The Canonical() line of one spec ("cn eq,sub").
  static std::string CanonicalLine(const IndexSpec& spec);

 private:
  std::vector<IndexSpec> specs_;
  IndexMask default_mask_ = 0;
};

// Targets() over an arbitrary list of specs (e.g. the subset being rebuilt).
std::vector<const IndexSpec*> IndexTargets(const std::vector<IndexSpec>& specs,
                                           const AttributeType* type);

}  // namespace dirload
