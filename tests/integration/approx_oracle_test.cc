// Approximate matching against OpenLDAP 2.5: one LDIF with ASCII and
// non-ASCII names, multi-word values, punctuation, digits and words that
// exercise every branch of slapd's Metaphone, under approx indexes on
// caseIgnore (cn, sn, description with sub, the supertype name), caseExact
// and IA5 (mail) attributes. slapadd and `dirload add --format mdb` load the
// same slapcat export: every sub-database, the approx keys among the hashed
// ones, must print the same under mdb_dump. Then slapd serves slapadd's
// database and answers `~=` filters for a sample of spellings; `dirload
// search` must return the same entries on its back-mdb database, on a native
// database (with its approx indexes and with --no-index), and `dirload cat
// -a` the same as slapd.
#include <doctest/doctest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "ldif/base64.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::LowerCaseDns;
using testing::LowerCaseLines;
using testing::MdbDatabases;
using testing::MdbDump;
using testing::ProcessResult;
using testing::RunDirload;
using testing::Slapd;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";
constexpr char kPeople[] = "ou=people,dc=example,dc=com";

// A caseExact Directory String with slapd's approximate rule (the built-in
// schema has no caseExact one).
constexpr char kTestSchema[] =
    "attributetype ( 1.3.6.1.4.1.4203.666.11.991.1 NAME 'testApprox'\n"
    "  EQUALITY caseExactMatch SUBSTR caseExactSubstringsMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.991.2 NAME 'testApproxObject' SUP top AUXILIARY\n"
    "  MAY testApprox )\n";

const std::vector<std::string> kIndexes = {
    "objectClass eq", "cn eq,approx",         "sn approx", "description sub,approx", "mail approx",
    "name approx",    "testApprox eq,approx",
};

// Names in several scripts; what is not ASCII either decomposes to ASCII
// letters or is dropped, leaving empty words behind.
const std::vector<std::string> kNames = {
    "John Smith",
    "Jon Smyth",
    "Diana Yamamoto",
    "Dianne Yamamoto",
    "\xC3\x89mile M\xC3\xBCller",
    "Emil Mueller",
    "\xC5\x81ukasz Kowalski",
    "Lukas Kowalsky",
    "Sean O'Brien",
    "Shawn OBrien",
    "Jean-Luc Picard",
    "Jean Luc Picard",
    "Zhang Wei",
    "\xE6\x9D\x8E Wang",
    "Nguy\xE1\xBB\x85n V\xC4\x83n An",
    "Xavier Knight",
    "Javier Night",
    "Thomas Thompson",
    "Tomas Tomson",
    "Phillip Phillips",
    "Filip Filips",
    "Hans Schmidt",
    "Hans Schmitt",
    "Jos\xC3\xA9 Garc\xC3\xAD"
    "a",
    "\xD0\x98\xD0\xB2\xD0\xB0\xD0\xBD \xD0\x9F\xD0\xB5\xD1\x82\xD1\x80\xD0\xBE\xD0\xB2",
    "\xD0\x92\xD0\xBB\xD0\xB0\xD0\xB4 Smith",
    "\xC3\x85ngstr\xC3\xB6m \xC3\x86r\xC3\xB8",
    "Mary-Kate O'Neil",
    "R2-D2",
    "007 Bond",
    "Dr. No",
    "J. R. R. Tolkien",
    "  Spaced   Out  ",
    "\xE2\x85\xAB Roman",
    "\xEF\xAC\x81sh Fillet",
    "Stra\xC3\x9F"
    "e M\xC3\xBCller",
    "\xC7\x84"
    "emal Bijedi\xC4\x87",
    "\xC4\xB2ssel Meer",
    "\xC3\x9E\xC3\xB3r \xC3\x93\xC3\xB0insson",
    "na\xC3\xAFve caf\xC3\xA9",
    "\xC4\xB0zmir \xC4\xB0stanbul",
    "Tab\tSeparated",
    "Ghoti Gnocchi",
    "Wright Whale",
};

// Words for every branch of the code (initial KN/GN/PN/AE/WR/WH/X, C before
// IA/H/front vowels, DG, GH, GN(ED), PH, SCH, SH, SIO, TH, TIA, TCH, X, MB,
// doubled letters) and some without letters.
const std::vector<std::string> kWords = {
    "knight", "gnome",  "pneumonia", "aerial",    "wrong",     "whale",  "xerxes",      "special",
    "church", "chorus", "science",   "scene",     "cia",       "edge",   "judge",       "laugh",
    "tough",  "though", "through",   "ghost",     "high",      "sign",   "signed",      "campaign",
    "phone",  "school", "shoe",      "vision",    "nation",    "thin",   "watch",       "kitchen",
    "box",    "taxi",   "lamb",      "climb",     "bob",       "abbey",  "accent",      "yacht",
    "yes",    "who",    "view",      "quick",     "zebra",     "muller", "mueller",     "123abc",
    "-dash",  "o'neil", "a.b.c",     "x-ray",     "e-mail",    "2nd",    "dodge",       "gym",
    "gem",    "egg",    "daughter",  "neighbour", "character", "christ", "acknowledge", "ahead",
};

