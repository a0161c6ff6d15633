// `dirload cat` and `dirload stat` on slapd's own database: slapadd 2.5
// loads an LDIF full of the cases slapcat treats specially (non-ASCII,
// values that fold, values slapcat base64-encodes, multi-valued and escaped
// RDNs, language options, three levels), then dirload's output must equal
// slapcat's byte for byte, with every wrapping and selection option. Also
// format detection on slapd's, dirload's, mixed and empty directories.
// Skips when OpenLDAP is not installed.
#include <doctest/doctest.h>
#include <lmdb.h>

#include <filesystem>
#include <string>
#include <vector>

#include "lib/format/database_report_json.h"
#include "lib/format/database_report_text.h"
#include "lib/format/format_detect.h"
#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/format/mdb/mdb_report.h"
#include "tests/integration/dirload_process.h"
#include "tests/support/child_process.h"
#include "tests/support/mini_json.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::RunDirload;
using testing::RunProcess;
using testing::TempDir;

constexpr const char* kSuffix = "dc=example,dc=com";

std::string CatLdif() {
  std::string long_value;
  for (int i = 0; i < 30; ++i) long_value += "word" + std::to_string(i) + " ";
  long_value += "end";
  return std::string(
             "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
             "dc: example\no: Example\n\n"
             "dn: ou=x,dc=example,dc=com\nobjectClass: organizationalUnit\nou: x\n"
             "description: \xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\n\n"
             "dn: ou=y,dc=example,dc=com\nobjectClass: organizationalUnit\nou: y\n\n"
             "dn: ou=sub,ou=x,dc=example,dc=com\nobjectClass: organizationalUnit\nou: sub\n\n"
             // Multi-valued RDN, non-ASCII, language option, folding.
             "dn: cn=Hans M\xc3\xbcller+uid=hm,ou=sub,ou=x,dc=example,dc=com\n"
             "objectClass: inetOrgPerson\ncn: Hans M\xc3\xbcller\n"
             "cn;lang-de: Hans M\xc3\xbcller\nsn: M\xc3\xbcller\nuid: hm\n"
             "description: ") +
         long_value +
         "\n"
         // Leading space, trailing space, a tab, ':' and '<' first: base64.
         "description:: IGxlYWRpbmc=\ndescription: trailing \ndescription: tab\there\n"
         "description:: OmNvbG9u\ndescription:: PGx0\n"
         // Binary and odd password bytes.
         "jpegPhoto:: /9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDA==\n"
         "userPassword:: e1NTSEF9AAH/fn8K\n\n"
         // Escaped RDN characters.
         "dn: cn=a\\,b,ou=x,dc=example,dc=com\nobjectClass: person\ncn: a,b\nsn: comma\n\n"
         "dn: cn=\\#x,ou=x,dc=example,dc=com\nobjectClass: person\ncn: #x\nsn: hash\n"
         "telephoneNumber: +1 555 0100\n\n"
         "dn: cn=plain,ou=y,dc=example,dc=com\nobjectClass: person\ncn: plain\n"
         "sn: Plain Person\nseeAlso: cn=a\\,b,ou=x,dc=example,dc=com\n\n";
}

std::string SlapdConfText(const std::string& dir) {
  return testing::SlapdConf()
      .LoadBackMdb()
      .Include(testing::kExampleSchemas)
      .Database("mdb")
      .Suffix(kSuffix)
      .RootDn(testing::kExampleRootDn)
      .Directory(dir)
      .MaxSize(67108864)
      .Indexes({"objectClass eq", "cn,sn eq,sub", "uid eq"})
      .Text();
}

// A slapadd-loaded database in a temp dir.
struct SlapdDb {
  TempDir tmp;
  std::string dir = tmp.File("db");
  std::string conf;
  SlapdDb() {
    std::filesystem::create_directory(dir);
    conf = tmp.Write("slapd.conf", SlapdConfText(dir));
    std::string ldif = tmp.Write("in.ldif", CatLdif());
    auto run = testing::RunSlapadd({"-f", conf, "-l", ldif}, 60);
    REQUIRE_MESSAGE(run.exit_code == 0, run.Describe());
  }
};

