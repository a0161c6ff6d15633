#include "lib/pipeline/entry_checker.h"

#include <algorithm>

#include "lib/schema/normalize.h"

namespace dirload {

EntryChecker::EntryChecker(const Schema* schema, bool check_schema)
    : schema_(schema),
      check_schema_(check_schema),
      object_class_type_(schema->FindAttribute("objectClass")) {}

Status EntryChecker::CheckDn(std::string_view dn, Dn* parsed, std::string* ndn) const {
  Result<Dn> d = ParseDn(dn);
  if (!d.ok()) return d.status();
  *parsed = std::move(*d);
  return dirload::NormalizeDn(*schema_, *parsed, ndn);
}

Result<std::string> EntryChecker::NormalizeDn(std::string_view dn) const {
  return dirload::NormalizeDn(*schema_, dn);
}

std::string EntryChecker::ParentOf(std::string_view ndn) { return std::string(ParentDn(ndn)); }

bool EntryChecker::IsUnder(std::string_view ndn, std::string_view nbase) {
  return dirload::IsUnder(ndn, nbase);
}

std::string EntryChecker::SortKey(std::string_view ndn) { return DnSortKey(ndn); }

const EntryChecker::DescriptionInfo& EntryChecker::Describe(std::string_view description) {
  auto it = descriptions_.find(description);
  if (it != descriptions_.end()) return it->second;
  DescriptionInfo info;
  Result<AttributeDescription> ad = schema_->ParseAttributeDescription(description);
  if (!ad.ok()) {
    info.error = ad.status().code() == StatusCode::kNotFound
                     ? Status::InvalidArgument("attribute type '" + std::string(description) +
                                               "' is undefined")
                     : Status::InvalidArgument(ad.status().message());
  } else {
    info.type = ad->type;
    info.canonical_name = ad->ToString();
    auto [c, inserted] = canonical_ids_.emplace(info.canonical_name, canonical_ids_.size());
    info.canonical = c->second;
  }
  return descriptions_.emplace(std::string(description), std::move(info)).first->second;
}

const ObjectClass* EntryChecker::FindClass(std::string_view name) {
  auto it = classes_.find(name);
  if (it != classes_.end()) return it->second;
  const ObjectClass* oc = schema_->FindObjectClass(name);
  classes_.emplace(std::string(name), oc);
  return oc;
}

const EntryChecker::ClassSetInfo& EntryChecker::ClassSet(std::vector<const ObjectClass*>* classes) {
  std::sort(classes->begin(), classes->end());
  classes->erase(std::unique(classes->begin(), classes->end()), classes->end());
  std::string key;
  for (const ObjectClass* oc : *classes) {
    key.append(reinterpret_cast<const char*>(&oc->id), sizeof oc->id);
  }
  auto it = class_sets_.find(key);
  if (it != class_sets_.end()) return it->second;

  ClassSetInfo info;
  info.allowed.assign(schema_->attribute_types().size(), false);
  // Exactly one chain of structural classes: one of them derives from all others.
  const ObjectClass* structural = nullptr;
  for (const ObjectClass* oc : *classes) {
    info.extensible |= schema_internal::EqualsIgnoreCase(oc->name(), "extensibleObject");
    for (const AttributeType* t : oc->all_must) {
      info.must.push_back({oc, t});
      info.allowed[t->id] = true;
    }
    for (const AttributeType* t : oc->all_may) info.allowed[t->id] = true;
    if (oc->kind != ObjectClassKind::kStructural || !info.error.ok()) continue;
    if (structural == nullptr || oc->IsSubclassOf(structural)) {
      structural = oc;
    } else if (!structural->IsSubclassOf(oc)) {
      info.error = Status::InvalidArgument(
          "structural object classes '" + std::string(structural->name()) + "' and '" +
          std::string(oc->name()) + "' do not form one chain");
    }
  }
  if (structural == nullptr && info.error.ok()) {
    info.error = Status::InvalidArgument("no structural object class");
  }
  return class_sets_.emplace(std::move(key), std::move(info)).first->second;
}

Status EntryChecker::CheckEntry(const ldif::Record& record, const Dn& dn) {
  if (!check_schema_) return Status::Ok();
  ++entry_number_;
  if (seen_.size() < schema_->attribute_types().size()) {
    seen_.resize(schema_->attribute_types().size(), 0);
  }
  present_.clear();
  entry_classes_.clear();
  for (size_t i = 0; i < record.size(); ++i) {
    ldif::AttributeView a = record.attribute(i);
    const DescriptionInfo& info = Describe(a.description);
    if (!info.error.ok()) return info.error;
    Status valid = ValidateValue(*info.type, a.value);
    if (!valid.ok()) {
      return Status::InvalidArgument("invalid value for '" + std::string(a.description) +
                                     "': " + valid.message());
    }
    if (info.type == object_class_type_) {
      const ObjectClass* oc = FindClass(a.value);
      if (oc == nullptr) {
        return Status::InvalidArgument("object class '" + std::string(a.value) +
                                       "' is undefined");
      }
      entry_classes_.push_back(oc);
    }
    seen_[info.type->id] = entry_number_;
    present_.push_back({&info, a.value});
  }
  if (entry_classes_.empty()) return Status::InvalidArgument("no objectClass attribute");
  const ClassSetInfo& set = ClassSet(&entry_classes_);
  if (!set.error.ok()) return set.error;
  for (const auto& [oc, must] : set.must) {
    if (seen_[must->id] != entry_number_) {
      return Status::InvalidArgument("object class '" + std::string(oc->name()) +
                                     "' requires attribute '" + std::string(must->name()) +
                                     "', which is missing");
    }
  }
  if (!set.extensible) {
    for (const Present& p : present_) {
      if (!p.info->type->operational() && !set.allowed[p.info->type->id]) {
        return Status::InvalidArgument("attribute '" + std::string(p.info->type->name()) +
                                       "' is not allowed by the entry's object classes");
      }
    }
  }

  // SINGLE-VALUE and repeated values, per description (cn and cn;lang-en are
  // separate attributes).
  by_canonical_.clear();
  for (uint32_t i = 0; i < present_.size(); ++i) by_canonical_.push_back({present_[i].info->canonical, i});
  std::sort(by_canonical_.begin(), by_canonical_.end());
  for (size_t i = 0; i < by_canonical_.size();) {
    size_t j = i + 1;
    while (j < by_canonical_.size() && by_canonical_[j].first == by_canonical_[i].first) ++j;
    if (j - i > 1) {
      const DescriptionInfo& info = *present_[by_canonical_[i].second].info;
      if (info.type->single_value) {
        return Status::InvalidArgument("attribute '" + info.canonical_name +
                                       "' is single-valued but has " + std::to_string(j - i) +
                                       " values");
      }
      if (info.type->equality != nullptr) {
        keys_.resize(j - i);
        for (size_t k = i; k < j; ++k) {
          Status st = NormalizeEquality(*schema_, *info.type,
                                        present_[by_canonical_[k].second].value, &keys_[k - i]);
          if (!st.ok()) {
            return Status::InvalidArgument("invalid value for '" + info.canonical_name +
                                           "': " + st.message());
          }
        }
        std::sort(keys_.begin(), keys_.end());
        if (std::adjacent_find(keys_.begin(), keys_.end()) != keys_.end()) {
          return Status::InvalidArgument("attribute '" + info.canonical_name +
                                         "' has the same value twice");
        }
      }
    }
    i = j;
  }

  // The RDN's values must be values of the entry.
  if (!dn.empty()) {
    std::string want, have;
    for (const Ava& ava : dn.rdns[0]) {
      const AttributeType* type = schema_->FindAttribute(ava.type);
      if (type == nullptr || type->equality == nullptr) continue;
      if (!NormalizeEquality(*schema_, *type, ava.value, &want).ok()) continue;
      bool found = false;
      for (const Present& p : present_) {
        if (p.info->type == type && NormalizeEquality(*schema_, *type, p.value, &have).ok() &&
            have == want) {
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
