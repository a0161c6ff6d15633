// Oracle of slapd's `attributeoptions` directive: with options declared,
// `dirload add -f` accepts the same tagged descriptions slapadd accepts
// ("description;x-foo", "cn;x-foo;lang-de", the range "cn;x-", ";binary"
// among tags), and writes the same back-mdb database: every sub-database as
// mdb_dump prints it (id2e up to the padding slapd leaves unzeroed), the
// ad2i names and the index keys of tagged values. slapcat, `dirload cat`
// and `dirload cat` of a native-format load print the same LDIF. Without
// the directive, or with one that leaves lang- out, both refuse the entry.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/support/child_process.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::FirstDifference;
using testing::MaskId2ePadding;
using testing::MdbDatabases;
using testing::MdbDump;
using testing::ProcessResult;
using testing::RunDirload;
using testing::TempDir;

#define SKIP_WITHOUT_TOOLS() DIRLOAD_SKIP_WITHOUT_OPENLDAP()

const std::vector<std::string> kOptions = {"attributeoptions x- lang-",
                                           "attributeoptions phonetic a-"};

// A back-mdb database and its slapd.conf; `globals` go before the database
// section (attributeoptions lines).
struct Db {
  std::string dir, conf;
};

Db MakeDb(const TempDir& tmp, const std::string& name, const std::vector<std::string>& globals) {
  Db db{tmp.File(name), ""};
  fs::create_directory(db.dir);
  db.conf = testing::SlapdConf()
                .LoadBackMdb()
                .Include({"core", "cosine", "inetorgperson"})
                .Lines(globals)
                .Database("mdb")
                .Suffix(testing::kExampleSuffix)
                .RootDn(testing::kExampleRootDn)
                .Directory(db.dir)
                .MaxSize(104857600)
                .Indexes({"objectClass eq", "cn eq,sub", "name pres", "description eq,sub",
                          "givenName eq", "seeAlso eq"})
                .Write(tmp, name + ".conf");
  return db;
}

ProcessResult Slapadd(const Db& db, const std::string& ldif) {
  return testing::RunSlapadd({"-q", "-f", db.conf, "-l", ldif}, 60);
}

std::string Slapcat(const Db& db) {
  ProcessResult r = testing::RunSlapcat({"-f", db.conf}, 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return r.out;
}

// The directory with tagged values of every kind slapd accepts once x-, lang-,
// a- and phonetic are declared. Spellings differ in case and order, so that
// slapd's canonical form (and its merging of equal descriptions) shows.
constexpr char kRaw[] =
    "dn: dc=example,dc=com\n"
    "objectClass: dcObject\n"
    "objectClass: organization\n"
    "o: Example\n"
    "dc: example\n"
    "description;X-Hidden: the company\n"
    "\n"
    "dn: cn=Anna,dc=example,dc=com\n"
    "objectClass: inetOrgPerson\n"
    "cn: Anna\n"
    "cn;x-foo;lang-de: Anne\n"
    "cn;LANG-DE;X-FOO: Annchen\n"
    "cn;lang-de: Änne\n"
    "cn;x-: the whole range\n"
    "sn: Schmidt\n"
    "givenName;lang-ja;phonetic: anna\n"
    "givenName;Phonetic: ana\n"
    "description: plain\n"
    "description;x-foo: tagged foo\n"
    "description;x-bar;x-foo: tagged both\n"
    "description;X-FOO;x-BAR;x-foo: tagged both again\n"
    "seeAlso;x-ref: cn=Bob,dc=example,dc=com\n"
    "\n"
    "dn: cn=Bob,dc=example,dc=com\n"
    "objectClass: person\n"
    "cn: Bob\n"
    "cn;x-foo: Robert\n"
    "sn;x-a.b: Builder\n"
    "sn: Builder\n"
    "description;x-foo: tagged foo\n"
    "\n";

// ------------------------------------------------------------- mdb_dump

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < text.size()) {
    size_t e = text.find('\n', p);
    if (e == std::string::npos) e = text.size();
    out.push_back(text.substr(p, e - p));
    p = e + 1;
  }
  return out;
}

void CompareDatabases(const std::string& theirs, const std::string& mine) {
  const std::vector<std::string> dbs = MdbDatabases(theirs);
  CHECK(MdbDatabases(mine) == dbs);
  for (const char* name : {"ad2i", "id2e", "cn", "description", "givenName", "seeAlso"}) {
    CHECK_MESSAGE(std::find(dbs.begin(), dbs.end(), name) != dbs.end(), name);
  }
  for (const std::string& name : dbs) {
    CAPTURE(name);
    std::string a = MdbDump(mine, name), b = MdbDump(theirs, name);
    if (name == "id2e") {
      size_t mine_dirty = 0, theirs_dirty = 0;
      a = MaskId2ePadding(a, &mine_dirty);
      b = MaskId2ePadding(b, &theirs_dirty);
      CHECK_MESSAGE(mine_dirty == 0, "dirload left non-zero padding in id2e");
    }
    CHECK(FirstDifference(a, b) == "");
  }
}