// slapcat's and dirload cat's outputs with the same extra arguments.
void CompareCat(const SlapdDb& db, const std::vector<std::string>& slapcat_args,
                const std::vector<std::string>& dirload_args) {
  std::vector<std::string> s = {"-f", db.conf};
  s.insert(s.end(), slapcat_args.begin(), slapcat_args.end());
  auto want = testing::RunSlapcat(s, 60);
  REQUIRE_MESSAGE(want.exit_code == 0, want.Describe());
  std::vector<std::string> d = {"cat", "-f", db.conf};
  d.insert(d.end(), dirload_args.begin(), dirload_args.end());
  auto got = RunDirload(d, 60);
  REQUIRE_MESSAGE(got.exit_code == 0, got.Describe());
  CHECK(!want.out.empty());
  CHECK_MESSAGE(got.out == want.out, testing::QuoteCommand(d) << "\n--- dirload:\n"
                                                              << got.out << "--- slapcat:\n"
                                                              << want.out);
}

TEST_CASE("dirload cat on slapd's back-mdb equals slapcat byte for byte") {
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat");
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  SlapdDb db;
  SUBCASE("default wrap") { CompareCat(db, {}, {}); }
  SUBCASE("ldif-wrap=40") { CompareCat(db, {"-o", "ldif-wrap=40"}, {"-o", "ldif-wrap=40"}); }
  SUBCASE("ldif-wrap=no") { CompareCat(db, {"-o", "ldif-wrap=no"}, {"-o", "ldif-wrap=no"}); }
  SUBCASE("-H one level") {
    std::string url = "ldap:///ou=x,dc=example,dc=com??one?(objectClass=*)";
    CompareCat(db, {"-H", url}, {"-H", url});
  }
  SUBCASE("-H base, with a filter") {
    std::string url = "ldap:///ou=sub,ou=x,dc=example,dc=com??sub?(sn=m%C3%BCller)";
    CompareCat(db, {"-H", url}, {"-H", url});
  }
  SUBCASE("-s DN against slapcat -H ldap:///DN") {
    // Debian's slapcat 2.5.13 crashes on -s; -H with only a base is the same.
    CompareCat(db, {"-H", "ldap:///ou=x,dc=example,dc=com"}, {"-s", "ou=x,dc=example,dc=com"});
  }
  SUBCASE("-a filter") { CompareCat(db, {"-a", "(|(cn=*a*)(ou=y))"}, {"-a", "(|(cn=*a*)(ou=y))"}); }
  SUBCASE("a placeholder for a missing parent is skipped, as slapcat skips it") {
    // slapadd gives ou=missing an ID, a DN node and an empty id2e value, and
    // exits 1 ("entries missing") with the orphan stored.
    std::string ldif =
        db.tmp.Write("orphan.ldif",
                     "dn: cn=orphan,ou=missing,dc=example,dc=com\nobjectClass: person\n"
                     "cn: orphan\nsn: o\n\n");
    auto run = testing::RunSlapadd({"-f", db.conf, "-l", ldif}, 60);
    REQUIRE_MESSAGE(run.exit_code == 1, run.Describe());
    CompareCat(db, {}, {});
    auto got = RunDirload({"cat", "-f", db.conf}, 60);
    CHECK(got.out.find("dn: cn=orphan,ou=missing,dc=example,dc=com\n") != std::string::npos);
    CHECK(got.out.find("dn: ou=missing,") == std::string::npos);
  }
  SUBCASE("the test is able to fail: one entry fewer differs") {
    auto want = testing::RunSlapcat({"-f", db.conf}, 60);
    auto got = RunDirload({"cat", "-f", db.conf, "-a", "(!(ou=y))"}, 60);
    REQUIRE(got.exit_code == 0);
    CHECK(got.out != want.out);
    CHECK(got.out.find("dn: ou=y,") == std::string::npos);
    CHECK(got.out.find("dn: cn=plain,ou=y,") != std::string::npos);
  }
}

