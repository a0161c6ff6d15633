// EntryChecker: the per-entry work of phase 1 that needs the schema: DN
// syntax and normalisation, schema conformance unless disabled (known
// attribute types and options, values valid for their syntax, one structural
// object class chain, MUST and MAY, SINGLE-VALUE), and the entry's stored
// form. As slapadd does, the stored entry names each attribute by its
// canonical description ("objectclass;x-b;x-a" -> "objectClass;x-a;x-b"),
// keeps the values of one attribute together in order of first appearance,
// and gains any RDN value it lacks.
//
// A value given twice in one attribute (equal under the attribute's equality
// rule, or as bytes when it has none) is stored twice by default, as slapadd
// 2.5 stores it: real directories (OpenLDAP's own test data among them) hold
// such entries, and slapd serves them. Prepare names the first repeat so the
// load can count and list them. RFC 4512 makes an attribute's values a set and
// slapd refuses the same entry over LDAP ("value #0 provided more than once"),
// so RepeatedValues::kReject refuses it instead, for those who want that.
//
// Prepare also reports what the loader needs for the operational attributes
// (operational_attributes.h): the structural class the schema check found and
// which of those attributes the input already has.
//
// Checking tens of millions of values is the hot path of a load, so the
// checker remembers what it learnt about each attribute description, object
// class name and object class combination it has seen.
//
// Thread safety: not thread-safe (the caches); give each thread its own copy.
// The schema it borrows must outlive it and must not change.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ldif/record.h"
#include "lib/entry/entry_codec.h"
#include "lib/load/operational_attributes.h"
#include "lib/schema/dn.h"
#include "lib/schema/dn_normalizer.h"
#include "lib/schema/schema.h"
#include "lib/util/sequence_lookup.h"
#include "lib/util/status.h"
#include "lib/util/string_map.h"

namespace dirload {

// What a value given twice in one attribute does to its entry.
enum class RepeatedValues {
  kStore,   // stored as given, as slapadd stores it
  kReject,  // the entry is refused (-o repeated-values=reject)
};

// What kind of rule an entry Prepare refused broke, named by the LDAP
// result slapd gives for it (schema-check and slapschema print it).
enum class SchemaViolation {
  kNone,
  kUndefinedAttributeType,  // 17
  kConstraintViolation,     // 19: a single-valued attribute with more
  kAttributeOrValueExists,  // 20: a value given twice (with kReject)
  kInvalidAttributeSyntax,  // 21: a value or description its syntax refuses
  kNamingViolation,         // 64: an RDN value the entry does not hold (stored entries)
  kObjectClassViolation,    // 65: classes, MUST, MAY
  kNoObjectClassMods,       // 69: a stored structuralObjectClass the classes contradict
  kOther,                   // 80: no structuralObjectClass stored
  kInvalidDnSyntax,         // 34: a name that does not parse
};
// The result's number and name, as slapd prints them.
int SchemaViolationCode(SchemaViolation v);
const char* SchemaViolationName(SchemaViolation v);

class EntryChecker {
 public:
  // `schema` is borrowed.
  EntryChecker(const Schema* schema, bool check_schema,
               RepeatedValues repeated = RepeatedValues::kStore);

  // Parses and normalises `dn` (distinguishedNameMatch) into *parsed and *ndn.
  Status CheckDn(std::string_view dn, Dn* parsed, std::string* ndn);
  // CheckDn for an entry's own name, which also gives the DN and its leftmost
  // RDN as they are stored (Dn::ToString: types as written, values escaped
  // where RFC 4514 requires, no insignificant spaces). *leftmost gets the
  // leftmost RDN only, which is what Prepare needs (nothing for the empty
  // DN). A plain DN (IsPlainDn), the common case, is stored as written and
  // only its leftmost RDN is parsed.
  Status CheckName(std::string_view dn, Dn* leftmost, std::string* ndn, std::string* pretty,
                   std::string* pretty_rdn);
  Result<std::string> NormalizeDn(std::string_view dn) const;
  // Normalised DN of the parent; empty for a one-RDN DN. ParentView gives
  // it as a view into `ndn`.
  // REQUIRES: ndn came from CheckDn or NormalizeDn.
  static std::string ParentOf(std::string_view ndn);
  static std::string_view ParentView(std::string_view ndn);
  // True when `ndn` equals `nbase` or is below it (both normalised).
  static bool IsUnder(std::string_view ndn, std::string_view nbase);
  // The dn2id key of a normalised DN: RDNs in reverse order, so that a
  // subtree is one key range (lib/schema/dn.h).
  static std::string SortKey(std::string_view ndn);
  static void SortKey(std::string_view ndn, std::string* key);

