#include "tests/search_oracle/oracle_world.h"

#include <doctest/doctest.h>
#include <unistd.h>
#include <utf8proc.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <string_view>
#include <thread>

#include "bench/ldif_generator.h"
#include "ldif/byte_source.h"
#include "ldif/reader.h"
#include "ldif/record.h"
#include "ldif/writer.h"
#include "lib/util/ascii.h"
#include "tests/support/hex.h"
#include "tests/support/slapd_conf.h"

namespace dirload::testing {

namespace fs = std::filesystem;

namespace {

// 5,000 entries keep every test case together under about three minutes in
// a Debug+ASan build on two busy cores (8,000 took 5.4 minutes on a slow day
// and made this the suite's longest test; 20,000 take about ten); the
// variable DIRLOAD_ORACLE_ENTRIES overrides.
constexpr uint64_t kDefaultEntries = 5000;
constexpr uint64_t kDefaultSeed = 7;

bool IsAscii(std::string_view s) {
  return std::all_of(s.begin(), s.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// `s` with every code point passed through `map` (utf8proc's simple case
// mappings), so a variant differs from the stored value in case only.
std::string MapCodePoints(std::string_view s, utf8proc_int32_t (*map)(utf8proc_int32_t)) {
  std::string out;
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) return std::string(s);  // not UTF-8: leave it alone
    utf8proc_uint8_t buf[4];
    utf8proc_ssize_t m = utf8proc_encode_char(map(cp), buf);
    out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(m));
    p += n;
    left -= n;
  }
  return out;
}

std::string Upper(std::string_view s) { return MapCodePoints(s, utf8proc_toupper); }
std::string Lower(std::string_view s) { return MapCodePoints(s, utf8proc_tolower); }

// The code points of `s`, each as its UTF-8 bytes.
std::vector<std::string> CodePoints(std::string_view s) {
  std::vector<std::string> out;
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(s.data());
  utf8proc_ssize_t left = static_cast<utf8proc_ssize_t>(s.size());
  while (left > 0) {
    utf8proc_int32_t cp = 0;
    utf8proc_ssize_t n = utf8proc_iterate(p, left, &cp);
    if (n <= 0) n = 1;
    out.emplace_back(reinterpret_cast<const char*>(p), static_cast<size_t>(n));
    p += n;
    left -= n;
  }
  return out;
}

std::string Join(const std::vector<std::string>& parts, size_t from, size_t to) {
  std::string out;
  for (size_t i = from; i < to && i < parts.size(); ++i) out += parts[i];
  return out;
}

// A value as an RFC 4515 assertion value: the characters that mean something
// in a filter escaped as \XX.
std::string FilterValue(std::string_view v) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : v) {
    if (c == '*' || c == '(' || c == ')' || c == '\\' || c == '\0') {
      out += '\\';
      out += kHex[(static_cast<unsigned char>(c) >> 4) & 0xf];
      out += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

// One byte as an RFC 4515 escape (a backslash and two hex digits).
std::string HexEscapeByte(char c) {
  static const char kHex[] = "0123456789abcdef";
  auto b = static_cast<unsigned char>(c);
  return std::string{'\\', kHex[b >> 4], kHex[b & 0xf]};
}

// Every byte outside ASCII written as \XX (upper-case hex), as a client that
// escapes all non-ASCII would send it.
std::string HexEscapeNonAscii(std::string_view v) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : FilterValue(v)) {
    auto b = static_cast<unsigned char>(c);
    if (b < 0x80) {
      out += c;
    } else {
      out += '\\';
      out += kHex[b >> 4];
      out += kHex[b & 0xf];
    }
  }
  return out;
}

