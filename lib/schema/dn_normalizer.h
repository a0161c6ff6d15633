// DnNormalizer: NormalizeDn (dn.h) for the DN values of a load (member,
// manager, the entries' own names), which mostly end in the same few
// parents' names: "uid=jo,ou=Sales,dc=example,dc=com". It normalises the
// leftmost RDN and takes the rest from a cache of the parents' normalised
// forms, keyed by their text as written, so that a five-RDN value costs
// about one RDN's work instead of five.
//
// The result, and every error, is NormalizeDn's byte for byte: the split is
// made only where the parser would make it (the first ',' of a leftmost RDN
// without escapes, quotes or ';' separators, and no space beside that ','),
// and anything that fails either part is normalised again whole, so that
// the error names the whole DN as NormalizeDn's does.
//
// The leftmost RDN itself, when it is one plain "type=value" (ASCII, nothing
// to escape or trim), skips the parser: its type is looked up in a table of
// the types seen, its value validated and normalised as NormalizeDn does,
// or, under a string rule ("uid=jo"), only case-folded or kept.
//
// Memory: at most kMaxCached parents and as many type spellings (then that
// cache starts again).
//
// Thread safety: not thread-safe; give each thread its own. The schema is
// borrowed and must outlive it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "lib/util/status.h"
#include "lib/util/string_map.h"

namespace dirload {

class Schema;
struct AttributeType;

class DnNormalizer {
 public:
  explicit DnNormalizer(const Schema* schema) : schema_(schema) {}

  // NormalizeDn(schema, text, out).
  Status Normalize(std::string_view text, std::string* out);

  static constexpr size_t kMaxCached = 4096;

 private:
  // NormalizeDn of a DN of one RDN.
  Status NormalizeRdn(std::string_view rdn, std::string* out);

  // What the leftmost RDN's type does to a value IsPlainAva accepts
  // (printable ASCII, nothing to escape, no space first or last): a string
  // rule over Directory or IA5 String keeps it or folds its case, and folds
  // a run of spaces into one. Without such a run NormalizeRdn writes the
  // result itself; anything else goes through validation and the rule.
  enum class PlainValue : uint8_t { kGeneral, kKept, kLowered };
  struct KnownType {
    const AttributeType* type = nullptr;  // null: unknown
    PlainValue plain = PlainValue::kGeneral;
  };
  static KnownType Classify(const AttributeType* type);

  const Schema* schema_;
  StringMap<std::string> parents_;  // parent DN as written -> normalised
  StringMap<KnownType> types_;      // type as written
  std::string rdn_;                 // scratch: the leftmost RDN normalised
  std::string value_;               // scratch: its value normalised
};

}  // namespace dirload