  // The entry as it is stored. Views point into the record, into `added`
  // and into the checker's caches: valid while all three are.
  struct Prepared {
    std::vector<std::pair<std::string_view, std::string_view>> values;  // (description, value)
    std::vector<std::string> added;  // RDN values the entry lacked
    std::string_view structural;     // structural object class (empty without schema checks)
    uint8_t operational = 0;         // OperationalBit()s of the attributes the input has
    std::string_view entry_csn;      // the input's entryCSN value, if any
    // Per value: its equality rule's normalized form when the checks made it
    // (values whose rule can fail, values of multi-valued attributes), else
    // null. Valid until the next Prepare.
    std::vector<const std::string*> normalized;
    // With RepeatedValues::kStore: which value repeats which, as the
    // refusal would say it; empty when no value is given twice.
    std::string repeated;
  };
  // Checks `record` (whose DN parsed as `dn`, its leftmost RDN at least)
  // and fills *out. objectClass is required even when schema checking is
  // off, as slapadd -s requires it.
  Status Prepare(const ldif::Record& record, const Dn& dn, Prepared* out);
  // What the last Prepare or CheckStored that failed broke (kNone after
  // one that passed).
  SchemaViolation violation() const { return violation_; }

  // An entry read back from a database (`values` name their descriptions
  // by `dictionary` id), checked against the schema as it is now, as
  // slapschema checks it: the values as Prepare checks them, then slapd's
  // own order (SINGLE-VALUE, objectClass, the stored structuralObjectClass
  // against the classes, the RDN's values present, MUST, MAY), so that an
  // entry breaking several rules is refused for the one slapd names. A
  // stored entry gains nothing: an RDN value it lacks is a naming
  // violation. Where the database keeps normalized copies (slapd's format),
  // the RDN's values are looked for among them, as slapd looks: a copy made
  // under an equality rule since changed does not name the entry any more.
  // `check_values` false leaves out the values' syntax checks, for an
  // entry whose new values were checked already (a modify: slapd does not
  // check the values an entry holds again).
  // REQUIRES: every call passes the same dictionary.
  Status CheckStored(const EntryView& entry, const AttributeDictionary& dictionary,
                     bool check_values = true);

  const Schema& schema() const { return *schema_; }

 private:
  struct DescriptionInfo {
    Status error;                         // why the description is unusable, else OK
    bool error_is_syntax = false;         // malformed or bad option, not just an undefined type
    const AttributeType* type = nullptr;  // null when the type is undefined
    uint32_t canonical = 0;               // id of the canonical description ("cn;lang-en")
    std::string canonical_name;
    std::string written;  // as the entries write it (its key in descriptions_)
    SequenceLookup<DescriptionInfo>::Link next;  // for sequence_
  };
  // The refusal of an entry for `kind`; remembered for violation().
  Status Violation(SchemaViolation kind, Status error);
  struct ClassSetInfo {
    Status error;  // no structural class, or two structural chains
    const ObjectClass* structural = nullptr;
    bool extensible = false;
    std::vector<std::pair<const ObjectClass*, const AttributeType*>> must;
    std::vector<bool> allowed;  // by attribute type id
  };