uint64_t MdbStatEntries(const std::string& dir, const std::string& name) {
  auto run = RunProcess({testing::FindProgram("mdb_stat"), "-s", name, dir}, 30);
  REQUIRE_MESSAGE(run.exit_code == 0, run.Describe());
  size_t at = run.out.find("Entries: ");
  REQUIRE(at != std::string::npos);
  return std::stoull(run.out.substr(at + 9));
}

TEST_CASE("dirload stat on slapd's back-mdb") {
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "mdb_stat");
  SlapdDb db;
  auto run = RunDirload({"stat", "-f", db.conf, "--json", "-"}, 60);
  REQUIRE_MESSAGE(run.exit_code == 0, run.Describe());
  testing::JsonValue json;
  std::string error;
  REQUIRE_MESSAGE(testing::ParseJson(run.out, &json, &error), error << "\n" << run.out);
  REQUIRE(json.Find("entries") != nullptr);
  CHECK(json.Find("entries")->number() == 8);
  CHECK(json.Find("entries")->number() == MdbStatEntries(db.dir, "id2e"));

  // Keys per index as the test counts them, pairs as mdb_stat does.
  mdb::MdbEnvOptions ro;
  ro.read_only = true;
  auto env = mdb::MdbEnv::Open(db.dir, ro);
  REQUIRE(env.ok());
  auto txn = (*env)->Begin(false);
  REQUIRE(txn.ok());
  const testing::JsonValue* indexes = json.Find("indexes");
  REQUIRE(indexes != nullptr);
  std::vector<std::string> names;
  for (const testing::JsonValue& ix : indexes->array()) {
    std::string name = ix.Find("table")->string();
    names.push_back(name);
    auto dbi = (*env)->Index(name);
    REQUIRE(dbi.ok());
    uint64_t keys = 0, pairs = 0;
    REQUIRE(txn->Count(*dbi, &keys, &pairs).ok());
    CHECK_MESSAGE(ix.Find("keys")->number() == keys, name);
    CHECK_MESSAGE(ix.Find("pairs")->number() == MdbStatEntries(db.dir, name), name);
    CHECK_MESSAGE(ix.Find("ids")->number() == pairs, name);  // no ranges here
  }
  CHECK(names == std::vector<std::string>{"cn", "objectClass", "sn", "uid"});

  auto text = RunDirload({"stat", "-f", db.conf}, 60);
  REQUIRE_MESSAGE(text.exit_code == 0, text.Describe());
  CHECK(text.out.find("entries     8\n") != std::string::npos);
  CHECK(text.out.find("objectClass") != std::string::npos);
}

// A data.mdb with the named (empty) sub-databases.
void MakeLmdb(const std::string& dir, const std::vector<std::string>& names) {
  std::filesystem::create_directories(dir);
  MDB_env* env = nullptr;
  REQUIRE(mdb_env_create(&env) == 0);
  mdb_env_set_maxdbs(env, 16);
  REQUIRE(mdb_env_open(env, dir.c_str(), 0, 0600) == 0);
  MDB_txn* txn = nullptr;
  REQUIRE(mdb_txn_begin(env, nullptr, 0, &txn) == 0);
  for (const std::string& n : names) {
    MDB_dbi dbi;
    REQUIRE(mdb_dbi_open(txn, n.c_str(), MDB_CREATE, &dbi) == 0);
  }
  REQUIRE(mdb_txn_commit(txn) == 0);
  mdb_env_close(env);
}

