#include "lib/load/entry_checker.h"

#include <algorithm>

#include "lib/schema/normalize.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// Whether normalising `value` with `n` could fail. The string rules fail only
// on malformed UTF-8 or Unicode they cannot prepare, never on ASCII, and the
// IA5 rules never fail: for most values the check is a byte scan, not a
// normalisation.
bool NormalizationCanFail(Normalizer n, std::string_view value) {
  switch (n) {
    case Normalizer::kOctetString:
    case Normalizer::kCaseIgnoreIA5:
    case Normalizer::kCaseExactIA5:
      return false;
    case Normalizer::kCaseIgnore:
    case Normalizer::kCaseExact:
    case Normalizer::kCaseIgnoreList:
      return !IsAllAscii(value);
    default:
      return true;
  }
}

}  // namespace

EntryChecker::EntryChecker(const Schema* schema, bool check_schema, RepeatedValues repeated)
    : schema_(schema),
      check_schema_(check_schema),
      repeated_(repeated),
      dns_(schema),
      object_class_type_(schema->FindAttribute("objectClass")),
      entry_csn_type_(schema->FindAttribute("entryCSN")),
      structural_type_(schema->FindAttribute("structuralObjectClass")),
      glue_class_(schema->FindObjectClass("glue")) {
  for (size_t i = 0; i < kOperationalAttributeCount; ++i) {
    operational_types_[i] = schema->FindAttribute(kOperationalAttributeNames[i]);
  }
}

Status EntryChecker::CheckDn(std::string_view dn, Dn* parsed, std::string* ndn) {
  Result<Dn> d = ParseDn(dn);
  if (!d.ok()) return d.status();
  *parsed = std::move(*d);
  // The same normal form from the text, with the parents' names cached; a
  // failure is told as NormalizeDn tells it for the parsed name.
  if (dns_.Normalize(dn, ndn).ok()) return Status::Ok();
  return dirload::NormalizeDn(*schema_, *parsed, ndn);
}

Status EntryChecker::CheckName(std::string_view dn, Dn* leftmost, std::string* ndn,
                               std::string* pretty, std::string* pretty_rdn) {
  if (IsPlainDn(dn)) {
    const std::string_view rdn = dn.substr(0, std::min(dn.find(','), dn.size()));
    if (ParseDn(rdn, leftmost).ok() && leftmost->size() == 1 && dns_.Normalize(dn, ndn).ok()) {
      pretty->assign(dn);
      pretty_rdn->assign(rdn);
      return Status::Ok();
    }
  }
  // Anything else, and any failure, the whole way (its errors are CheckDn's).
  Dn parsed;
  DIRLOAD_RETURN_IF_ERROR(CheckDn(dn, &parsed, ndn));
  *pretty = parsed.ToString();
  pretty_rdn->clear();
  if (!parsed.empty()) {
    parsed.rdns.resize(1);
    *pretty_rdn = parsed.ToString();
  }
  *leftmost = std::move(parsed);
  return Status::Ok();
}

Result<std::string> EntryChecker::NormalizeDn(std::string_view dn) const {
  return dirload::NormalizeDn(*schema_, dn);
}

std::string EntryChecker::ParentOf(std::string_view ndn) { return std::string(ParentDn(ndn)); }

std::string_view EntryChecker::ParentView(std::string_view ndn) { return ParentDn(ndn); }

bool EntryChecker::IsUnder(std::string_view ndn, std::string_view nbase) {
  return dirload::IsUnder(ndn, nbase);
}

std::string EntryChecker::SortKey(std::string_view ndn) { return DnSortKey(ndn); }

int SchemaViolationCode(SchemaViolation v) {
  switch (v) {
    case SchemaViolation::kNone:
      return 0;
    case SchemaViolation::kUndefinedAttributeType:
      return 17;
    case SchemaViolation::kConstraintViolation:
      return 19;
    case SchemaViolation::kAttributeOrValueExists:
      return 20;
    case SchemaViolation::kInvalidAttributeSyntax:
      return 21;
    case SchemaViolation::kNamingViolation:
      return 64;
    case SchemaViolation::kObjectClassViolation:
      return 65;
    case SchemaViolation::kInvalidDnSyntax:
      return 34;
    case SchemaViolation::kNoObjectClassMods:
      return 69;
    case SchemaViolation::kOther:
      return 80;
  }
  return 80;
}

