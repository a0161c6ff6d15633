// The exhaustive oracle of string preparation: every code point slapd 2.5
// accepts in a Directory String (U+0001..U+10FFFF, surrogates and unassigned
// ones included, and a few beyond U+10FFFF), in values of each matching-rule
// family and in RDNs, loaded by slapadd and by `dirload add --format mdb`
// from the same slapcat export. Every sub-database must print the same under
// mdb_dump (id2e up to slapd's unzeroed padding): the normalised values slapd
// stores, dn2i's normalised RDNs and the index keys are then slapd's for every
// code point. A sample of spellings of the characters where RFC 4518 and slapd
// part ways is then searched with `dirload search` and with ldapsearch against
// slapd serving slapadd's database: the same entries, from slapd's format and
// from the native format loaded from the same export.
#include <doctest/doctest.h>

#include <algorithm>
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

using testing::MdbDatabases;
using testing::ProcessResult;
using testing::RunDirload;
using testing::Slapd;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";
constexpr char32_t kLastCodePoint = 0x10FFFF;
constexpr size_t kValueRun = 256;  // code points per attribute value
constexpr size_t kRdnRun = 24;     // per RDN: dn2i's records hold at most 511 bytes

// A caseExact Directory String attribute (the built-in schema has none), one
// for the exhaustive runs and one, substring-indexed, for the sample.
constexpr char kTestSchema[] =
    "attributetype ( 1.3.6.1.4.1.4203.666.11.990.1 NAME 'testExact'\n"
    "  EQUALITY caseExactMatch ORDERING caseExactOrderingMatch\n"
    "  SUBSTR caseExactSubstringsMatch SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "attributetype ( 1.3.6.1.4.1.4203.666.11.990.2 NAME 'testExactSample'\n"
    "  EQUALITY caseExactMatch SUBSTR caseExactSubstringsMatch\n"
    "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
    "objectclass ( 1.3.6.1.4.1.4203.666.11.990.3 NAME 'testUnicode' SUP top AUXILIARY\n"
    "  MAY ( testExact $ testExactSample $ x121Address $ telephoneNumber $ mail $\n"
    "        postalAddress $ uniqueMember ) )\n";

const std::vector<std::string> kIndexes = {
    "objectClass eq",     "cn eq",
    "description eq",     "testExact eq",
    "sn eq,sub",          "testExactSample eq,sub",
    "mail eq,sub",        "telephoneNumber eq,sub",
    "x121Address eq,sub", "uniqueMember eq",
    "member eq",
};

// UTF-8 as libldap writes it: up to 6 bytes, surrogates included.
void AppendUtf8(char32_t c, std::string* out) {
  if (c < 0x80) {
    out->push_back(static_cast<char>(c));
    return;
  }
  int len = c < 0x800 ? 2 : c < 0x10000 ? 3 : c < 0x200000 ? 4 : c < 0x4000000 ? 5 : 6;
  static constexpr unsigned char kLead[] = {0, 0, 0xC0, 0xE0, 0xF0, 0xF8, 0xFC};
  out->push_back(static_cast<char>(kLead[len] | (c >> (6 * (len - 1)))));
  for (int k = len - 2; k >= 0; --k)
    out->push_back(static_cast<char>(0x80 | ((c >> (6 * k)) & 0x3F)));
}

std::string Attr(const std::string& name, const std::string& value) {
  std::string b64;
  ldif::Base64Encode(value, &b64);
  return name + ":: " + b64 + "\n";
}

// An RDN value escaped for a DN string: RFC 4514's specials and NUL as \XX,
// a leading '#' or space and a trailing space too.
std::string EscapeRdnValue(const std::string& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    const auto c = static_cast<unsigned char>(v[i]);
    const bool special = c == ',' || c == '+' || c == '"' || c == '\\' || c == '<' || c == '>' ||
                         c == ';' || c == '=' || c == 0 || (i == 0 && (c == '#' || c == ' ')) ||
                         (i + 1 == v.size() && c == ' ');
    if (special) {
      static constexpr char kHex[] = "0123456789ABCDEF";
      out += '\\';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string Run(char32_t first, size_t n, char32_t last = kLastCodePoint) {
  std::string s;
  for (char32_t c = first; c < first + n && c <= last; ++c) AppendUtf8(c, &s);
  return s;
}

// The characters where RFC 4518 and slapd part ways, each beside the
// spellings RFC 4518 would call equal and slapd does not, or the other way
// round.
const std::vector<std::string> kSample = {
    "\xC4\xB0",
    "i",
    "I",
    "\xE1\xBA\x9E",
    "\xC3\x9F",
    "ss",
    "a\tb",
    "a b",
    "a  b",
    "a\xE2\x80\x8B"
    "b",
    "ab",
    "a\xC2\xAD"
    "b",
    "a\xE2\x80\x8C"
    "b",
    "\xE2\x9D\xA4",
    "\xE2\x9D\xA4\xEF\xB8\x8F",
    "\xE2\x85\xAB",
    "XII",
    "xii",
    "\xF0\x9D\x90\x80",
    "A",
    "a",
    "\xE2\x92\xB6",
    "\xE2\x93\x90",
    "\xF0\x9D\x98\x8F",
    "H",
    "\xEF\xBD\x86oo",
    "foo",
    "\xC7\x85",
    "d\xC5\xBE",
    "e\xCC\x81",
    "\xC3\xA9",
    "  lead",
    "trail  ",
    "\xE2\x84\xAB",
    "\xC3\xA5",
    "\xEF\xAC\x81le",
    "file",
};

std::string SampleFilterValue(const std::string& v) {
  std::string out;
  for (unsigned char c : v) {
    if (c == '*' || c == '(' || c == ')' || c == '\\' || c == 0) {
      static constexpr char kHex[] = "0123456789abcdef";
      out += '\\';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

struct Input {
  std::string ldif;
  size_t code_points = 0;
};

Input Generate() {
  Input in;
  std::string& o = in.ldif;
  const std::string s = kSuffix;
  o += "dn: " + s + "\nobjectClass: domain\ndc: example\n\n";
  for (const char* ou : {"rdn", "values", "sample"}) {
    o += "dn: ou=" + std::string(ou) + "," + s + "\nobjectClass: organizationalUnit\nou: " + ou +
         "\n\n";
  }
  // Values: runs of kValueRun code points, with spacing variants around them
  // (leading, doubled inside, trailing), under caseIgnore and caseExact.
  size_t n = 0;
  for (char32_t c = 1; c <= kLastCodePoint; c += kValueRun, ++n) {
    const std::string a = Run(c, kValueRun / 2), b = Run(c + kValueRun / 2, kValueRun / 2);
    const std::string v =
        (n % 3 == 0 ? "  " : "") + a + (n % 2 ? "  " : " ") + b + (n % 5 ? "" : " ");
    o += "dn: cn=v" + std::to_string(n) + ",ou=values," + s +
         "\nobjectClass: person\nobjectClass: testUnicode\ncn: v" + std::to_string(n) + "\nsn: s\n";
    o += Attr("description", v) + Attr("testExact", v) + "\n";
    in.code_points += (std::min<char32_t>(c + kValueRun - 1, kLastCodePoint) - c + 1);
  }
  // Beyond U+10FFFF: slapd's UTF-8 reaches 0x7FFFFFFF.
  std::string beyond;
  for (char32_t c : {0x110000u, 0x1FFFFFu, 0x200000u, 0x3FFFFFFu, 0x4000000u, 0x7FFFFFFFu}) {
    AppendUtf8(c, &beyond);
  }
  o += "dn: cn=beyond,ou=values," + s +
       "\nobjectClass: person\nobjectClass: testUnicode\ncn: beyond\nsn: s\n" +
       Attr("description", beyond) + Attr("testExact", beyond) + "\n";
  // NUL, which slapd takes inside a value and (escaped) in an RDN.
  const std::string nul("a\0b", 3);
  o += Attr("dn", "cn=" + EscapeRdnValue(nul) + ",ou=values," + s) +
       "objectClass: person\nobjectClass: testUnicode\nsn: s\n" + Attr("cn", nul) +
       Attr("description", nul) + Attr("testExact", nul) + "\n";
  // Beyond U+10FFFF in an RDN.
  o += Attr("dn", "cn=" + EscapeRdnValue(beyond) + " x,ou=rdn," + s) +
       "objectClass: person\nsn: r\n" + Attr("cn", beyond + " x") + "\n";
  // RDNs: runs of kRdnRun code points, a space doubled inside, as cn.
  n = 0;
  for (char32_t c = 1; c <= kLastCodePoint; c += kRdnRun, ++n) {
    // The number keeps the RDNs apart where runs fold to the same text
    // (the mathematical alphanumerics do).
    const std::string v =
        Run(c, kRdnRun / 2) + "  " + Run(c + kRdnRun / 2, kRdnRun / 2) + " " + std::to_string(n);
    o += Attr("dn", "cn=" + EscapeRdnValue(v) + ",ou=rdn," + s) + "objectClass: person\nsn: r\n" +
         Attr("cn", v) + "\n";
  }
  // The sample, one entry per spelling, in each family; uniqueMember and
  // member name entries by RDNs of the named characters.
  for (size_t i = 0; i < kSample.size(); ++i) {
    const std::string& v = kSample[i];
    std::string ascii;
    for (unsigned char c : v)
      ascii += c >= 0x21 && c < 0x7F && c != ',' ? static_cast<char>(c) : '_';
    o += "dn: cn=s" + std::to_string(i) + ",ou=sample," + s +
         "\nobjectClass: person\nobjectClass: testUnicode\ncn: s" + std::to_string(i) + "\n" +
         Attr("sn", v) + Attr("testExactSample", v) +
         Attr("mail", "  Mail." + ascii + "@Example.COM  ") +
         Attr("telephoneNumber",
              "+1 555-" + std::string(i % 2 ? "XII" : "xii") + " - " + std::to_string(i)) +
         Attr("x121Address", " 12 3" + std::to_string(i) + " ") +
         Attr("postalAddress", v + "$\\5C " + v + "  $$\\24x") +
         Attr("uniqueMember", "cn=" + EscapeRdnValue(v) + ",ou=Sample," + s + "#'0101'B") + "\n";
  }
  // member values that fold together cannot share an entry: one group each.
  for (size_t i = 0; i < kSample.size(); ++i) {
    o += "dn: cn=g" + std::to_string(i) + ",ou=sample," + s + "\nobjectClass: groupOfNames\ncn: g" +
         std::to_string(i) + "\n" + Attr("member", "CN=" + EscapeRdnValue(kSample[i]) + "," + s) +
         "\n";
  }
  return in;
}

testing::OracleDb MakeDb(const TempDir& tmp, const std::string& name, const std::string& schema) {
  return testing::MakeOracleDb(tmp, name, schema, kIndexes, 1073741824);
}

TEST_CASE("unicode oracle: every code point normalised, stored and indexed as slapd does") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slapd", "ldapsearch");
  TempDir tmp;
  const std::string schema = tmp.Write("test.schema", kTestSchema);
  Input in = Generate();
  MESSAGE("code points in values: " << in.code_points);
  CHECK(in.code_points == kLastCodePoint);

  // slapadd once to get the operational attributes, then both tools load
  // the same export, so every byte can match.
  testing::OracleDb first = MakeDb(tmp, "first", schema);
  ProcessResult r =
      testing::RunSlapadd({"-q", "-f", first.conf, "-l", tmp.Write("in.ldif", in.ldif)}, 300);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  r = testing::RunSlapcat({"-f", first.conf}, 300);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  const std::string exported = tmp.Write("export.ldif", r.out);

  testing::OracleDb theirs = MakeDb(tmp, "theirs", schema);
  testing::OracleDb mine = MakeDb(tmp, "mine", schema);
  r = testing::RunSlapadd({"-q", "-f", theirs.conf, "-l", exported}, 300);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  r = RunDirload({"add", "--format", "mdb", "-f", mine.conf, "-l", exported, "--progress", "never"},
                 300);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());

  {
    INFO("every sub-database, as mdb_dump prints it");
    CHECK(MdbDatabases(theirs.dir).size() == 4 + kIndexes.size());
    CHECK(testing::SubDatabaseDifferences(mine.dir, theirs.dir) == "");
  }

  {
    INFO("dirload search answers as slapd on slapadd's database");
    Slapd slapd(tmp, "slapd", theirs.conf);
    const std::string base = std::string("ou=sample,") + kSuffix;
    std::vector<std::string> filters;
    for (const std::string& v : kSample) {
      const std::string f = SampleFilterValue(v);
      for (const char* attr : {"sn", "testExactSample"}) {
        const std::string a = attr;
        filters.push_back("(" + a + "=" + f + ")");
        filters.push_back("(" + a + "=" + f + "*)");
        filters.push_back("(" + a + "=*" + f + ")");
        filters.push_back("(" + a + "=*" + f + "*)");
      }
      filters.push_back("(uniqueMember=cn=" + SampleFilterValue(EscapeRdnValue(v)) + ",ou=sample," +
                        kSuffix + "#'0101'B)");
      filters.push_back("(member=cn=" + SampleFilterValue(EscapeRdnValue(v)) + "," + kSuffix + ")");
    }
    filters.push_back("(mail=mail.xii@example.com)");
    filters.push_back("(mail=*XII@*)");
    filters.push_back("(telephoneNumber=+1555XII*)");
    filters.push_back("(telephoneNumber=+1555xii*)");
    filters.push_back("(x121Address=1231*)");
    size_t nonempty = 0;
    for (const std::string& f : filters) {
      CAPTURE(f);
      Slapd::Answer theirs_answer = slapd.Search(base, "sub", f, {"1.1"});
      REQUIRE(theirs_answer.exit_code == 0);
      ProcessResult mine_answer =
          RunDirload({"search", "-f", mine.conf, "-b", base, "-s", "sub", "--dn", f}, 60);
      REQUIRE_MESSAGE(mine_answer.exit_code == 0, mine_answer.Describe());
      const std::set<std::string> want = testing::LowerCaseDns(theirs_answer.entries);
      CHECK(testing::LowerCaseLines(mine_answer.out) == want);
      nonempty += !want.empty();
    }
    MESSAGE(filters.size() << " searches, " << nonempty << " with entries");
    CHECK(nonempty > filters.size() / 2);

    // The native format, from the same export with the same indexes: its
    // dn2id takes every RDN (none is refused as a duplicate), and its
    // searches answer as slapd too, indexed and not.
    const std::string native = tmp.File("native");
    r = RunDirload({"add", "--format", "native", "--db", native, "-f", mine.conf, "-l", exported,
                    "--progress", "never"},
                   300);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    ProcessResult all = RunDirload({"search", "--db", native, "-f", mine.conf, "-b", kSuffix, "-s",
                                    "sub", "--dn", "(objectClass=*)"},
                                   120);
    REQUIRE_MESSAGE(all.exit_code == 0, all.Describe());
    // As many entries as slapd serves (the DNs are spelled differently:
    // slapd prints them in base64 or with other escapes).
    CHECK(testing::LowerCaseLines(all.out).size() ==
          slapd.Search(kSuffix, "sub", "(objectClass=*)", {"1.1"}).entries.size());
    // A sample of the filters (every eighth, the NUL ones), each indexed
    // and a few also by a full scan: a scan of 50,000 entries per filter,
    // under the sanitizers, would cost the suite many minutes.
    std::vector<std::string> sample;
    for (size_t i = 0; i < filters.size(); i += 8) sample.push_back(filters[i]);
    sample.push_back("(cn=" + SampleFilterValue(std::string("a\0b", 3)) + ")");
    sample.push_back(std::string("(description=*") + SampleFilterValue(std::string(1, '\0')) +
                     "*)");
    for (size_t i = 0; i < sample.size(); ++i) {
      const std::string& f = sample[i];
      CAPTURE(f);
      const std::set<std::string> want =
          testing::LowerCaseDns(slapd.Search(kSuffix, "sub", f, {"1.1"}).entries);
      const bool scan_too = i % 10 == 0 || i + 2 >= sample.size();
      for (const char* index : {"", "--no-index"}) {
        if (*index && !scan_too) continue;
        CAPTURE(index);
        std::vector<std::string> args = {"search", "--db",  native, "-f",  mine.conf,
                                         "-b",     kSuffix, "-s",   "sub", "--dn"};
        if (*index) args.push_back(index);
        args.push_back(f);
        ProcessResult got = RunDirload(args, 60);
        REQUIRE_MESSAGE(got.exit_code == 0, got.Describe());
        CHECK(testing::LowerCaseLines(got.out) == want);
      }
    }
  }
}

}  // namespace
}  // namespace dirload