std::string Attr(const std::string& name, const std::string& value) {
  std::string b64;
  ldif::Base64Encode(value, &b64);
  return name + ":: " + b64 + "\n";
}

// Deterministic pseudo-random words: a fixed LCG, letters drawn from all
// of A-Z and from a set heavy in the letters the code treats specially.
class Words {
 public:
  std::string Next() {
    const size_t len = 1 + Draw(9);
    std::string w;
    for (size_t i = 0; i < len; ++i) {
      static constexpr char kAll[] = "abcdefghijklmnopqrstuvwxyz";
      static constexpr char kSpecial[] = "aeiouhgcstwxyk";
      w.push_back(Draw(10) < 6 ? kAll[Draw(26)] : kSpecial[Draw(14)]);
    }
    return w;
  }

 private:
  size_t Draw(size_t n) {
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<size_t>((state_ >> 33) % n);
  }
  uint64_t state_ = 42;
};

// ASCII letters of a name, lower-cased, for a mail address.
std::string MailPart(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
      out.push_back(static_cast<char>(c | 0x20));
    if (c == ' ' && !out.empty() && out.back() != '.') out.push_back('.');
  }
  while (!out.empty() && out.back() == '.') out.pop_back();
  return out.empty() ? "x" : out;
}

std::string Generate() {
  std::string o = std::string("dn: ") + kSuffix + "\nobjectClass: domain\ndc: example\n\n";
  o += std::string("dn: ") + kPeople + "\nobjectClass: organizationalUnit\nou: people\n\n";
  Words words;
  const char* kGlue[] = {" ", " ", " ", ", ", "-", " 42 ", "'", ".", "  "};
  size_t n = 0;
  auto entry = [&](const std::string& cn, const std::string& sn, const std::string& description,
                   const std::string& mail) {
    const std::string uid = "u" + std::to_string(n++);
    o += "dn: uid=" + uid + "," + kPeople +
         "\nobjectClass: inetOrgPerson\nobjectClass: testApproxObject\nuid: " + uid + "\n" +
         Attr("cn", cn) + Attr("sn", sn) + Attr("description", description) +
         Attr("testApprox", cn) + "mail: " + mail + "\n\n";
  };
  for (size_t i = 0; i < kNames.size(); ++i) {
    const std::string& name = kNames[i];
    const size_t space = name.rfind(' ');
    const std::string sn =
        space == std::string::npos || space + 1 == name.size() ? name : name.substr(space + 1);
    std::string description = kWords[i % kWords.size()];
    for (size_t k = 0; k < 1 + i % 4; ++k) description += kGlue[(i + k) % 9] + words.Next();
    entry(name, sn, description, MailPart(name) + "@example.com");
  }
  for (size_t i = 0; i < kWords.size(); ++i) {
    const std::string w = words.Next();
    entry(kWords[i] + " " + w, w, w + kGlue[i % 9] + kWords[(i + 7) % kWords.size()],
          kWords[i] + "." + w + "@example.com");
  }
  for (size_t i = 0; i < 300; ++i) {
    const std::string a = words.Next(), b = words.Next(), c = words.Next();
    entry(a + " " + b, b, a + kGlue[i % 9] + c + " " + b, a + "@example.com");
  }
  return o;
}

testing::OracleDb MakeDb(const TempDir& tmp, const std::string& name, const std::string& schema) {
  return testing::MakeOracleDb(tmp, name, schema, kIndexes, 268435456);
}

// The sample of spellings: names and words as stored, respelled, reordered,
// with punctuation and digits, and with nothing left after dropping what
// is not ASCII.
const std::vector<std::string> kSpellings = {
    "smith",
    "smyth",
    "SMITH",
    "jon smyth",
    "smyth jon",
    "dianne yamamoto",
    "yamamoto diana",
    "yamamoto",
    "m\xC3\xBCller",
    "MULLER",
    "mueller",
    "\xC3\xA9mile",
    "emile m\xC3\xBCller",
    "\xC5\x82ukasz",
    "lukasz",
    "o'brien",
    "obrien",
    "o",
    "jean-luc",
    "jean luc",
    "luc",
    "123",
    "007",
    "\xE4\xB8\xAD\xE6\x96\x87",
    "\xD0\x98\xD0\xB2\xD0\xB0\xD0\xBD",
    "wang",
    "xavier",
    "zavier",
    "night",
    "thompson",
    "tomson",
    "filips",
    "schmidt",
    "shmit",
    "r2",
    "roman",
    "xii",
    "fish",
    "strasse",
    "dzemal",
    "ijssel",
    "izmir",
    "tab",
    "ghoti",
    "right",
    "knight 42",
    "laugh",
    "laff",
    "through",
    "thru",
    "judge",
    "vision",
    "kitchen",
};