const char* SchemaViolationName(SchemaViolation v) {
  switch (v) {
    case SchemaViolation::kNone:
      return "Success";
    case SchemaViolation::kUndefinedAttributeType:
      return "Undefined attribute type";
    case SchemaViolation::kConstraintViolation:
      return "Constraint violation";
    case SchemaViolation::kAttributeOrValueExists:
      return "Type or value exists";
    case SchemaViolation::kInvalidAttributeSyntax:
      return "Invalid syntax";
    case SchemaViolation::kNamingViolation:
      return "Naming violation";
    case SchemaViolation::kObjectClassViolation:
      return "Object class violation";
    case SchemaViolation::kInvalidDnSyntax:
      return "Invalid DN syntax";
    case SchemaViolation::kNoObjectClassMods:
      return "Cannot modify object class";
    case SchemaViolation::kOther:
      return "Other (e.g., implementation specific) error";
  }
  return "Other (e.g., implementation specific) error";
}

void EntryChecker::SortKey(std::string_view ndn, std::string* key) { DnSortKey(ndn, key); }

EntryChecker::DescriptionInfo& EntryChecker::Describe(std::string_view description) {
  if (DescriptionInfo* known = descriptions_.Find(description)) return *known;
  DescriptionInfo info;
  info.written = std::string(description);
  Result<AttributeDescription> ad = schema_->ParseAttributeDescription(description);
  std::string key;
  if (!ad.ok()) {
    info.error = ad.status().code() == StatusCode::kNotFound
                     ? Status::InvalidArgument("attribute type '" + std::string(description) +
                                               "' is undefined")
                     : Status::InvalidArgument(ad.status().message());
    info.error_is_syntax = ad.status().code() != StatusCode::kNotFound;
    // Kept as written when schema checking is off (slapadd -s does the same).
    info.canonical_name = std::string(description);
    key = AsciiLowerCopy(description);
  } else {
    info.type = ad->type;
    info.canonical_name = ad->ToString();
    key = info.canonical_name;
  }
  info.canonical = *canonical_ids_.Insert(key, static_cast<uint32_t>(canonical_ids_.size())).first;
  return *descriptions_.Insert(description, std::move(info)).first;
}

const ObjectClass* EntryChecker::FindClass(std::string_view name) {
  if (const ObjectClass* const* known = classes_.Find(name)) return *known;
  const ObjectClass* oc = schema_->FindObjectClass(name);
  classes_.Insert(name, oc);
  return oc;
}

const EntryChecker::ClassSetInfo& EntryChecker::ClassSet(std::vector<const ObjectClass*>* classes) {
  std::sort(classes->begin(), classes->end());
  classes->erase(std::unique(classes->begin(), classes->end()), classes->end());
  std::string& key = class_key_;
  key.clear();
  for (const ObjectClass* oc : *classes) {
    key.append(reinterpret_cast<const char*>(&oc->id), sizeof oc->id);
  }
  if (const ClassSetInfo* known = class_sets_.Find(key)) return *known;

  ClassSetInfo info;
  info.allowed.assign(schema_->attribute_types().size(), false);
  // Exactly one chain of structural classes: one of them derives from all others.
  const ObjectClass* structural = nullptr;
  for (const ObjectClass* oc : *classes) {
    info.extensible |= EqualsIgnoreCase(oc->name(), "extensibleObject");
    for (const AttributeType* t : oc->all_must) {
      info.must.push_back({oc, t});
      info.allowed[t->id] = true;
    }
    for (const AttributeType* t : oc->all_may) info.allowed[t->id] = true;
    if (oc->kind != ObjectClassKind::kStructural || !info.error.ok()) continue;
    if (structural == nullptr || oc->IsSubclassOf(structural)) {
      structural = oc;
    } else if (!structural->IsSubclassOf(oc)) {
      info.error =
          Status::InvalidArgument("structural object classes '" + std::string(structural->name()) +
                                  "' and '" + std::string(oc->name()) + "' do not form one chain");
    }
  }
  if (structural == nullptr && info.error.ok()) {
    info.error = Status::InvalidArgument("no structural object class");
  }
  info.structural = structural;
  return *class_sets_.Insert(key, std::move(info)).first;
}

Status EntryChecker::Violation(SchemaViolation kind, Status error) {
  violation_ = kind;
  return error;
}