  DescriptionInfo& Describe(std::string_view description);
  // Describe for a stored entry's dictionary id, remembered by id.
  const DescriptionInfo& DescribeStored(uint32_t id, const AttributeDictionary& dictionary);
  // A value valid for its syntax and, where slapadd refuses what the
  // equality rule cannot normalise, normalisable: *norm gets the slot of
  // the normalised form when one was made, else -1.
  // `remember`: look the value up in, and add it to, recent_ (see there).
  Status CheckValue(const DescriptionInfo& info, std::string_view description,
                    std::string_view value, int32_t* norm, bool remember = false);
  // CheckStored's: the stored structuralObjectClass against `set`'s, and
  // the leftmost RDN's values present under their equality rules.
  Status CheckStoredStructural(std::string_view stored, const ClassSetInfo& set);
  // `stored`: the entry's normalized copies (EntryView::normalized).
  Status CheckNaming(const std::vector<std::string_view>& stored);
  // MUST and MAY of `set` against the attributes of present_ and seen_.
  Status CheckMustMay(const ClassSetInfo& set);
  const ObjectClass* FindClass(std::string_view name);
  const ClassSetInfo& ClassSet(std::vector<const ObjectClass*>* classes);
  // Finds a value repeated within one attribute: refuses the entry or names
  // the repeat in *repeated, as repeated_ says. REQUIRES: present_ is in
  // stored order (the values of one attribute adjacent).
  Status CheckRepeatedValues(const ldif::Record& record, std::string* repeated);

  const Schema* schema_;
  bool check_schema_;
  SchemaViolation violation_ = SchemaViolation::kNone;
  RepeatedValues repeated_;
  DnNormalizer dns_;  // entry names and DN-valued attributes
  const AttributeType* object_class_type_;
  StringMap<DescriptionInfo> descriptions_;
  // Prepare's lookups of its record's descriptions, mostly without hashing.
  SequenceLookup<DescriptionInfo> sequence_;
  StringMap<uint32_t> canonical_ids_;
  StringMap<const ObjectClass*> classes_;
  StringMap<ClassSetInfo> class_sets_;
  // Per-entry scratch, kept to avoid allocating per entry.
  struct Present {
    const DescriptionInfo* info;
    std::string_view value;
    uint32_t rank;      // order of the attribute's first appearance
    uint32_t index;     // the record's attribute index; kFromDn for an added RDN value
    int32_t norm = -1;  // its equality normalization in norms_, if made
    const ObjectClass* object_class = nullptr;  // an objectClass value's class, once found
  };
  // A fresh slot of norms_ (kept from entry to entry) and its index.
  std::string* NewNorm(int32_t* index);
  std::vector<std::string> norms_;
  // CheckValue's memory of the last value it normalized and passed, per
  // canonical description, for stored entries: a database repeats names
  // and times entry after entry (creatorsName, the timestamps of one
  // second), and a repeat needs no second normalization. A load's input
  // mostly has neither, and the lookups cost it more than they saved.
  struct RecentValue {
    bool valid = false;
    bool has_norm = false;
    std::string value;
    std::string norm;
  };
  std::vector<RecentValue> recent_;
  size_t norms_used_ = 0;
  static constexpr uint32_t kFromDn = UINT32_MAX;
  std::vector<Present> present_;
  std::vector<uint32_t> first_rank_;  // by canonical id: rank + 1, or 0
  std::vector<const ObjectClass*> entry_classes_;
  std::vector<uint64_t> seen_;         // by attribute type id: the entry number that had it
  std::vector<uint64_t> single_seen_;  // by canonical id: the entry number that had it
  uint64_t entry_number_ = 0;
  std::string class_key_;  // ClassSet's key, kept to avoid allocating per entry
  std::array<const AttributeType*, kOperationalAttributeCount> operational_types_{};
  const AttributeType* entry_csn_type_ = nullptr;
  const AttributeType* structural_type_ = nullptr;
  const ObjectClass* glue_class_ = nullptr;
  // CheckRepeatedValues' scratch: the keys of one attribute's values.
  std::string keys_;
  std::vector<std::pair<uint32_t, uint32_t>> key_spans_;  // (offset, length) in keys_
  std::vector<uint32_t> order_;
  // CheckStored's: DescribeStored's memory by dictionary id, and scratch.
  std::vector<const DescriptionInfo*> stored_descriptions_;
  Dn naming_rdn_;
  std::string naming_want_, naming_have_;
};

}  // namespace dirload
