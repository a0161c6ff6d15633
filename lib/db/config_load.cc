#include "lib/db/config_load.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "ldif/byte_source.h"
#include "ldif/reader.h"
#include "ldif/record.h"
#include "lib/config/cn_config.h"
#include "lib/config/config_schema.h"
#include "lib/config/config_tree_writer.h"
#include "lib/config/slapd_config.h"
#include "lib/load/operational_attributes.h"
#include "lib/schema/builtin_config_schema.h"
#include "lib/schema/dn.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// The one configuration database's rootdn: who slapadd says made its entries.
constexpr std::string_view kConfigRootDn = "cn=config";

struct InputEntry {
  uint64_t line = 0;
  std::string dn;  // as given, for messages
  Dn parsed;
  std::vector<std::pair<std::string, std::string>> values;  // description, value
};

Status InputError(const std::string& where, const std::string& what) {
  return Status::ParseError(where + ": " + what).WithOrigin(ErrorOrigin::kInput);
}

bool IsCnConfig(const Rdn& rdn) {
  return rdn.size() == 1 && EqualsIgnoreCase(rdn[0].type, "cn") &&
         EqualsIgnoreCase(rdn[0].value, "config");
}

// The "{N}" prefix of a value: its number and the length of the prefix.
std::optional<std::pair<long, size_t>> OrderPrefix(std::string_view v) {
  if (v.empty() || v[0] != '{') return std::nullopt;
  size_t close = v.find('}');
  if (close == std::string_view::npos) return std::nullopt;
  std::string digits(v.substr(1, close - 1));
  char* end = nullptr;
  long n = std::strtol(digits.c_str(), &end, 0);
  if (digits.empty() || end != digits.c_str() + digits.size()) return std::nullopt;
  return std::make_pair(n, close + 1);
}

// slapd's ordered_value_sort and renumbering, for an X-ORDERED 'VALUES'
// attribute.
Status OrderValues(ConfigAttribute* a, const std::string& where) {
  size_t numbered = 0;
  std::vector<long> numbers;
  for (const std::string& v : a->values) {
    if (v.starts_with("{")) {
      std::optional<std::pair<long, size_t>> p = OrderPrefix(v);
      if (!p) {
        return InputError(
            where, a->description + ": value '" + v.substr(0, 40) + "' has a malformed {N} prefix");
      }
      numbers.push_back(p->first);
      ++numbered;
    }
  }
  if (numbered != 0 && numbered != a->values.size()) {
    return InputError(where, a->description +
                                 ": some values have a {N} prefix and some not (slapadd: "
                                 "ordered_value_sort failed)");
  }
  bool renumber = numbered == 0;
  if (numbered != 0) {
    // Stable, as slapd's insertion sort.
    std::vector<size_t> order(a->values.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t x, size_t y) { return numbers[x] < numbers[y]; });
    std::vector<std::string> sorted;
    for (size_t i : order) sorted.push_back(std::move(a->values[i]));
    a->values = std::move(sorted);
    renumber = numbers[order.front()] != 0 ||
               numbers[order.back()] != static_cast<long>(a->values.size()) - 1;
  }
  if (!renumber) return Status::Ok();
  for (size_t i = 0; i < a->values.size(); ++i) {
    std::string& v = a->values[i];
    std::optional<std::pair<long, size_t>> p = OrderPrefix(v);
    v = "{" + std::to_string(i) + "}" + v.substr(p ? p->second : 0);
  }
  return Status::Ok();
}

Result<std::vector<InputEntry>> ReadInput(const std::string& path) {
  DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<ldif::ByteSource> source, ldif::OpenByteSource(path));
  ldif::Reader reader(std::move(source));
  std::vector<InputEntry> entries;
  ldif::Record record;
  while (true) {
    Result<bool> got = reader.Next(&record);
    if (!got.ok()) return got.status().WithOrigin(ErrorOrigin::kInput);
    if (!*got) break;
    const std::string where = reader.name() + ":" + std::to_string(record.line());
    if (record.kind() != ldif::RecordKind::kContent) {
      return InputError(where, "a change record; the cn=config database is loaded from entries");
    }
    InputEntry e;
    e.line = record.line();
    e.dn = std::string(record.dn());
    Result<Dn> dn = ParseDn(e.dn);
    if (!dn.ok()) return InputError(where, "'" + e.dn + "': " + dn.status().message());
    e.parsed = std::move(*dn);
    for (size_t i = 0; i < record.size(); ++i) {
      ldif::AttributeView a = record.attribute(i);
      e.values.emplace_back(std::string(a.description), std::string(a.value));
    }
    entries.push_back(std::move(e));
  }
  return entries;
}

