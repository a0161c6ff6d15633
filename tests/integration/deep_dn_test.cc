// DNs longer than a store key (511 bytes): a 200-level chain, as slapadd
// loads it, through `dirload add`, `dirload cat` and `dirload search` on both
// engines; the dn2id records of such DNs use the long form of lib/schema/dn.h.
// Where OpenLDAP's slapadd and slapcat are installed, cat's output is
// compared with slapcat's for the same input. A record of another DN under a
// long key (a hash collision, forged here) must stop that DN from loading.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "lib/schema/dn.h"
#include "lib/store/store.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/ldif_compare.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::RunDirload;
using testing::RunResult;

constexpr const char* kSuffix = "dc=example,dc=com";
constexpr int kLevels = 200;

// ou=lN,...,ou=l1,dc=example,dc=com (already in normalised form).
std::string Level(int n) {
  std::string dn = kSuffix;
  for (int i = 1; i <= n; ++i) dn = "ou=l" + std::to_string(i) + "," + dn;
  return dn;
}

struct Chain {
  std::string ldif;
  std::vector<std::string> dns;  // input order
};

// The suffix, the 200 levels, and below some levels two leaves, so that one
// level scans see more than one child and skip (or not) over subtrees.
Chain MakeChain() {
  Chain c;
  auto add = [&](const std::string& dn, const std::string& body) {
    c.dns.push_back(dn);
    c.ldif += "dn: " + dn + "\n" + body + "\n";
  };
  add(kSuffix, "objectClass: dcObject\nobjectClass: organization\ndc: example\no: Example\n");
  for (int i = 1; i <= kLevels; ++i) {
    add(Level(i), "objectClass: organizationalUnit\nou: l" + std::to_string(i) + "\n");
    if (i == 50 || i == 100 || i == 150 || i == kLevels) {
      for (const char* leaf : {"cn=a", "cn=b"}) {
        add(std::string(leaf) + "," + Level(i),
            "objectClass: organizationalRole\ncn: " + std::string(leaf + 3) + "\n");
      }
    }
  }
  return c;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The DNs of `chain` that `keep` selects, in input order (= ID order).
template <typename F>
std::vector<std::string> Select(const Chain& chain, F keep) {
  std::vector<std::string> out;
  for (const std::string& dn : chain.dns) {
    if (keep(dn)) out.push_back(dn);
  }
  return out;
}

bool EndsWith(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// The RDN count of a DN without escaped commas.
size_t Depth(const std::string& dn) { return std::count(dn.begin(), dn.end(), ',') + 1; }

std::vector<std::string> SearchDns(const std::string& db, const std::string& backend,
                                   const std::string& base, const std::string& scope) {
  RunResult r = RunDirload({"search", "--db", db, "--backend", backend, "-b", base, "-s", scope,
                            "(objectClass=*)", "--dn"},
                           60);
  CHECK_MESSAGE(r.exit_code == 0, r.Describe());
  return Lines(r.out);
}

TEST_CASE("a 200-level chain loads, cats in slapcat's order and is searchable") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  const Chain chain = MakeChain();
  REQUIRE(DnSortKey(Level(kLevels)).size() > kMaxKeySize);  // the point of the test
  testing::TempDir t;
  const std::string input = t.Write("chain.ldif", chain.ldif);

  // slapcat's output for the same input, where OpenLDAP is installed.
  std::vector<ldif::Record> slapcat;
  if (!testing::FindProgram("slapadd").empty() && !testing::FindProgram("slapcat").empty()) {
    fs::create_directory(t.path() / "slapd-db");
    const std::string conf = testing::SlapdConf()
                                 .Include({"core"})
                                 .ModulePath("/usr/lib/ldap")
                                 .ModuleLoad("back_mdb")
                                 .Database("mdb")
                                 .Suffix(testing::kExampleSuffix)
                                 .Directory((t.path() / "slapd-db").string())
                                 .MaxSize(67108864)
                                 .Write(t, "slapd.conf");
    testing::ProcessResult add = testing::RunSlapadd({"-q", "-f", conf, "-l", input}, 60);
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    testing::ProcessResult cat =
        testing::RunSlapcat({"-f", conf, "-l", t.File("slapcat.ldif")}, 60);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    testing::LdifFile f = testing::ReadLdifFile(t.File("slapcat.ldif"));
    REQUIRE_MESSAGE(f.ok(), f.error);
    slapcat = std::move(f.records);
    CHECK(testing::Dns(slapcat) == chain.dns);
  } else {
    MESSAGE("slapadd/slapcat not installed: cat output compared with the input only");
  }

  for (const std::string backend : {"lmdb", "bdb"}) {
    CAPTURE(backend);
    const std::string db = t.File("db-" + backend);
    RunResult add = RunDirload({"add", "--db", db, "--suffix", kSuffix, "--backend", backend, "-l",
                                input, "--progress", "never"},
                               120);
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());

    RunResult cat =
        RunDirload({"cat", "--db", db, "--backend", backend, "-l", t.File("cat.ldif")}, 60);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    testing::LdifFile got = testing::ReadLdifFile(t.File("cat.ldif"));
    REQUIRE_MESSAGE(got.ok(), got.error);
    CHECK(testing::Dns(got.records) == chain.dns);
    if (!slapcat.empty()) {
      testing::CompareOptions options;
      options.drop_operational = true;
      const std::string diff = testing::CompareRecords(got.records, slapcat, options);
      CHECK_MESSAGE(diff.empty(), diff);
    }

    // Base scope on the deepest entries (keys far over 511 bytes).
    const std::string deepest = "cn=b," + Level(kLevels);
    CHECK(SearchDns(db, backend, deepest, "base") == std::vector<std::string>{deepest});
    CHECK(SearchDns(db, backend, Level(kLevels), "base") ==
          std::vector<std::string>{Level(kLevels)});
    RunResult missing = RunDirload({"search", "--db", db, "--backend", backend, "-b",
                                    "cn=c," + Level(kLevels), "-s", "base", "(objectClass=*)"},
                                   60);
    CHECK(missing.exit_code != 0);
    CHECK_MESSAGE(missing.err.find("does not exist") != std::string::npos, missing.Describe());

    // Subtree and one level from bases with short and with long keys.
    for (int level : {1, 50, 100, 150, 199, kLevels}) {
      CAPTURE(level);
      const std::string base = Level(level);
      const std::string tail = "," + base;
      CHECK(SearchDns(db, backend, base, "sub") ==
            Select(chain, [&](const std::string& dn) { return dn == base || EndsWith(dn, tail); }));
      CHECK(SearchDns(db, backend, base, "one") == Select(chain, [&](const std::string& dn) {
              return EndsWith(dn, tail) && Depth(dn) == Depth(base) + 1;
            }));
    }
    CHECK(SearchDns(db, backend, "", "one") == std::vector<std::string>{kSuffix});
    CHECK(SearchDns(db, backend, kSuffix, "sub") == chain.dns);

    // cat of a subtree goes through the same scope code.
    RunResult sub = RunDirload(
        {"cat", "--db", db, "--backend", backend, "-s", Level(150), "-l", t.File("sub.ldif")}, 60);
    REQUIRE_MESSAGE(sub.exit_code == 0, sub.Describe());
    testing::LdifFile part = testing::ReadLdifFile(t.File("sub.ldif"));
    REQUIRE_MESSAGE(part.ok(), part.error);
    CHECK(testing::Dns(part.records) == Select(chain, [&](const std::string& dn) {
            return dn == Level(150) || EndsWith(dn, "," + Level(150));
          }));

    // Appending an entry with a long DN, and the same DN again.
    const std::string extra = t.Write(
        "extra.ldif", "dn: cn=c," + Level(kLevels) + "\nobjectClass: organizationalRole\ncn: c\n");
    add = RunDirload({"add", "--db", db, "--suffix", kSuffix, "--backend", backend, "-l", extra,
                      "--progress", "never"},
                     60);
    CHECK_MESSAGE(add.exit_code == 0, add.Describe());
    add = RunDirload({"add", "--db", db, "--suffix", kSuffix, "--backend", backend, "-l", extra,
                      "--progress", "never"},
                     60);
    CHECK(add.exit_code == 1);
    CHECK_MESSAGE(add.err.find("already in the database") != std::string::npos, add.Describe());
  }
}

