// Attribute types (RFC 4512 section 4.1.2): the description as written in a
// schema file, and the resolved AttributeType a Schema builds from it.
//
// Thread safety: an AttributeType is immutable once its Schema has added it,
// and may be read from any number of threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dirload {

struct MatchingRule;
struct Syntax;

enum class AttributeUsage : uint8_t {
  kUserApplications,
  kDirectoryOperation,
  kDistributedOperation,
  kDsaOperation,
};

// The RFC 4512 keyword ("userApplications", "dSAOperation", ...).
std::string_view AttributeUsageName(AttributeUsage usage);

// An X- extension of a description: its name and quoted values, e.g.
// X-ORDERED 'VALUES'. Kept for round trips, never interpreted.
struct SchemaExtension {
  std::string name;
  std::vector<std::string> values;
};

// An AttributeTypeDescription as written, after OID macros are expanded.
// References (sup, matching rules) stay as names or OIDs until a Schema
// resolves them.
struct AttributeTypeDescription {
  std::string oid;
  std::vector<std::string> names;
  std::string desc;
  bool obsolete = false;
  std::string sup;       // empty if none
  std::string equality;  // empty if none
  std::string ordering;
  std::string substr;
  std::string syntax;       // numeric OID; empty if none
  uint32_t syntax_len = 0;  // the {len} bound; 0 if none
  bool single_value = false;
  bool collective = false;
  bool no_user_modification = false;
  AttributeUsage usage = AttributeUsage::kUserApplications;
  std::vector<SchemaExtension> extensions;
};

// A resolved attribute type. Pointers borrow from the owning Schema (or, for
// matching rules, from the static table in matching_rule.h); they stay valid
// while the Schema lives, including after the Schema is moved.
struct AttributeType {
  std::string oid;
  std::vector<std::string> names;  // as written; names[0] is the canonical name
  std::string desc;
  bool obsolete = false;
  const AttributeType* sup = nullptr;
  // Effective rules: the type's own, else inherited along the SUP chain
  // (cn names none and gets caseIgnoreMatch from name). nullptr if none.
  const MatchingRule* equality = nullptr;
  const MatchingRule* ordering = nullptr;
  const MatchingRule* substr = nullptr;
  // Effective syntax, own or inherited; never nullptr once added.
  const Syntax* syntax = nullptr;
  uint32_t syntax_len = 0;
  bool single_value = false;
  bool collective = false;
  bool no_user_modification = false;
  AttributeUsage usage = AttributeUsage::kUserApplications;
  std::vector<SchemaExtension> extensions;
  // Dense number within the owning Schema (0, 1, 2, ... in definition order),
  // for per-type arrays and compact encodings.
  uint32_t id = 0;
  // The description this type was built from, as written.
  AttributeTypeDescription definition;

  // The canonical name (first NAME), or the OID for a type without names.
  std::string_view name() const {
    return names.empty() ? std::string_view(oid) : std::string_view(names.front());
  }
  bool operational() const { return usage != AttributeUsage::kUserApplications; }
};

}  // namespace dirload
