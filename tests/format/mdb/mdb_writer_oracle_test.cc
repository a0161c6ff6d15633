// MdbLoadWriter and MdbIndexBuilder against slapadd: both write the same
// entries, and every sub-database must come out identical as mdb_dump
// prints it (id2e compared with its padding masked, since slapd leaves the
// padding bytes as the page had them). The input is an export of slapcat's,
// so that it already holds entryUUID, entryCSN, timestamps and the other
// attributes slapadd would otherwise generate with fresh values.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "ldif/byte_source.h"
#include "ldif/reader.h"
#include "ldif/record.h"
#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_index_builder.h"
#include "lib/format/mdb/mdb_normalized.h"
#include "lib/format/mdb/mdb_writer.h"
#include "lib/index/index_spec.h"
#include "lib/schema/dn.h"
#include "lib/schema/schema.h"
#include "tests/support/child_process.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload::mdb {
namespace {

using dirload::testing::FirstDifference;
using dirload::testing::MdbDatabases;
using dirload::testing::MdbDump;
using dirload::testing::TempDir;

const char* const kSuffix = "dc=example,dc=com";

// `globals` go before the database section (index key tuning).
std::string SlapdConfText(const std::string& dir, const std::vector<std::string>& index_lines,
                          const std::vector<std::string>& globals = {}) {
  return dirload::testing::SlapdConf()
      .LoadBackMdb()
      .Include(dirload::testing::kExampleSchemas)
      .Lines(globals)
      .Database("mdb")
      .Suffix(kSuffix)
      .RootDn(dirload::testing::kExampleRootDn)
      .Directory(dir)
      .MaxSize(67108864)
      .Indexes(index_lines)
      .Text();
}

const std::vector<std::string> kIndexLines = {
    "objectClass eq",   "cn,sn,mail,uid eq,sub", "uidNumber,gidNumber eq",
    "default pres",     "description",           "telephoneNumber eq,sub,pres",
    "name eq",          "entryUUID eq",          "member,seeAlso eq",
    "street eq,sub",    "postalAddress eq",      "employeeNumber eq",
    "displayName pres",
};

std::string Person(const std::string& rdn, const std::vector<std::string>& lines) {
  std::string s = "dn: " + rdn + ",ou=People,dc=example,dc=com\n";
  for (const std::string& l : lines) s += l + "\n";
  return s + "\n";
}

std::string RawLdif() {
  std::string ldif =
      "dn: dc=example,dc=com\nobjectClass: top\nobjectClass: dcObject\n"
      "objectClass: organization\ndc: example\no: Example Corp\n\n"
      "dn: ou=People,dc=example,dc=com\nobjectClass: organizationalUnit\nou: People\n"
      "description: the  People   branch \n\n"
      "dn: ou=Groups,dc=example,dc=com\nobjectClass: top\nobjectClass: organizationalUnit\n"
      "ou: Groups\n\n";
  ldif += Person(
      "cn=Hans M\xc3\xbcller+uid=hm",
      {"objectClass: inetOrgPerson", "cn: Hans M\xc3\xbcller", "cn;lang-de: Hans M\xc3\xbcller",
       "cn;lang-de: Hansi", "description;LANG-EN;lang-de: tagged twice",
       "description;lang-FR: tagged", "sn: M\xc3\xbcller", "uid: hm", "mail: HM@Example.COM",
       "street: Stra\xc3\x9f"
       "e 1",
       "telephoneNumber: +49 30-1234 567", "description: first",
       "postalAddress: Stra\xc3\x9f"
       "e 1$Berlin"});
  ldif += Person("uid=odysseus",
                 {"objectClass: inetOrgPerson", "objectClass: posixAccount",
                  "cn: \xce\x9f\xce\x94\xce\xa5\xce\xa3\xce\xa3\xce\x95\xce\xa5\xce\xa3",
                  "sn: \xce\x9f\xce\x94\xce\xa5\xce\xa3\xce\xa3\xce\x95\xce\xa5\xce\xa3",
                  "uid: odysseus", "uidNumber: 1001", "gidNumber: 100",
                  "homeDirectory: /home/odysseus", "mail: odysseus@ithaca.example"});
  ldif += Person("uid=cafe",
                 {"objectClass: inetOrgPerson", "cn: Cafe\xcc\x81 Ole\xcc\x81",
                  "cn: Caf\xc3\xa9 Ol\xc3\xa9 Two", "sn: A\xcc\x8angstr\xc3\xb6m", "uid: cafe",
                  "displayName: \xef\xbc\xa6\xef\xbd\x95\xef\xbd\x8c\xef\xbd\x8c",
                  "title: \xef\xac\x81nance"});
  ldif += Person("uid=spaces",
                 {"objectClass: inetOrgPerson", "cn:   Lots   of  Space  ", "sn: X", "uid: spaces",
                  "mail: Spaces@Example.com", "mail: second@EXAMPLE.com", "employeeNumber: 00 42"});
  const char* numbers[] = {"0", "-1", "1073741824", "-5000000000", "123456789012345678901234"};
  int n = 0;
  for (const char* num : numbers) {
    std::string uid = "num" + std::to_string(n++);
    ldif += Person("uid=" + uid,
                   {"objectClass: account", "objectClass: posixAccount",
                    "cn: Number " + std::string(num), "uid: " + uid,
                    std::string("uidNumber: ") + num, "gidNumber: 1", "homeDirectory: /h/" + uid});
  }
  for (int i = 0; i < 6; ++i) {
    std::string uid = "user" + std::to_string(i);
    ldif +=
        Person("uid=" + uid, {"objectClass: person", "objectClass: organizationalPerson",
                              "objectClass: inetOrgPerson", "cn: User " + std::to_string(i),
                              "cn: U" + std::to_string(i), "sn: Surname" + std::to_string(i % 3),
                              "uid: " + uid, "mail: " + uid + "@Example.Org"});
  }
  ldif +=
      "dn: ou=Deep,ou=People,dc=example,dc=com\nobjectClass: organizationalUnit\n"
      "ou: Deep\n\n"
      "dn: cn=Leaf One,ou=Deep,ou=People,dc=example,dc=com\nobjectClass: person\n"
      "cn: Leaf One\nsn: Leaf\nseeAlso: CN=Hans M\xc3\xbcller+UID=HM, OU=People,"
      "DC=Example,DC=Com\n\n"
      "dn: cn=Leaf Two+sn=Two,ou=Deep,ou=People,dc=example,dc=com\nobjectClass: person\n"
      "cn: Leaf Two\nsn: Two\n\n"
      "dn: cn=Admins,ou=Groups,dc=example,dc=com\nobjectClass: groupOfNames\n"
      "cn: Admins\nmember: uid=ODYSSEUS,ou=people,dc=EXAMPLE,dc=com\n"
      "member: cn=Leaf One, ou=Deep , ou=People,dc=example,dc=com\n\n"
      // Classes slapd gives ocflags to.
      "dn: cn=Alias,dc=example,dc=com\nobjectClass: alias\nobjectClass: extensibleObject\n"
      "cn: Alias\naliasedObjectName: uid=hm,ou=People,dc=example,dc=com\n\n"
      "dn: cn=Ref,dc=example,dc=com\nobjectClass: referral\nobjectClass: extensibleObject\n"
      "cn: Ref\nref: ldap://other.example/cn=Ref,dc=example,dc=com\n\n"
      "dn: cn=Sub,dc=example,dc=com\nobjectClass: top\nobjectClass: subentry\ncn: Sub\n"
      "subtreeSpecification: {}\n\n"
      "dn: ou=Glue,dc=example,dc=com\nobjectClass: glue\nobjectClass: extensibleObject\n"
      "ou: Glue\n\n"
      "dn: cn=Under Glue,ou=Glue,dc=example,dc=com\nobjectClass: device\ncn: Under Glue\n\n";
  return ldif;
}

// Runs slapadd (and returns its conf path) on `ldif` into a new directory.
std::string Slapadd(const TempDir& tmp, const std::string& name, const std::string& ldif,
                    const std::vector<std::string>& index_lines, bool quick,
                    const std::vector<std::string>& globals = {}) {
  std::string dir = tmp.File(name);
  std::filesystem::create_directory(dir);
  std::string conf = tmp.Write(name + ".conf", SlapdConfText(dir, index_lines, globals));
  std::vector<std::string> argv = {"-f", conf, "-l", ldif};
  if (quick) argv.push_back("-q");
  auto r = dirload::testing::RunSlapadd(argv, 120);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return conf;
}

IndexConfig ParseIndexes(const Schema& schema, const std::vector<std::string>& lines) {
  IndexConfig config;
  for (size_t i = 0; i < lines.size(); ++i) {
    Status st = config.AddLine(schema, lines[i], "line " + std::to_string(i + 1));
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }
  return config;
}

std::vector<std::string> IndexNames(const IndexConfig& config) {
  std::vector<std::string> names;
  for (const IndexSpec& s : config.specs()) names.emplace_back(s.name());
  return names;
}

// Feeds records [begin, end) of `ldif_path` (IDs 1, 2, ... in file order) to
// `writer`; `ids` maps normalized DNs to IDs across calls.
void LoadRecords(const Schema& schema, const std::string& ldif_path, size_t begin, size_t end,
                 MdbLoadWriter* writer, std::map<std::string, uint64_t>* ids) {
  auto src = ldif::OpenByteSource(ldif_path);
  REQUIRE(src.ok());
  ldif::Reader reader(std::move(*src));
  ldif::Record rec;
  const std::string nsuffix = *NormalizeDn(schema, kSuffix);
  size_t index = 0;
  std::vector<MdbValue> values;
  while (true) {
    auto more = reader.Next(&rec);
    REQUIRE_MESSAGE(more.ok(), more.status().ToString());
    if (!*more) break;
    uint64_t id = ++index;
    if (index <= begin || index > end) continue;
    auto ndn = NormalizeDn(schema, rec.dn());
    REQUIRE_MESSAGE(ndn.ok(), ndn.status().ToString());
    uint64_t parent = 0;
    std::string_view nrdn = *ndn, rdn = rec.dn();
    if (*ndn != nsuffix) {
      auto it = ids->find(std::string(ParentDn(*ndn)));
      REQUIRE_MESSAGE(it != ids->end(), "no parent for " << rec.dn());
      parent = it->second;
      nrdn = MdbLeftmostRdn(*ndn);
      rdn = MdbLeftmostRdn(rec.dn());
    }
    values.clear();
    for (size_t i = 0; i < rec.size(); ++i) {
      values.push_back(
          MdbValue{rec.attribute(i).description, rec.attribute(i).value, false, {}, false});
    }
    Status st = writer->AddEntry(id, parent, nrdn, rdn, values);
    REQUIRE_MESSAGE(st.ok(), st.ToString());
    (*ids)[*ndn] = id;
  }
}

// A new database in `dir` holding the first `n` records of `ldif_path`.
void LoadNew(const Schema& schema, const std::string& dir, const std::string& ldif_path, size_t n,
             const MdbWriterOptions& wo) {
  std::filesystem::create_directory(dir);
  auto w = MdbLoadWriter::Create(schema, dir, wo);
  REQUIRE_MESSAGE(w.ok(), w.status().ToString());
  std::map<std::string, uint64_t> ids;
  LoadRecords(schema, ldif_path, 0, n, w->get(), &ids);
  Status st = (*w)->Finish();
  REQUIRE_MESSAGE(st.ok(), st.ToString());
}

// The suffix entry the generated directories below start with.
constexpr std::string_view kSuffixEntry =
    "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
    "dc: example\no: Example\n\n";

size_t CountRecords(const std::string& ldif_path) {
  std::string text = dirload::testing::ReadFile(ldif_path);
  size_t n = 0;
  // "dn: " or "dn:: " (base64) at the start of a line.
  for (size_t p = 0; (p = text.find("dn:", p)) != std::string::npos; p += 3) {
    if (p == 0 || text[p - 1] == '\n') ++n;
  }
  return n;
}

// The encoding's length before its padding.
size_t UnpaddedSize(const MdbEntry& e) {
  size_t n = 16;
  for (const MdbAttribute& a : e.attributes) {
    n += 8;
    for (const std::string& v : a.values) n += 4 + v.size() + 1;
    if (a.normalized) {
      for (const std::string& v : *a.normalized) n += 4 + v.size() + 1;
    }
  }
  return n;
}

std::map<std::string, std::string> ReadId2e(const std::string& dir) {
  MdbEnvOptions ro;
  ro.read_only = true;
  auto env = MdbEnv::Open(dir, ro);
  REQUIRE_MESSAGE(env.ok(), env.status().ToString());
  auto txn = (*env)->Begin(false);
  REQUIRE(txn.ok());
  std::map<std::string, std::string> out;
  REQUIRE(txn->Scan((*env)->id2e(),
                    [&](std::string_view k, std::string_view v) {
                      out.emplace(std::string(k), std::string(v));
                      return Status::Ok();
                    })
              .ok());
  return out;
}

// id2e of both databases: same keys, same bytes up to the padding. Returns
// how many of slapd's entries have non-zero padding bytes.
size_t CompareId2e(const std::string& slapd_dir, const std::string& mine_dir) {
  auto theirs = ReadId2e(slapd_dir);
  auto mine = ReadId2e(mine_dir);
  CHECK(theirs.size() == mine.size());
  size_t dirty_padding = 0;
  for (const auto& [k, v] : theirs) {
    auto it = mine.find(k);
    REQUIRE(it != mine.end());
    auto e = DecodeMdbEntry(v);
    REQUIRE(e.ok());
    size_t used = UnpaddedSize(*e);
    CHECK(it->second.size() == v.size());
    CHECK_MESSAGE(
        it->second.substr(0, used) == v.substr(0, used),
        "id2e entry differs; decoded slapd entry has " << e->attributes.size() << " attributes");
    CHECK(it->second.find_first_not_of('\0', used) == std::string::npos);
    if (v.find_first_not_of('\0', used) != std::string::npos) ++dirty_padding;
  }
  return dirty_padding;
}

void CompareAll(const std::string& slapd_dir, const std::string& mine_dir) {
  std::vector<std::string> dbs = MdbDatabases(slapd_dir);
  CHECK(MdbDatabases(mine_dir) == dbs);
  for (const char* name : {"ad2i", "dn2i", "id2e", "id2v", "cn", "objectClass", "uidNumber"}) {
    CHECK(std::find(dbs.begin(), dbs.end(), name) != dbs.end());
  }
  for (const std::string& name : dbs) {
    if (name == "id2e") continue;
    CAPTURE(name);
    CHECK(FirstDifference(MdbDump(mine_dir, name), MdbDump(slapd_dir, name)) == "");
  }
  size_t dirty = CompareId2e(slapd_dir, mine_dir);
  MESSAGE("slapd entries with non-zero id2e padding: " << dirty);
}

TEST_CASE("mdb writer: ocflags and normalized-copy policy follow slapd's tables") {
  auto schema = Schema::Builtin();
  REQUIRE(schema.ok());
  std::vector<std::string_view> top = {"top", "person"};
  CHECK(MdbEntryOcFlags(*schema, top) == (kMdbOcFlagsSet | kMdbOcTop));
  std::vector<std::string_view> alias = {"ALIAS", "extensibleObject"};
  CHECK(MdbEntryOcFlags(*schema, alias) == 0x14101);
  std::vector<std::string_view> plain = {"inetOrgPerson"};
  CHECK(MdbEntryOcFlags(*schema, plain) == kMdbOcFlagsSet);
  CHECK_FALSE(MdbStoresNormalized(*schema->FindAttribute("objectClass")));
  CHECK_FALSE(MdbStoresNormalized(*schema->FindAttribute("uidNumber")));
  CHECK(MdbStoresNormalized(*schema->FindAttribute("cn")));
  CHECK(MdbStoresNormalized(*schema->FindAttribute("entryCSN")));
  std::string out;
  REQUIRE(MdbNormalizedValue(*schema, *schema->FindAttribute("entryUUID"),
                             "6BA7B810-9DAD-11D1-80B4-00C04FD430C8", &out)
              .ok());
  CHECK(out == std::string("\x6b\xa7\xb8\x10\x9d\xad\x11\xd1\x80\xb4\x00\xc0\x4f\xd4\x30\xc8", 16));
  // What UUIDNormalize refuses: a dash out of place, a letter past f, the
  // wrong length.
  for (std::string_view bad :
       {"6BA7B8109-DAD-11D1-80B4-00C04FD430C8", "6BA7B810-9DAD-11D1-80B4-00C04FD430CG",
        "6BA7B810-9DAD-11D1-80B4-00C04FD430C", "6BA7B8109DAD11D180B400C04FD430C8"}) {
    CHECK_MESSAGE(!MdbNormalizedValue(*schema, *schema->FindAttribute("entryUUID"), bad, &out).ok(),
                  bad);
  }
  CHECK(MdbLeftmostRdn("cn=a\\,b,dc=x") == "cn=a\\,b");
  CHECK(MdbLeftmostRdn("dc=x") == "dc=x");
}

TEST_CASE("mdb writer: FindChild answers from dn2i as written so far, committed or not") {
  auto schema = Schema::Builtin();
  REQUIRE(schema.ok());
  TempDir tmp;
  const std::string dir = tmp.File("db");
  std::filesystem::create_directory(dir);
  MdbWriterOptions wo;
  wo.entries_per_txn = 2;  // the third entry starts a new transaction
  // Child nodes held back until Finish, or put in dn2i with their entry.
  SUBCASE("held") { wo.held_child_bytes = size_t{1} << 20; }
  SUBCASE("put at once") { wo.held_child_bytes = 0; }
  auto w = MdbLoadWriter::Create(*schema, dir, wo);
  REQUIRE_MESSAGE(w.ok(), w.status().ToString());
  MdbLoadWriter& writer = **w;
  auto add = [&](uint64_t id, uint64_t parent, std::string_view nrdn, std::string_view rdn) {
    MdbValue oc;
    oc.description = "objectClass";
    oc.value = "organizationalUnit";
    Status st = writer.AddEntry(id, parent, nrdn, rdn, std::span<const MdbValue>(&oc, 1));
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  };
  auto find = [&](uint64_t parent, std::string_view nrdn) -> std::optional<uint64_t> {
    auto got = writer.FindChild(parent, nrdn);
    REQUIRE_MESSAGE(got.ok(), got.status().ToString());
    return *got;
  };
  CHECK_FALSE(find(0, "dc=example,dc=com").has_value());  // nothing written yet
  add(1, 0, "dc=example,dc=com", "dc=example,dc=com");
  add(2, 1, "ou=people", "ou=People");
  add(3, 1, "ou=groups", "ou=Groups");
  add(4, 2, "uid=a", "uid=a");
  CHECK(find(0, "dc=example,dc=com") == std::optional<uint64_t>(1));
  CHECK(find(1, "ou=people") == std::optional<uint64_t>(2));  // committed
  CHECK(find(1, "ou=groups") == std::optional<uint64_t>(3));  // in the open transaction
  CHECK(find(2, "uid=a") == std::optional<uint64_t>(4));
  // Not there: another RDN, a prefix of one, the right RDN under another
  // parent, and a parent that has only its self node.
  CHECK_FALSE(find(1, "ou=other").has_value());
  CHECK_FALSE(find(1, "ou=peopl").has_value());
  CHECK_FALSE(find(3, "uid=a").has_value());
  CHECK_FALSE(find(4, "uid=b").has_value());
  CHECK_FALSE(find(0, "dc=other,dc=com").has_value());
  // A second child of one name is refused, held or not.
  MdbValue oc;
  oc.description = "objectClass";
  oc.value = "organizationalUnit";
  CHECK(writer.AddEntry(5, 1, "ou=groups", "ou=Groups", std::span<const MdbValue>(&oc, 1)).code() ==
        StatusCode::kAlreadyExists);
  REQUIRE(writer.Finish().ok());
  CHECK(writer.FindChild(1, "ou=people").status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("mdb writer oracle: slapadd and MdbLoadWriter+MdbIndexBuilder write the same bytes") {
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "mdb_dump");
  TempDir tmp;
  auto schema_r = Schema::Builtin();
  REQUIRE(schema_r.ok());
  const Schema& schema = *schema_r;

  // An export that already holds the operational attributes.
  std::string raw = tmp.Write("raw.ldif", RawLdif());
  std::string conf0 = Slapadd(tmp, "db0", raw, kIndexLines, false);
  std::string exported = tmp.File("export.ldif");
  auto cat = dirload::testing::RunSlapcat({"-f", conf0, "-l", exported}, 60);
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  // What slapadd generates itself carries no normalized copy; the same
  // attributes read back from the export do (checked by the byte comparison
  // below, since the writer stores a copy for them).
  {
    MdbEnvOptions ro;
    ro.read_only = true;
    auto env = MdbEnv::Open(tmp.File("db0"), ro);
    REQUIRE(env.ok());
    auto txn = (*env)->Begin(false);
    REQUIRE(txn.ok());
    std::map<uint32_t, std::string> ads;
    REQUIRE(
        txn->Scan((*env)->ad2i(),
                  [&](std::string_view k, std::string_view v) {
                    ads[static_cast<unsigned char>(k[0]) | static_cast<unsigned char>(k[1]) << 8] =
                        std::string(v);
                    return Status::Ok();
                  })
            .ok());
    std::map<std::string, int> with_copy, without_copy;
    REQUIRE(txn->Scan((*env)->id2e(),
                      [&](std::string_view, std::string_view v) {
                        auto e = DecodeMdbEntry(v);
                        REQUIRE(e.ok());
                        for (const MdbAttribute& a : e->attributes) {
                          ++(a.normalized ? with_copy : without_copy)[ads[a.adx]];
                        }
                        return Status::Ok();
                      })
                .ok());
    for (const char* generated : {"createTimestamp", "modifyTimestamp", "entryCSN"}) {
      CAPTURE(generated);
      CHECK(with_copy.count(generated) == 0);
      CHECK(without_copy.count(generated) == 1);
    }
    for (const char* normalized : {"entryUUID", "creatorsName", "modifiersName", "cn"}) {
      CAPTURE(normalized);
      CHECK(with_copy.count(normalized) == 1);
      CHECK(without_copy.count(normalized) == 0);
    }
  }
  // slapd's own database of that export.
  Slapadd(tmp, "db1", exported, kIndexLines, false);
  const size_t n = CountRecords(exported);
  REQUIRE(n > 25);

  IndexConfig config = ParseIndexes(schema, kIndexLines);
  MdbWriterOptions wo;
  wo.map_size = 67108864;
  wo.index_names = IndexNames(config);

  auto write_indexes = [&](const std::string& dir, bool rebuild, size_t budget = 0) {
    MdbEnvOptions eo;
    eo.index_names = wo.index_names;
    auto env = MdbEnv::Open(dir, eo);
    REQUIRE_MESSAGE(env.ok(), env.status().ToString());
    MdbIndexOptions io;
    io.rebuild = rebuild;
    io.memory_budget = budget;
    auto stats = MdbIndexBuilder::Build(**env, schema, config.specs(), io);
    REQUIRE_MESSAGE(stats.ok(), stats.status().ToString());
    CHECK(stats->entries == n);
    // A tiny budget spills a run per entry in each of the two scans, then the rest.
    if (budget == 0) {
      CHECK(stats->runs == 0);
    } else {
      CHECK(stats->runs >= n + 1);
    }
  };

  // dn2i's child nodes held until Finish (the default), flushed every few
  // entries (the hash slots alone take 8 KB) or after each, or put with
  // their entry: the same database every time.
  const size_t held_budgets[] = {wo.held_child_bytes, 8192 + 512, 1, 0};

  SUBCASE("new database") {
    std::string dir;
    for (size_t budget : held_budgets) {
      CAPTURE(budget);
      dir = tmp.File("mine-" + std::to_string(budget));
      std::filesystem::create_directory(dir);
      MdbWriterOptions held = wo;
      held.held_child_bytes = budget;
      {
        auto w = MdbLoadWriter::Create(schema, dir, held);
        REQUIRE_MESSAGE(w.ok(), w.status().ToString());
        std::map<std::string, uint64_t> ids;
        LoadRecords(schema, exported, 0, n, w->get(), &ids);
        Status st = (*w)->Finish();
        REQUIRE_MESSAGE(st.ok(), st.ToString());
      }
      write_indexes(dir, false);
      CompareAll(tmp.File("db1"), dir);
    }

    // slapindex rebuilding every index of that database changes nothing.
    std::vector<std::string> before;
    for (const std::string& name : wo.index_names) before.push_back(MdbDump(dir, name));
    std::string conf = tmp.Write("mine.conf", SlapdConfText(dir, kIndexLines));
    auto r = dirload::testing::RunSlapindex({"-q", "-t", "-f", conf}, 60);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    for (size_t i = 0; i < before.size(); ++i) {
      CAPTURE(wo.index_names[i]);
      CHECK(MdbDump(dir, wo.index_names[i]) == before[i]);
    }
    // And dirload's own rebuild gives the same again, also when every entry
    // spills a sorted run that is merged at the end.
    write_indexes(dir, true);
    for (size_t i = 0; i < before.size(); ++i) {
      CAPTURE(wo.index_names[i]);
      CHECK(MdbDump(dir, wo.index_names[i]) == before[i]);
    }
    write_indexes(dir, true, 1);
    for (size_t i = 0; i < before.size(); ++i) {
      CAPTURE(wo.index_names[i]);
      CHECK(MdbDump(dir, wo.index_names[i]) == before[i]);
    }
  }

  SUBCASE("append to an existing database") {
    for (size_t budget : held_budgets) {
      CAPTURE(budget);
      std::string dir = tmp.File("appended-" + std::to_string(budget));
      std::filesystem::create_directory(dir);
      MdbWriterOptions held = wo;
      held.held_child_bytes = budget;
      std::map<std::string, uint64_t> ids;
      const size_t half = n / 2;
      {
        auto w = MdbLoadWriter::Create(schema, dir, held);
        REQUIRE(w.ok());
        LoadRecords(schema, exported, 0, half, w->get(), &ids);
        REQUIRE((*w)->Finish().ok());
      }
      {
        auto again = MdbLoadWriter::Create(schema, dir, held);
        CHECK(again.status().code() == StatusCode::kAlreadyExists);
        auto w = MdbLoadWriter::OpenExisting(schema, dir, held);
        REQUIRE_MESSAGE(w.ok(), w.status().ToString());
        CHECK((*w)->last_id() == half);
        LoadRecords(schema, exported, half, n, w->get(), &ids);
        Status st = (*w)->Finish();
        REQUIRE_MESSAGE(st.ok(), st.ToString());
      }
      write_indexes(dir, false);
      CompareAll(tmp.File("db1"), dir);
    }
  }
}

TEST_CASE("mdb writer oracle: index_hash64, substring lengths and index_intlen") {
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "mdb_dump");
  TempDir tmp;
  auto schema_r = Schema::Builtin();
  REQUIRE(schema_r.ok());
  const Schema& schema = *schema_r;
  const std::vector<std::string> globals = {"index_hash64 on",          "index_substr_if_minlen 3",
                                            "index_substr_if_maxlen 6", "index_substr_any_len 3",
                                            "index_substr_any_step 3",  "index_intlen 8"};
  MdbIndexOptions io;
  io.keys.hash64 = true;
  io.keys.substr_if_minlen = 3;
  io.keys.substr_if_maxlen = 6;
  io.keys.substr_any_len = 3;
  io.keys.substr_any_step = 3;
  io.keys.intlen = 8;

  std::string raw = tmp.Write("raw.ldif", RawLdif());
  std::string conf0 = Slapadd(tmp, "db0", raw, kIndexLines, false, globals);
  std::string exported = tmp.File("export.ldif");
  auto cat = dirload::testing::RunSlapcat({"-f", conf0, "-l", exported}, 60);
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  Slapadd(tmp, "db1", exported, kIndexLines, false, globals);

  IndexConfig config = ParseIndexes(schema, kIndexLines);
  MdbWriterOptions wo;
  wo.map_size = 67108864;
  wo.index_names = IndexNames(config);
  std::string dir = tmp.File("mine");
  LoadNew(schema, dir, exported, CountRecords(exported), wo);
  {
    MdbEnvOptions eo;
    eo.index_names = wo.index_names;
    auto env = MdbEnv::Open(dir, eo);
    REQUIRE(env.ok());
    auto stats = MdbIndexBuilder::Build(**env, schema, config.specs(), io);
    REQUIRE_MESSAGE(stats.ok(), stats.status().ToString());
  }
  CompareAll(tmp.File("db1"), dir);
  // One thread, or two scanning the first group in halves (joined in
  // memory, or each spilling a run per entry, 8-byte keys numbered): the
  // same bytes.
  for (unsigned threads : {1u, 2u}) {
    for (size_t budget : {size_t{0}, size_t{1}}) {
      CAPTURE(threads);
      CAPTURE(budget);
      MdbEnvOptions eo;
      eo.index_names = wo.index_names;
      auto env = MdbEnv::Open(dir, eo);
      REQUIRE(env.ok());
      MdbIndexOptions again = io;
      again.rebuild = true;
      again.threads = threads;
      again.memory_budget = budget;
      auto stats = MdbIndexBuilder::Build(**env, schema, config.specs(), again);
      REQUIRE_MESSAGE(stats.ok(), stats.status().ToString());
      CHECK(stats->entries == CountRecords(exported));
      CHECK((stats->runs != 0) == (budget != 0));
      env->reset();
      CompareAll(tmp.File("db1"), dir);
    }
  }
  // The options are what made the keys agree: the defaults give others.
  {
    MdbEnvOptions eo;
    eo.index_names = wo.index_names;
    auto env = MdbEnv::Open(dir, eo);
    REQUIRE(env.ok());
    MdbIndexOptions defaults;
    defaults.rebuild = true;
    REQUIRE(MdbIndexBuilder::Build(**env, schema, config.specs(), defaults).ok());
  }
  for (const char* name : {"cn", "uidNumber", "objectClass"}) {
    CAPTURE(name);
    CHECK(MdbDump(dir, name) != MdbDump(tmp.File("db1"), name));
  }
}

TEST_CASE("mdb index builder: the first group's halves joined when only one spills") {
  DIRLOAD_SKIP_UNLESS_OPENLDAP("mdb_dump");
  TempDir tmp;
  auto schema_r = Schema::Builtin();
  REQUIRE(schema_r.ok());
  const Schema& schema = *schema_r;
  // One index, so one group, scanned in halves by two threads. The lower
  // half of the IDs has one short value per entry, the upper half thirty
  // long ones sharing its keys: with the budget below only the upper half
  // spills, and its runs must follow the lower half's pairs held in memory.
  const int kEntries = 400;
  std::string text(kSuffixEntry);
  for (int i = 0; i < kEntries; ++i) {
    std::string cn = "p" + std::to_string(i);
    text += "dn: cn=" + cn + ",dc=example,dc=com\nobjectClass: person\ncn: " + cn + "\nsn: s\n";
    if (i < kEntries / 2) {
      text += "description: shared\n";
    } else {
      for (int k = 0; k < 30; ++k) {
        text += "description: shared words " + std::to_string(k) + " and entry " +
                std::to_string(i) + "\n";
      }
    }
    text += "\n";
  }
  std::string ldif = tmp.Write("skewed.ldif", text);
  const std::vector<std::string> lines = {"description eq,sub"};
  IndexConfig config = ParseIndexes(schema, lines);
  MdbWriterOptions wo;
  wo.map_size = 67108864;
  wo.index_names = IndexNames(config);
  std::string dir = tmp.File("mine");
  LoadNew(schema, dir, ldif, kEntries + 1, wo);
  auto build = [&](unsigned threads, size_t budget) {
    MdbEnvOptions eo;
    eo.index_names = wo.index_names;
    auto env = MdbEnv::Open(dir, eo);
    REQUIRE(env.ok());
    MdbIndexOptions io;
    io.rebuild = true;
    io.threads = threads;
    io.memory_budget = budget;
    auto stats = MdbIndexBuilder::Build(**env, schema, config.specs(), io);
    REQUIRE_MESSAGE(stats.ok(), stats.status().ToString());
    CHECK(stats->entries == kEntries + 1);
    std::vector<std::string> dumps;
    env->reset();
    for (const std::string& name : wo.index_names) dumps.push_back(MdbDump(dir, name));
    return std::pair(dumps, stats->runs);
  };
  const auto [whole, no_runs] = build(1, 0);
  CHECK(no_runs == 0);
  // Each half may hold a quarter of the budget, 32 KB: the lower half's
  // pairs take about 15 KB, the upper half's over 1 MB.
  const auto [halves, runs] = build(2, 128 << 10);
  CHECK(runs >= 10);
  for (size_t i = 0; i < whole.size(); ++i) {
    CAPTURE(wo.index_names[i]);
    CHECK(FirstDifference(halves[i], whole[i]) == "");
  }
}

TEST_CASE("mdb writer oracle: a key over 65,535 IDs becomes slapadd's range") {
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "mdb_dump");
  TempDir tmp;
  auto schema_r = Schema::Builtin();
  REQUIRE(schema_r.ok());
  const Schema& schema = *schema_r;
  const int kEntries = 70000;
  std::string text(kSuffixEntry);
  for (int i = 0; i < kEntries; ++i) {
    std::string cn = "d" + std::to_string(i);
    text += "dn: cn=" + cn + ",dc=example,dc=com\nobjectClass: device\ncn: " + cn + "\n\n";
  }
  std::string ldif = tmp.Write("big.ldif", text);
  const std::vector<std::string> lines = {"objectClass eq"};
  Slapadd(tmp, "slapd", ldif, lines, true);

