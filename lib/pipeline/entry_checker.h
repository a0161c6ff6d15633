// EntryChecker: the per-entry checks of phase 1 that need the schema: DN
// syntax and normalisation, and (unless disabled) schema conformance: known
// attribute types and options, one structural object class chain, MUST and
// MAY, SINGLE-VALUE, value syntaxes, and the RDN's values present in the entry.
//
// Thread safety: const methods may be called from several threads at once;
// the schema it borrows must outlive it and not change.
#pragma once

#include <string>
#include <string_view>

#include "ldif/record.h"
#include "lib/schema/schema.h"
#include "lib/util/status.h"

namespace dirload {

class EntryChecker {
 public:
  // `schema` is borrowed.
  EntryChecker(const Schema* schema, bool check_schema)
      : schema_(schema), check_schema_(check_schema) {}

  // The normalised form of `dn` (distinguishedNameMatch), or why it is not a DN.
  Result<std::string> NormalizeDn(std::string_view dn) const;
  // Normalised DN of the parent; empty for a one-RDN DN.
  // REQUIRES: ndn came from NormalizeDn.
  std::string ParentOf(std::string_view ndn) const;
  // True when `ndn` equals `nbase` or is below it (both normalised).
  bool IsUnder(std::string_view ndn, std::string_view nbase) const;
  // The dn2id key of a normalised DN: RDNs in reverse order, so that a
  // subtree is one key range.
  std::string SortKey(std::string_view ndn) const;

  // Schema conformance (a no-op when checking is off).
  Status CheckEntry(const ldif::Record& record) const;

 private:
  const Schema* schema_;
  bool check_schema_;
};

}  // namespace dirload
