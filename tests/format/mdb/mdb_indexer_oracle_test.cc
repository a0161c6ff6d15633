// MdbKeyMaker against slapadd 2.5 for the rules whose keys are not a plain
// hash of the normalized value: generalizedTimeMatch and CSNMatch (5-byte
// ordered keys) and uniqueMemberMatch (the DN part only), plus UUIDMatch
// (the hash of the 16 raw bytes) and presence keys on those types. slapadd
// loads a small LDIF that gives every operational value explicitly; for each
// index database the (key, IDs) pairs MdbKeyMaker makes from the LDIF's values,
// normalized as the loader normalizes them, must equal what mdb_dump prints.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_key_maker.h"
#include "lib/format/mdb/mdb_normalized.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "lib/util/ascii.h"
#include "tests/support/child_process.h"
#include "tests/support/hex.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload::mdb {
namespace {

using dirload::testing::Hex;
using dirload::testing::SlapdConf;
using dirload::testing::TempDir;

struct TestEntry {
  std::string dn;
  std::vector<std::pair<std::string, std::string>> attrs;  // one attribute's lines adjacent
};

// Operational values every entry gets, so that slapadd generates none.
void AddOperational(TestEntry* e, int n, const std::string& create, const std::string& modify,
                    const std::string& csn) {
  char uuid[40];
  std::snprintf(uuid, sizeof(uuid), "%08x-0000-1000-8000-%012x", 0x1000u + n, 0xabc00u + n);
  e->attrs.emplace_back("entryUUID", uuid);
  e->attrs.emplace_back("createTimestamp", create);
  e->attrs.emplace_back("modifyTimestamp", modify);
  e->attrs.emplace_back("entryCSN", csn);
}

std::vector<TestEntry> Entries() {
  std::vector<TestEntry> out;
  TestEntry suffix{"dc=example,dc=com",
                   {{"objectClass", "top"},
                    {"objectClass", "dcObject"},
                    {"objectClass", "organization"},
                    {"dc", "example"},
                    {"o", "Example"},
                    {"contextCSN", "20240102030405.123456Z#000000#000#000000"},
                    {"contextCSN", "20240102030405.999999Z#000003#001#000000"},
                    {"contextCSN", "20241231235959.000000Z#000000#002#000000"}}};
  AddOperational(&suffix, 0, "19700101000000Z", "20240102030406.5Z",
                 "20240102030405.123456Z#000000#000#000000");
  out.push_back(suffix);
  TestEntry groups{"ou=Groups,dc=example,dc=com",
                   {{"objectClass", "organizationalUnit"}, {"ou", "Groups"}}};
  // 2041-07-13 is a day where seconds from 01:04:00 on carry out of the low
  // 32 bits, which slapd does not add to the first byte.
  AddOperational(&groups, 1, "20410713010400Z", "20410713010359Z",
                 "20410713235959.000001Z#000000#000#000000");
  out.push_back(groups);
  TestEntry g1{"cn=g1,ou=Groups,dc=example,dc=com",
               {{"objectClass", "groupOfUniqueNames"},
                {"cn", "g1"},
                {"uniqueMember", "cn=A,dc=example,dc=com#'0101'B"},
                {"uniqueMember", "cn=b, dc=example,dc=com"},
                {"uniqueMember", "uid=x#y,dc=example,dc=com"},
                {"uniqueMember", "cn=d,dc=example,dc=com#''B"}}};
  AddOperational(&g1, 2, "20000229120000Z", "20240102050405+0200",
                 "20240102030405.123457Z#000001#000#000000");
  out.push_back(g1);
  TestEntry g2{"cn=g2,ou=Groups,dc=example,dc=com",
               {{"objectClass", "groupOfUniqueNames"},
                {"cn", "g2"},
                {"uniqueMember", "CN=a,DC=Example,DC=com"},
                {"uniqueMember", "cn=e,dc=example,dc=com#'1'B"}}};
  AddOperational(&g2, 3, "16000229000000Z", "19000301000000Z",
                 "20161231235960.000000Z#000000#000#000000");
  out.push_back(g2);
  TestEntry g3{"cn=g3,ou=Groups,dc=example,dc=com",
               {{"objectClass", "groupOfUniqueNames"},
                {"cn", "g3"},
                {"uniqueMember", "cn=b,dc=example,dc=com#'0101'B"}}};
  AddOperational(&g3, 4, "99991231235959Z", "2024010203Z",
                 "19991231235959.999999Z#ffffff#fff#ffffff");
  out.push_back(g3);
  const char* times[] = {"00000101000000Z", "202401020304Z",      "20240102030405.999999Z",
                         "20161231235960Z", "20240102030405,25Z", "20240101000000-0130"};
  for (int i = 0; i < 6; ++i) {
    const std::string cn = std::string("p").append(std::to_string(i));
    TestEntry p{"cn=" + cn + ",dc=example,dc=com",
                {{"objectClass", "person"}, {"cn", cn}, {"sn", "P"}}};
    // Pairs of CSNs within one second: one key, two IDs.
    char csn[48];
    std::snprintf(csn, sizeof(csn), "2024010203040%d.%06dZ#000000#000#000000", i / 2, i);
    AddOperational(&p, 10 + i, times[i], times[(i + 1) % 6], csn);
    out.push_back(p);
  }
  return out;
}

std::string Ldif(const std::vector<TestEntry>& entries) {
  std::string s;
  for (const TestEntry& e : entries) {
    s += "dn: " + e.dn + "\n";
    for (const auto& [a, v] : e.attrs) s += a + ": " + v + "\n";
    s += "\n";
  }
  return s;
}

const std::vector<std::string> kIndexLines = {"objectClass eq", "entryCSN,entryUUID eq",
                                              "createTimestamp,modifyTimestamp eq,pres",
                                              "uniqueMember eq,pres", "contextCSN eq"};

std::string SlapdConfText(const std::string& dir) {
  return SlapdConf()
      .LoadBackMdb()
      .Include(dirload::testing::kExampleSchemas)
      .Database("mdb")
      .Suffix(dirload::testing::kExampleSuffix)
      .RootDn(dirload::testing::kExampleRootDn)
      .Directory(dir)
      .MaxSize(67108864)
      .Indexes(kIndexLines)
      .Text();
}

uint64_t LittleEndianId(const std::string& hex) {
  uint64_t v = 0;
  for (size_t i = hex.size(); i >= 2; i -= 2)
    v = (v << 8) | std::stoul(hex.substr(i - 2, 2), nullptr, 16);
  return v;
}

using KeyIds = std::map<std::string, std::set<uint64_t>>;  // hex key -> IDs

// One sub-database as mdb_dump prints it (hex lines, key then value).
KeyIds Dump(const std::string& dir, const std::string& name) {
  auto r = dirload::testing::RunMdbDump({"-s", name, dir}, 30);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  std::istringstream in(r.out);
  std::string line;
  while (std::getline(in, line) && line != "HEADER=END") {
  }
  KeyIds got;
  std::string key;
  bool have_key = false;
  while (std::getline(in, line) && line != "DATA=END") {
    REQUIRE(!line.empty());
    REQUIRE(line[0] == ' ');
    if (!have_key) {
      key = line.substr(1);
    } else {
      REQUIRE(line.size() == 17);  // one 8-byte ID
      got[key].insert(LittleEndianId(line.substr(1)));
    }
    have_key = !have_key;
  }
  CHECK(!have_key);
  return got;
}

TEST_CASE("mdb indexer oracle: time, CSN, UUID and uniqueMember keys equal slapadd's") {
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "mdb_dump");
  TempDir tmp;
  const std::string dbdir = tmp.File("db");
  std::filesystem::create_directory(dbdir);
  const std::vector<TestEntry> entries = Entries();
  const std::string conf = tmp.Write("slapd.conf", SlapdConfText(dbdir));
  const std::string ldif = tmp.Write("in.ldif", Ldif(entries));
  auto run = dirload::testing::RunSlapadd({"-q", "-f", conf, "-l", ldif}, 60);
  REQUIRE_MESSAGE(run.exit_code == 0, run.Describe());