// The entries of a slapd.d tree, each with its RDNs as stored (own first,
// from its file's path) and its values, its DN made whole.
Result<std::vector<std::pair<std::vector<std::string>, InputEntry>>> ReadExisting(
    const std::string& dir) {
  DIRLOAD_ASSIGN_OR_RETURN(CnConfigTree tree, ReadCnConfigTree(dir));
  std::vector<std::pair<std::vector<std::string>, InputEntry>> out;
  for (const auto& [path, bytes] : tree.files) {
    if (!path.ends_with(".ldif")) continue;
    std::vector<std::string> rdns;
    std::string_view rest(path.data(), path.size() - 5);
    for (;;) {
      const size_t slash = rest.find('/');
      rdns.insert(rdns.begin(), std::string(rest.substr(0, slash)));
      if (slash == std::string_view::npos) break;
      rest.remove_prefix(slash + 1);
    }
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<InputEntry> read, ReadInput(dir + "/" + path));
    if (read.size() != 1) {
      return Status::Corruption(dir + "/" + path + ": not one entry")
          .WithOrigin(ErrorOrigin::kConfiguration);
    }
    InputEntry e = std::move(read.front());
    e.dn.clear();
    for (const std::string& r : rdns) e.dn += (e.dn.empty() ? "" : ",") + r;
    Result<Dn> dn = ParseDn(e.dn);
    if (!dn.ok()) {
      return Status::Corruption(dir + "/" + path + ": " + dn.status().message())
          .WithOrigin(ErrorOrigin::kConfiguration);
    }
    e.parsed = std::move(*dn);
    out.emplace_back(std::move(rdns), std::move(e));
  }
  return out;
}

// RDN values dirload writes as file names unescaped.
bool PlainRdnValue(std::string_view v) {
  if (v.empty() || v.front() == ' ' || v.back() == ' ' || v.front() == '#') return false;
  return v.find_first_of(",+\"\\<>;=") == std::string_view::npos;
}

class ConfigLoader {
 public:
  ConfigLoader(const ConfigSchema& schema, const ConfigLoadOptions& options)
      : schema_(schema),
        operational_({std::string(kConfigRootDn), options.sid, nullptr, 0}),
        name_(options.ldif == "-" ? "<stdin>" : options.ldif) {}

  Result<ConfigTreeEntry> Take(const InputEntry& in);
  // An entry the directory holds already, by its RDNs as stored (own
  // first): a parent for the input's entries, and one more sibling of its
  // kind, so that the numbering goes on after it as slapd's does.
  void Existing(const std::vector<std::string>& rdns, const InputEntry& entry);

 private:
  struct Placed {
    std::vector<std::string> rdns;  // as stored, own first
  };

  // *renumbered: the input gave a number slapd replaces, so that its
  // children cannot name the entry by it.
  Result<std::string> PlaceRdn(const InputEntry& in, const std::string& where,
                               const std::string& parent_key, std::string* type, std::string* value,
                               bool* renumbered);

  const ConfigSchema& schema_;
  OperationalAttributes operational_;
  std::string name_;
  // By the input's DN and by the DN written, lower case, RDNs joined.
  std::map<std::string, Placed> placed_;
  std::set<std::string> written_;   // the DNs written, lower case, RDNs joined
  std::set<std::string> existing_;  // the DNs the directory holds, the same way
  // Modules loaded (by name, without directory and suffix) and overlays
  // configured (database key -> overlay names), which slapd refuses twice.
  std::set<std::string> modules_;
  std::map<std::string, std::set<std::string>> overlays_;
  // Records what `entry` loads or configures; an error when slapd already
  // has it ("" for `where`: no error, for entries already stored).
  // `parent`: the parent's RDN as stored.
  Status Loaded(const InputEntry& entry, const std::string& parent, const std::string& where);
  std::map<std::string, std::map<std::string, long>> siblings_;  // parent key -> kind -> count
  bool seen_frontend_ = false;
  bool seen_config_ = false;
};

