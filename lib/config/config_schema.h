// ConfigSchema: what slapd's configuration backend knows about its own
// entries, taken from the definitions in a cn=schema,cn=config entry (as
// `slapcat -n 0` writes it: slapd's built-in schema, the configuration
// classes and attributes of the core and of the modules loaded):
//
//   - each attribute type's canonical name (its first NAME), by any of its
//     names or its OID, case-insensitively: slapd writes an attribute under
//     that name whatever the input spelled;
//   - the attribute types marked X-ORDERED 'VALUES' (olcAccess,
//     olcAttributeTypes, ...), whose values carry "{N}" prefixes;
//   - each object class's kind, superiors, and its required and allowed
//     attributes with those of its superiors, in the order slapd's schema
//     code gathers them (superiors first, depth first; 'top' for a
//     structural class without SUP), which decides the order of attributes
//     in a configuration file (SortConfigAttributes).
//
// Definitions are parsed as RFC 4512 descriptions, loosely: only NAME,
// SUP, MUST, MAY, the kind keywords and X-ORDERED are read; OID macros
// ("OLcfgGlOc:1") are taken as opaque OIDs.
//
// Thread safety: immutable after FromDefinitions; pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

enum class ConfigClassKind { kAbstract, kStructural, kAuxiliary };

struct ConfigObjectClass {
  std::string name;  // canonical (first NAME)
  ConfigClassKind kind = ConfigClassKind::kStructural;
  std::vector<std::string> sups;  // lower case, as written
  std::vector<std::string> must;  // lower case, as written (own only)
  std::vector<std::string> may;
};

// One attribute of an entry: its description and values in order.
struct ConfigAttribute {
  std::string description;
  std::vector<std::string> values;
};

class ConfigSchema {
 public:
  // `attribute_types` and `object_classes` are olcAttributeTypes and
  // olcObjectClasses values ("{N}" prefixes allowed). Errors name the value.
  static Result<ConfigSchema> FromDefinitions(const std::vector<std::string>& attribute_types,
                                              const std::vector<std::string>& object_classes);

  // The canonical name of an attribute type given by a name or OID; nullopt
  // when the schema does not define it.
  std::optional<std::string> CanonicalAttribute(std::string_view name) const;
  bool OrderedValues(std::string_view attribute) const;
  const ConfigObjectClass* FindClass(std::string_view name) const;

  // The structural class of an entry with these objectClass values (the one
  // the other structural classes are superiors of); nullopt when there is
  // none or no single most specific one.
  std::optional<std::string> StructuralClass(const std::vector<std::string>& classes) const;

  // Reorders `attributes` as slapd's configuration backend does before it
  // stores an entry: for each configuration class of the entry (the
  // objectClass values and their superiors whose names start with "olc",
  // most specific first), its required then its allowed attributes, each in
  // the class's order; the other attributes follow in their order.
  void SortConfigAttributes(std::vector<ConfigAttribute>* attributes) const;

 private:
  // Required and allowed attributes of a class, its superiors' included,
  // as canonical lower-case names.
  std::pair<std::vector<std::string>, std::vector<std::string>> Gather(
      const ConfigObjectClass& oc) const;
  void AddSups(const ConfigObjectClass& oc, std::vector<std::string>* chain) const;
  std::string Key(std::string_view name) const;

  std::map<std::string, std::string> attribute_names_;  // any name or OID, lower -> canonical
  std::map<std::string, bool> ordered_values_;          // canonical lower -> X-ORDERED 'VALUES'
  std::vector<ConfigObjectClass> classes_;
  std::map<std::string, size_t> class_index_;  // any name or OID, lower -> classes_ index
};

}  // namespace dirload