  auto schema_r = Schema::Builtin();
  REQUIRE(schema_r.ok());
  const Schema& schema = *schema_r;
  IndexConfig config;
  for (const std::string& l : kIndexLines) {
    Status st = config.AddLine(schema, l, "test");
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }

  const MdbKeyOptions options;
  for (const IndexSpec& spec : config.specs()) {
    CAPTURE(spec.name());
    auto indexer = MdbKeyMaker::Create(schema, spec, options);
    REQUIRE_MESSAGE(indexer.ok(), indexer.status().ToString());
    KeyIds want;
    std::map<std::string, std::string> origin;  // hex key -> a value that made it
    MdbKeyList keys;
    for (size_t i = 0; i < entries.size(); ++i) {
      const uint64_t id = i + 1;  // slapadd numbers entries in input order
      const auto& attrs = entries[i].attrs;
      for (size_t j = 0; j < attrs.size();) {
        // One attribute record: the adjacent lines of one attribute.
        size_t end = j;
        while (end < attrs.size() && attrs[end].first == attrs[j].first) ++end;
        const AttributeType* type = schema.FindAttribute(attrs[j].first);
        REQUIRE_MESSAGE(type != nullptr, attrs[j].first);
        const std::vector<const IndexSpec*> targets = config.Targets(type);
        if (std::find(targets.begin(), targets.end(), &spec) != targets.end()) {
          std::vector<std::string> normalized;
          for (size_t k = j; k < end; ++k) {
            std::string n = attrs[k].second;
            if (MdbStoresNormalized(*type)) {
              Status st = MdbNormalizedValue(schema, *type, attrs[k].second, &n);
              REQUIRE_MESSAGE(st.ok(), st.ToString());
            }
            normalized.push_back(std::move(n));
          }
          std::vector<std::string_view> views(normalized.begin(), normalized.end());
          keys.clear();
          indexer->AddKeys(views, &keys);
          for (size_t k = 0; k < keys.size(); ++k) {
            const std::string h = HexEncode(keys[k]);
            want[h].insert(id);
            origin.emplace(h, attrs[j].first + ": " + attrs[j].second);
          }
        }
        j = end;
      }
    }
    const KeyIds got = Dump(dbdir, std::string(spec.name()));
    MESSAGE(spec.name() << ": slapadd " << got.size() << " keys, dirload " << want.size());
    CHECK(!got.empty());
    for (const auto& [k, ids] : want) {
      auto it = got.find(k);
      CHECK_MESSAGE(it != got.end(), "key " << k << " (" << origin[k] << ") not in slapadd's");
      if (it != got.end()) {
        CHECK_MESSAGE(it->second == ids, "key " << k << " (" << origin[k] << ") has other IDs");
      }
    }
    for (const auto& [k, ids] : got) {
      CHECK_MESSAGE(want.count(k) == 1, "slapadd's key " << k << " not made by dirload");
    }
  }
}

}  // namespace
}  // namespace dirload::mdb
