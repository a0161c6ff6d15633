#include "lib/schema/schema_loader.h"

#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "lib/schema/schema.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSystemSchemaDir = "/etc/ldap/schema";

// The order slapd needs: each file after the ones it refers to.
const char* const kAllSchemaFiles[] = {
    "core",     "cosine",   "inetorgperson", "nis",   "misc",
    "openldap", "dyngroup", "collective",    "corba", "java",
    "duaconf",  "msuser",   "namedobject",   "pmi",   "dsee",
};

using testing::TempDir;

// Whether the OpenLDAP schema files are here. Outside CI a missing directory
// is reported and the file-based checks are skipped; in CI it is a failure.
bool HaveSystemSchemas() {
  if (fs::exists(fs::path(kSystemSchemaDir) / "core.schema")) return true;
  if (std::getenv("CI") != nullptr) {
    FAIL("/etc/ldap/schema/core.schema missing in CI: install slapd");
  }
  MESSAGE("SKIPPED: /etc/ldap/schema not found (install slapd to run these checks)");
  return false;
}

Schema SystemPlusFiles(const std::vector<std::string>& names,
                       std::vector<std::string>* warnings = nullptr) {
  Result<Schema> schema = Schema::SystemOnly();
  REQUIRE(schema.ok());
  for (const std::string& n : names) {
    const std::string path = std::string(kSystemSchemaDir) + "/" + n + ".schema";
    Status st = LoadSchemaFile(&schema.value(), path, warnings);
    INFO(st.ToString());
    REQUIRE(st.ok());
  }
  return std::move(schema).value();
}

std::string RuleOid(const MatchingRule* r) { return r == nullptr ? "" : std::string(r->oid); }

std::set<std::string> Oids(const std::vector<const AttributeType*>& v) {
  std::set<std::string> out;
  for (const AttributeType* at : v) out.insert(at->oid);
  return out;
}

// Everything that matters about a definition, by value, for comparing two
// schemas built from different text.
std::string Summary(const AttributeType& at) {
  std::string s = at.oid + " [";
  for (const std::string& n : at.names) s += n + " ";
  s += "] sup=" + (at.sup ? at.sup->oid : "") + " eq=" + RuleOid(at.equality) +
       " ord=" + RuleOid(at.ordering) + " sub=" + RuleOid(at.substr) + " syn=" + at.syntax->oid +
       "{" + std::to_string(at.syntax_len) + "}" + (at.single_value ? " SV" : "") +
       (at.collective ? " COLL" : "") + (at.no_user_modification ? " NUM" : "") + " " +
       std::string(AttributeUsageName(at.usage)) + (at.obsolete ? " OBS" : "");
  return s;
}

std::string Summary(const ObjectClass& oc) {
  std::string s = oc.oid + " [";
  for (const std::string& n : oc.names) s += n + " ";
  s += "] " + std::string(ObjectClassKindName(oc.kind)) + " sup=";
  for (const ObjectClass* c : oc.sup) s += c->oid + " ";
  s += "must=";
  for (const std::string& o : Oids(oc.must)) s += o + " ";
  s += "may=";
  for (const std::string& o : Oids(oc.may)) s += o + " ";
  return s;
}

TEST_CASE("built-in schemas load") {
  Result<Schema> system = Schema::SystemOnly();
  REQUIRE_MESSAGE(system.ok(), system.status().ToString());
  CHECK(system->FindAttribute("objectClass") != nullptr);
  CHECK(system->FindAttribute("entryCSN") != nullptr);
  CHECK(system->FindObjectClass("glue") != nullptr);
  CHECK(system->FindAttribute("sn") == nullptr);  // user schema, not system

  Result<Schema> builtin = Schema::Builtin();
  REQUIRE_MESSAGE(builtin.ok(), builtin.status().ToString());
  for (const char* name : {"sn", "mail", "dc", "uid", "uidNumber", "memberUid", "carLicense",
                           "manager", "homeDirectory", "jpegPhoto"}) {
    CHECK_MESSAGE(builtin->FindAttribute(name) != nullptr, name);
  }
  for (const char* name : {"inetOrgPerson", "posixAccount", "dcObject", "domain", "account",
                           "groupOfNames", "organizationalUnit", "extensibleObject"}) {
    CHECK_MESSAGE(builtin->FindObjectClass(name) != nullptr, name);
  }
}

