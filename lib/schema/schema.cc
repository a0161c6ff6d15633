#include "lib/schema/schema.h"

#include <algorithm>
#include <utility>

#include "lib/schema/builtin_schema.h"
#include "lib/schema/schema_loader.h"

namespace dirload {
namespace {

// Looks `key` up lower-cased, without allocating for ordinary name lengths.
template <typename Map>
auto FindLower(const Map& map, std::string_view key) {
  char buf[96];
  std::string big;
  std::string_view lowered;
  if (key.size() <= sizeof(buf)) {
    for (size_t i = 0; i < key.size(); ++i) buf[i] = AsciiLower(key[i]);
    lowered = std::string_view(buf, key.size());
  } else {
    big = AsciiLowerCopy(key);
    lowered = big;
  }
  const auto* found = map.Find(lowered);
  return found == nullptr ? nullptr : *found;
}

std::string Quote(std::string_view name, std::string_view oid) {
  return "'" + std::string(name) + "' (" + std::string(oid) + ")";
}

std::string FirstName(const std::vector<std::string>& names, const std::string& oid) {
  return names.empty() ? oid : names.front();
}

bool SameNames(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (!EqualsIgnoreCase(a[i], b[i])) return false;
  }
  return true;
}

Status CheckNameSyntax(const std::vector<std::string>& names, std::string_view what,
                       std::string_view oid) {
  if (!schema_internal::IsNumericOid(oid)) {
    return Status::InvalidArgument(std::string(what) + " OID '" + std::string(oid) +
                                   "' is not a numeric OID");
  }
  for (const std::string& n : names) {
    if (!schema_internal::IsDescr(n)) {
      return Status::InvalidArgument(std::string(what) + " " + Quote(n, oid) +
                                     ": name is not a valid descriptor");
    }
  }
  return Status::Ok();
}

// 64-bit FNV-1a, fed field by field with a separator so "ab","c" != "a","bc".
class Fnv {
 public:
  void Add(std::string_view s) {
    for (unsigned char c : s) Byte(c);
    Byte(0xFF);
  }
  void Add(uint64_t v) {
    for (int i = 0; i < 8; ++i) Byte(static_cast<unsigned char>(v >> (8 * i)));
  }
  uint64_t value() const { return h_; }

 private:
  void Byte(unsigned char c) {
    h_ ^= c;
    h_ *= 0x100000001b3ull;
  }
  uint64_t h_ = 0xcbf29ce484222325ull;
};

}  // namespace

std::string_view AttributeUsageName(AttributeUsage usage) {
  switch (usage) {
    case AttributeUsage::kUserApplications:
      return "userApplications";
    case AttributeUsage::kDirectoryOperation:
      return "directoryOperation";
    case AttributeUsage::kDistributedOperation:
      return "distributedOperation";
    case AttributeUsage::kDsaOperation:
      return "dSAOperation";
  }
  return "userApplications";
}

std::string_view ObjectClassKindName(ObjectClassKind kind) {
  switch (kind) {
    case ObjectClassKind::kAbstract:
      return "ABSTRACT";
    case ObjectClassKind::kStructural:
      return "STRUCTURAL";
    case ObjectClassKind::kAuxiliary:
      return "AUXILIARY";
  }
  return "STRUCTURAL";
}

std::string AttributeDescription::ToString() const {
  std::string out(type == nullptr ? std::string_view() : type->name());
  bool binary_written = !binary;
  for (const std::string& o : options) {
    // slapd files ";binary" among the sorted tags, before the first one that
    // sorts after it.
    if (!binary_written && o > "binary") {
      out += ";binary";
      binary_written = true;
    }
    out.push_back(';');
    out += o;
  }
  if (!binary_written) out += ";binary";
  return out;
}

Schema::Schema() {
  for (const Syntax& s : BuiltinSyntaxes()) {
    auto owned = std::make_unique<Syntax>(s);
    syntax_index_.Insert(owned->oid, owned.get());
    syntaxes_.push_back(std::move(owned));
  }
}

