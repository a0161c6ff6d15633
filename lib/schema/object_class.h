// Object classes (RFC 4512 section 4.1.1): the description as written and the
// resolved ObjectClass, with MUST and MAY lists flattened over superclasses.
//
// Thread safety: an ObjectClass is immutable once its Schema has added it,
// and may be read from any number of threads.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lib/schema/attribute_type.h"

namespace dirload {

enum class ObjectClassKind : uint8_t { kAbstract, kStructural, kAuxiliary };

// "ABSTRACT", "STRUCTURAL" or "AUXILIARY".
std::string_view ObjectClassKindName(ObjectClassKind kind);

struct ObjectClassDescription {
  std::string oid;
  std::vector<std::string> names;
  std::string desc;
  bool obsolete = false;
  std::vector<std::string> sup;
  ObjectClassKind kind = ObjectClassKind::kStructural;  // RFC 4512 default
  std::vector<std::string> must;
  std::vector<std::string> may;
  std::vector<SchemaExtension> extensions;
};

// A resolved object class. Pointers borrow from the owning Schema.
struct ObjectClass {
  std::string oid;
  std::vector<std::string> names;  // as written; names[0] is the canonical name
  std::string desc;
  bool obsolete = false;
  ObjectClassKind kind = ObjectClassKind::kStructural;
  std::vector<const ObjectClass*> sup;           // direct superclasses
  std::vector<const ObjectClass*> superclasses;  // all ancestors, nearest first
  std::vector<const AttributeType*> must;        // own
  std::vector<const AttributeType*> may;         // own
  // Own and inherited, without duplicates; a type required anywhere in the
  // chain is only in all_must (inetOrgPerson's all_must holds sn and cn from
  // person, and objectClass from top).
  std::vector<const AttributeType*> all_must;
  std::vector<const AttributeType*> all_may;
  std::vector<SchemaExtension> extensions;
  uint32_t id = 0;  // dense number within the owning Schema
  ObjectClassDescription definition;

  std::string_view name() const {
    return names.empty() ? std::string_view(oid) : std::string_view(names.front());
  }
  // True if this class is `other` or inherits from it.
  bool IsSubclassOf(const ObjectClass* other) const {
    return other == this ||
           std::find(superclasses.begin(), superclasses.end(), other) != superclasses.end();
  }
  // Exact membership in all_must / all_must + all_may (no subtype widening).
  bool Requires(const AttributeType* type) const {
    return std::find(all_must.begin(), all_must.end(), type) != all_must.end();
  }
  bool Allows(const AttributeType* type) const {
    return Requires(type) || std::find(all_may.begin(), all_may.end(), type) != all_may.end();
  }
};

}  // namespace dirload