TEST_CASE("format detection") {
  TempDir tmp;
  SUBCASE("slapd's back-mdb") {
    if (!testing::OpenLdapMissing({"slapadd", "slapcat"}).empty()) return;
    SlapdDb db;
    auto mtime_before = std::filesystem::last_write_time(db.dir + "/data.mdb");
    auto f = DetectDatabaseFormat(db.dir);
    REQUIRE_MESSAGE(f.ok(), f.status().ToString());
    CHECK(*f == DatabaseFormat::kMdb);
    CHECK(std::filesystem::last_write_time(db.dir + "/data.mdb") == mtime_before);
  }
  SUBCASE("slapd's back-mdb without its lock file: detected, nothing created") {
    std::string dir = tmp.File("nolock");
    MakeLmdb(dir, {"ad2i", "dn2i", "id2e", "id2v", "cn"});
    std::filesystem::remove(dir + "/lock.mdb");
    auto f = DetectDatabaseFormat(dir);
    REQUIRE_MESSAGE(f.ok(), f.status().ToString());
    CHECK(*f == DatabaseFormat::kMdb);
    CHECK(!std::filesystem::exists(dir + "/lock.mdb"));
  }
  SUBCASE("dirload's native database") {
    REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
    std::string dir = tmp.File("native");
    std::string ldif =
        tmp.Write("in.ldif",
                  "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
                  "dc: example\no: Example\n\n");
    auto run = RunDirload({"add", "--db", dir, "--suffix", kSuffix, "-l", ldif}, 60);
    REQUIRE_MESSAGE(run.exit_code == 0, run.Describe());
    auto f = DetectDatabaseFormat(dir);
    REQUIRE_MESSAGE(f.ok(), f.status().ToString());
    CHECK(*f == DatabaseFormat::kNative);
    // And cat still takes the native path.
    auto cat = RunDirload({"cat", "--db", dir}, 60);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    CHECK(cat.out.find("dn: dc=example,dc=com\n") == 0);
  }
  SUBCASE("a Berkeley DB directory is native") {
    std::string dir = tmp.File("bdb");
    std::filesystem::create_directories(dir);
    tmp.Write("bdb/meta.bdb", "x");
    auto f = DetectDatabaseFormat(dir);
    REQUIRE(f.ok());
    CHECK(*f == DatabaseFormat::kNative);
  }
  SUBCASE("both kinds of tables: refused, saying what is there") {
    std::string dir = tmp.File("both");
    MakeLmdb(dir, {"meta", "id2entry", "dn2id", "id2e", "dn2i", "ad2i"});
    auto f = DetectDatabaseFormat(dir);
    REQUIRE(!f.ok());
    CHECK(f.status().origin() == ErrorOrigin::kDatabase);
    CHECK(f.status().message().find("id2e") != std::string::npos);
    CHECK(f.status().message().find("id2entry") != std::string::npos);
    if (testing::DirloadMissing().empty()) {
      auto cat = RunDirload({"cat", "--db", dir}, 60);
      CHECK(cat.exit_code == 3);
      CHECK(cat.err.find("both") != std::string::npos);
    }
  }
  SUBCASE("tables of neither kind: refused") {
    std::string dir = tmp.File("neither");
    MakeLmdb(dir, {"people", "groups"});
    auto f = DetectDatabaseFormat(dir);
    REQUIRE(!f.ok());
    CHECK(f.status().origin() == ErrorOrigin::kDatabase);
    CHECK(f.status().message().find("groups, people") != std::string::npos);
  }
  SUBCASE("an empty or missing directory: NotFound") {
    std::string dir = tmp.File("empty");
    std::filesystem::create_directories(dir);
    auto f = DetectDatabaseFormat(dir);
    REQUIRE(!f.ok());
    CHECK(f.status().code() == StatusCode::kNotFound);
    CHECK(f.status().origin() == ErrorOrigin::kDatabase);
    auto g = DetectDatabaseFormat(tmp.File("missing"));
    REQUIRE(!g.ok());
    CHECK(g.status().code() == StatusCode::kNotFound);
    CHECK(g.status().origin() == ErrorOrigin::kDatabase);
  }
}