Schema::~Schema() = default;
Schema::Schema(Schema&&) noexcept = default;
Schema& Schema::operator=(Schema&&) noexcept = default;

Result<Schema> Schema::SystemOnly() {
  Schema schema;
  DIRLOAD_RETURN_IF_ERROR(
      LoadSchemaText(&schema, schema_internal::kSystemSchemaText, "<built-in system schema>"));
  return schema;
}

Result<Schema> Schema::Builtin() {
  DIRLOAD_ASSIGN_OR_RETURN(Schema schema, SystemOnly());
  const std::pair<std::string_view, std::string_view> parts[] = {
      {schema_internal::kCoreSchemaText, "<built-in core schema>"},
      {schema_internal::kCosineSchemaText, "<built-in cosine schema>"},
      {schema_internal::kInetOrgPersonSchemaText, "<built-in inetorgperson schema>"},
      {schema_internal::kNisSchemaText, "<built-in nis schema>"},
  };
  for (const auto& [text, source] : parts) {
    DIRLOAD_RETURN_IF_ERROR(LoadSchemaText(&schema, text, source));
  }
  return schema;
}

namespace {

struct ModuleSchema {
  std::string_view name;  // base name, lower case
  std::string_view text;
  std::string_view source;
};

const ModuleSchema kModuleSchemas[] = {
    {"ppolicy", schema_internal::kPpolicySchemaText, "<built-in ppolicy module schema>"},
};

// "/usr/lib/ldap/ppolicy.la" -> "ppolicy": slapd.conf may name a module by
// path and with its libtool or shared-object suffix.
std::string ModuleBaseName(std::string_view module) {
  if (size_t slash = module.find_last_of('/'); slash != std::string_view::npos) {
    module.remove_prefix(slash + 1);
  }
  for (std::string_view suffix : {".la", ".so"}) {
    if (size_t at = module.find(suffix); at != std::string_view::npos && at > 0) {
      module = module.substr(0, at);  // also drops version tails such as .so.0
      break;
    }
  }
  return AsciiLowerCopy(module);
}

const ModuleSchema* FindModuleSchema(std::string_view module) {
  const std::string base = ModuleBaseName(module);
  for (const ModuleSchema& m : kModuleSchemas) {
    if (m.name == base) return &m;
  }
  return nullptr;
}

}  // namespace

Status AddModuleSchema(Schema* schema, std::string_view module) {
  const ModuleSchema* m = FindModuleSchema(module);
  if (m == nullptr) return Status::Ok();
  // Loading the same text twice is harmless: identical definitions are
  // accepted again without change (Schema::AddAttributeType).
  return LoadSchemaText(schema, m->text, m->source);
}

bool IsKnownSchemaModule(std::string_view module) { return FindModuleSchema(module) != nullptr; }

std::vector<std::string_view> KnownSchemaModules() {
  std::vector<std::string_view> names;
  for (const ModuleSchema& m : kModuleSchemas) names.push_back(m.name);
  return names;
}

const AttributeType* Schema::FindAttribute(std::string_view name_or_oid) const {
  return FindLower(attr_index_, name_or_oid);
}

const ObjectClass* Schema::FindObjectClass(std::string_view name_or_oid) const {
  return FindLower(oc_index_, name_or_oid);
}

const Syntax* Schema::FindSyntax(std::string_view oid) const {
  const Syntax* const* found = syntax_index_.Find(oid);
  return found == nullptr ? nullptr : *found;
}

Status Schema::AddOidMacro(std::string_view name, std::string_view oid, bool* same_again) {
  if (same_again != nullptr) *same_again = false;
  if (!schema_internal::IsDescr(name)) {
    return Status::InvalidArgument("objectidentifier name '" + std::string(name) +
                                   "' is not a valid descriptor");
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::string expanded, ExpandOid(oid));
  const std::string key = AsciiLowerCopy(name);
  if (auto it = oid_macros_.find(key); it != oid_macros_.end()) {
    if (it->second != expanded) {
      return Status::AlreadyExists("objectidentifier '" + std::string(name) +
                                   "' previously defined as '" + it->second + "', now '" +
                                   expanded + "'");
    }
    if (same_again != nullptr) *same_again = true;
    return Status::Ok();
  }
  oid_macros_.emplace(key, std::move(expanded));
  return Status::Ok();
}