std::string KeyOf(const Dn& dn, size_t from) {
  std::string key;
  for (size_t i = from; i < dn.rdns.size(); ++i) {
    if (!key.empty()) key += ',';
    key += AsciiLowerCopy(dn.rdns[i][0].type) + "=" + AsciiLowerCopy(dn.rdns[i][0].value);
  }
  return key;
}

Result<std::string> ConfigLoader::PlaceRdn(const InputEntry& in, const std::string& where,
                                           const std::string& parent_key, std::string* type,
                                           std::string* value, bool* renumbered) {
  *renumbered = false;
  const Ava& ava = in.parsed.rdns[0][0];
  std::optional<std::string> canonical = schema_.CanonicalAttribute(ava.type);
  if (!canonical) return InputError(where, "'" + ava.type + "': attribute type undefined");
  *type = *canonical;
  *value = ava.value;
  const std::string t = AsciiLowerCopy(*type);
  const bool prefixed = OrderPrefix(*value).has_value();
  std::map<std::string, long>& count = siblings_[parent_key];
  // The entry's number among its siblings: `n` when it has none, and when
  // it has a larger one (slapd's check_name_index gives the next free
  // number: olcDatabase={2}mdb as the first database is stored as {1}).
  auto number = [&](long n) {
    const std::optional<std::pair<long, size_t>> p = OrderPrefix(*value);
    if (!p) {
      *value = "{" + std::to_string(n) + "}" + *value;
    } else if (p->first > n) {
      *value = "{" + std::to_string(n) + "}" + value->substr(p->second);
      *renumbered = true;
    }
  };
  if (t == "olcdatabase" || t == "olcoverlay") {
    long n = count[t]++;
    if (t == "olcdatabase" && parent_key == "cn=config") {
      // {-1}frontend and {0}config come first: slapadd would make them with
      // slapd's defaults when the input does not.
      std::string_view base =
          prefixed ? std::string_view(*value).substr(OrderPrefix(*value)->second) : *value;
      const bool frontend = EqualsIgnoreCase(base, "frontend");
      const bool config = EqualsIgnoreCase(base, "config");
      if (!frontend && !seen_frontend_) {
        return InputError(where, "'" + in.dn +
                                     "' comes before olcDatabase={-1}frontend,cn=config; "
                                     "give the frontend and config database entries first (as "
                                     "slapcat -n 0 writes them)");
      }
      if (!frontend && !config && !seen_config_) {
        return InputError(where, "'" + in.dn +
                                     "' comes before olcDatabase={0}config,cn=config; give "
                                     "the frontend and config database entries first (as "
                                     "slapcat -n 0 writes them)");
      }
      seen_frontend_ |= frontend;
      seen_config_ |= config;
      --n;  // the frontend is {-1}
    }
    number(n);
  } else if (t == "cn" && parent_key == "cn=schema,cn=config") {
    number(count["schema"]++);
  } else if (t == "cn" && parent_key == "cn=config") {
    const std::string lower = AsciiLowerCopy(*value);
    for (std::string_view kind : {"module", "include"}) {
      if (!lower.starts_with(kind)) continue;
      const long n = count[std::string(kind)]++;
      // Numbered after the name: cn=module{0}. slapd appends the next
      // number to a larger one it is given (cn=module{4} as the second
      // module is stored as cn=module{4}{1}) and refuses a smaller one.
      const size_t open = value->find('{');
      const long given =
          open == std::string::npos ? n : std::strtol(value->c_str() + open + 1, nullptr, 10);
      if (given < n) {
        return InputError(where, "'" + in.dn + "': " + std::string(kind) + " number " +
                                     std::to_string(given) + " is taken (slapd: naming violation)");
      }
      if (open == std::string::npos || given > n) {
        *value += "{" + std::to_string(n) + "}";
        *renumbered = open != std::string::npos;
      }
    }
  }
  if (!PlainRdnValue(*value)) {
    return InputError(where, "'" + in.dn +
                                 "': an RDN value with characters dirload does not "
                                 "write in a file name");
  }
  return *type + "=" + *value;
}