// ---------------------------------------------------------------- tests

TEST_CASE("attribute options oracle: declared options load, index and print as with slapadd") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  // slapadd's load of the raw LDIF, exported, fixes the operational attributes.
  Db db0 = MakeDb(tmp, "db0", kOptions);
  const std::string raw = tmp.Write("raw.ldif", kRaw);
  ProcessResult first = Slapadd(db0, raw);
  REQUIRE_MESSAGE(first.exit_code == 0, first.Describe());
  const std::string exported = Slapcat(db0);
  // What slapd made of the spellings: lower-cased, sorted tags, equal
  // descriptions merged, ";binary" among the tags.
  CHECK(exported.find("cn;lang-de;x-foo: Anne\ncn;lang-de;x-foo: Annchen\n") != std::string::npos);
  CHECK(exported.find("description;x-bar;x-foo: tagged both\n"
                      "description;x-bar;x-foo: tagged both again\n") != std::string::npos);
  CHECK(exported.find("givenName;lang-ja;phonetic: anna\n") != std::string::npos);
  CHECK(exported.find("sn;x-a.b: Builder\n") != std::string::npos);
  const std::string input = tmp.Write("export.ldif", exported);

  Db theirs = MakeDb(tmp, "slapadd", kOptions);
  ProcessResult a = Slapadd(theirs, input);
  REQUIRE_MESSAGE(a.exit_code == 0, a.Describe());
  Db mine = MakeDb(tmp, "dirload", kOptions);
  ProcessResult b = RunDirload({"add", "-f", mine.conf, "-l", input, "--progress", "never"}, 60);
  REQUIRE_MESSAGE(b.exit_code == 0, b.Describe());

  CompareDatabases(theirs.dir, mine.dir);
  const std::string expected = Slapcat(theirs);
  CHECK(FirstDifference(Slapcat(mine), expected) == "");
  ProcessResult cat = RunDirload({"cat", "-f", mine.conf}, 60);
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  CHECK(FirstDifference(cat.out, expected) == "");

  // dirload's native format takes the same descriptions from the same
  // configuration and prints them back alike.
  const std::string native = tmp.File("native");
  ProcessResult n = RunDirload({"add", "-f", mine.conf, "--db", native, "--format", "native", "-l",
                                input, "--progress", "never"},
                               60);
  REQUIRE_MESSAGE(n.exit_code == 0, n.Describe());
  ProcessResult native_cat = RunDirload({"cat", "-f", mine.conf, "--db", native}, 60);
  REQUIRE_MESSAGE(native_cat.exit_code == 0, native_cat.Describe());
  CHECK(FirstDifference(native_cat.out, expected) == "");
}