Result<std::string> Schema::ExpandOid(std::string_view oid) const {
  if (schema_internal::IsNumericOid(oid)) return std::string(oid);
  const size_t colon = oid.find(':');
  const std::string_view macro = oid.substr(0, colon);
  auto it = macro.empty() ? oid_macros_.end() : oid_macros_.find(AsciiLowerCopy(macro));
  if (it == oid_macros_.end()) {
    return Status::NotFound("OID '" + std::string(oid) +
                            "' is neither numeric nor a defined objectidentifier");
  }
  if (colon == std::string_view::npos) return it->second;
  std::string expanded = it->second + "." + std::string(oid.substr(colon + 1));
  if (!schema_internal::IsNumericOid(expanded)) {
    return Status::InvalidArgument("OID '" + std::string(oid) + "' expands to '" + expanded +
                                   "', which is not a numeric OID");
  }
  return expanded;
}

Status Schema::AddSyntax(const SyntaxDescription& def) {
  if (!schema_internal::IsNumericOid(def.oid)) {
    return Status::InvalidArgument("ldapsyntax OID '" + def.oid + "' is not a numeric OID");
  }
  const Syntax* base = nullptr;
  if (!def.subst.empty()) {
    base = FindSyntax(def.subst);
    if (base == nullptr) {
      return Status::NotFound("ldapsyntax " + def.oid + ": X-SUBST syntax '" + def.subst +
                              "' not found");
    }
  }
  Syntax s;
  s.oid = def.oid;
  s.desc = def.desc;
  s.kind = base != nullptr ? base->kind : SyntaxKind::kAny;
  s.binary_transfer_required = base != nullptr && base->binary_transfer_required;
  s.human_readable = base == nullptr || base->human_readable;
  for (const SchemaExtension& x : def.extensions) {
    const bool is_true = x.values.size() == 1 && EqualsIgnoreCase(x.values[0], "TRUE");
    if (x.name == "X-BINARY-TRANSFER-REQUIRED") s.binary_transfer_required = is_true;
    if (x.name == "X-NOT-HUMAN-READABLE") s.human_readable = !is_true;
  }
  if (const Syntax* existing = FindSyntax(def.oid)) {
    if (existing->kind == s.kind &&
        existing->binary_transfer_required == s.binary_transfer_required) {
      return Status::Ok();
    }
    return Status::AlreadyExists("ldapsyntax " + def.oid + " is already defined ('" +
                                 existing->desc + "') with other properties");
  }
  auto owned = std::make_unique<Syntax>(std::move(s));
  syntax_index_.Insert(owned->oid, owned.get());
  syntaxes_.push_back(std::move(owned));
  return Status::Ok();
}