TEST_CASE("approx oracle: indexes byte for byte as slapadd's, ~= answers as slapd's") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slapd", "ldapsearch");
  TempDir tmp;
  const std::string schema = tmp.Write("test.schema", kTestSchema);

  // slapadd once for the operational attributes, then every load reads
  // the same export, so that every byte can match.
  testing::OracleDb first = MakeDb(tmp, "first", schema);
  ProcessResult r =
      testing::RunSlapadd({"-q", "-f", first.conf, "-l", tmp.Write("in.ldif", Generate())}, 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  r = testing::RunSlapcat({"-f", first.conf}, 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  const std::string exported = tmp.Write("export.ldif", r.out);

  testing::OracleDb theirs = MakeDb(tmp, "theirs", schema);
  testing::OracleDb mine = MakeDb(tmp, "mine", schema);
  testing::OracleDb native = MakeDb(tmp, "native", schema);
  r = testing::RunSlapadd({"-q", "-f", theirs.conf, "-l", exported}, 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  r = RunDirload({"add", "--format", "mdb", "-f", mine.conf, "-l", exported, "--progress", "never"},
                 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  r = RunDirload(
      {"add", "--format", "native", "-f", native.conf, "-l", exported, "--progress", "never"}, 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());

  {
    INFO("every sub-database, as mdb_dump prints it");
    CHECK(MdbDatabases(theirs.dir).size() == 4 + kIndexes.size());
    CHECK(testing::SubDatabaseDifferences(mine.dir, theirs.dir) == "");
    // The approx keys are there: "SM0" (smith) under cn, name and testApprox.
    for (const char* name : {"cn", "name", "testApprox"}) {
      CAPTURE(name);
      CHECK(MdbDump(theirs.dir, name).find("\n 534d30\n") != std::string::npos);
    }
  }

  {
    INFO("the approx index answers ~= on both formats");
    for (const testing::OracleDb* db : {&mine, &native}) {
      CAPTURE(db->dir);
      r = RunDirload({"search", "-f", db->conf, "-b", kPeople, "--dn", "--explain", "(cn~=smyth)"},
                     60);
      REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
      const std::string explained = r.out + r.err;
      CHECK(explained.find("approx") != std::string::npos);
      CHECK(explained.find("not indexed") == std::string::npos);
    }
  }

  Slapd slapd(tmp, "slapd", theirs.conf);
  std::vector<std::string> filters;
  for (const std::string& s : kSpellings) {
    for (const char* attr : {"cn", "description", "name"}) {
      filters.push_back("(" + std::string(attr) + "~=" + s + ")");
    }
  }
  for (const char* s : {"smyth", "m\xC3\xBCller", "MULLER", "o'brien", "jean"}) {
    filters.push_back("(testApprox~=" + std::string(s) + ")");
    filters.push_back("(sn~=" + std::string(s) + ")");
  }
  for (const char* s : {"jon", "smith", "john.smith@example.com", "jon.x", "x jon", "knight"}) {
    filters.push_back("(mail~=" + std::string(s) + ")");
  }
  filters.push_back("(&(cn~=smyth)(sn~=smith))");
  filters.push_back("(|(cn~=123)(sn~=tomson))");
  filters.push_back("(!(cn~=smyth))");
  filters.push_back("(&(objectClass=person)(description~=knight 42))");

  size_t nonempty = 0;
  for (const std::string& f : filters) {
    CAPTURE(f);
    const Slapd::Answer answer = slapd.Search(kPeople, "sub", f, {"1.1"});
    REQUIRE(answer.exit_code == 0);
    const std::set<std::string> want = LowerCaseDns(answer.entries);
    nonempty += !want.empty();
    for (const testing::OracleDb* db : {&mine, &native}) {
      CAPTURE(db->dir);
      r = RunDirload({"search", "-f", db->conf, "-b", kPeople, "-s", "sub", "--dn", f}, 60);
      REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
      CHECK(LowerCaseLines(r.out) == want);
    }
  }
  MESSAGE(filters.size() << " searches, " << nonempty << " with entries");
  CHECK(nonempty > filters.size() / 2);

  // The evaluation alone (no index) and cat's filter, on a few.
  for (const char* f : {"(cn~=smyth)", "(description~=123)", "(name~=yamamoto)",
                        "(testApprox~=MULLER)", "(mail~=jon.x)"}) {
    CAPTURE(f);
    const std::set<std::string> want =
        LowerCaseDns(slapd.Search(kPeople, "sub", f, {"1.1"}).entries);
    r = RunDirload({"search", "-f", native.conf, "-b", kPeople, "--no-index", "--dn", f}, 60);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    CHECK(LowerCaseLines(r.out) == want);
    r = RunDirload({"cat", "-f", mine.conf, "-a", f, "-o", "ldif-wrap=no"}, 60);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    std::set<std::string> got;
    for (const std::string& line : LowerCaseLines(r.out)) {
      if (line.rfind("dn: ", 0) == 0) got.insert(line.substr(4));
    }
    CHECK(got == want);
  }
}

}  // namespace
}  // namespace dirload