// The same DN spelt differently: attribute types in upper case and a space
// after every comma. distinguishedNameMatch must find it equal.
std::string DnVariant(std::string_view dn) {
  std::string out;
  bool in_type = true;
  for (char c : dn) {
    if (c == ',') {
      out += ", ";
      in_type = true;
      continue;
    }
    if (c == '=') in_type = false;
    out += (in_type && c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

std::string ReplaceAll(std::string s, std::string_view from, std::string_view to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) {
    s.replace(at, from.size(), to);
  }
  return s;
}

// One LDIF record as attribute (lower-cased type) -> values.
using Attrs = std::map<std::string, std::vector<std::string>>;

Attrs ToAttrs(const ldif::Record& r) {
  Attrs a;
  for (size_t i = 0; i < r.size(); ++i) {
    ldif::AttributeView v = r.attribute(i);
    a[AsciiLowerCopy(v.description)].emplace_back(v.value);
  }
  return a;
}

bool Has(const Attrs& a, const std::string& type, size_t count = 1) {
  auto it = a.find(type);
  return it != a.end() && it->second.size() >= count;
}

const std::string& First(const Attrs& a, const std::string& type) {
  static const std::string kEmpty;
  auto it = a.find(type);
  return it == a.end() || it->second.empty() ? kEmpty : it->second[0];
}

// The most frequent value accepted by `want`; ties go to the smaller value so
// the pick depends on the data alone.
template <typename Pred>
std::string MostFrequent(const std::map<std::string, uint64_t>& counts, Pred want) {
  std::string best;
  uint64_t best_count = 0;
  for (const auto& [value, n] : counts) {
    if (n > best_count && want(value)) {
      best = value;
      best_count = n;
    }
  }
  return best;
}

// Values with case whose simple and full case foldings agree (no ß, no final
// sigma): OpenLDAP and RFC 4518 must give the same answer on them.
bool HasPlainCase(const std::string& v) {
  return !IsAscii(v) && Upper(v) != v && v.find("\xC3\x9F") == std::string::npos &&
         v.find("\xCF\x82") == std::string::npos;
}

// Runs body(0..n-1) on $DIRLOAD_ORACLE_JOBS threads (2 by default), each
// index once. `body` must not use test assertions: doctest's are not
// thread-safe, so callers check the results afterwards.
template <typename Body>
void ParallelFor(size_t n, Body body) {
  size_t jobs = 2;
  if (std::string j = Env("DIRLOAD_ORACLE_JOBS"); !j.empty())
    jobs = std::max<size_t>(1, std::stoul(j));
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < n; i = next++) body(i);
  };
  std::vector<std::thread> threads;
  for (size_t t = 1; t < jobs && t < n; ++t) threads.emplace_back(work);
  work();
  for (std::thread& t : threads) t.join();
}

}  // namespace

std::string NormalizeDn(std::string_view dn) {
  std::string out;
  for (size_t i = 0; i < dn.size(); ++i) {
    char c = dn[i];
    if (c == ' ' && !out.empty() && out.back() == ',') continue;
    out += AsciiLower(c);
  }
  return out;
}

std::string LoadConfig::Name() const {
  std::string name = backend;
  if (no_index) return name + "-noindex";
  name += "-" + method;
  if (method == "cache") name += std::to_string(idl_cache_size);
  return name;
}

OracleWorld& OracleWorld::Get() {
  static std::unique_ptr<OracleWorld> world;
  if (!world) {
    std::unique_ptr<OracleWorld> w(new OracleWorld());
    w->Build();  // a failed assertion throws out of here; the next call retries
    world = std::move(w);
  }
  return *world;
}

std::string OracleWorld::ScratchDir(const std::string& name) {
  fs::path p = dir_.path() / name;
  std::error_code ec;
  fs::remove_all(p, ec);
  fs::create_directories(p);
  return p.string();
}

ProcessResult OracleWorld::Dirload(const std::vector<std::string>& args, double timeout) {
  std::vector<std::string> argv = {BinaryDir() + "/tools/dirload"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, timeout);
}

void OracleWorld::Build() {
  std::string dirload = BinaryDir() + "/tools/dirload";
  REQUIRE_MESSAGE(FindProgram("true") != "", "no PATH to run programs from");
  {
    std::ifstream probe(dirload);
    REQUIRE_MESSAGE(probe.good(), dirload << " is missing: build the dirload target or set "
                                             "DIRLOAD_BINARY_DIR");
  }

  entries_ = kDefaultEntries;
  if (std::string e = Env("DIRLOAD_ORACLE_ENTRIES"); !e.empty()) entries_ = std::stoull(e);
  uint64_t seed = kDefaultSeed;
  if (std::string s = Env("DIRLOAD_ORACLE_SEED"); !s.empty()) seed = std::stoull(s);
  MESSAGE("search oracle: " << entries_ << " generated entries, seed " << seed
                            << " (DIRLOAD_ORACLE_ENTRIES, DIRLOAD_ORACLE_SEED)");

  ldif_ = dir_.File("generated.ldif");
  bench::GeneratorOptions options;
  options.entries = entries_;
  options.seed = seed;
  options.suffix = kOracleSuffix;
  Status s = bench::GenerateLdifFile(options, ldif_);
  REQUIRE_MESSAGE(s.ok(), s.message());

  PickQueries();
  LoadOpenLdap();
}

