// EntryChecker: the per-entry checks of phase 1 that need the schema: DN
// syntax and normalisation, and (unless disabled) schema conformance: known
// attribute types and options, one structural object class chain, MUST and
// MAY, SINGLE-VALUE, no value twice, value syntaxes, and the RDN's values
// present in the entry.
//
// Checking tens of millions of values is the hot path of a load, so the
// checker remembers what it learnt about each attribute description, object
// class name and object class combination it has seen.
//
// Thread safety: not thread-safe (the caches); give each thread its own copy.
// The schema it borrows must outlive it and must not change.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ldif/record.h"
#include "lib/schema/dn.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

class EntryChecker {
 public:
  // `schema` is borrowed.
  EntryChecker(const Schema* schema, bool check_schema);

  // Parses and normalises `dn` (distinguishedNameMatch) into *parsed and *ndn.
  Status CheckDn(std::string_view dn, Dn* parsed, std::string* ndn) const;
  Result<std::string> NormalizeDn(std::string_view dn) const;
  // Normalised DN of the parent; empty for a one-RDN DN.
  // REQUIRES: ndn came from CheckDn or NormalizeDn.
  static std::string ParentOf(std::string_view ndn);
  // True when `ndn` equals `nbase` or is below it (both normalised).
  static bool IsUnder(std::string_view ndn, std::string_view nbase);
  // The dn2id key of a normalised DN: RDNs in reverse order, so that a
  // subtree is one key range (lib/schema/dn.h).
  static std::string SortKey(std::string_view ndn);

  // Schema conformance of `record`, whose DN parsed as `dn` (a no-op when
  // checking is off).
  Status CheckEntry(const ldif::Record& record, const Dn& dn);

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
  };
  template <typename V>
  using Map = std::unordered_map<std::string, V, Hash, std::equal_to<>>;

  struct DescriptionInfo {
    Status error;  // why the description is unusable, else OK
    const AttributeType* type = nullptr;
    uint32_t canonical = 0;  // id of the canonical description ("cn;lang-en")
    std::string canonical_name;
  };
  struct ClassSetInfo {
    Status error;  // no structural class, or two structural chains
    bool extensible = false;
    std::vector<std::pair<const ObjectClass*, const AttributeType*>> must;
    std::vector<bool> allowed;  // by attribute type id
  };

  const DescriptionInfo& Describe(std::string_view description);
  const ObjectClass* FindClass(std::string_view name);
  const ClassSetInfo& ClassSet(std::vector<const ObjectClass*>* classes);

  const Schema* schema_;
  bool check_schema_;
  const AttributeType* object_class_type_;
  Map<DescriptionInfo> descriptions_;
  Map<uint32_t> canonical_ids_;
  Map<const ObjectClass*> classes_;
  Map<ClassSetInfo> class_sets_;
  // Per-entry scratch, kept to avoid allocating per entry.
  struct Present {
    const DescriptionInfo* info;
    std::string_view value;
  };
  std::vector<Present> present_;
  std::vector<const ObjectClass*> entry_classes_;
  std::vector<uint64_t> seen_;  // by attribute type id: the entry number that had it
  uint64_t entry_number_ = 0;
  std::vector<std::pair<uint32_t, uint32_t>> by_canonical_;
  std::vector<std::string> keys_;
};

}  // namespace dirload