Status EntryChecker::Prepare(const ldif::Record& record, const Dn& dn, Prepared* out) {
  ++entry_number_;
  violation_ = SchemaViolation::kNone;
  if (seen_.size() < schema_->attribute_types().size()) {
    seen_.resize(schema_->attribute_types().size(), 0);
  }
  out->values.clear();
  out->added.clear();
  out->structural = {};
  out->operational = 0;
  out->entry_csn = {};
  out->normalized.clear();
  out->repeated.clear();
  present_.clear();
  norms_used_ = 0;
  entry_classes_.clear();
  bool has_object_class = false;
  sequence_.Start();
  for (size_t i = 0; i < record.size(); ++i) {
    ldif::AttributeView a = record.attribute(i);
    const DescriptionInfo& info =
        *sequence_.Next(a.description, [this](std::string_view d) { return &Describe(d); });
    int32_t norm = -1;
    const ObjectClass* object_class = nullptr;
    // Without schema checks an undefined type is stored as written, but a
    // malformed description or an unknown option is still refused (slapadd -s
    // refuses them too).
    if (!info.error.ok() && (check_schema_ || info.error_is_syntax)) {
      return Violation(info.error_is_syntax ? SchemaViolation::kInvalidAttributeSyntax
                                            : SchemaViolation::kUndefinedAttributeType,
                       info.error);
    }
    if (check_schema_) DIRLOAD_RETURN_IF_ERROR(CheckValue(info, a.description, a.value, &norm));
    if (info.type != nullptr) {
      if (info.type == object_class_type_) {
        has_object_class = true;
        if (check_schema_) {
          const ObjectClass* oc = FindClass(a.value);
          if (oc == nullptr) {
            return Violation(SchemaViolation::kObjectClassViolation,
                             Status::InvalidArgument("object class '" + std::string(a.value) +
                                                     "' is undefined"));
          }
          entry_classes_.push_back(oc);
          object_class = oc;
        }
      }
      if (info.type == entry_csn_type_ && out->entry_csn.data() == nullptr) {
        out->entry_csn = a.value;
      }
      seen_[info.type->id] = entry_number_;
    }
    present_.push_back({&info, a.value, 0, static_cast<uint32_t>(i), norm, object_class});
  }
  // slapd checks SINGLE-VALUE first of its schema rules, so an entry that
  // breaks several is refused for this one, as slapadd and slapschema say.
  if (check_schema_) {
    if (single_seen_.size() < canonical_ids_.size()) single_seen_.resize(canonical_ids_.size(), 0);
    for (const Present& p : present_) {
      if (p.info->type == nullptr || !p.info->type->single_value) continue;
      uint64_t& seen = single_seen_[p.info->canonical];
      if (seen == entry_number_) {
        return Violation(SchemaViolation::kConstraintViolation,
                         Status::InvalidArgument("attribute '" + p.info->canonical_name +
                                                 "' is single-valued but has more than one value"));
      }
      seen = entry_number_;
    }
  }
  if (!has_object_class) {
    return Violation(SchemaViolation::kObjectClassViolation,
                     Status::InvalidArgument("no objectClass attribute"));
  }
  for (size_t i = 0; i < kOperationalAttributeCount; ++i) {
    const AttributeType* t = operational_types_[i];
    if (t != nullptr && seen_[t->id] == entry_number_) out->operational |= 1u << i;
  }

  if (check_schema_) {
    const ClassSetInfo& set = ClassSet(&entry_classes_);
    if (!set.error.ok()) return Violation(SchemaViolation::kObjectClassViolation, set.error);
    out->structural = set.structural->name();
    DIRLOAD_RETURN_IF_ERROR(CheckMustMay(set));
  }

  // RDN values the entry lacks are added, as slapadd adds them (not with -s).
  if (check_schema_ && !dn.empty()) {
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
        out->added.push_back(ava.value);
        present_.push_back({&Describe(type->name()), {}, 0, kFromDn});
      }
    }
    // `added` is complete: its strings no longer move.
    for (size_t i = 0, k = 0; i < present_.size(); ++i) {
      if (present_[i].value.data() == nullptr && k < out->added.size()) {
        present_[i].value = out->added[k++];
      }
    }
  }

  // SINGLE-VALUE per description (cn and cn;lang-en are separate attributes),
  // and the stored order: attributes by first appearance, values in order.
  if (first_rank_.size() < canonical_ids_.size()) first_rank_.resize(canonical_ids_.size(), 0);
  uint32_t ranks = 0;
  for (Present& p : present_) {
    uint32_t& r = first_rank_[p.info->canonical];
    if (r == 0) r = ++ranks;
    p.rank = r;
  }
  // Insertion sort: stable, allocates nothing, and the input is mostly in
  // order already (LDIF writers group an attribute's values).
  for (size_t i = 1; i < present_.size(); ++i) {
    Present p = present_[i];
    size_t j = i;
    for (; j > 0 && present_[j - 1].rank > p.rank; --j) present_[j] = present_[j - 1];
    present_[j] = p;
  }
  for (size_t i = 0; i < present_.size(); ++i) {
    first_rank_[present_[i].info->canonical] = 0;
    if (check_schema_ && i > 0 && present_[i].rank == present_[i - 1].rank &&
        present_[i].info->type->single_value) {
      return Violation(SchemaViolation::kConstraintViolation,
                       Status::InvalidArgument("attribute '" + present_[i].info->canonical_name +
                                               "' is single-valued but has more than one value"));
    }
    out->values.push_back({present_[i].info->canonical_name, present_[i].value});
  }
  if (Status s = CheckRepeatedValues(record, &out->repeated); !s.ok()) {
    return Violation(SchemaViolation::kAttributeOrValueExists, std::move(s));
  }
  out->normalized.reserve(present_.size());
  for (const Present& p : present_) {
    out->normalized.push_back(p.norm >= 0 ? &norms_[static_cast<size_t>(p.norm)] : nullptr);
  }
  return Status::Ok();
}