void OracleWorld::PickQueries() {
  Result<std::unique_ptr<ldif::ByteSource>> source = ldif::OpenByteSource(ldif_);
  REQUIRE_MESSAGE(source.ok(), source.status().message());
  ldif::Reader reader(std::move(*source));
  ldif::Record record;

  // The person most filters are about: the first with every attribute used
  // below, plain ASCII names and a surname long enough for an "any" fragment.
  std::string person_dn;
  Attrs person;
  std::string group_dn;
  Attrs group;
  std::map<std::string, uint64_t> sn_count, given_count, l_count, st_count, cn_count;
  std::vector<uint64_t> uid_numbers;
  const std::vector<std::string> kPersonNeeds = {"uid",
                                                 "cn",
                                                 "sn",
                                                 "givenname",
                                                 "telephonenumber",
                                                 "employeenumber",
                                                 "departmentnumber",
                                                 "postalcode",
                                                 "title",
                                                 "l",
                                                 "ou",
                                                 "homedirectory",
                                                 "gecos",
                                                 "displayname",
                                                 "roomnumber",
                                                 "loginshell",
                                                 "uidnumber",
                                                 "gidnumber",
                                                 "manager",
                                                 "employeetype",
                                                 "st"};
  while (true) {
    Result<bool> more = reader.Next(&record);
    REQUIRE_MESSAGE(more.ok(), more.status().message());
    if (!*more) break;
    Attrs a = ToAttrs(record);
    const std::vector<std::string>& classes = a["objectclass"];
    bool is_person = std::find(classes.begin(), classes.end(), "inetOrgPerson") != classes.end();
    bool is_group = std::find(classes.begin(), classes.end(), "groupOfNames") != classes.end();
    if (is_group && group_dn.empty() && Has(a, "member")) {
      group_dn = std::string(record.dn());
      group = a;
    }
    if (!is_person) continue;
    for (const std::string& v : a["sn"]) ++sn_count[v];
    for (const std::string& v : a["givenname"]) ++given_count[v];
    for (const std::string& v : a["l"]) ++l_count[v];
    for (const std::string& v : a["st"]) ++st_count[v];
    if (Has(a, "cn")) ++cn_count[First(a, "cn")];
    if (Has(a, "uidnumber")) uid_numbers.push_back(std::stoull(First(a, "uidnumber")));
    if (person_dn.empty()) {
      bool fits = Has(a, "mail", 2) && First(a, "sn").size() >= 6 && IsAscii(First(a, "cn")) &&
                  IsAscii(First(a, "l")) && IsAscii(First(a, "st"));
      for (const std::string& need : kPersonNeeds) fits = fits && Has(a, need);
      if (fits) {
        person_dn = std::string(record.dn());
        person = a;
      }
    }
  }
  REQUIRE_MESSAGE(!person_dn.empty(), "no generated person has every attribute the filters use");
  REQUIRE_MESSAGE(!group_dn.empty(), "no generated group");
  REQUIRE(uid_numbers.size() > 100);
  std::sort(uid_numbers.begin(), uid_numbers.end());

  auto ascii = [](const std::string& v) { return IsAscii(v); };
  std::string sn_common = MostFrequent(sn_count, ascii);
  std::map<std::string, uint64_t> rest = sn_count;
  rest.erase(sn_common);
  std::string sn_second = MostFrequent(rest, ascii);
  std::string sn_utf8 = MostFrequent(sn_count, HasPlainCase);
  std::string sn_caseless = MostFrequent(
      sn_count, [](const std::string& v) { return !IsAscii(v) && Upper(v) == v && Lower(v) == v; });
  std::string given_utf8 = MostFrequent(given_count, HasPlainCase);
  std::string l_utf8 = MostFrequent(l_count, HasPlainCase);
  std::string st_utf8 = MostFrequent(st_count, HasPlainCase);
  std::string cn_utf8 = MostFrequent(cn_count, HasPlainCase);
  for (const std::string* v :
       {&sn_common, &sn_second, &sn_utf8, &sn_caseless, &given_utf8, &l_utf8, &st_utf8, &cn_utf8}) {
    REQUIRE_MESSAGE(!v->empty(),
                    "the generated data lacks a value kind the filters need; "
                    "use more entries (DIRLOAD_ORACLE_ENTRIES)");
  }

  const std::string suffix = kOracleSuffix;
  const std::string sn = First(person, "sn");
  const std::string given = First(person, "givenname");
  const std::string cn = First(person, "cn");
  const std::string phone = First(person, "telephonenumber");
  const std::string mail = person["mail"][0];
  const std::string mail2 = person["mail"][1];
  const std::string mail2_domain = mail2.substr(mail2.find('@'));
  const std::string dept_dn = person_dn.substr(person_dn.find(',') + 1);
  const std::string member = First(group, "member");
  const std::string manager = First(person, "manager");
  const std::string title = First(person, "title");
  const std::string l = First(person, "l");
  const std::string ou = First(person, "ou");
  const std::string home = First(person, "homedirectory");
  picks_["title"] = title;
  picks_["l"] = l;
  std::vector<std::string> sn_utf8_cps = CodePoints(sn_utf8);
  size_t first_non_ascii = 0;
  while (first_non_ascii + 1 < sn_utf8_cps.size() && IsAscii(sn_utf8_cps[first_non_ascii])) {
    ++first_non_ascii;
  }
  const std::string cn_utf8_first_word = cn_utf8.substr(0, cn_utf8.find(' '));
  const std::string any4 = sn.substr(1, 4);  // inside the surname, so an "any" key
  const uint64_t uid_high = uid_numbers[uid_numbers.size() - 50];
  const uint64_t uid_low = uid_numbers[10];
  const std::string gid = First(person, "gidnumber");

  auto add = [&](std::string what, std::string filter, Plan plan, std::string base = "",
                 std::string scope = "sub") {
    queries_.push_back({std::move(what), base.empty() ? suffix : std::move(base), std::move(scope),
                        std::move(filter), plan});
  };
  using P = Plan;

  // Equality on indexed attributes, with case, space and spelling variants.
  add("eq, indexed", "(sn=" + FilterValue(sn_common) + ")", P::kIndexed);
  add("eq, upper case and surrounding spaces", "(sn=  " + FilterValue(Upper(sn_common)) + " )",
      P::kIndexed);
  add("eq, lower case", "(sn=" + FilterValue(AsciiLowerCopy(sn_common)) + ")", P::kIndexed);
  add("eq, inner spaces repeated", "(cn= " + FilterValue(ReplaceAll(cn, " ", "   ")) + "  )",
      P::kIndexed);
  add("eq uid, upper case", "(uid=" + FilterValue(Upper(First(person, "uid"))) + ")", P::kIndexed);
  add("eq mail (IA5), upper case", "(mail=" + FilterValue(Upper(mail)) + ")", P::kIndexed);
  add("eq telephoneNumber, hyphens for spaces",
      "(telephoneNumber=" + FilterValue(ReplaceAll(phone, " ", "-")) + ")", P::kIndexed);
  add("eq telephoneNumber, no spaces",
      "(telephoneNumber=" + FilterValue(ReplaceAll(phone, " ", "")) + ")", P::kIndexed);
  add("eq employeeNumber", "(employeeNumber=" + FilterValue(First(person, "employeenumber")) + ")",
      P::kIndexed);
  add("eq departmentNumber",
      "(departmentNumber=" + FilterValue(First(person, "departmentnumber")) + ")", P::kIndexed);
  add("eq postalCode", "(postalCode=" + FilterValue(First(person, "postalcode")) + ")",
      P::kIndexed);
  add("eq title, lower case", "(title=" + FilterValue(AsciiLowerCopy(title)) + ")", P::kIndexed);
  add("eq l, upper case", "(l=" + FilterValue(Upper(l)) + ")", P::kIndexed);
  add("eq ou, lower case", "(ou=" + FilterValue(AsciiLowerCopy(ou)) + ")", P::kIndexed);
  add("eq member, DN spelt differently", "(member=" + FilterValue(DnVariant(member)) + ")",
      P::kIndexed);
  add("eq manager", "(manager=" + FilterValue(manager) + ")", P::kIndexed);
  add("eq objectClass", "(objectClass=groupOfNames)", P::kIndexed);
  add("eq objectClass, upper case", "(objectClass=PERSON)", P::kIndexed);
  add("eq objectClass by OID (person)", "(objectClass=2.5.6.6)", P::kEither);

  // UTF-8 values.
  add("eq UTF-8 sn", "(sn=" + FilterValue(sn_utf8) + ")", P::kIndexed);
  add("eq UTF-8 sn, upper case", "(sn=" + FilterValue(Upper(sn_utf8)) + ")", P::kIndexed);
  add("eq UTF-8 sn, lower case, hex escapes", "(sn=" + HexEscapeNonAscii(Lower(sn_utf8)) + ")",
      P::kIndexed);
  add("eq UTF-8 sn without case", "(sn=" + FilterValue(sn_caseless) + ")", P::kIndexed);
  add("eq UTF-8 givenName, upper case", "(givenName=" + FilterValue(Upper(given_utf8)) + ")",
      P::kIndexed);
  add("eq UTF-8 l", "(l=" + FilterValue(l_utf8) + ")", P::kIndexed);
  add("eq UTF-8 st (unindexed), upper case", "(st=" + FilterValue(Upper(st_utf8)) + ")", P::kScan);
  add("substring initial UTF-8 cn", "(cn=" + FilterValue(Upper(cn_utf8_first_word)) + "*)",
      P::kEither);
  add("substring final UTF-8 sn",
      "(sn=*" + FilterValue(Join(sn_utf8_cps, first_non_ascii, sn_utf8_cps.size())) + ")",
      P::kEither);
  add("substring any UTF-8 sn, upper case",
      "(sn=*" + FilterValue(Upper(Join(sn_utf8_cps, 1, 5))) + "*)", P::kEither);

  // Substrings.
  add("substring initial", "(sn=" + FilterValue(sn_common.substr(0, 3)) + "*)", P::kIndexed);
  add("substring final", "(sn=*" + FilterValue(sn_common.substr(sn_common.size() - 3)) + ")",
      P::kIndexed);
  add("substring any", "(cn=*" + FilterValue(Upper(any4)) + "*)", P::kIndexed);
  add("substring initial+any+final",
      "(cn=" + FilterValue(given.substr(0, 2)) + "*" + FilterValue(any4) + "*" +
          FilterValue(sn.substr(sn.size() - 2)) + ")",
      P::kIndexed);
  add("substring final mail domain", "(mail=*" + FilterValue(mail2_domain) + ")", P::kIndexed);
  add("substring initial mail", "(mail=" + FilterValue(mail.substr(0, 5)) + "*)", P::kIndexed);
  add("substring, fragments too short for keys", "(givenName=*an*e*)", P::kEither);
  add("substring initial, one character", "(sn=" + FilterValue(sn_common.substr(0, 1)) + "*)",
      P::kEither);
  add("substring unindexed attribute, lower case",
      "(roomNumber=" + FilterValue(AsciiLowerCopy(First(person, "roomnumber").substr(0, 3))) + "*)",
      P::kScan);

  // Ordering (integerOrderingMatch), and an attribute without an ordering rule.
  add("ge uidNumber", "(uidNumber>=" + std::to_string(uid_high) + ")", P::kEither);
  add("le uidNumber", "(uidNumber<=" + std::to_string(uid_low) + ")", P::kEither);
  add("ge gidNumber", "(gidNumber>=" + gid + ")", P::kEither);
  add("le gidNumber", "(gidNumber<=" + gid + ")", P::kEither);
  add("ge on sn (no ordering rule: undefined)", "(sn>=" + FilterValue(sn_common) + ")", P::kEither);

  // Presence.
  add("presence, unindexed", "(initials=*)", P::kScan);
  add("presence, eq-only index", "(manager=*)", P::kEither);
  add("presence of uid", "(uid=*)", P::kEither);
  add("not presence", "(!(sn=*))", P::kEither);

  // Approx where OpenLDAP has no approx rule and so uses equality too.
  add("approx uidNumber", "(uidNumber~=" + First(person, "uidnumber") + ")", P::kEither);
  add("approx telephoneNumber", "(telephoneNumber~=" + FilterValue(phone) + ")", P::kEither);

  // Boolean combinations.
  add("and of three indexed",
      "(&(objectClass=inetOrgPerson)(l=" + FilterValue(l) + ")(title=" + FilterValue(title) + "))",
      P::kIndexed);
  add("or with a value that matches nothing",
      "(|(sn=" + FilterValue(sn_common) + ")(sn=" + FilterValue(sn_second) +
          ")(uid=nobody-at-all))",
      P::kIndexed);
  add("and with not", "(&(sn=" + FilterValue(sn_common) + ")(!(givenName=*a*)))", P::kIndexed);
  add("not alone", "(!(objectClass=inetOrgPerson))", P::kScan);
  add("and of indexed and not", "(&(ou=" + FilterValue(ou) + ")(!(l=" + FilterValue(l) + ")))",
      P::kIndexed);
  add("nested or of ands",
      "(|(&(sn=" + FilterValue(sn_common) + ")(l=" + FilterValue(l) +
          "))(&(objectClass=groupOfNames)(cn=" + FilterValue(First(group, "cn").substr(0, 4)) +
          "*)))",
      P::kIndexed);
  add("and/or over unindexed attributes",
      "(&(objectClass=*)(|(loginShell=" + FilterValue(First(person, "loginshell")) +
          ")(st=" + FilterValue(First(person, "st")) + ")))",
      P::kScan);
  add("absolute true", "(&)", P::kEither);
  add("absolute false", "(|)", P::kEither);

  // Values that match nothing.
  add("nothing: eq", "(sn=Nonexistentsurname)", P::kIndexed);
  add("nothing: substring any", "(cn=*qqqq*)", P::kIndexed);
  add("nothing: substring final", "(mail=*@nowhere.invalid)", P::kIndexed);
  add("nothing: and of disjoint values",
      "(&(sn=" + FilterValue(sn_common) + ")(sn=" + FilterValue(sn_second) + "))", P::kIndexed);
  add("nothing: caseExactIA5 with other case", "(homeDirectory=" + FilterValue(Upper(home)) + ")",
      P::kScan);
  add("nothing: integer with spaces", "(uidNumber= " + First(person, "uidnumber") + " )",
      P::kEither);

  // Unindexed attributes.
  add("eq unindexed caseExactIA5", "(homeDirectory=" + FilterValue(home) + ")", P::kScan);
  add("eq unindexed IA5, upper case", "(gecos=" + FilterValue(Upper(First(person, "gecos"))) + ")",
      P::kScan);
  add("eq unindexed, doubled spaces",
      "(displayName=" + FilterValue(ReplaceAll(First(person, "displayname"), " ", "  ")) + ")",
      P::kScan);
  add("eq unindexed employeeType",
      "(employeeType=" + FilterValue(First(person, "employeetype")) + ")", P::kScan);
  add("eq with a hex escape", "(cn=" + HexEscapeByte(cn[0]) + FilterValue(cn.substr(1)) + ")",
      P::kIndexed);

  // Scopes.
  add("base scope on a person", "(objectClass=*)", P::kEither, person_dn, "base");
  add("base scope, filter false", "(sn=Nonexistentsurname)", P::kEither, person_dn, "base");
  add("base scope, lower-case value", "(sn=" + FilterValue(AsciiLowerCopy(sn)) + ")", P::kEither,
      person_dn, "base");
  add("one level under a leaf", "(objectClass=*)", P::kEither, person_dn, "one");
  add("subtree of a leaf", "(objectClass=*)", P::kEither, person_dn, "sub");
  add("one level: the departments", "(objectClass=*)", P::kEither, "ou=People," + suffix, "one");
  add("one level, base DN spelt differently", "(sn=" + FilterValue(sn_common) + ")", P::kEither,
      DnVariant(dept_dn), "one");
  add("subtree of a department, substring", "(cn=*" + FilterValue(any4) + "*)", P::kEither, dept_dn,
      "sub");
  add("subtree of a department, not", "(!(l=" + FilterValue(l) + "))", P::kEither, dept_dn, "sub");
  add("subtree of the groups, member", "(member=" + FilterValue(member) + ")", P::kEither,
      "ou=Groups," + suffix, "sub");
  add("base scope on the suffix", "(objectClass=dcObject)", P::kEither, suffix, "base");
  add("one level under the suffix", "(objectClass=*)", P::kEither, suffix, "one");
  add("whole tree", "(objectClass=*)", P::kEither, suffix, "sub");
  // The children scope: the subtree without its base.
  add("children of the suffix", "(objectClass=*)", P::kEither, suffix, "children");
  add("children of a department, indexed", "(sn=" + FilterValue(sn_common) + ")", P::kEither,
      dept_dn, "children");
  add("children of a department, the department's own class", "(objectClass=organizationalUnit)",
      P::kEither, dept_dn, "children");
  add("children of the groups, member", "(member=" + FilterValue(member) + ")", P::kEither,
      "ou=Groups," + suffix, "children");
  add("children of a leaf", "(objectClass=*)", P::kEither, person_dn, "children");
  add("children, base DN spelt differently, substring", "(cn=*" + FilterValue(any4) + "*)",
      P::kEither, DnVariant(dept_dn), "children");

  // Where OpenLDAP folds case by single code points and RFC 4518 by B.2 of
  // RFC 3454: ß matches "ss" and final sigma matches sigma only under the
  // latter. These are kept apart so that the rest can be judged on its own.
  std::string sn_eszett = MostFrequent(
      sn_count, [](const std::string& v) { return v.find("\xC3\x9F") != std::string::npos; });
  std::string sn_final_sigma = MostFrequent(
      sn_count, [](const std::string& v) { return v.find("\xCF\x82") != std::string::npos; });
  if (!sn_eszett.empty()) {
    folding_queries_.push_back(
        {"ß written as SS, upper case", suffix, "sub",
         "(sn=" + FilterValue(Upper(ReplaceAll(sn_eszett, "\xC3\x9F", "ss"))) + ")",
         Plan::kEither});
    folding_queries_.push_back(
        {"ß, as stored", suffix, "sub", "(sn=" + FilterValue(sn_eszett) + ")", Plan::kEither});
    folding_queries_.push_back({"substring any 'ss'", suffix, "sub", "(sn=*ss*)", Plan::kEither});
  }
  if (!sn_final_sigma.empty()) {
    folding_queries_.push_back({"final sigma, upper case", suffix, "sub",
                                "(sn=" + FilterValue(Upper(sn_final_sigma)) + ")", Plan::kEither});
    folding_queries_.push_back(
        {"final sigma written as sigma", suffix, "sub",
         "(sn=" + FilterValue(ReplaceAll(sn_final_sigma, "\xCF\x82", "\xCF\x83")) + ")",
         Plan::kEither});
  }
}