void ConfigLoader::Existing(const std::vector<std::string>& rdns, const InputEntry& entry) {
  // Only their names matter here: refused twice, as slapd refuses them.
  if (rdns.size() > 1) (void)Loaded(entry, rdns[1], "");
  auto join = [&](size_t from) {
    std::string key;
    for (size_t i = from; i < rdns.size(); ++i) {
      if (!key.empty()) key += ',';
      key += AsciiLowerCopy(rdns[i]);
    }
    return key;
  };
  const std::string key = join(0);
  existing_.insert(key);
  placed_[key] = Placed{rdns};
  if (rdns.size() < 2) return;
  const std::string parent = join(1);
  const std::string own = AsciiLowerCopy(rdns[0]);
  const size_t eq = own.find('=');
  const std::string type = own.substr(0, eq);
  const std::string value = eq == std::string::npos ? "" : own.substr(eq + 1);
  std::map<std::string, long>& count = siblings_[parent];
  if (type == "olcdatabase" || type == "olcoverlay") {
    ++count[type];
    if (type == "olcdatabase" && parent == "cn=config") {
      seen_frontend_ |= value.ends_with("}frontend");
      seen_config_ |= value.ends_with("}config");
    }
  } else if (type == "cn" && parent == "cn=schema,cn=config") {
    ++count["schema"];
  } else if (type == "cn" && parent == "cn=config") {
    for (std::string_view kind : {"module", "include"}) {
      if (value.starts_with(kind)) ++count[std::string(kind)];
    }
  }
}

// A value without its "{N}" prefix.
std::string_view Unprefixed(std::string_view v) {
  if (std::optional<std::pair<long, size_t>> p = OrderPrefix(v)) v.remove_prefix(p->second);
  return v;
}

Status ConfigLoader::Loaded(const InputEntry& entry, const std::string& parent,
                            const std::string& where) {
  const Dn& dn = entry.parsed;
  if (dn.size() < 2 || dn.rdns[0].size() != 1) return Status::Ok();
  const Ava& own = dn.rdns[0][0];
  if (EqualsIgnoreCase(own.type, "olcOverlay") && dn.size() == 3) {
    const std::string db = AsciiLowerCopy(parent);
    const std::string name = AsciiLowerCopy(Unprefixed(own.value));
    if (!overlays_[db].insert(name).second && !where.empty()) {
      return InputError(where, "overlay \"" + name + "\" already in list (slapd's overlay_config)");
    }
  }
  if (dn.size() == 2 && EqualsIgnoreCase(own.type, "cn") &&
      AsciiLowerCopy(own.value).starts_with("module")) {
    for (const auto& [description, value] : entry.values) {
      if (!EqualsIgnoreCase(description, "olcModuleLoad")) continue;
      // "/usr/lib/ldap/syncprov.la" and "syncprov" load the same module.
      std::string_view v = Unprefixed(value);
      const std::string name = ModuleName(v.substr(0, v.find(' ')));
      if (!modules_.insert(AsciiLowerCopy(name)).second && !where.empty()) {
        return InputError(where, "module '" + name + "' already loaded (slapd's module_load)");
      }
    }
  }
  return Status::Ok();
}

