// What slapd 2.5 stores next to an attribute value in id2e, and the object
// class flags it stores with an entry: the policy half of writing back-mdb
// entries, kept apart from the byte codec (mdb_entry_codec.h).
//
// Normalized copies. slapd builds an entry's attributes from LDIF with a
// normalized copy of every value exactly when the attribute type's
// (effective, possibly inherited) EQUALITY rule has a normalizer function
// (slapd/entry.c, str2entry2), and id2e stores that copy (back-mdb
// id2entry.c stores it whenever a_nvals differs from a_vals). Which rules
// have one is slapd's table in slapd/schema_init.c: among the rules dirload
// knows, objectIdentifierMatch, booleanMatch, integerMatch, bitStringMatch,
// octetStringMatch, presentationAddressMatch, protocolInformationMatch,
// certificateMatch, certificateListMatch, attributeCertificateMatch,
// authPasswordMatch and privateKeyMatch have none (so objectClass,
// structuralObjectClass, uidNumber, gidNumber carry no copy). The copy is
// dirload's NormalizeEquality key, except for UUIDMatch, whose normalizer
// yields the 16 raw bytes of the UUID rather than its text.
//
// Values slapadd itself generates (createTimestamp, modifyTimestamp and
// entryCSN when absent from the input) are merged without a normalized copy
// (slapd/slapadd.c passes none); the same values read from LDIF get one.
// A writer mirroring slapadd passes `generated` for those.
//
// ocflags: slapd ORs the soc_flags of every class the entry's objectClass
// values name (not their superclasses; slapd/oc.c is_entry_objectclass),
// then sets 0x100. Only the classes slapd defines itself (schema_prep.c)
// have flags; every one of them also carries SLAP_OC_HARDCODE (0x10000),
// which is why listing `top` shows up as 0x10000.
//
// Thread safety: pure functions; the Schema is only read.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "lib/util/status.h"

namespace dirload {
class Schema;
struct AttributeType;
struct MatchingRule;
}  // namespace dirload

namespace dirload::mdb {

// Whether slapd 2.5 defines `rule` with a normalizer function.
bool SlapdRuleHasNormalizer(const MatchingRule& rule);

// Whether id2e holds a normalized copy of `type`'s values read from input.
bool MdbStoresNormalized(const AttributeType& type);

// The normalized copy slapd stores for `value` of `type`.
// REQUIRES: MdbStoresNormalized(type). InvalidArgument (origin kInput) when
// the value has no key under the rule: slapadd rejects such an entry.
Status MdbNormalizedValue(const Schema& schema, const AttributeType& type, std::string_view value,
                          std::string* out);

// slapd's soc_flags of the class named `name_or_oid` (0 for classes slapd
// does not define itself, and for unknown names).
uint32_t SlapdObjectClassFlags(const Schema& schema, std::string_view name_or_oid);

// The id2e ocflags word of an entry whose objectClass values are `values`.
uint32_t MdbEntryOcFlags(const Schema& schema, std::span<const std::string_view> values);

}  // namespace dirload::mdb