void OracleWorld::LoadOpenLdap() {
  // DIRLOAD_SLAPADD / DIRLOAD_SLAPCAT name other binaries (or a missing one,
  // to see what the tests do without OpenLDAP).
  auto find = [](const char* variable, const char* name) {
    std::string path = Env(variable);
    if (path.empty()) return FindProgram(name);
    return ::access(path.c_str(), X_OK) == 0 ? path : std::string();
  };
  std::string slapadd = find("DIRLOAD_SLAPADD", "slapadd");
  slapcat_ = find("DIRLOAD_SLAPCAT", "slapcat");
  if (slapadd.empty() || slapcat_.empty()) {
    openldap_missing_ = "slapadd/slapcat not found (apt-get install slapd)";
    return;
  }
  std::string db = ScratchDir("openldap-mdb");
  slapd_conf_ = dir_.File("slapd.conf");
  SlapdConf()
      .Include(kExampleSchemas)
      .ModulePath("/usr/lib/ldap")
      .ModuleLoad("back_mdb")
      .Database("mdb")
      .Suffix(kOracleSuffix)
      .Directory(db)
      .MaxSize(1073741824)
      .Indexes(bench::kWorkloadIndexLines)
      .Write(dir_, "slapd.conf");

  ProcessResult add = RunProcess({slapadd, "-q", "-f", slapd_conf_, "-l", ldif_}, 900);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  expected_ = SlapcatDns(queries_);
  folding_expected_ = SlapcatDns(folding_queries_);
}