Result<ConfigTreeEntry> ConfigLoader::Take(const InputEntry& in) {
  const std::string where = name_ + ":" + std::to_string(in.line) + ": " + in.dn;
  const Dn& dn = in.parsed;
  for (const Rdn& rdn : dn.rdns) {
    if (rdn.size() != 1) return InputError(where, "a multi-valued RDN");
  }
  if (dn.empty() || !IsCnConfig(dn.rdns.back())) {
    return InputError(where, "not in the cn=config database (its DN must end with cn=config)");
  }
  const std::string key = KeyOf(dn, 0);
  ConfigTreeEntry out;
  std::string rdn_type, rdn_value;
  bool renumbered = false;
  if (dn.size() == 1) {
    out.rdns.push_back("cn=config");
    rdn_type = "cn";
    rdn_value = "config";
  } else {
    if (placed_.empty()) return InputError(where, "the first entry must be cn=config");
    const std::string parent = KeyOf(dn, 1);
    auto p = placed_.find(parent);
    if (p == placed_.end()) {
      return InputError(where, "its parent is not given before it");
    }
    DIRLOAD_ASSIGN_OR_RETURN(std::string rdn,
                             PlaceRdn(in, where, parent, &rdn_type, &rdn_value, &renumbered));
    out.rdns.push_back(rdn);
    for (const std::string& r : p->second.rdns) out.rdns.push_back(r);
  }
  // The same entry twice is refused by the name it is written under: two
  // cn=module (or olcDatabase=mdb) entries are cn=module{0} and {1}, as slapd
  // numbers them. Children may name a parent as given or as numbered.
  std::string written_key;
  for (const std::string& r : out.rdns) {
    if (!written_key.empty()) written_key += ',';
    written_key += AsciiLowerCopy(r);
  }
  if (existing_.count(written_key) != 0) {
    // As slapadd refuses it: exit status 1, nothing written.
    return Status::AlreadyExists(where + ": the entry already exists (the directory holds it)")
        .WithOrigin(ErrorOrigin::kInput);
  }
  if (!written_.insert(written_key).second) return InputError(where, "the entry is given twice");
  if (out.rdns.size() > 1) DIRLOAD_RETURN_IF_ERROR(Loaded(in, out.rdns[1], where));
  if (!renumbered) placed_[key] = Placed{out.rdns};
  placed_[written_key] = Placed{out.rdns};

  // Values by attribute description, in the order each is first given.
  const std::string original_rdn_value = dn.rdns[0][0].value;
  bool naming_found = false;
  std::map<std::string, size_t> index;
  for (const auto& [description, value] : in.values) {
    const size_t semi = description.find(';');
    const std::string base = description.substr(0, semi);
    std::optional<std::string> canonical = schema_.CanonicalAttribute(base);
    if (!canonical) return InputError(where, "'" + base + "': attribute type undefined");
    std::string written = *canonical;
    if (semi != std::string::npos) written += description.substr(semi);
    const std::string k = AsciiLowerCopy(written);
    auto [it, added] = index.emplace(k, out.attributes.size());
    if (added) out.attributes.push_back({written, {}});
    std::string v = value;
    // The naming value as given, or without the "{N}" the RDN gives it
    // (olcDatabase={1}mdb with olcDatabase: mdb: slapd keeps that value as
    // given).
    const std::optional<std::pair<long, size_t>> rdn_prefix = OrderPrefix(original_rdn_value);
    if (semi == std::string::npos && EqualsIgnoreCase(*canonical, rdn_type)) {
      if (EqualsIgnoreCase(v, original_rdn_value)) {
        v = rdn_value;  // the naming value follows the RDN's number
        naming_found = true;
      } else if (rdn_prefix && !OrderPrefix(v) &&
                 EqualsIgnoreCase(
                     v, std::string_view(original_rdn_value).substr(rdn_prefix->second))) {
        naming_found = true;
      }
    }
    out.attributes[it->second].values.push_back(std::move(v));
  }
  if (!naming_found) {
    return InputError(
        where, "the entry has no " + rdn_type + " value '" + original_rdn_value + "' (its RDN)");
  }
  auto find = [&](std::string_view name) -> ConfigAttribute* {
    auto it = index.find(AsciiLowerCopy(name));
    return it == index.end() ? nullptr : &out.attributes[it->second];
  };
  const ConfigAttribute* classes = find("objectClass");
  if (classes == nullptr) return InputError(where, "no objectClass");

  // What slapadd adds when the input lacks it, in its order.
  operational_.Next();
  for (size_t i = 0; i < kOperationalAttributeCount; ++i) {
    const auto a = static_cast<OperationalAttribute>(i);
    std::string_view name = kOperationalAttributeNames[i];
    if (find(name) != nullptr) continue;
    std::string value;
    if (a == OperationalAttribute::kStructuralObjectClass) {
      std::optional<std::string> s = schema_.StructuralClass(classes->values);
      if (!s) return InputError(where, "no structural object class among its objectClass values");
      value = *s;
    } else {
      value = std::string(operational_.value(a));
    }
    std::string written = schema_.CanonicalAttribute(name).value_or(std::string(name));
    index.emplace(AsciiLowerCopy(written), out.attributes.size());
    out.attributes.push_back({written, {value}});
    classes = find("objectClass");  // the vector may have moved
  }

  // slapd stores its own schema entry as given; the others as its
  // configuration backend parses them.
  if (key == "cn=schema,cn=config") return out;
  for (ConfigAttribute& a : out.attributes) {
    if (a.description.find(';') == std::string::npos && schema_.OrderedValues(a.description)) {
      DIRLOAD_RETURN_IF_ERROR(OrderValues(&a, where));
    }
  }
  schema_.SortConfigAttributes(&out.attributes);
  return out;
}