  IndexConfig config = ParseIndexes(schema, lines);
  std::string dir = tmp.File("mine");
  MdbWriterOptions wo;
  wo.map_size = 67108864;
  wo.quick = true;
  wo.index_names = IndexNames(config);
  LoadNew(schema, dir, ldif, kEntries + 1, wo);
  MdbEnvOptions eo;
  eo.index_names = wo.index_names;
  eo.quick = true;
  auto env = MdbEnv::Open(dir, eo);
  REQUIRE(env.ok());
  MdbIndexOptions io;
  io.memory_budget = 256 << 10;  // a few sorted runs
  auto stats = MdbIndexBuilder::Build(**env, schema, config.specs(), io);
  REQUIRE_MESSAGE(stats.ok(), stats.status().ToString());
  CHECK(stats->ranges >= 2);  // device and top
  // Its one index is scanned in two halves, each spilling runs.
  CHECK(stats->runs >= 4);
  env->reset();
  std::string mine = MdbDump(dir, "objectClass");
  CHECK(FirstDifference(mine, MdbDump(tmp.File("slapd"), "objectClass")) == "");
  // The dn2i tree of the flat directory matches too.
  CHECK(FirstDifference(MdbDump(dir, "dn2i"), MdbDump(tmp.File("slapd"), "dn2i")) == "");
}

}  // namespace
}  // namespace dirload::mdb
