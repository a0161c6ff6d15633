// The differences between two canonical entries of one DN, attribute by
// attribute, and the LDIF change records (RFC 2849) that turn one side into
// the other: a delete, an add, or a modify whose replace and delete
// operations give each differing attribute the other side's values.
//
// Thread safety: pure functions.
#pragma once

#include <string>
#include <vector>

#include "ldif/record.h"
#include "lib/compare/canonical_entry.h"

namespace dirload {

struct AttributeDifference {
  std::string description;
  std::vector<std::string> only_a;  // values A has and B has not, byte order
  std::vector<std::string> only_b;
  bool in_a = false;  // the attribute is present on that side at all
  bool in_b = false;
};

// The attributes whose value sets differ, in description order.
std::vector<AttributeDifference> DiffEntries(const CanonicalEntry& a, const CanonicalEntry& b);

// "dn: A / changetype: delete".
void DeleteRecord(const CanonicalEntry& a, ldif::Record* out);
// "changetype: add" with every attribute of `b`, values in stored order.
void AddRecord(const CanonicalEntry& b, ldif::Record* out);
// "changetype: modify": for each difference, "replace:" with B's values
// (stored order) or, when B has none, "delete:".
void ModifyRecord(const CanonicalEntry& a, const CanonicalEntry& b,
                  const std::vector<AttributeDifference>& differences, ldif::Record* out);

}  // namespace dirload
