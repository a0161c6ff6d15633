// Schema that comes with slapd modules (AddModuleSchema): which module names
// are understood, what the ppolicy schema defines, and, where OpenLDAP's
// ppolicy module is installed, that every definition it registers is the same
// in dirload (compared by value with the descriptions found in the module).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "lib/schema/builtin_schema.h"
#include "lib/schema/matching_rule.h"
#include "lib/schema/schema.h"
#include "lib/schema/schema_loader.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;

Schema BuiltinPlus(std::string_view module) {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  Status st = AddModuleSchema(&schema.value(), module);
  INFO(st.ToString());
  REQUIRE(st.ok());
  return std::move(schema).value();
}

TEST_CASE("module names: ppolicy is known in every spelling slapd.conf allows") {
  std::vector<std::string_view> known = KnownSchemaModules();
  CHECK(std::find(known.begin(), known.end(), "ppolicy") != known.end());
  for (const char* name : {"ppolicy", "PPolicy", "ppolicy.la", "ppolicy.so",
                           "/usr/lib/ldap/ppolicy.la", "ppolicy.so.0"}) {
    CHECK_MESSAGE(IsKnownSchemaModule(name), name);
  }
  for (const char* name : {"back_mdb", "syncprov", "", "ppolicyx", "pp", ".la"}) {
    CHECK_FALSE_MESSAGE(IsKnownSchemaModule(name), name);
  }
}

TEST_CASE("an unknown module adds nothing and is not an error") {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  const size_t before = schema->attribute_types().size();
  CHECK(AddModuleSchema(&schema.value(), "back_mdb").ok());
  CHECK(AddModuleSchema(&schema.value(), "syncprov.la").ok());
  CHECK(schema->attribute_types().size() == before);
  CHECK(schema->FindObjectClass("pwdPolicy") == nullptr);
}

TEST_CASE("ppolicy: the policy class and the account state attributes") {
  Schema s = BuiltinPlus("ppolicy");
  const ObjectClass* policy = s.FindObjectClass("pwdPolicy");
  REQUIRE(policy != nullptr);
  CHECK(policy->oid == "1.3.6.1.4.1.42.2.27.8.2.1");
  CHECK(policy->kind == ObjectClassKind::kAuxiliary);
  REQUIRE(policy->must.size() == 1);
  CHECK(policy->must[0]->name() == "pwdAttribute");
  CHECK(policy->may.size() == 20);
  REQUIRE(s.FindObjectClass("pwdPolicyChecker") != nullptr);

  const AttributeType* changed = s.FindAttribute("pwdChangedTime");
  REQUIRE(changed != nullptr);
  CHECK(changed->oid == "1.3.6.1.4.1.42.2.27.8.1.16");
  CHECK(changed->operational());
  CHECK(changed->usage == AttributeUsage::kDirectoryOperation);
  CHECK(changed->no_user_modification);
  CHECK(changed->single_value);
  CHECK(changed->equality == FindMatchingRule("generalizedTimeMatch"));
  CHECK(changed->ordering == FindMatchingRule("generalizedTimeOrderingMatch"));

  const AttributeType* failures = s.FindAttribute("pwdFailureTime");
  REQUIRE(failures != nullptr);
  CHECK_FALSE(failures->single_value);
  CHECK(failures->operational());
  const AttributeType* locked = s.FindAttribute("pwdAccountLockedTime");
  REQUIRE(locked != nullptr);
  CHECK(locked->operational());
  CHECK_FALSE(locked->no_user_modification);  // an administrator may unlock
  for (const char* name : {"pwdHistory", "pwdGraceUseTime", "pwdReset", "pwdPolicySubentry",
                           "pwdStartTime", "pwdEndTime", "pwdAccountTmpLockoutEnd"}) {
    const AttributeType* at = s.FindAttribute(name);
    REQUIRE_MESSAGE(at != nullptr, name);
    CHECK_MESSAGE(at->operational(), name);
  }
  const AttributeType* attr = s.FindAttribute("pwdAttribute");
  REQUIRE(attr != nullptr);
  CHECK_FALSE(attr->operational());
  CHECK(attr->syntax->oid == "1.3.6.1.4.1.1466.115.121.1.38");
  CHECK(s.FindAttribute("pwdGraceAuthnLimit") == s.FindAttribute("pwdGraceAuthNLimit"));
  // Not in 2.5's module (later releases added them): slapadd 2.5 rejects them.
  CHECK(s.FindAttribute("pwdDefaultHash") == nullptr);
}

TEST_CASE("ppolicy: adding the module twice changes nothing") {
  Schema s = BuiltinPlus("ppolicy");
  const size_t attrs = s.attribute_types().size();
  const size_t classes = s.object_classes().size();
  Status st = AddModuleSchema(&s, "ppolicy.la");
  INFO(st.ToString());
  CHECK(st.ok());
  CHECK(s.attribute_types().size() == attrs);
  CHECK(s.object_classes().size() == classes);
}