Status Schema::AddAttributeType(const AttributeTypeDescription& def) {
  const std::string shown = Quote(FirstName(def.names, def.oid), def.oid);
  DIRLOAD_RETURN_IF_ERROR(CheckNameSyntax(def.names, "attribute type", def.oid));

  auto resolve_rule = [&](const std::string& ref, MatchingRuleUsage usage,
                          std::string_view slot) -> Result<const MatchingRule*> {
    if (ref.empty()) return static_cast<const MatchingRule*>(nullptr);
    const MatchingRule* rule = FindMatchingRule(ref);
    if (rule == nullptr) {
      return Status::NotFound("attribute type " + shown + ": matching rule '" + ref +
                              "' not found");
    }
    if (rule->usage != usage) {
      return Status::InvalidArgument("attribute type " + shown + ": matching rule '" + ref +
                                     "' cannot be used for " + std::string(slot));
    }
    return rule;
  };
  const AttributeType* sup = nullptr;
  if (!def.sup.empty()) {
    sup = FindAttribute(def.sup);
    if (sup == nullptr) {
      return Status::NotFound("attribute type " + shown + ": SUP '" + def.sup + "' not found");
    }
  }
  DIRLOAD_ASSIGN_OR_RETURN(const MatchingRule* equality,
                           resolve_rule(def.equality, MatchingRuleUsage::kEquality, "EQUALITY"));
  DIRLOAD_ASSIGN_OR_RETURN(const MatchingRule* ordering,
                           resolve_rule(def.ordering, MatchingRuleUsage::kOrdering, "ORDERING"));
  DIRLOAD_ASSIGN_OR_RETURN(const MatchingRule* substr,
                           resolve_rule(def.substr, MatchingRuleUsage::kSubstrings, "SUBSTR"));
  const Syntax* syntax = nullptr;
  if (!def.syntax.empty()) {
    syntax = FindSyntax(def.syntax);
    if (syntax == nullptr) {
      return Status::NotFound("attribute type " + shown + ": syntax '" + def.syntax +
                              "' not found");
    }
  } else if (sup == nullptr) {
    return Status::InvalidArgument("attribute type " + shown + ": SYNTAX or SUP required");
  }

  // Conflicts. The same definition again is fine; anything else that reuses
  // the OID or a name is not.
  if (const AttributeType* existing = FindAttribute(def.oid)) {
    const AttributeTypeDescription& old = existing->definition;
    const bool same =
        SameNames(old.names, def.names) && old.obsolete == def.obsolete && existing->sup == sup &&
        FindMatchingRule(old.equality) == equality && FindMatchingRule(old.ordering) == ordering &&
        FindMatchingRule(old.substr) == substr && old.syntax == def.syntax &&
        old.syntax_len == def.syntax_len && old.single_value == def.single_value &&
        old.collective == def.collective && old.no_user_modification == def.no_user_modification &&
        old.usage == def.usage;
    if (same) return Status::Ok();
    return Status::AlreadyExists("attribute type " + shown + " conflicts with " +
                                 Quote(existing->name(), existing->oid) +
                                 ": same OID, different definition");
  }
  for (const std::string& n : def.names) {
    if (const AttributeType* existing = FindAttribute(n)) {
      return Status::AlreadyExists("attribute type " + shown + " conflicts with " +
                                   Quote(existing->name(), existing->oid) + ": name '" + n +
                                   "' is already taken");
    }
  }

  auto at = std::make_unique<AttributeType>();
  at->oid = def.oid;
  at->names = def.names;
  at->desc = def.desc;
  at->obsolete = def.obsolete;
  at->sup = sup;
  at->equality = equality != nullptr ? equality : (sup ? sup->equality : nullptr);
  at->ordering = ordering != nullptr ? ordering : (sup ? sup->ordering : nullptr);
  at->substr = substr != nullptr ? substr : (sup ? sup->substr : nullptr);
  at->syntax = syntax != nullptr ? syntax : sup->syntax;
  at->syntax_len = syntax != nullptr ? def.syntax_len : sup->syntax_len;
  at->single_value = def.single_value;
  at->collective = def.collective;
  at->no_user_modification = def.no_user_modification;
  at->usage = def.usage;
  at->extensions = def.extensions;
  at->id = static_cast<uint32_t>(attrs_.size());
  at->definition = def;

  attr_index_.Insert(at->oid, at.get());
  for (const std::string& n : at->names) attr_index_.Insert(AsciiLowerCopy(n), at.get());
  attr_list_.push_back(at.get());
  attrs_.push_back(std::move(at));
  return Status::Ok();
}