// A small back-mdb database written with MdbEnv: suffix (1), ou=a (2),
// cn=x under ou=a (3), and an index "cn" with one ordinary key and one range.
void MakeSmallMdb(const std::string& dir, bool with_dn_of_3 = true) {
  std::filesystem::create_directories(dir);
  mdb::MdbEnvOptions o;
  o.index_names = {"cn"};
  auto env = mdb::MdbEnv::Open(dir, o);
  REQUIRE_MESSAGE(env.ok(), env.status().ToString());
  auto txn = (*env)->Begin(true);
  REQUIRE(txn.ok());
  auto u32 = [](uint32_t v) {
    std::string k(4, '\0');
    for (int i = 0; i < 4; ++i) k[i] = static_cast<char>(v >> (8 * i));
    return k;
  };
  REQUIRE(txn->Put((*env)->ad2i(), u32(1), "objectClass").ok());
  REQUIRE(txn->Put((*env)->ad2i(), u32(2), "cn;lang-de").ok());
  auto entry = [&](uint64_t id, std::vector<std::string> cn) {
    mdb::MdbEntry e;
    e.ocflags = mdb::kMdbOcFlagsSet;
    mdb::MdbAttribute oc;
    oc.adx = 1;
    oc.values = {"top"};
    e.attributes.push_back(oc);
    mdb::MdbAttribute a;
    a.adx = 2;
    a.values = std::move(cn);
    e.attributes.push_back(a);
    auto bytes = mdb::EncodeMdbEntry(e);
    REQUIRE(bytes.ok());
    REQUIRE(txn->Put((*env)->id2e(), mdb::MdbIdKey(id), *bytes).ok());
  };
  entry(1, {"suffix"});
  entry(2, {"a"});
  entry(3, {"x", "y"});
  auto node = [&](uint64_t key, bool child, std::string nrdn, std::string rdn, uint64_t id,
                  uint64_t nsubs) {
    mdb::MdbDnNode n{child, std::move(nrdn), std::move(rdn), id, nsubs};
    auto bytes = mdb::EncodeMdbDnNode(n);
    REQUIRE(bytes.ok());
    REQUIRE(txn->Put((*env)->dn2i(), mdb::MdbIdKey(key), *bytes).ok());
  };
  node(0, true, "dc=example,dc=com", "DC=Example,DC=Com", 1, 3);
  node(1, false, "dc=example,dc=com", "DC=Example,DC=Com", 0, 0);
  node(1, true, "ou=a", "OU=A", 2, 2);
  node(2, false, "ou=a", "OU=A", 1, 0);
  node(2, true, "cn=x", "CN=X", 3, 1);
  if (with_dn_of_3) node(3, false, "cn=x", "CN=X", 2, 0);
  auto cn = (*env)->Index("cn");
  REQUIRE(cn.ok());
  for (uint64_t id : {1, 3}) REQUIRE(txn->Put(*cn, "k1", mdb::MdbIdKey(id)).ok());
  for (uint64_t id : {0, 5, 100}) REQUIRE(txn->Put(*cn, "k2", mdb::MdbIdKey(id)).ok());
  REQUIRE(txn->Commit().ok());
}

TEST_CASE("MdbReader: DNs from dn2i, descriptions from ad2i, lookup by ID") {
  TempDir tmp;
  std::string dir = tmp.File("db");
  MakeSmallMdb(dir);
  auto reader = mdb::MdbReader::Open(dir);
  REQUIRE_MESSAGE(reader.ok(), reader.status().ToString());
  std::vector<std::string> dns, ndns;
  std::vector<uint64_t> ids;
  REQUIRE((*reader)
              ->ForEach([&](const mdb::MdbReadEntry& e) {
                ids.push_back(e.id);
                dns.push_back(e.dn);
                ndns.push_back(e.ndn);
                return Status::Ok();
              })
              .ok());
  CHECK(ids == std::vector<uint64_t>{1, 2, 3});
  CHECK(dns == std::vector<std::string>{"DC=Example,DC=Com", "OU=A,DC=Example,DC=Com",
                                        "CN=X,OU=A,DC=Example,DC=Com"});
  CHECK(ndns.back() == "cn=x,ou=a,dc=example,dc=com");
  mdb::MdbReadEntry e;
  REQUIRE((*reader)->Get(3, &e).ok());
  CHECK(e.dn == "CN=X,OU=A,DC=Example,DC=Com");
  REQUIRE(e.view.values.size() == 3);
  CHECK((*reader)->dictionary().Name(e.view.values[1].description) == "cn;lang-de");
  CHECK(e.view.values[2].value == "y");
  Status missing = (*reader)->Get(4, &e);
  CHECK(missing.code() == StatusCode::kNotFound);
  CHECK(missing.message().find("id2e") != std::string::npos);
  CHECK(missing.message().find("id 4") != std::string::npos);
}