TEST_CASE("a long dn2id key held by another DN is an error, not the same entry") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  const Chain chain = MakeChain();
  testing::TempDir t;
  const std::string input = t.Write("chain.ldif", chain.ldif);
  const std::string db = t.File("db");
  RunResult add =
      RunDirload({"add", "--db", db, "--suffix", kSuffix, "-l", input, "--progress", "never"}, 120);
  REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());

  // A record under the long key of a DN not loaded yet, that names another
  // DN: a plain record (an 8-byte ID) whose key is therefore the DN's key
  // itself, 488 bytes that are not the new DN's.
  const std::string victim = "cn=victim," + Level(kLevels);
  {
    Result<std::unique_ptr<Store>> store = Store::Open(Backend::kLmdb, db, StoreOptions{});
    REQUIRE_MESSAGE(store.ok(), store.status().ToString());
    std::string buffer;
    const std::string key(Dn2IdKey(DnSortKey(victim), &buffer));
    REQUIRE(key.size() == kDn2IdKeyPrefix + 8);
    std::string value;
    PutBigEndian64(3, &value);
    REQUIRE((*store)->Put(kDn2IdTable, key, value).ok());
    REQUIRE((*store)->Commit().ok());
  }
  const std::string extra =
      t.Write("victim.ldif", "dn: " + victim + "\nobjectClass: organizationalRole\ncn: victim\n");
  add = RunDirload(
      {"add", "--db", db, "--suffix", kSuffix, "-l", extra, "-c", "--progress", "never"}, 60);
  CHECK(add.exit_code == 1);
  CHECK_MESSAGE(add.err.find("dn2id key") != std::string::npos, add.Describe());
  CHECK_MESSAGE(add.err.find("already taken by entry 3") != std::string::npos, add.Describe());
  // The entry the forged record names is untouched, and the new one absent.
  CHECK(SearchDns(db, "lmdb", Level(2), "base") == std::vector<std::string>{Level(2)});
  CHECK(SearchDns(db, "lmdb", Level(kLevels), "one") ==
        std::vector<std::string>{"cn=a," + Level(kLevels), "cn=b," + Level(kLevels)});
}

}  // namespace
}  // namespace dirload