Status Schema::AddObjectClass(const ObjectClassDescription& def) {
  const std::string shown = Quote(FirstName(def.names, def.oid), def.oid);
  DIRLOAD_RETURN_IF_ERROR(CheckNameSyntax(def.names, "object class", def.oid));

  std::vector<const ObjectClass*> sup;
  for (const std::string& s : def.sup) {
    const ObjectClass* oc = FindObjectClass(s);
    if (oc == nullptr) {
      return Status::NotFound("object class " + shown + ": SUP '" + s + "' not found");
    }
    sup.push_back(oc);
  }
  auto resolve_list = [&](const std::vector<std::string>& refs, std::string_view slot,
                          std::vector<const AttributeType*>* out) -> Status {
    for (const std::string& r : refs) {
      const AttributeType* at = FindAttribute(r);
      if (at == nullptr) {
        return Status::NotFound("object class " + shown + ": attribute type '" + r + "' in " +
                                std::string(slot) + " not found");
      }
      if (std::find(out->begin(), out->end(), at) == out->end()) out->push_back(at);
    }
    return Status::Ok();
  };
  std::vector<const AttributeType*> must, may;
  DIRLOAD_RETURN_IF_ERROR(resolve_list(def.must, "MUST", &must));
  DIRLOAD_RETURN_IF_ERROR(resolve_list(def.may, "MAY", &may));

  if (const ObjectClass* existing = FindObjectClass(def.oid)) {
    const ObjectClassDescription& old = existing->definition;
    const bool same = SameNames(old.names, def.names) && old.obsolete == def.obsolete &&
                      old.kind == def.kind && existing->sup == sup && existing->must == must &&
                      existing->may == may;
    if (same) return Status::Ok();
    return Status::AlreadyExists("object class " + shown + " conflicts with " +
                                 Quote(existing->name(), existing->oid) +
                                 ": same OID, different definition");
  }
  for (const std::string& n : def.names) {
    if (const ObjectClass* existing = FindObjectClass(n)) {
      return Status::AlreadyExists("object class " + shown + " conflicts with " +
                                   Quote(existing->name(), existing->oid) + ": name '" + n +
                                   "' is already taken");
    }
  }

  auto oc = std::make_unique<ObjectClass>();
  oc->oid = def.oid;
  oc->names = def.names;
  oc->desc = def.desc;
  oc->obsolete = def.obsolete;
  oc->kind = def.kind;
  oc->sup = sup;
  oc->must = must;
  oc->may = may;
  oc->extensions = def.extensions;
  oc->id = static_cast<uint32_t>(ocs_.size());
  oc->definition = def;
  // Ancestors, nearest first: each superclass followed by its own ancestors.
  for (const ObjectClass* s : sup) {
    auto add = [&](const ObjectClass* c) {
      if (std::find(oc->superclasses.begin(), oc->superclasses.end(), c) ==
          oc->superclasses.end()) {
        oc->superclasses.push_back(c);
      }
    };
    add(s);
    for (const ObjectClass* a : s->superclasses) add(a);
  }
  auto append_unique = [](std::vector<const AttributeType*>* to,
                          const std::vector<const AttributeType*>& from) {
    for (const AttributeType* at : from) {
      if (std::find(to->begin(), to->end(), at) == to->end()) to->push_back(at);
    }
  };
  append_unique(&oc->all_must, must);
  for (const ObjectClass* a : oc->superclasses) append_unique(&oc->all_must, a->must);
  std::vector<const AttributeType*> may_all = may;
  for (const ObjectClass* a : oc->superclasses) append_unique(&may_all, a->may);
  for (const AttributeType* at : may_all) {
    if (std::find(oc->all_must.begin(), oc->all_must.end(), at) == oc->all_must.end()) {
      oc->all_may.push_back(at);
    }
  }

  oc_index_.Insert(oc->oid, oc.get());
  for (const std::string& n : oc->names) oc_index_.Insert(AsciiLowerCopy(n), oc.get());
  oc_list_.push_back(oc.get());
  ocs_.push_back(std::move(oc));
  return Status::Ok();
}