// The first NAME of a schema definition, lower case ("" when none).
std::string DefinitionName(std::string_view definition) {
  const size_t name = definition.find("NAME");
  if (name == std::string_view::npos) return "";
  const size_t open = definition.find('\'', name);
  if (open == std::string_view::npos) return "";
  const size_t close = definition.find('\'', open + 1);
  if (close == std::string_view::npos) return "";
  return AsciiLowerCopy(definition.substr(open + 1, close - open - 1));
}

// Appends the definitions of `builtin` whose names `types` and `classes`
// lack, in slapd's order.
void AddMissingDefinitions(const ConfigSchemaDefinitions& builtin, std::vector<std::string>* types,
                           std::vector<std::string>* classes) {
  auto add = [](const std::vector<std::string>& from, std::vector<std::string>* to) {
    std::set<std::string> have;
    for (const std::string& d : *to) have.insert(DefinitionName(d));
    for (const std::string& d : from) {
      if (have.insert(DefinitionName(d)).second) to->push_back(d);
    }
  };
  add(builtin.attribute_types, types);
  add(builtin.object_classes, classes);
}

Result<ConfigSchema> SchemaOf(const std::vector<InputEntry>& entries, const std::string& name) {
  bool has_schema_entry = false;
  for (const InputEntry& e : entries) {
    if (e.parsed.size() != 2 || !IsCnConfig(e.parsed.rdns[1]) || e.parsed.rdns[0].size() != 1 ||
        !EqualsIgnoreCase(e.parsed.rdns[0][0].type, "cn") ||
        !EqualsIgnoreCase(e.parsed.rdns[0][0].value, "schema")) {
      continue;
    }
    has_schema_entry = true;
    std::vector<std::string> types, classes;
    for (const auto& [d, v] : e.values) {
      if (EqualsIgnoreCase(d, "olcAttributeTypes")) types.push_back(v);
      if (EqualsIgnoreCase(d, "olcObjectClasses")) classes.push_back(v);
    }
    // A bare entry (objectClass and cn only, as bootstrap LDIFs give it):
    // slapd's built-in definitions, which slapd takes from its code.
    if (types.empty() && classes.empty()) {
      ConfigSchemaDefinitions builtin = BuiltinConfigSchemaDefinitions();
      types = std::move(builtin.attribute_types);
      classes = std::move(builtin.object_classes);
    }
    if (types.empty() || classes.empty()) break;
    // The entry lists what slapd had loaded when it was written; a module
    // loaded since (an overlay's cn=module added with it) brings its own
    // definitions, which slapd's built-in list holds.
    AddMissingDefinitions(BuiltinConfigSchemaDefinitions(), &types, &classes);
    Result<ConfigSchema> s = ConfigSchema::FromDefinitions(types, classes);
    if (!s.ok()) {
      return InputError(name + ":" + std::to_string(e.line) + ": " + e.dn, s.status().message());
    }
    return s;
  }
  if (!has_schema_entry) {
    // slapadd writes no cn=schema entry then, and has its schema built in.
    ConfigSchemaDefinitions builtin = BuiltinConfigSchemaDefinitions();
    return ConfigSchema::FromDefinitions(builtin.attribute_types, builtin.object_classes);
  }
  return Status::Unsupported(
             name +
             ": the cn=schema,cn=config entry has olcAttributeTypes but no "
             "olcObjectClasses or the reverse: give it bare (objectClass and cn), as slapd "
             "has its schema built in, or with slapd's schema as 'slapcat -n 0' writes it")
      .WithOrigin(ErrorOrigin::kInput);
}

// An olcDatabase=... RDN directly under cn=config naming `base` (with or
// without its "{N}").
bool IsDatabaseEntry(const InputEntry& e, std::string_view base) {
  if (e.parsed.size() != 2 || !IsCnConfig(e.parsed.rdns[1]) || e.parsed.rdns[0].size() != 1 ||
      !EqualsIgnoreCase(e.parsed.rdns[0][0].type, "olcDatabase")) {
    return false;
  }
  std::string_view v = e.parsed.rdns[0][0].value;
  if (!v.empty() && v[0] == '{') {
    size_t close = v.find('}');
    if (close != std::string_view::npos) v.remove_prefix(close + 1);
  }
  return base.empty() || EqualsIgnoreCase(v, base);
}

