// `dirload schema-check` against slapschema: a database slapadd loaded under
// one schema, checked under a changed one, gives the same entries with the
// same result codes from slapschema and from dirload, on slapd's database
// itself and on native databases (LMDB, Berkeley DB) loaded from its
// export. The cases where dirload reports what slapschema does not (a value
// its syntax no longer allows, an attribute type no longer defined) are
// named and checked apart; and the selection, the error file and the stop
// at the first problem.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/integration/ldif_compare.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";

constexpr char kOldSchema[] =
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.1 NAME 'fooAttr' EQUALITY caseIgnoreMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.2 NAME 'barAttr' EQUALITY integerMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.4 NAME 'bazAttr' EQUALITY caseIgnoreMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.7 NAME 'quxAttr' EQUALITY caseIgnoreMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.3 NAME 'fooPerson' SUP inetOrgPerson STRUCTURAL\n"
    "  MAY ( fooAttr $ barAttr $ bazAttr $ quxAttr ) )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.5 NAME 'fooAux' AUXILIARY MAY bazAttr )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.6 NAME 'fooThing' SUP top STRUCTURAL MUST cn )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.8 NAME 'tagName' EQUALITY caseIgnoreMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.9 NAME 'codeName'\n"
    "  EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.10 NAME 'tag' SUP top STRUCTURAL\n"
    "  MAY ( tagName $ codeName $ barAttr ) )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.11 NAME 'tagPlus' AUXILIARY )\n";

// fooAttr single-valued, barAttr required, bazAttr no longer allowed,
// fooAux gone, fooThing auxiliary; quxAttr keeps its place. tagName
// matches case-exactly, so an entry named tagName=Red holding "red" is no
// longer named by its value; codeName has no equality rule, so it names
// nothing; tagPlus becomes a structural subclass of tag that needs barAttr,
// so an entry stored as a tag is now a tagPlus missing barAttr, which slapd
// calls a structural class modification before it looks for MUST.
constexpr char kNewSchema[] =
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.1 NAME 'fooAttr' EQUALITY caseIgnoreMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 SINGLE-VALUE )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.2 NAME 'barAttr' EQUALITY integerMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.4 NAME 'bazAttr' EQUALITY caseIgnoreMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.7 NAME 'quxAttr' EQUALITY caseIgnoreMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.3 NAME 'fooPerson' SUP inetOrgPerson STRUCTURAL\n"
    "  MUST barAttr MAY ( fooAttr $ quxAttr ) )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.6 NAME 'fooThing' SUP top AUXILIARY MUST cn )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.8 NAME 'tagName' EQUALITY caseExactMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.9 NAME 'codeName'\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.10 NAME 'tag' SUP top STRUCTURAL\n"
    "  MAY ( tagName $ codeName $ barAttr ) )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.11 NAME 'tagPlus' SUP tag STRUCTURAL MUST barAttr "
    ")\n";

// Where slapschema is silent: quxAttr's values are no integers, and
// bazAttr is not defined at all.
constexpr char kDifferSchema[] =
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.1 NAME 'fooAttr' EQUALITY caseIgnoreMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.2 NAME 'barAttr' EQUALITY integerMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.7 NAME 'quxAttr' EQUALITY integerMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.3 NAME 'fooPerson' SUP inetOrgPerson STRUCTURAL\n"
    "  MAY ( fooAttr $ barAttr $ quxAttr ) )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.5 NAME 'fooAux' AUXILIARY )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.6 NAME 'fooThing' SUP top STRUCTURAL MUST cn )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.8 NAME 'tagName' EQUALITY caseIgnoreMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.9 NAME 'codeName'\n"
    "  EQUALITY caseIgnoreMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.10 NAME 'tag' SUP top STRUCTURAL\n"
    "  MAY ( tagName $ codeName $ barAttr ) )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.11 NAME 'tagPlus' AUXILIARY )\n";

std::string Tag(const std::string& rdn, const std::string& more, const std::string& aux = "") {
  return "dn: " + rdn + ",ou=things," + kSuffix + "\nobjectClass: tag\n" +
         (aux.empty() ? "" : "objectClass: " + aux + "\n") + more + "\n";
}

std::string Person(const std::string& cn, const std::string& more) {
  return "dn: cn=" + cn + ",ou=people," + kSuffix + "\nobjectClass: fooPerson\ncn: " + cn +
         "\nsn: s\n" + more + "\n";
}