TEST_CASE("every /etc/ldap/schema file loads in dependency order") {
  if (!HaveSystemSchemas()) return;
  std::vector<std::string> files(std::begin(kAllSchemaFiles), std::end(kAllSchemaFiles));
  // Every *.schema file present must be in the list, so a new one is noticed.
  for (const auto& entry : fs::directory_iterator(kSystemSchemaDir)) {
    if (entry.path().extension() != ".schema") continue;
    const std::string stem = entry.path().stem().string();
    CHECK_MESSAGE(std::find(files.begin(), files.end(), stem) != files.end(), stem);
  }
  std::vector<std::string> warnings;
  Schema schema = SystemPlusFiles(files, &warnings);
  CHECK(schema.FindAttribute("msDS-Approx-Immed-Subordinates") != nullptr);
  CHECK(schema.FindAttribute("role") != nullptr);  // pmi, syntax via ldapsyntax X-SUBST
  CHECK(schema.FindObjectClass("changeLogEntry") != nullptr);
  CHECK(schema.FindAttribute("memberURL")->sup == schema.FindAttribute("labeledURI"));
  // dsee.schema spells one keyword "attributeype"; slapd ignores that
  // statement, and so do we, with a warning. It also redefines the
  // NetscapeRoot macro dyngroup.schema defined, with the same OID.
  CHECK(schema.FindAttribute("targetUniqueId") == nullptr);
  const auto has = [&](std::string_view needle) {
    return std::any_of(warnings.begin(), warnings.end(),
                       [&](const std::string& w) { return w.find(needle) != std::string::npos; });
  };
  CHECK(has("unknown directive 'attributeype' ignored"));
  CHECK(has("objectidentifier 'NetscapeRoot' previously defined"));
  for (const std::string& w : warnings)
    CHECK_MESSAGE(w.find("/etc/ldap/schema/dsee.schema:") == 0, w);
  // The X-ORDERED extension of dgAuthz is kept, uninterpreted.
  const AttributeType* dg = schema.FindAttribute("dgAuthz");
  REQUIRE(dg != nullptr);
  REQUIRE(dg->extensions.size() == 1);
  CHECK(dg->extensions[0].name == "X-ORDERED");
  CHECK(dg->extensions[0].values == std::vector<std::string>{"VALUES"});
}

TEST_CASE("loading core.schema before its dependencies fails with file and line") {
  if (!HaveSystemSchemas()) return;
  Schema empty;  // no system schema: 'name' is unknown to core's sn
  Status st = LoadSchemaFile(&empty, std::string(kSystemSchemaDir) + "/core.schema");
  REQUIRE_FALSE(st.ok());
  CHECK(st.message().find("/etc/ldap/schema/core.schema:") == 0);
  CHECK(st.message().find("SUP 'name' not found") != std::string::npos);
}

TEST_CASE("built-in user schema matches OpenLDAP's core, cosine, inetorgperson and nis") {
  if (!HaveSystemSchemas()) return;
  Schema files = SystemPlusFiles({"core", "cosine", "inetorgperson", "nis"});
  Result<Schema> builtin = Schema::Builtin();
  REQUIRE(builtin.ok());
  CHECK(files.attribute_types().size() == builtin->attribute_types().size());
  CHECK(files.object_classes().size() == builtin->object_classes().size());
  for (const AttributeType* at : files.attribute_types()) {
    const AttributeType* mine = builtin->FindAttribute(at->oid);
    REQUIRE_MESSAGE(mine != nullptr, at->oid);
    CHECK(Summary(*mine) == Summary(*at));
  }
  for (const ObjectClass* oc : files.object_classes()) {
    const ObjectClass* mine = builtin->FindObjectClass(oc->oid);
    REQUIRE_MESSAGE(mine != nullptr, oc->oid);
    CHECK(Summary(*mine) == Summary(*oc));
  }
  CHECK(files.Fingerprint() == builtin->Fingerprint());
}

