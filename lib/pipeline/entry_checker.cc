#include "lib/pipeline/entry_checker.h"

#include <algorithm>
#include <unordered_map>

#include "lib/schema/dn.h"
#include "lib/schema/normalize.h"

namespace dirload {

Result<std::string> EntryChecker::NormalizeDn(std::string_view dn) const {
  return dirload::NormalizeDn(*schema_, dn);
}

std::string EntryChecker::ParentOf(std::string_view ndn) const {
  return std::string(ParentDn(ndn));
}

bool EntryChecker::IsUnder(std::string_view ndn, std::string_view nbase) const {
  return dirload::IsUnder(ndn, nbase);
}

std::string EntryChecker::SortKey(std::string_view ndn) const { return DnSortKey(ndn); }

namespace {

struct Present {
  const AttributeType* type;
  std::string description;  // canonical, for SINGLE-VALUE and duplicates
  std::string_view value;
};

}  // namespace

Status EntryChecker::CheckEntry(const ldif::Record& record) const {
  if (!check_schema_) return Status::Ok();
  std::vector<Present> attrs;
  attrs.reserve(record.size());
  std::vector<const ObjectClass*> classes;
  bool extensible = false;
  const AttributeType* object_class_type = schema_->FindAttribute("objectClass");

  for (size_t i = 0; i < record.size(); ++i) {
    ldif::AttributeView a = record.attribute(i);
    Result<AttributeDescription> ad = schema_->ParseAttributeDescription(a.description);
    if (!ad.ok()) {
      if (ad.status().code() == StatusCode::kNotFound) {
        return Status::InvalidArgument("attribute type '" + std::string(a.description) +
                                       "' is undefined");
      }
      return Status::InvalidArgument(ad.status().message());
    }
    Status valid = ValidateValue(*ad->type, a.value);
    if (!valid.ok()) {
      return Status::InvalidArgument("invalid value for '" + std::string(a.description) +
                                     "': " + valid.message());
    }
    if (ad->type == object_class_type) {
      const ObjectClass* oc = schema_->FindObjectClass(a.value);
      if (oc == nullptr) {
        return Status::InvalidArgument("object class '" + std::string(a.value) +
                                       "' is undefined");
      }
      extensible |= schema_internal::EqualsIgnoreCase(oc->name(), "extensibleObject");
      classes.push_back(oc);
    }
    attrs.push_back({ad->type, ad->ToString(), a.value});
  }
  if (classes.empty()) return Status::InvalidArgument("no objectClass attribute");

  // Exactly one chain of structural classes: one of them derives from all others.
  const ObjectClass* structural = nullptr;
  for (const ObjectClass* oc : classes) {
    if (oc->kind != ObjectClassKind::kStructural) continue;
    if (structural == nullptr || oc->IsSubclassOf(structural)) {
      structural = oc;
    } else if (!structural->IsSubclassOf(oc)) {
      return Status::InvalidArgument("structural object classes '" + std::string(structural->name()) +
                                     "' and '" + std::string(oc->name()) +
                                     "' do not form one chain");
    }
  }
  if (structural == nullptr) return Status::InvalidArgument("no structural object class");

  for (const ObjectClass* oc : classes) {
    for (const AttributeType* must : oc->all_must) {
      bool found = std::any_of(attrs.begin(), attrs.end(),
                               [&](const Present& p) { return p.type == must; });
      if (!found) {
        return Status::InvalidArgument("object class '" + std::string(oc->name()) +
                                       "' requires attribute '" + std::string(must->name()) +
                                       "', which is missing");
      }
    }
  }
  if (!extensible) {
    for (const Present& p : attrs) {
      if (p.type->operational()) continue;
      bool allowed = std::any_of(classes.begin(), classes.end(),
                                 [&](const ObjectClass* oc) { return oc->Allows(p.type); });
      if (!allowed) {
        return Status::InvalidArgument("attribute '" + std::string(p.type->name()) +
                                       "' is not allowed by the entry's object classes");
      }
    }
  }

  // SINGLE-VALUE and duplicate values, per description (cn and cn;lang-en are
  // separate attributes).
  std::unordered_map<std::string_view, std::vector<const Present*>> by_description;
  for (const Present& p : attrs) by_description[p.description].push_back(&p);
  for (auto& [desc, values] : by_description) {
    if (values.size() < 2) continue;
    const AttributeType* type = values[0]->type;
    if (type->single_value) {
      return Status::InvalidArgument("attribute '" + std::string(desc) +
                                     "' is single-valued but has " +
                                     std::to_string(values.size()) + " values");
    }
    if (type->equality == nullptr) continue;
    std::vector<std::string> keys;
    for (const Present* p : values) {
      Result<std::string> key = NormalizeEquality(*schema_, *type, p->value);
      if (!key.ok()) {
        return Status::InvalidArgument("invalid value for '" + std::string(desc) +
                                       "': " + key.status().message());
      }
      keys.push_back(std::move(*key));
    }
    std::sort(keys.begin(), keys.end());
    if (std::adjacent_find(keys.begin(), keys.end()) != keys.end()) {
      return Status::InvalidArgument("attribute '" + std::string(desc) +
                                     "' has the same value twice");
    }
  }

  // The RDN's values must be values of the entry.
  Result<Dn> dn = ParseDn(record.dn());
  if (dn.ok() && !dn->empty()) {
    for (const Ava& ava : dn->rdns[0]) {
      const AttributeType* type = schema_->FindAttribute(ava.type);
      if (type == nullptr || type->equality == nullptr) continue;
      Result<std::string> want = NormalizeEquality(*schema_, *type, ava.value);
      if (!want.ok()) continue;  // NormalizeDn already accepted the DN
      bool found = false;
      for (const Present& p : attrs) {
        if (p.type != type) continue;
        Result<std::string> have = NormalizeEquality(*schema_, *type, p.value);
        if (have.ok() && *have == *want) {
          found = true;
          break;
        }
      }
      if (!found) {
        return Status::InvalidArgument("naming attribute '" + std::string(type->name()) +
                                       "' of the RDN has no value '" + ava.value +
                                       "' in the entry");
      }
    }
  }
  return Status::Ok();
}

}  // namespace dirload