Status EntryChecker::CheckMustMay(const ClassSetInfo& set) {
  for (const auto& [oc, must] : set.must) {
    if (seen_[must->id] != entry_number_) {
      return Violation(SchemaViolation::kObjectClassViolation,
                       Status::InvalidArgument("object class '" + std::string(oc->name()) +
                                               "' requires attribute '" +
                                               std::string(must->name()) + "', which is missing"));
    }
  }
  if (set.extensible) return Status::Ok();
  for (const Present& p : present_) {
    if (!p.info->type->operational() && !set.allowed[p.info->type->id]) {
      return Violation(SchemaViolation::kObjectClassViolation,
                       Status::InvalidArgument("attribute '" + std::string(p.info->type->name()) +
                                               "' is not allowed by the entry's object classes"));
    }
  }
  return Status::Ok();
}

Status EntryChecker::CheckValue(const DescriptionInfo& info, std::string_view description,
                                std::string_view value, int32_t* norm, bool remember) {
  *norm = -1;
  // slapadd normalises every value with its equality rule and refuses the
  // entry when that fails (a member that is no DN, a time that is no time).
  // For DNs and generalized times that normalisation is also the syntax
  // check: made once.
  const MatchingRule* eq = info.type->equality;
  const bool dn_rule = eq != nullptr && eq->normalizer == Normalizer::kDistinguishedName;
  const bool time_rule = eq != nullptr && eq->normalizer == Normalizer::kGeneralizedTime &&
                         info.type->syntax != nullptr &&
                         info.type->syntax->kind == SyntaxKind::kGeneralizedTime;
  const bool normalize = eq != nullptr && SlapaddRejectsUnnormalizable(eq->normalizer) &&
                         NormalizationCanFail(eq->normalizer, value);
  RecentValue* recent = nullptr;
  if (normalize && remember) {
    if (recent_.size() <= info.canonical) recent_.resize(info.canonical + 1);
    recent = &recent_[info.canonical];
    if (recent->valid && recent->value == value) {
      if (recent->has_norm) NewNorm(norm)->assign(recent->norm);
      return Status::Ok();
    }
  }
  Status valid = dn_rule || time_rule ? Status::Ok() : ValidateValue(*info.type, value);
  if (valid.ok() && normalize) {
    // Kept: the duplicate check and the format's normalized copies use it.
    valid = dn_rule ? dns_.Normalize(value, NewNorm(norm))
                    : NormalizeEquality(*schema_, *info.type, value, NewNorm(norm));
    if (!valid.ok()) {
      *norm = -1;
      // Refused in the syntax's words, as any other value.
      if (time_rule) valid = ValidateValue(*info.type, value);
    }
  }
  if (valid.ok()) {
    if (recent != nullptr) {
      recent->valid = true;
      recent->value.assign(value);
      recent->has_norm = *norm >= 0;
      if (recent->has_norm) recent->norm.assign(norms_[static_cast<size_t>(*norm)]);
    }
    return Status::Ok();
  }
  // The schema's messages mostly name the attribute already.
  if (valid.message().rfind("attribute '", 0) == 0) {
    return Violation(SchemaViolation::kInvalidAttributeSyntax,
                     Status::InvalidArgument("invalid value: " + valid.message()));
  }
  return Violation(SchemaViolation::kInvalidAttributeSyntax,
                   Status::InvalidArgument("invalid value for '" + std::string(description) +
                                           "': " + valid.message()));
}