std::vector<DnSet> OracleWorld::SlapcatDns(const std::vector<Query>& queries) {
  // slapcat opens the database read-only, so several run at once. But LMDB
  // has a race between processes: one opening the environment while the
  // last other one closes it can find the lock file's mutexes destroyed and
  // fail with EINVAL ("mdb_db_open: ... cannot be opened: Invalid
  // argument"), once in a few thousand runs here (Heimdal and CFEngine
  // report the same of LMDB). A slapcat that fails so is run again; its
  // output is compared as any other.
  std::vector<ProcessResult> runs(queries.size());
  std::atomic<int> reruns{0};
  ParallelFor(queries.size(), [&](size_t i) {
    const Query& q = queries[i];
    std::string url =
        "ldap:///" + PercentEncode(q.base, "=,") + "??" + q.scope + "?" + PercentEncode(q.filter);
    for (int attempt = 0; attempt < 3; ++attempt) {
      runs[i] = RunProcess({slapcat_, "-f", slapd_conf_, "-o", "ldif_wrap=no", "-H", url}, 300);
      if (runs[i].exit_code == 0 ||
          runs[i].err.find("cannot be opened: Invalid argument") == std::string::npos) {
        break;
      }
      ++reruns;
    }
  });
  if (reruns > 0) MESSAGE("slapcat run again after LMDB's open race: " << reruns.load());
  std::vector<DnSet> sets;
  for (size_t i = 0; i < queries.size(); ++i) {
    INFO(queries[i].what << ": " << queries[i].filter);
    REQUIRE_MESSAGE(runs[i].exit_code == 0, runs[i].Describe());
    ldif::Reader reader(ldif::MemoryByteSource(std::move(runs[i].out), "slapcat output"));
    ldif::Record record;
    DnSet dns;
    while (true) {
      Result<bool> more = reader.Next(&record);
      REQUIRE_MESSAGE(more.ok(), more.status().message());
      if (!*more) break;
      dns.insert(NormalizeDn(record.dn()));
    }
    sets.push_back(std::move(dns));
  }
  return sets;
}

