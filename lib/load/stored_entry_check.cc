// EntryChecker::CheckStored: the check of an entry a database already holds,
// against the schema as it is now (schema-check, slapschema's job). The
// entry comes decoded from its record, its descriptions named by the
// database's dictionary, so nothing is copied into a record, described by
// name or put in stored order; and it is checked in the order of slapd's
// entry_schema_check, so that an entry breaking several rules is refused for
// the rule slapschema names.
#include <algorithm>
#include <string>

#include "lib/load/entry_checker.h"
#include "lib/schema/dn.h"
#include "lib/schema/normalize.h"

namespace dirload {

const EntryChecker::DescriptionInfo& EntryChecker::DescribeStored(
    uint32_t id, const AttributeDictionary& dictionary) {
  if (id >= stored_descriptions_.size()) stored_descriptions_.resize(id + 1, nullptr);
  const DescriptionInfo*& info = stored_descriptions_[id];
  if (info == nullptr) info = &Describe(dictionary.Name(id));
  return *info;
}

Status EntryChecker::CheckStored(const EntryView& entry, const AttributeDictionary& dictionary,
                                 bool check_values) {
  const std::string_view dn = entry.dn;
  const std::vector<ValueRef>& values = entry.values;
  ++entry_number_;
  violation_ = SchemaViolation::kNone;
  if (seen_.size() < schema_->attribute_types().size()) {
    seen_.resize(schema_->attribute_types().size(), 0);
  }
  present_.clear();
  norms_used_ = 0;
  entry_classes_.clear();
  // Only the leftmost RDN is the entry's to answer for: slapd takes a
  // stored entry's normalized name from the database, and an RDN the schema
  // can no longer match is a naming violation, found below.
  Status name = ParseLeftmostRdn(dn, &naming_rdn_);
  if (!name.ok()) return Violation(SchemaViolation::kInvalidDnSyntax, std::move(name));

  std::string_view stored_structural, unknown_class;
  bool has_object_class = false;
  const DescriptionInfo* repeated_single = nullptr;
  for (uint32_t i = 0; i < values.size(); ++i) {
    const ValueRef& v = values[i];
    if (v.description >= dictionary.size()) {
      return Status::Corruption("entry '" + std::string(dn) +
                                "' names an unknown attribute description id");
    }
    const DescriptionInfo& info = DescribeStored(v.description, dictionary);
    if (!info.error.ok()) {
      return Violation(info.error_is_syntax ? SchemaViolation::kInvalidAttributeSyntax
                                            : SchemaViolation::kUndefinedAttributeType,
                       info.error);
    }
    int32_t norm = -1;
    if (check_values) {
      DIRLOAD_RETURN_IF_ERROR(
          CheckValue(info, dictionary.Name(v.description), v.value, &norm, /*remember=*/true));
    }
    const AttributeType* type = info.type;
    if (type == object_class_type_) {
      has_object_class = true;
      const ObjectClass* oc = FindClass(v.value);
      if (oc != nullptr) {
        entry_classes_.push_back(oc);
      } else if (unknown_class.data() == nullptr) {
        unknown_class = v.value;
      }
    } else if (type == structural_type_ && stored_structural.data() == nullptr) {
      stored_structural = v.value;
    }
    if (type->single_value && repeated_single == nullptr) {
      if (single_seen_.size() < canonical_ids_.size()) {
        single_seen_.resize(canonical_ids_.size(), 0);
      }
      uint64_t& seen = single_seen_[info.canonical];
      if (seen == entry_number_) repeated_single = &info;
      seen = entry_number_;
    }
    seen_[type->id] = entry_number_;
    present_.push_back({&info, v.value, 0, i, norm});
  }

  if (repeated_single != nullptr) {
    return Violation(SchemaViolation::kConstraintViolation,
                     Status::InvalidArgument("attribute '" + repeated_single->canonical_name +
                                             "' is single-valued but has more than one value"));
  }
  if (!has_object_class) {
    return Violation(SchemaViolation::kObjectClassViolation,
                     Status::InvalidArgument("no objectClass attribute"));
  }
  if (stored_structural.data() == nullptr) {
    return Violation(SchemaViolation::kOther,
                     Status::InvalidArgument("no structuralObjectClass operational attribute"));
  }
  if (unknown_class.data() != nullptr) {
    return Violation(
        SchemaViolation::kObjectClassViolation,
        Status::InvalidArgument("object class '" + std::string(unknown_class) + "' is undefined"));
  }
  const ClassSetInfo& set = ClassSet(&entry_classes_);
  if (!set.error.ok()) return Violation(SchemaViolation::kObjectClassViolation, set.error);
  DIRLOAD_RETURN_IF_ERROR(CheckStoredStructural(stored_structural, set));
  // slapd does not ask a glue entry (a placeholder for a missing parent)
  // for its RDN's values.
  const bool glue =
      glue_class_ != nullptr &&
      std::find(entry_classes_.begin(), entry_classes_.end(), glue_class_) != entry_classes_.end();
  if (!glue) DIRLOAD_RETURN_IF_ERROR(CheckNaming(entry.normalized));
  return CheckMustMay(set);
}

Status EntryChecker::CheckStoredStructural(std::string_view stored, const ClassSetInfo& set) {
  const ObjectClass* was = FindClass(stored);
  if (was == nullptr) {
    return Violation(SchemaViolation::kObjectClassViolation,
                     Status::InvalidArgument("unrecognized structuralObjectClass '" +
                                             std::string(stored) + "'"));
  }
  if (was->kind != ObjectClassKind::kStructural) {
    return Violation(SchemaViolation::kOther,
                     Status::InvalidArgument("structuralObjectClass '" + std::string(stored) +
                                             "' is not STRUCTURAL"));
  }
  if (was->obsolete) {
    return Violation(
        SchemaViolation::kObjectClassViolation,
        Status::InvalidArgument("structuralObjectClass '" + std::string(stored) + "' is OBSOLETE"));
  }
  // A glue entry's class may give way to the real one (slapd's manage
  // rights do the same for any entry; schema-check has none).
  if (was != set.structural && was != glue_class_) {
    return Violation(SchemaViolation::kNoObjectClassMods,
                     Status::InvalidArgument(
                         "structural object class modification from '" + std::string(stored) +
                         "' to '" + std::string(set.structural->name()) + "' not allowed"));
  }
  return Status::Ok();
}

Status EntryChecker::CheckNaming(const std::vector<std::string_view>& stored) {
  if (naming_rdn_.empty()) return Status::Ok();
  auto naming = [&](const Ava& ava, const char* what) {
    return Violation(SchemaViolation::kNamingViolation,
                     Status::InvalidArgument("naming attribute '" + ava.type + "' " + what));
  };
  for (const Ava& ava : naming_rdn_.rdns[0]) {
    if (ava.ber) {
      return Violation(SchemaViolation::kNamingViolation,
                       Status::InvalidArgument("value of naming attribute '" + ava.type +
                                               "' in unsupported BER form"));
    }
    const AttributeType* type = schema_->FindAttribute(ava.type);
    if (type == nullptr) {
      return Violation(
          SchemaViolation::kUndefinedAttributeType,
          Status::InvalidArgument("attribute type '" + ava.type + "' is undefined (in RDN)"));
    }
    if (type->operational()) return naming(ava, "is operational");
    if (type->collective) return naming(ava, "is collective");
    if (type->obsolete) return naming(ava, "is obsolete");
    if (type->equality == nullptr) return naming(ava, "has no equality matching rule");
    // The attribute of exactly that description: cn;lang-en does not name
    // an entry cn=x.
    const uint32_t plain = Describe(type->name()).canonical;
    bool present = false, found = false;
    for (const Present& p : present_) {
      if (p.info->canonical != plain) continue;
      if (!present) {
        present = true;
        if (!NormalizeEquality(*schema_, *type, ava.value, &naming_want_).ok()) {
          return Violation(
              SchemaViolation::kNamingViolation,
              Status::InvalidArgument("value of naming attribute '" + ava.type + "' is invalid"));
        }
      }
      std::string_view have;
      if (p.index < stored.size() && stored[p.index].data() != nullptr) {
        have = stored[p.index];
      } else if (p.norm >= 0) {
        have = norms_[static_cast<size_t>(p.norm)];
      } else if (NormalizeEquality(*schema_, *type, p.value, &naming_have_).ok()) {
        have = naming_have_;
      } else {
        continue;
      }
      if (have == naming_want_) {
        found = true;
        break;
      }
    }
    if (!present) return naming(ava, "is not present in entry");
    if (!found) {
      return Violation(SchemaViolation::kNamingViolation,
                       Status::InvalidArgument("value of naming attribute '" + ava.type +
                                               "' is not present in entry"));
    }
  }
  return Status::Ok();
}

}  // namespace dirload