TEST_CASE("statements: continuation lines, comments, keywords in any case") {
  Result<Schema> s = Schema::SystemOnly();
  REQUIRE(s.ok());
  const char* text =
      "# leading comment\n"
      "ObjectIdentifier myRoot 1.2.3\n"
      "objectIdentifier myAttrs myRoot:1\n"
      "\n"
      "AttributeType ( myAttrs:5\n"
      "\tname ( 'fooName' 'fooAlias' )\n"
      "  desc 'it\\27s'\n"
      "\tsup name   SINGLE-VALUE\n"
      "  X-ORIGIN ( 'a' 'b' ) )\n"
      "attributetype ( myAttrs:6 NAME 'fooNum' EQUALITY integerMatch\n"
      "  SYNTAX '1.3.6.1.4.1.1466.115.121.1.27{10}' )\n"
      "objectclass ( myRoot:2.1 NAME 'fooClass' SUP top AUXILIARY\n"
      "  MUST (fooName$fooNum) MAY ( cn $ 2.5.4.13 ) )\r\n";
  std::vector<std::string> warnings;
  Status st = LoadSchemaText(&s.value(), text, "test.schema", &warnings);
  REQUIRE_MESSAGE(st.ok(), st.ToString());
  CHECK(warnings.empty());
  const AttributeType* foo = s->FindAttribute("FOOALIAS");
  REQUIRE(foo != nullptr);
  CHECK(foo->oid == "1.2.3.1.5");
  CHECK(foo->desc == "it's");
  CHECK(foo->single_value);
  CHECK(foo->equality == FindMatchingRule("caseIgnoreMatch"));
  CHECK(foo->syntax_len == 32768);
  REQUIRE(foo->extensions.size() == 1);
  CHECK(foo->extensions[0].values == std::vector<std::string>{"a", "b"});
  const AttributeType* num = s->FindAttribute("fooNum");
  REQUIRE(num != nullptr);
  CHECK(num->syntax->oid == "1.3.6.1.4.1.1466.115.121.1.27");
  CHECK(num->syntax_len == 10);
  const ObjectClass* oc = s->FindObjectClass("1.2.3.2.1");
  REQUIRE(oc != nullptr);
  CHECK(oc->kind == ObjectClassKind::kAuxiliary);
  CHECK(oc->must.size() == 2);
  CHECK(oc->may ==
        std::vector<const AttributeType*>{s->FindAttribute("cn"), s->FindAttribute("description")});
}