TEST_CASE("ppolicy: loads on the system schema alone, as slapd.conf includes may come later") {
  Result<Schema> s = Schema::SystemOnly();
  REQUIRE(s.ok());
  Status st = AddModuleSchema(&s.value(), "ppolicy");
  INFO(st.ToString());
  CHECK(st.ok());
  CHECK(s->FindObjectClass("pwdPolicy") != nullptr);
}

// The NUL-terminated strings of a binary that start with `prefix`.
std::vector<std::string> StringsStartingWith(const std::string& bytes,
                                             const std::vector<std::string>& prefixes) {
  std::vector<std::string> out;
  for (const std::string& prefix : prefixes) {
    for (size_t at = bytes.find(prefix); at != std::string::npos; at = bytes.find(prefix, at + 1)) {
      if (at > 0 && bytes[at - 1] != '\0') continue;
      out.push_back(bytes.substr(at, bytes.find('\0', at) - at));
    }
  }
  return out;
}

std::string RuleOid(std::string_view name) {
  if (name.empty()) return "";
  const MatchingRule* r = FindMatchingRule(name);
  return r == nullptr ? "?" + std::string(name) : std::string(r->oid);
}

std::string RuleOid(const MatchingRule* r) { return r == nullptr ? "" : std::string(r->oid); }

TEST_CASE("ppolicy: the same definitions as OpenLDAP's installed ppolicy module") {
  fs::path module;
  for (const char* p : {"/usr/lib/ldap/ppolicy.so", "/usr/lib64/openldap/ppolicy.so",
                        "/usr/local/libexec/openldap/ppolicy.so"}) {
    if (fs::exists(p)) {
      module = p;
      break;
    }
  }
  if (module.empty()) {
    if (std::getenv("CI") != nullptr) FAIL("ppolicy.so missing in CI: install slapd");
    MESSAGE("SKIPPED: OpenLDAP's ppolicy module not found (install slapd to run this check)");
    return;
  }
  std::ifstream in(module, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!bytes.empty());

  Schema s = BuiltinPlus("ppolicy");
  const std::vector<std::string> defs =
      StringsStartingWith(bytes, {"( 1.3.6.1.4.1.42.2.27.8.", "( 1.3.6.1.4.1.4754."});
  int attrs = 0;
  int classes = 0;
  for (const std::string& def : defs) {
    INFO(def);
    const bool is_class = def.rfind("( 1.3.6.1.4.1.42.2.27.8.2.", 0) == 0 ||
                          def.rfind("( 1.3.6.1.4.1.4754.2.", 0) == 0;
    if (is_class) {
      Result<ObjectClassDescription> d = ParseObjectClassDescription(s, def);
      REQUIRE_MESSAGE(d.ok(), d.status().ToString());
      const ObjectClass* oc = s.FindObjectClass(d->oid);
      REQUIRE(oc != nullptr);
      ++classes;
      CHECK(oc->names == d->names);
      CHECK(oc->kind == d->kind);
      std::set<std::string> must, may, want_must, want_may;
      for (const AttributeType* at : oc->must) must.insert(AsciiLowerCopy(at->name()));
      for (const AttributeType* at : oc->may) may.insert(AsciiLowerCopy(at->name()));
      for (const std::string& n : d->must) want_must.insert(AsciiLowerCopy(n));
      for (const std::string& n : d->may) want_may.insert(AsciiLowerCopy(n));
      CHECK(must == want_must);
      CHECK(may == want_may);
    } else {
      Result<AttributeTypeDescription> d = ParseAttributeTypeDescription(s, def);
      REQUIRE_MESSAGE(d.ok(), d.status().ToString());
      const AttributeType* at = s.FindAttribute(d->oid);
      REQUIRE(at != nullptr);
      ++attrs;
      CHECK(at->names == d->names);
      CHECK(RuleOid(at->equality) == RuleOid(d->equality));
      CHECK(RuleOid(at->ordering) == RuleOid(d->ordering));
      CHECK(RuleOid(at->substr) == RuleOid(d->substr));
      CHECK(at->syntax->oid == d->syntax);
      CHECK(at->single_value == d->single_value);
      CHECK(at->no_user_modification == d->no_user_modification);
      CHECK(at->usage == d->usage);
    }
  }
  // Every definition of the built-in text was found in the module.
  Result<Schema> system = Schema::SystemOnly();
  REQUIRE(system.ok());
  Schema only = std::move(system).value();
  const size_t base_attrs = only.attribute_types().size();
  const size_t base_classes = only.object_classes().size();
  REQUIRE(AddModuleSchema(&only, "ppolicy").ok());
  CHECK(static_cast<size_t>(attrs) == only.attribute_types().size() - base_attrs);
  CHECK(static_cast<size_t>(classes) == only.object_classes().size() - base_classes);
  CHECK(attrs == 33);
  CHECK(classes == 2);
}

}  // namespace
}  // namespace dirload