std::string OracleWorld::Database(const LoadConfig& config) {
  std::string name = config.Name();
  auto it = databases_.find(name);
  if (it != databases_.end()) return it->second;
  std::string db = ScratchDir("db-" + name);
  std::vector<std::string> args;
  if (config.backend == "mdb") {
    // slapd's format takes its suffix, directory and indexes from slapd.conf,
    // as slapd would serve it. No include lines: the built-in schema, as in
    // the native loads (and without OpenLDAP's schema files installed).
    std::ofstream(ConfPath(db)) << SlapdConf()
                                       .Database("mdb")
                                       .Suffix(kOracleSuffix)
                                       .Directory(db)
                                       .MaxSize(1073741824)
                                       .Indexes(bench::kWorkloadIndexLines)
                                       .Text();
    args = {"add", "--format", "mdb", "-f", ConfPath(db)};
  } else {
    args = {"add", "--db", db, "--suffix", kOracleSuffix, "--backend", config.backend};
    // With --no-index too: the configuration is recorded, its indexes left
    // for `dirload index` to build, as an operator who defers indexing does.
    for (const std::string& index : bench::kWorkloadIndexLines)
      args.insert(args.end(), {"--index", index});
  }
  args.insert(args.end(), {"-l", ldif_, "--progress", "never", "--stats", StatsPath(db)});
  if (config.no_index) {
    args.push_back("--no-index");
  } else {
    args.insert(args.end(), {"--index-method", config.method});
    if (config.method == "cache") {
      args.insert(args.end(), {"--idl-cache-size", std::to_string(config.idl_cache_size)});
    }
  }
  ProcessResult add = Dirload(args, 1800);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
  databases_[name] = db;
  return db;
}