TEST_CASE("errors name the source and the statement's first line") {
  Result<Schema> s = Schema::SystemOnly();
  REQUIRE(s.ok());
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"\n\nattributetype ( 1.2.3.4 NAME 'x1'\n  SUP nosuch )\n",
       "t.schema:3: attributetype: attribute type 'x1' (1.2.3.4): SUP 'nosuch' not found"},
      // A comment line ends the statement, as in slapd.
      {"attributetype ( 1.2.3.4 NAME 'x1'\n# cut\n  SUP name )\n",
       "t.schema:1: attributetype: missing closing ')'"},
      {"attributetype ( 1.2.3.4 NAME 'x1' EQUALITY nosuchMatch SUP name )\n",
       "t.schema:1: attributetype: attribute type 'x1' (1.2.3.4): matching rule 'nosuchMatch' "
       "not found"},
      {"attributetype ( 1.2.3.4 NAME 'x1' EQUALITY caseIgnoreSubstringsMatch SUP name )\n",
       "cannot be used for EQUALITY"},
      {"attributetype ( 1.2.3.4 NAME 'x1' EQUALITY caseIgnoreMatch )\n", "SYNTAX or SUP required"},
      {"attributetype ( 1.2.3.4 NAME 'x1' SYNTAX 1.2.3.99 )\n", "syntax '1.2.3.99' not found"},
      {"attributetype ( 1.2.3.4 NAME 'x1' SUP name SUP name )\n", "keyword SUP repeated"},
      {"attributetype ( 1.2.3.4 NAME 'x1' SUP name FROB )\n", "unknown keyword 'FROB'"},
      {"attributetype ( 1.2.3.4 NAME 'x1' SUP name ) extra\n", "after the closing ')'"},
      {"attributetype ( 1.2.3.4 NAME 'x1 SUP name )\n", "unterminated quoted string"},
      {"attributetype ( 1.2.3.4 NAME 'x_1' SUP name )\n", "not a valid descriptor"},
      {"attributetype ( undefinedMacro:1 NAME 'x1' SUP name )\n",
       "'undefinedMacro:1' is neither numeric nor a defined objectidentifier"},
      {"attributetype ( 1.2.3.4 NAME 'x1' SUP name USAGE sometimes )\n",
       "unknown USAGE 'sometimes'"},
      {"attributetype ( 1.2.3.4 NAME 'x1' SUP name SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{x} )\n",
       "malformed {len}"},
      {"objectclass ( 1.2.3.5 NAME 'o1' MUST nosuchAttr )\n",
       "t.schema:1: objectclass: object class 'o1' (1.2.3.5): attribute type 'nosuchAttr' in MUST "
       "not found"},
      {"objectclass ( 1.2.3.5 NAME 'o1' SUP nosuchClass )\n", "SUP 'nosuchClass' not found"},
      {"objectclass ( 1.2.3.5 NAME 'o1' ABSTRACT AUXILIARY )\n",
       "more than one of ABSTRACT, STRUCTURAL, AUXILIARY"},
      {"objectidentifier a1 1.2.3\nobjectidentifier a1 1.2.4\n",
       "t.schema:2: objectidentifier: objectidentifier 'a1' previously defined as '1.2.3', now "
       "'1.2.4'"},
      {"objectidentifier a1\n", "expected: objectidentifier NAME OID"},
      {"ldapsyntax ( 1.2.3.6 DESC 'x' X-SUBST '1.2.3.7' )\n", "X-SUBST syntax '1.2.3.7' not found"},
  };
  for (const Case& c : cases) {
    Result<Schema> fresh = Schema::SystemOnly();
    REQUIRE(fresh.ok());
    Status st = LoadSchemaText(&fresh.value(), c.text, "t.schema");
    INFO(c.text);
    REQUIRE_FALSE(st.ok());
    CHECK_MESSAGE(st.message().find(c.expected) != std::string::npos, st.message());
  }
}

TEST_CASE("unknown directives are skipped with a warning") {
  Result<Schema> s = Schema::SystemOnly();
  REQUIRE(s.ok());
  std::vector<std::string> warnings;
  Status st = LoadSchemaText(&s.value(),
                             "attributeype ( 1.2.3.4 NAME 'x1'\n  SUP name )\n"
                             "objectidentifier a1 1.2.3\nobjectidentifier a1 1.2.3\n"
                             "ditcontentrule ( 2.5.6.6 NAME 'whatever' )\n",
                             "w.schema", &warnings);
  REQUIRE(st.ok());
  REQUIRE(warnings.size() == 2);
  CHECK(warnings[0] == "w.schema:1: unknown directive 'attributeype' ignored");
  CHECK(warnings[1] == "w.schema:4: objectidentifier 'a1' previously defined as '1.2.3'");
  CHECK(s->FindAttribute("x1") == nullptr);
}