Result<AttributeDescription> Schema::ParseAttributeDescription(std::string_view text) const {
  // slapd's limits on the tagging options of one description.
  constexpr size_t kMaxTags = 128;
  constexpr size_t kMaxTagBytes = 1024;
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("attribute description '" + std::string(text) +
                                   "': " + std::string(why));
  };
  if (text.empty()) return bad("empty");
  // As in slapd, '.' may appear anywhere after the first character, and '='
  // too once a declared option ends in '='.
  const bool equals = attribute_options_.allows_equals();
  for (char c : text) {
    if (!schema_internal::IsKeyChar(c) && c != '.' && c != ';' && !(equals && c == '=')) {
      return bad("contains inappropriate characters");
    }
  }
  size_t semi = text.find(';');
  const std::string_view type_name = text.substr(0, semi);
  if (type_name.empty()) return bad("empty attribute type");
  AttributeDescription ad;
  ad.type = FindAttribute(type_name);
  if (ad.type == nullptr) {
    return Status::NotFound("attribute description '" + std::string(text) +
                            "': attribute type undefined");
  }
  if (ad.type->operational() && semi != std::string_view::npos) {
    return bad("operational attribute with options undefined");
  }
  size_t tag_bytes = 0;
  while (semi != std::string_view::npos) {
    const size_t start = semi + 1;
    semi = text.find(';', start);
    const std::string_view opt =
        text.substr(start, semi == std::string_view::npos ? std::string_view::npos : semi - start);
    if (opt.empty()) return bad("zero length option is invalid");
    if (EqualsIgnoreCase(opt, "binary")) {
      if (ad.binary) return bad("option \"binary\" specified multiple times");
      if (!ad.type->syntax->binary_transfer_required) {
        return bad("option \"binary\" not supported with type '" + std::string(ad.type->name()) +
                   "'");
      }
      ad.binary = true;
    } else if (attribute_options_.Accepts(opt)) {
      // Both limits are checked before duplicates are dropped, as slapd does.
      if (ad.options.size() >= kMaxTags) return bad("too many tagging options");
      tag_bytes += opt.size() + 1;
      std::string lower = AsciiLowerCopy(opt);
      auto at = std::lower_bound(ad.options.begin(), ad.options.end(), lower);
      if (at != ad.options.end() && *at == lower) continue;  // a duplicate: ignored
      ad.options.insert(at, std::move(lower));
    } else {
      return bad("unrecognized option '" + std::string(opt) + "'");
    }
  }
  if (tag_bytes > kMaxTagBytes) return bad("tagging options too long");
  return ad;
}

bool Schema::IsSubtypeOf(const AttributeType* a, const AttributeType* b) {
  for (; a != nullptr; a = a->sup) {
    if (a == b) return true;
  }
  return false;
}

uint64_t Schema::Fingerprint() const {
  std::vector<const AttributeType*> ats(attr_list_.begin(), attr_list_.end());
  std::sort(ats.begin(), ats.end(),
            [](const AttributeType* a, const AttributeType* b) { return a->oid < b->oid; });
  std::vector<const ObjectClass*> ocs(oc_list_.begin(), oc_list_.end());
  std::sort(ocs.begin(), ocs.end(),
            [](const ObjectClass* a, const ObjectClass* b) { return a->oid < b->oid; });
  auto rule = [](const MatchingRule* r) { return r == nullptr ? std::string_view() : r->oid; };
  Fnv h;
  for (const AttributeType* at : ats) {
    h.Add(at->oid);
    for (const std::string& n : at->names) h.Add(AsciiLowerCopy(n));
    h.Add(at->sup == nullptr ? std::string_view() : std::string_view(at->sup->oid));
    h.Add(rule(at->equality));
    h.Add(rule(at->ordering));
    h.Add(rule(at->substr));
    h.Add(at->syntax->oid);
    h.Add(static_cast<uint64_t>(at->single_value) | (static_cast<uint64_t>(at->collective) << 1) |
          (static_cast<uint64_t>(at->no_user_modification) << 2) |
          (static_cast<uint64_t>(at->usage) << 3));
  }
  for (const ObjectClass* oc : ocs) {
    h.Add(oc->oid);
    for (const std::string& n : oc->names) h.Add(AsciiLowerCopy(n));
    h.Add(static_cast<uint64_t>(oc->kind));
    for (const ObjectClass* s : oc->sup) h.Add(s->oid);
    h.Add("MUST");
    for (const AttributeType* at : oc->must) h.Add(at->oid);
    h.Add("MAY");
    for (const AttributeType* at : oc->may) h.Add(at->oid);
  }
  return h.value();
}

}  // namespace dirload