std::vector<std::string> OracleWorld::DatabaseArgs(const std::string& db) {
  if (fs::exists(ConfPath(db))) return {"-f", ConfPath(db)};
  return {"--db", db};
}

SearchOutcome OracleWorld::Search(const std::string& db, const Query& q,
                                  const std::vector<std::string>& extra) {
  std::vector<std::string> args = DatabaseArgs(db);
  args.insert(args.begin(), "search");
  args.insert(args.end(), {"-b", q.base, "-s", q.scope, "--dn", "--explain"});
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(q.filter);
  SearchOutcome outcome;
  outcome.run = Dirload(args, 300);
  size_t start = 0;
  const std::string& out = outcome.run.out;
  while (start < out.size()) {
    size_t end = out.find('\n', start);
    if (end == std::string::npos) end = out.size();
    if (end > start)
      outcome.dns.insert(NormalizeDn(std::string_view(out).substr(start, end - start)));
    start = end + 1;
  }
  const std::string& err = outcome.run.err;
  for (size_t at = 0; at < err.size();) {
    size_t end = err.find('\n', at);
    if (end == std::string::npos) end = err.size();
    std::string_view line = std::string_view(err).substr(at, end - at);
    if (line.rfind("indexed:", 0) == 0 || line.rfind("scan:", 0) == 0) outcome.summary = line;
    at = end + 1;
  }
  return outcome;
}

std::vector<SearchOutcome> OracleWorld::SearchAll(const std::string& db,
                                                  const std::vector<Query>& queries,
                                                  const std::vector<std::string>& extra) {
  std::vector<SearchOutcome> outcomes(queries.size());
  ParallelFor(queries.size(), [&](size_t i) { outcomes[i] = Search(db, queries[i], extra); });
  return outcomes;
}

}  // namespace dirload::testing