std::string Input() {
  std::string o = std::string("dn: ") + kSuffix +
                  "\nobjectClass: dcObject\nobjectClass: organization\no: e\ndc: example\n\n"
                  "dn: ou=people," +
                  kSuffix + "\nobjectClass: organizationalUnit\nou: people\n\n" + "dn: ou=things," +
                  kSuffix + "\nobjectClass: organizationalUnit\nou: things\n\n";
  for (int i = 0; i < 20; ++i) o += Person("ok" + std::to_string(i), "barAttr: 1\nfooAttr: x\n");
  o += Person("two", "barAttr: 2\nfooAttr: x\nfooAttr: y\n");  // single-valued now: 19
  o += Person("nobar", "");                                    // MUST barAttr: 65
  o += Person("both", "fooAttr: a\nfooAttr: b\n");             // both: slapd says 19 first
  o += Person("baz", "barAttr: 3\nbazAttr: z\n");              // not allowed: 65
  o += "dn: cn=aux,ou=people," + std::string(kSuffix) +
       "\nobjectClass: fooPerson\nobjectClass: fooAux\ncn: aux\nsn: s\nbarAttr: 4\n\n";  // 65
  o += "dn: cn=thing,ou=things," + std::string(kSuffix) +
       "\nobjectClass: fooThing\ncn: thing\n\n";  // no structural class: 65
  o += Person("qux", "barAttr: 5\nquxAttr: not a number\n");
  o += Tag("tagName=Red", "tagName: red\n");               // caseExact now: 64
  o += Tag("tagName=Blue", "tagName: Blue\n");             // still named by its value
  o += Tag("codeName=x1", "codeName: x1\n");               // no equality rule now: 64
  o += Tag("tagName=Plus", "tagName: Plus\n", "tagPlus");  // 69 before MUST's 65
  return o;
}

// "# (CODE) ..." then "dn: DN": DN (lower case) -> CODE, from slapschema's
// listing or dirload's.
std::map<std::string, int> Verdicts(const std::string& listing) {
  std::map<std::string, int> out;
  std::istringstream in(listing);
  std::string line;
  int code = -1;
  while (std::getline(in, line)) {
    if (line.rfind("# (", 0) == 0) {
      code = std::stoi(line.substr(3));
    } else if (line.rfind("dn: ", 0) == 0 && code >= 0) {
      std::string dn = line.substr(4);
      for (char& c : dn) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      out[dn] = code;
      code = -1;
    }
  }
  return out;
}

std::string Conf(const TempDir& t, const std::string& name, const std::string& schema,
                 const std::string& dir) {
  return testing::SlapdConf()
      .LoadBackMdb()
      .Include(testing::kExampleSchemas)
      .Line("include " + t.Write(name + ".schema", schema))
      .Database("mdb")
      .Suffix(kSuffix)
      .Directory(dir)
      .MaxSize(1073741824)
      .Write(t, name + ".conf");
}