// ";binary" among the tags. id2e is left out: certificates' normalized
// copies are certificate_oracle_test's; this case is about the options.
TEST_CASE("attribute options oracle: binary sorts among the tags") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  const std::string input = tmp.Write(
      "cert.ldif",
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "o: Example\ndc: example\nentryUUID: 4a7e0c2e-8f3e-4d0b-9d7a-1c2b3d4e5f60\n"
      "entryCSN: 20240101000000.000000Z#000000#000#000000\n"
      "createTimestamp: 20240101000000Z\nmodifyTimestamp: 20240101000000Z\n"
      "creatorsName: cn=admin,dc=example,dc=com\nmodifiersName: cn=admin,dc=example,dc=com\n"
      "structuralObjectClass: organization\n\n"
      "dn: cn=Anna,dc=example,dc=com\nobjectClass: person\n"
      "objectClass: strongAuthenticationUser\ncn: Anna\nsn: S\n"
      "entryUUID: 5b8f1d3f-9f4f-4e1c-8e8b-2d3c4e5f6071\n"
      "entryCSN: 20240101000000.000000Z#000000#000#000000\n"
      "createTimestamp: 20240101000000Z\nmodifyTimestamp: 20240101000000Z\n"
      "creatorsName: cn=admin,dc=example,dc=com\nmodifiersName: cn=admin,dc=example,dc=com\n"
      "structuralObjectClass: person\n"
      // A self-signed certificate (slapd checks the syntax).
      "userCertificate;x-zz;binary;a-b:: "
      "MIIBdDCCARmgAwIBAgIULqEAvqXj7ZBAuLwzEnBp+PWibhcwCgYIKoZIzj0EAwIwDzENMAsGA1UEAwwEQW5uYTAeFw"
      "0yNjEyMDExMTM4MTlaFw0zNjExMjgxMTM4MTlaMA8xDTALBgNVBAMMBEFubmEwWTATBgcqhkjOPQIBBggqhkjOPQMB"
      "BwNCAASqrD3WbVoKNhICfRkJ8m4GUbZosATQTa+bI+Jk1kYBKB83XCuZ8tZTrcPXd7RVNHoy8t5HGIAQF2k0HyIZG4"
      "ZUo1MwUTAdBgNVHQ4EFgQUbDZhzOwt61dsvmxgCcnpSyyKxtowHwYDVR0jBBgwFoAUbDZhzOwt61dsvmxgCcnpSyyK"
      "xtowDwYDVR0TAQH/BAUwAwEB/"
      "zAKBggqhkjOPQQDAgNJADBGAiEAmJ1kruRE+tlZrhelrRLguZ1eEBUrDHSdvxveJN7P/"
      "ggCIQCbz4uJiJdzBGJjmxViBJybnQHcL8beDlhIAyTbQoqd9g==\n\n");
  Db theirs = MakeDb(tmp, "slapadd", kOptions);
  ProcessResult a = Slapadd(theirs, input);
  REQUIRE_MESSAGE(a.exit_code == 0, a.Describe());
  Db mine = MakeDb(tmp, "dirload", kOptions);
  ProcessResult b = RunDirload({"add", "-f", mine.conf, "-l", input, "--progress", "never"}, 60);
  REQUIRE_MESSAGE(b.exit_code == 0, b.Describe());
  const std::string expected = Slapcat(theirs);
  CHECK(expected.find("userCertificate;a-b;binary;x-zz:: ") != std::string::npos);
  CHECK(FirstDifference(Slapcat(mine), expected) == "");
  CHECK(FirstDifference(MdbDump(mine.dir, "ad2i"), MdbDump(theirs.dir, "ad2i")) == "");
}

TEST_CASE("attribute options oracle: undeclared options are refused by both") {
  SKIP_WITHOUT_TOOLS();
  TempDir tmp;
  const std::string base =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "o: Example\ndc: example\n\n";
  struct Case {
    const char* name;
    std::vector<std::string> globals;
    const char* line;
  };
  const Case cases[] = {
      {"none", {}, "description;x-foo: bar"},
      // Declaring options drops slapd's default lang- unless it is declared.
      {"no-lang", {"attributeoptions x-foo"}, "cn;lang-de: Anne"},
      // An exact name is not a prefix.
      {"exact", {"attributeoptions x-foo lang-"}, "description;x-foobar: bar"},
      {"operational", kOptions, "createTimestamp;x-foo: 20240101000000Z"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.name);
    const std::string ldif =
        tmp.Write(std::string(c.name) + ".ldif",
                  base + "dn: cn=Anna,dc=example,dc=com\nobjectClass: person\ncn: Anna\nsn: S\n" +
                      c.line + "\n\n");
    Db theirs = MakeDb(tmp, std::string(c.name) + "-slapadd", c.globals);
    ProcessResult a = Slapadd(theirs, ldif);
    CHECK_MESSAGE(a.exit_code != 0, a.Describe());
    Db mine = MakeDb(tmp, std::string(c.name) + "-dirload", c.globals);
    ProcessResult b = RunDirload({"add", "-f", mine.conf, "-l", ldif, "--progress", "never"}, 60);
    CHECK_MESSAGE(b.exit_code == 1, b.Describe());  // an input error
  }
  // With the options declared, the first case's entry loads in both.
  const std::string ok = tmp.Write(
      "ok.ldif", base +
                     "dn: cn=Anna,dc=example,dc=com\nobjectClass: person\ncn: Anna\nsn: S\n"
                     "description;x-foo: bar\n\n");
  Db theirs = MakeDb(tmp, "ok-slapadd", kOptions);
  ProcessResult a = Slapadd(theirs, ok);
  CHECK_MESSAGE(a.exit_code == 0, a.Describe());
  Db mine = MakeDb(tmp, "ok-dirload", kOptions);
  ProcessResult b = RunDirload({"add", "-f", mine.conf, "-l", ok, "--progress", "never"}, 60);
  CHECK_MESSAGE(b.exit_code == 0, b.Describe());
}

}  // namespace
}  // namespace dirload