TEST_CASE("ldapsyntax with X-SUBST borrows the substitute's checks") {
  Result<Schema> s = Schema::SystemOnly();
  REQUIRE(s.ok());
  Status st = LoadSchemaText(&s.value(),
                             "ldapsyntax ( 1.2.3.6 DESC 'my syntax'\n"
                             "  X-SUBST '1.3.6.1.4.1.1466.115.121.1.27' )\n"
                             "ldapsyntax ( 1.2.3.7 DESC 'binary' X-BINARY-TRANSFER-REQUIRED 'TRUE'"
                             " X-NOT-HUMAN-READABLE 'TRUE' )\n"
                             "attributetype ( 1.2.3.8 NAME 'myInt' SYNTAX 1.2.3.6 )\n",
                             "s.schema");
  REQUIRE_MESSAGE(st.ok(), st.ToString());
  const Syntax* syn = s->FindSyntax("1.2.3.6");
  REQUIRE(syn != nullptr);
  CHECK(syn->kind == SyntaxKind::kInteger);
  CHECK(s->FindSyntax("1.2.3.7")->binary_transfer_required);
  CHECK_FALSE(s->FindSyntax("1.2.3.7")->human_readable);
  CHECK(ValidateValue(*s->FindAttribute("myInt"), "12").ok());
  CHECK_FALSE(ValidateValue(*s->FindAttribute("myInt"), "x").ok());
}

TEST_CASE("LoadSchemaFile reads a file and reports a missing one") {
  TempDir dir;
  const std::string path =
      dir.Write("mine.schema", "attributetype ( 1.2.3.4 NAME 'fileAttr' SUP name )\n");
  Result<Schema> s = Schema::SystemOnly();
  REQUIRE(s.ok());
  REQUIRE(LoadSchemaFile(&s.value(), path).ok());
  CHECK(s->FindAttribute("fileAttr") != nullptr);
  Status missing = LoadSchemaFile(&s.value(), path + ".nope");
  CHECK(missing.code() == StatusCode::kIoError);
  CHECK(missing.message().find("mine.schema.nope: cannot open") != std::string::npos);
}

TEST_CASE("ApplySchemaDirective serves a slapd.conf reader") {
  Result<Schema> s = Schema::SystemOnly();
  REQUIRE(s.ok());
  CHECK(IsSchemaDirective("AttributeType"));
  CHECK(IsSchemaDirective("objectclass"));
  CHECK_FALSE(IsSchemaDirective("database"));
  REQUIRE(ApplySchemaDirective(&s.value(), "attributetype", "( 1.2.3.4 NAME 'confAttr' SUP name )")
              .ok());
  CHECK(s->FindAttribute("confAttr") != nullptr);
  CHECK_FALSE(ApplySchemaDirective(&s.value(), "database", "mdb").ok());
}

TEST_CASE("schema definitions given as text load like a .schema file") {
  Result<Schema> s = Schema::SystemOnly();
  REQUIRE(s.ok());
  std::vector<SchemaDefinition> defs = {
      {"objectidentifier", "myOID 1.3.6.1.4.1.99999", "a.ldif:3"},
      {"attributetype",
       "( myOID:1 NAME 'myAttr' EQUALITY caseIgnoreMatch "
       "SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )",
       "a.ldif:4"},
      {"objectclass", "( myOID:2 NAME 'myClass' SUP top AUXILIARY MAY myAttr )", "a.ldif:6"},
  };
  Status st = LoadSchemaDefinitions(&*s, defs);
  REQUIRE_MESSAGE(st.ok(), st.message());
  const AttributeType* a = s->FindAttribute("myattr");
  REQUIRE(a != nullptr);
  CHECK(s->FindAttribute("1.3.6.1.4.1.99999.1") == a);
  CHECK(s->FindObjectClass("myClass") != nullptr);
  std::vector<SchemaDefinition> bad = {
      {"objectclass", "( 1.2.3.9 NAME 'broken' SUP nosuchclass )", "b.ldif:7"}};
  Status err = LoadSchemaDefinitions(&*s, bad);
  REQUIRE_FALSE(err.ok());
  CHECK(err.message().rfind("b.ldif:7: objectclass: ", 0) == 0);
}

}  // namespace
}  // namespace dirload