// slapd has its frontend database before it reads any entry: an input
// without olcDatabase={-1}frontend gets the entry slapadd writes then, with
// slapd's defaults, before its first database.
Status AddDefaultFrontend(std::vector<InputEntry>* input) {
  for (const InputEntry& e : *input) {
    if (IsDatabaseEntry(e, "frontend")) return Status::Ok();
  }
  InputEntry frontend;
  frontend.dn = "olcDatabase={-1}frontend,cn=config";
  DIRLOAD_ASSIGN_OR_RETURN(frontend.parsed, ParseDn(frontend.dn));
  frontend.values = {{"objectClass", "olcDatabaseConfig"},
                     {"objectClass", "olcFrontendConfig"},
                     {"olcDatabase", "{-1}frontend"},
                     {"olcAddContentAcl", "FALSE"},
                     {"olcLastMod", "TRUE"},
                     {"olcLastBind", "FALSE"},
                     {"olcMaxDerefDepth", "0"},
                     {"olcReadOnly", "FALSE"},
                     {"olcSchemaDN", "cn=Subschema"},
                     {"olcSyncUseSubentry", "FALSE"},
                     {"olcMonitoring", "FALSE"}};
  auto at = std::find_if(input->begin(), input->end(),
                         [](const InputEntry& e) { return IsDatabaseEntry(e, ""); });
  input->insert(at, std::move(frontend));
  return Status::Ok();
}

}  // namespace

bool SelectsConfigDatabase(const DatabaseOptions& o) {
  // -n with -b is refused where databases are selected (ResolveDatabase).
  if (o.config_dir.empty() || (o.database_number && o.suffix)) return false;
  if (o.database_number) return *o.database_number == 0;
  if (!o.suffix) return false;
  Result<Dn> dn = ParseDn(*o.suffix);
  return dn.ok() && dn->size() == 1 && IsCnConfig(dn->rdns[0]);
}

Result<ConfigLoadSummary> LoadConfigDatabase(const ConfigLoadOptions& options) {
  // A directory that holds a configuration gets the input's entries added
  // to it, as slapadd adds them (OpenLDAP's its8427 adds an overlay so);
  // an empty one gets the whole tree.
  std::error_code ec;
  const bool adding = std::filesystem::exists(options.dir + "/cn=config.ldif", ec);
  if (!adding) DIRLOAD_RETURN_IF_ERROR(CheckConfigDirectoryEmpty(options.dir));
  std::vector<std::pair<std::vector<std::string>, InputEntry>> existing;
  if (adding) {
    DIRLOAD_ASSIGN_OR_RETURN(existing, ReadExisting(options.dir));
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<InputEntry> input, ReadInput(options.ldif));
  const std::string name = options.ldif == "-" ? "<stdin>" : options.ldif;
  if (input.empty()) {
    return Status::InvalidArgument(name + ": no entries").WithOrigin(ErrorOrigin::kInput);
  }
  std::vector<InputEntry> schema_source;
  for (const auto& [rdns, e] : existing) schema_source.push_back(e);
  DIRLOAD_ASSIGN_OR_RETURN(ConfigSchema schema,
                           adding ? SchemaOf(schema_source, options.dir) : SchemaOf(input, name));
  if (!adding) DIRLOAD_RETURN_IF_ERROR(AddDefaultFrontend(&input));
  ConfigLoader loader(schema, options);
  for (const auto& [rdns, e] : existing) loader.Existing(rdns, e);
  std::vector<ConfigTreeEntry> entries;
  for (const InputEntry& e : input) {
    DIRLOAD_ASSIGN_OR_RETURN(ConfigTreeEntry entry, loader.Take(e));
    entries.push_back(std::move(entry));
  }
  ConfigLoadSummary summary;
  summary.entries = entries.size();
  if (options.dry_run) return summary;
  DIRLOAD_RETURN_IF_ERROR(adding ? AddToConfigTree(options.dir, entries)
                                 : WriteConfigTree(options.dir, entries));
  return summary;
}

}  // namespace dirload