std::string* EntryChecker::NewNorm(int32_t* index) {
  if (norms_used_ == norms_.size()) norms_.emplace_back();
  *index = static_cast<int32_t>(norms_used_);
  return &norms_[norms_used_++];
}

Status EntryChecker::CheckRepeatedValues(const ldif::Record& record, std::string* repeated) {
  for (size_t begin = 0; begin < present_.size();) {
    size_t end = begin + 1;
    while (end < present_.size() && present_[end].rank == present_[begin].rank) ++end;
    const size_t n = end - begin;
    if (n == 1) {
      begin = end;
      continue;
    }
    // One key per value: the equality rule's, or the bytes when the type has
    // no rule or the value has no key under it. A tag byte keeps the two apart.
    const AttributeType* type = present_[begin].info->type;
    const bool classes = check_schema_ && type == object_class_type_;
    keys_.clear();
    key_spans_.clear();
    for (size_t i = begin; i < end; ++i) {
      const uint32_t at = static_cast<uint32_t>(keys_.size());
      std::string_view v = present_[i].value;
      const ObjectClass* oc = nullptr;
      if (classes) oc = present_[i].object_class ? present_[i].object_class : FindClass(v);
      if (oc != nullptr) {
        // objectIdentifierMatch: a name and its OID are one class.
        keys_.push_back('\2');
        keys_.append(reinterpret_cast<const char*>(&oc), sizeof oc);
      } else if (present_[i].norm >= 0) {
        keys_.push_back('\1');
        keys_.append(norms_[static_cast<size_t>(present_[i].norm)]);
      } else if (type != nullptr) {
        int32_t norm = -1;
        std::string* n = NewNorm(&norm);
        if (NormalizeEquality(*schema_, *type, v, n).ok()) {
          present_[i].norm = norm;
          keys_.push_back('\1');
          keys_.append(*n);
        } else {
          keys_.push_back('\0');
          keys_.append(v);
        }
      } else {
        keys_.push_back('\0');
        keys_.append(v);
      }
      key_spans_.emplace_back(at, static_cast<uint32_t>(keys_.size()) - at);
    }
    auto key = [&](size_t k) {
      return std::string_view(keys_).substr(key_spans_[k].first, key_spans_[k].second);
    };
    // The first value (in stored order) that repeats an earlier one.
    size_t first = n, second = n;
    if (n <= 16) {
      for (size_t j = 1; j < n && second == n; ++j) {
        for (size_t i = 0; i < j; ++i) {
          if (key(i) == key(j)) {
            first = i;
            second = j;
            break;
          }
        }
      }
    } else {
      order_.resize(n);
      for (size_t k = 0; k < n; ++k) order_[k] = static_cast<uint32_t>(k);
      std::stable_sort(order_.begin(), order_.end(),
                       [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
      for (size_t k = 1; k < n; ++k) {
        if (key(order_[k]) == key(order_[k - 1]) && order_[k] < second) {
          first = order_[k - 1];
          second = order_[k];
        }
      }
    }
    if (second != n) {
      const Present& a = present_[begin + first];
      const Present& b = present_[begin + second];
      auto line = [&](const Present& p) {
        return p.index == kFromDn ? record.dn_line() : record.line_of(p.index);
      };
      auto shown = [](std::string_view v) {
        bool printable = v.size() <= 128 && std::none_of(v.begin(), v.end(), [](char c) {
                           return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
                         });
        return printable ? "'" + std::string(v) + "'" : "of " + std::to_string(v.size()) + " bytes";
      };
      std::string what = "attribute '" + a.info->canonical_name + "': value " + shown(b.value) +
                         " at line " + std::to_string(line(b)) + " equals " + shown(a.value) +
                         " at line " + std::to_string(line(a));
      if (repeated_ == RepeatedValues::kReject) {
        return Status::InvalidArgument(what +
                                       " (an attribute holds each value once: "
                                       "-o repeated-values=reject)");
      }
      // The first repeat names the entry; the others are stored alike.
      *repeated = std::move(what);
      return Status::Ok();
    }
    begin = end;
  }
  return Status::Ok();
}

}  // namespace dirload
