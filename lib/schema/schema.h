// Schema: the attribute types, object classes, syntaxes and OID macros that
// decide how dirload reads and compares entries. Built once per run (from the
// built-in definitions and/or OpenLDAP .schema files, see schema_loader.h),
// then only read.
//
// Definitions must arrive in dependency order, as slapd requires: a SUP,
// matching rule, syntax, MUST or MAY reference must already be known when the
// definition naming it is added. Lookups by name are ASCII case-insensitive;
// lookups by OID are exact ("2.5.4.03" is not "2.5.4.3", as in slapd).
//
// Thread safety: Add* calls need exclusive access. Once building is done, a
// const Schema may be shared by any number of threads. Every pointer a Schema
// hands out stays valid for the Schema's lifetime, across moves.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "lib/schema/ascii.h"
#include "lib/schema/attribute_options.h"
#include "lib/schema/attribute_type.h"
#include "lib/schema/matching_rule.h"
#include "lib/schema/object_class.h"
#include "lib/schema/syntax.h"
#include "lib/util/status.h"
#include "lib/util/string_map.h"

namespace dirload {

// An `ldapsyntax ( oid DESC '...' X-SUBST 'oid' )` statement (OpenLDAP).
struct SyntaxDescription {
  std::string oid;
  std::string desc;
  std::string subst;  // the syntax whose checks this one reuses; empty if none
  std::vector<SchemaExtension> extensions;
};

// "cn;lang-en;binary" split into its type and options (RFC 4512 2.5).
struct AttributeDescription {
  const AttributeType* type = nullptr;
  // Tagging options, lower-cased, sorted and without duplicates. Only those
  // the schema's AttributeOptions accept are allowed: out of the box, as in
  // slapd, language tags ("lang-" followed by keychars, possibly empty:
  // "lang-" is a range matching every tag).
  std::vector<std::string> options;
  bool binary = false;  // ";binary" was present

  // Canonical spelling, as slapd stores it: the type's canonical name, then
  // the options sorted with "binary" among them ("cn;lang-en",
  // "userCertificate;binary;x-foo", "userCertificate;a-b;binary").
  std::string ToString() const;
};

class Schema {
 public:
  // An empty schema: the built-in syntaxes and matching rules, no attribute
  // types or object classes.
  Schema();
  ~Schema();
  Schema(Schema&&) noexcept;
  Schema& operator=(Schema&&) noexcept;
  Schema(const Schema&) = delete;
  Schema& operator=(const Schema&) = delete;

  // The definitions slapd holds internally and never reads from a file
  // (objectClass, top, alias, the operational attributes, cn, name, uid, ...).
  // Use this when slapd.conf `include`s provide the user schema.
  static Result<Schema> SystemOnly();
  // SystemOnly() plus the standard user schema: RFC 4519 core, RFC 4524
  // cosine, RFC 2798 inetOrgPerson and RFC 2307 nis, with the same
  // definitions as OpenLDAP's core, cosine, inetorgperson and nis files.
  static Result<Schema> Builtin();

  // Adds a definition. A definition whose OID or any name is already taken is
  // an error naming both definitions, unless it is the same definition again
  // (same OID, names, references, syntax and flags; DESC and X- extensions may
  // differ), which is accepted and changes nothing.
  Status AddAttributeType(const AttributeTypeDescription& def);
  Status AddObjectClass(const ObjectClassDescription& def);
  Status AddSyntax(const SyntaxDescription& def);

  // `objectidentifier NAME OID`: NAME becomes a macro for OID, which may
  // itself use a macro ("NetscapeRoot:3"). Redefining a macro with the same
  // OID is accepted and sets *same_again (slapd warns); with another OID it
  // is an error.
  Status AddOidMacro(std::string_view name, std::string_view oid, bool* same_again = nullptr);
  // Expands "macro", "macro:1.2" or returns a numeric OID unchanged; an error
  // for anything else.
  Result<std::string> ExpandOid(std::string_view oid) const;

  const AttributeType* FindAttribute(std::string_view name_or_oid) const;
  const ObjectClass* FindObjectClass(std::string_view name_or_oid) const;
  const Syntax* FindSyntax(std::string_view oid) const;

  // The tagging options descriptions may carry (slapd's `attributeoptions`);
  // slapd's default (lang- tags) until set.
  void SetAttributeOptions(AttributeOptions options) { attribute_options_ = std::move(options); }
  const AttributeOptions& attribute_options() const { return attribute_options_; }

  // Parses an attribute description as slapadd does. Errors: NotFound if the
  // type is undefined (slapadd -s would still store it), InvalidArgument for
  // a malformed description, an option attribute_options() does not accept,
  // any option on an operational attribute, ";binary" twice or on a type
  // whose syntax does not need binary transfer, more than 128 tagging
  // options or more than 1024 bytes of them (slapd's limits).
  Result<AttributeDescription> ParseAttributeDescription(std::string_view text) const;

  // True if `a` is `b` or derives from it through SUP (cn and sn are subtypes
  // of name, so an index or filter on name covers them).
  static bool IsSubtypeOf(const AttributeType* a, const AttributeType* b);

  // Definitions in the order they were added (equal to their ids).
  std::span<const AttributeType* const> attribute_types() const { return attr_list_; }
  std::span<const ObjectClass* const> object_classes() const { return oc_list_; }

  // A 64-bit digest of everything that affects stored keys and schema checks
  // (OIDs, names, kinds, SUP, MUST/MAY, matching rules, syntaxes; not DESC),
  // independent of definition order. Stored with a database to detect that
  // its indexes were built with another schema.
  uint64_t Fingerprint() const;

 private:
  template <typename T>
  using NameIndex = StringMap<const T*>;

  std::vector<std::unique_ptr<Syntax>> syntaxes_;
  NameIndex<Syntax> syntax_index_;  // OID -> Syntax
  std::vector<std::unique_ptr<AttributeType>> attrs_;
  std::vector<const AttributeType*> attr_list_;
  NameIndex<AttributeType> attr_index_;  // lower-cased names and OIDs
  std::vector<std::unique_ptr<ObjectClass>> ocs_;
  std::vector<const ObjectClass*> oc_list_;
  NameIndex<ObjectClass> oc_index_;  // lower-cased names and OIDs
  std::unordered_map<std::string, std::string, schema_internal::StringHash, std::equal_to<>>
      oid_macros_;  // lower-cased name -> numeric OID
  AttributeOptions attribute_options_;
};

}  // namespace dirload