TEST_CASE("MdbReader: an entry without its DN node is an error naming the ID and dn2i") {
  TempDir tmp;
  std::string dir = tmp.File("db");
  MakeSmallMdb(dir, /*with_dn_of_3=*/false);
  auto reader = mdb::MdbReader::Open(dir);
  REQUIRE(reader.ok());
  Status s = (*reader)->ForEach([](const mdb::MdbReadEntry&) { return Status::Ok(); });
  REQUIRE(!s.ok());
  CHECK(s.code() == StatusCode::kCorruption);
  CHECK(s.message().find("dn2i") != std::string::npos);
  CHECK(s.message().find("id 3") != std::string::npos);
}

TEST_CASE("mdb report: keys, IDs, and a range shown as lo..hi") {
  TempDir tmp;
  std::string dir = tmp.File("db");
  MakeSmallMdb(dir);
  auto r = mdb::BuildMdbReport(dir, std::nullopt);
  REQUIRE_MESSAGE(r.ok(), r.status().ToString());
  CHECK(r->format == DatabaseFormat::kMdb);
  CHECK(r->entries == 3);
  CHECK(r->max_id == 3);
  CHECK(r->descriptions == 2);
  // What slapd's database does not record stays absent.
  CHECK_FALSE(r->state.has_value());
  CHECK_FALSE(r->next_id.has_value());
  CHECK_FALSE(r->suffix.has_value());
  CHECK_FALSE(r->engine.has_value());
  REQUIRE(r->indexes.size() == 1);
  const IndexReport& ix = r->indexes[0];
  CHECK(ix.table == "cn");
  CHECK(ix.keys == 2);
  CHECK(ix.pairs == 5);
  CHECK(ix.ranges == 1);
  CHECK(ix.ids == 2 + 96);
  CHECK_FALSE(ix.record.has_value());
  CHECK_FALSE(ix.kinds.has_value());
  CHECK(ix.histogram == std::vector<uint64_t>{0, 1, 0, 0, 0, 0, 1});  // 2 IDs; 96 IDs
  REQUIRE(ix.longest.size() == 2);
  CHECK(ix.longest[0].key == "6b32");  // "k2" in hex
  CHECK(ix.longest[0].ids == 96);
  CHECK(ix.longest[0].range == std::make_pair(uint64_t{5}, uint64_t{100}));
  CHECK(ix.longest[1].ids == 2);
  CHECK_FALSE(ix.longest[1].range.has_value());
  std::string json = DatabaseReportToJson(*r);
  testing::JsonValue v;
  std::string error;
  REQUIRE_MESSAGE(testing::ParseJson(json, &v, &error), error);
  CHECK(json.find("\"range\": [5, 100]") != std::string::npos);
  std::string text = DatabaseReportText(*r);
  CHECK_MESSAGE(text.find("5..100") != std::string::npos, text);
  // The tables are listed with mdb_stat's figures.
  REQUIRE(r->tables.size() == 5);
  CHECK(r->tables[1].name == "dn2i");
  CHECK(r->tables[1].entries == 6);
  CHECK(r->tables[1].keys == 4);  // IDs 0..3
}

}  // namespace
}  // namespace dirload
