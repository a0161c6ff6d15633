#include "lib/format/mdb/mdb_normalized.h"

#include <array>

#include "lib/schema/attribute_type.h"
#include "lib/schema/matching_rule.h"
#include "lib/schema/normalize.h"
#include "lib/schema/object_class.h"
#include "lib/schema/schema.h"
#include "lib/util/ascii.h"

namespace dirload::mdb {
namespace {

// Equality-capable rules that slapd 2.5 defines without a normalizer
// (schema_init.c, mrule_defs: the normalize slot is NULL).
constexpr std::array<std::string_view, 12> kRulesWithoutNormalizer = {
    "2.5.13.0",                   // objectIdentifierMatch
    "2.5.13.13",                  // booleanMatch
    "2.5.13.14",                  // integerMatch
    "2.5.13.16",                  // bitStringMatch
    "2.5.13.17",                  // octetStringMatch
    "2.5.13.22",                  // presentationAddressMatch
    "2.5.13.24",                  // protocolInformationMatch
    "2.5.13.35",                  // certificateMatch
    "2.5.13.39",                  // certificateListMatch
    "2.5.13.46",                  // attributeCertificateMatch
    "1.3.6.1.4.1.4203.666.4.1",   // authPasswordMatch
    "1.3.6.1.4.1.4203.666.4.13",  // privateKeyMatch
};

// slapd's SLAP_OC_* bits (slap.h).
constexpr uint32_t kOcAlias = 0x0001;
constexpr uint32_t kOcReferral = 0x0002;
constexpr uint32_t kOcSubentry = 0x0004;
constexpr uint32_t kOcDynamicObject = 0x0008;
constexpr uint32_t kOcCollectiveAttributeSubentry = 0x0010;
constexpr uint32_t kOcGlue = 0x0020;
constexpr uint32_t kOcSyncConsumerSubentry = 0x0040;
constexpr uint32_t kOcSyncProviderSubentry = 0x0080;
constexpr uint32_t kOcEnd = 0x0100;
constexpr uint32_t kOcOperational = 0x4000;
constexpr uint32_t kOcHide = 0x8000;  // slapd built without SLAP_SCHEMA_EXPOSE
constexpr uint32_t kOcHardcode = 0x10000;

struct ClassFlags {
  std::string_view oid;
  uint32_t flags;
};

// The classes slapd defines itself (schema_prep.c oc_map); as built-in
// definitions they all carry kOcHardcode.
constexpr std::array<ClassFlags, 12> kSlapdClasses = {{
    {"2.5.6.0", 0},                                             // top
    {"1.3.6.1.4.1.1466.101.120.111", kOcOperational},           // extensibleObject
    {"2.5.6.1", kOcAlias | kOcOperational},                     // alias
    {"2.16.840.1.113730.3.2.6", kOcReferral | kOcOperational},  // referral
    {"1.3.6.1.4.1.4203.1.4.1", kOcOperational},                 // OpenLDAProotDSE
    {"2.5.17.0", kOcSubentry | kOcOperational},                 // subentry
    {"2.5.20.1", kOcOperational},                               // subschema
    {"2.5.17.2", kOcCollectiveAttributeSubentry | kOcOperational | kOcHide},
    {"1.3.6.1.4.1.1466.101.119.2", kOcDynamicObject},  // dynamicObject
    {"1.3.6.1.4.1.4203.666.3.4", kOcGlue | kOcOperational | kOcHide},
    {"1.3.6.1.4.1.4203.666.3.5", kOcSyncConsumerSubentry | kOcOperational | kOcHide},
    {"1.3.6.1.4.1.4203.666.3.6", kOcSyncProviderSubentry | kOcOperational | kOcHide},
}};

}  // namespace

bool SlapdRuleHasNormalizer(const MatchingRule& rule) {
  for (std::string_view oid : kRulesWithoutNormalizer) {
    if (rule.oid == oid) return false;
  }
  return true;
}

bool MdbStoresNormalized(const AttributeType& type) {
  return type.equality != nullptr && SlapdRuleHasNormalizer(*type.equality);
}

namespace {

// The 16 bytes of an 8-4-4-4-12 UUID, or false for anything else.
bool UuidBytes(std::string_view value, std::string* out) {
  if (value.size() != 36) return false;
  out->resize(16);
  size_t at = 0;
  for (size_t i = 0; i < value.size();) {
    if (i == 8 || i == 13 || i == 18 || i == 23) {
      if (value[i++] != '-') return false;
      continue;
    }
    const int hi = HexDigitValue(value[i]);
    const int lo = HexDigitValue(value[i + 1]);
    if (hi < 0 || lo < 0) return false;
    (*out)[at++] = static_cast<char>(hi << 4 | lo);
    i += 2;
  }
  return true;
}

}  // namespace

Status MdbNormalizedValue(const Schema& schema, const AttributeType& type, std::string_view value,
                          std::string* out) {
  // UUIDNormalize keeps the 16 bytes the hex digits spell: each entry's
  // entryUUID, on the writing thread, goes straight to them.
  const bool uuid = type.equality != nullptr && type.equality->normalizer == Normalizer::kUuid;
  if (uuid && UuidBytes(value, out)) return Status::Ok();
  Status st = NormalizeEquality(schema, type, value, out);
  if (!st.ok()) {
    return st.WithPrefix(std::string(type.name()) + ": ").WithOrigin(ErrorOrigin::kInput);
  }
  if (uuid) {
    // The text normalizer, there for its message, accepts no more than
    // UuidBytes: this is not reached.
    return Status::InvalidArgument(std::string(type.name()) + ": not a UUID: " + std::string(value))
        .WithOrigin(ErrorOrigin::kInput);
  }
  return Status::Ok();
}

uint32_t SlapdObjectClassFlags(const Schema& schema, std::string_view name_or_oid) {
  const ObjectClass* oc = schema.FindObjectClass(name_or_oid);
  if (oc == nullptr) return 0;
  for (const ClassFlags& c : kSlapdClasses) {
    if (oc->oid == c.oid) return c.flags | kOcHardcode;
  }
  return 0;
}

uint32_t MdbEntryOcFlags(const Schema& schema, std::span<const std::string_view> values) {
  uint32_t flags = kOcEnd;
  for (std::string_view v : values) flags |= SlapdObjectClassFlags(schema, v);
  return flags;
}

}  // namespace dirload::mdb