TEST_CASE("schema-check finds the entries slapschema finds, with its result codes") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "slapschema");
  TempDir t;
  const std::string dir = t.File("db");
  std::filesystem::create_directory(dir);
  const std::string old_conf = Conf(t, "old", kOldSchema, dir);
  const std::string new_conf = Conf(t, "new", kNewSchema, dir);
  const std::string differ_conf = Conf(t, "differ", kDifferSchema, dir);
  testing::ProcessResult r =
      testing::RunSlapadd({"-q", "-f", old_conf, "-l", t.Write("in.ldif", Input())});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  // The old schema: nothing to report, from either.
  r = testing::RunOpenLdapTool("slapschema", {"-f", old_conf});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  RunResult clean = RunDirload({"schema-check", "-f", old_conf});
  CHECK_MESSAGE(clean.exit_code == 0, clean.Describe());
  CHECK(clean.out.empty());

  // The native format, loaded from slapcat's export under the old schema.
  r = testing::RunSlapcat({"-f", old_conf});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  const std::string exported = t.Write("export.ldif", r.out);
  const std::string native = t.File("native");
  RunResult loaded = RunDirload({"add", "--format", "native", "--db", native, "-f", old_conf, "-l",
                                 exported, "--progress", "never"});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
  const std::string native_bdb = t.File("native-bdb");
  loaded = RunDirload({"add", "--format", "native", "--backend", "bdb", "--db", native_bdb, "-f",
                       old_conf, "-l", exported, "--progress", "never"});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());

  // slapschema's exit status is the last entry's verdict (0 here: the last
  // entry conforms); dirload exits 1 when any entry does not.
  r = testing::RunOpenLdapTool("slapschema", {"-f", new_conf, "-c"});
  const std::map<std::string, int> want = Verdicts(r.out);
  REQUIRE(want.size() == 10);
  CHECK(want.at("cn=both,ou=people,dc=example,dc=com") == 19);
  CHECK(want.at("tagname=red,ou=things,dc=example,dc=com") == 64);
  CHECK(want.at("codename=x1,ou=things,dc=example,dc=com") == 64);
  CHECK(want.at("tagname=plus,ou=things,dc=example,dc=com") == 69);
  // slapd looks for an RDN's value among the normalized copies the entry
  // keeps, made under caseIgnoreMatch ("blue"), and tagName=Blue matches
  // "Blue" case-exactly now: slapschema refuses it, and so does dirload on
  // slapd's database, where slapd's equality searches would miss it too
  // until the entry is written again. A native database keeps no such
  // copies: there the value names the entry under the new rule, and the
  // entry conforms.
  const std::string blue = "tagname=blue,ou=things,dc=example,dc=com";
  CHECK(want.at(blue) == 64);
  for (const std::vector<std::string>& where :
       {std::vector<std::string>{"-f", new_conf},
        std::vector<std::string>{"-f", new_conf, "--db", native},
        std::vector<std::string>{"-f", new_conf, "--db", native_bdb}}) {
    CAPTURE(where.back());
    const bool keeps_copies = where.back() == new_conf;
    std::map<std::string, int> expected = want;
    if (!keeps_copies) expected.erase(blue);
    std::vector<std::string> args = {"schema-check", "-c"};
    args.insert(args.end(), where.begin(), where.end());
    RunResult got = RunDirload(args);
    CHECK_MESSAGE(got.exit_code == 1, got.Describe());
    CHECK(Verdicts(got.out) == expected);
    const std::string counted =
        "34 entries checked, " + std::to_string(expected.size()) + " do not conform";
    CHECK_MESSAGE(got.err.find(counted) != std::string::npos, got.err);

    // Without -c: the first one, then stop.
    args.erase(args.begin() + 1);
    RunResult first = RunDirload(args);
    CHECK(first.exit_code == 1);
    CHECK(Verdicts(first.out).size() == 1);
    CHECK_MESSAGE(first.err.find("stopped at the first") != std::string::npos, first.err);

    // -s: the subtree only; -a: the entries the filter names.
    std::vector<std::string> sub = {"schema-check", "-c", "-s",
                                    std::string("ou=things,") + kSuffix};
    sub.insert(sub.end(), where.begin(), where.end());
    RunResult things = RunDirload(sub);
    std::map<std::string, int> want_things;
    for (const auto& [dn, code] : expected) {
      if (dn.find(",ou=things,") != std::string::npos) want_things[dn] = code;
    }
    CHECK(want_things.size() == (keeps_copies ? 5 : 4));
    CHECK(Verdicts(things.out) == want_things);
    std::vector<std::string> filtered = {"schema-check", "-c", "-a", "(cn=ok*)"};
    filtered.insert(filtered.end(), where.begin(), where.end());
    RunResult oks = RunDirload(filtered);
    CHECK_MESSAGE(oks.exit_code == 0, oks.Describe());
    CHECK_MESSAGE(oks.err.find("20 entries checked, 0 do not conform") != std::string::npos,
                  oks.err);
  }

  // -l: the failing entries whole, each after its reason, loadable again.
  const std::string errors = t.File("errors.ldif");
  RunResult listed = RunDirload({"schema-check", "-c", "-q", "-f", new_conf, "-l", errors});
  CHECK(listed.exit_code == 1);
  CHECK(listed.out.empty());
  const std::string text = testing::ReadFile(errors);
  CHECK(Verdicts(text) == want);
  CHECK(text.find("sn: s\n") != std::string::npos);
  CHECK(text.find("structuralObjectClass: fooPerson\n") != std::string::npos);
  testing::LdifFile parsed = testing::ReadLdifText(text, errors);
  REQUIRE_MESSAGE(parsed.ok(), parsed.error);
  CHECK(parsed.records.size() == 10);

  // Where dirload reports what slapschema does not, on purpose: quxAttr's
  // values are no longer valid integers (slapd could neither match nor
  // index them), and bazAttr is no longer defined (slapd reads it as an
  // UNKNOWN description).
  r = testing::RunOpenLdapTool("slapschema", {"-f", differ_conf, "-c"});
  CHECK_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK(Verdicts(r.out).empty());
  RunResult differ = RunDirload({"schema-check", "-c", "-f", differ_conf});
  CHECK(differ.exit_code == 1);
  CHECK(Verdicts(differ.out) ==
        std::map<std::string, int>{{"cn=qux,ou=people,dc=example,dc=com", 21},
                                   {"cn=baz,ou=people,dc=example,dc=com", 17}});
}

}  // namespace
}  // namespace dirload
