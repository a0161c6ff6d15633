// dirload verify on the three formats (native on LMDB, native on Berkeley
// DB, slapd's back-mdb): a database dirload loaded is clean; each fault
// written into it with the engine directly (a (key, ID) pair removed or
// added, a DN-tree node removed, a subtree count off by one, an entry
// record truncated) is found; --fix rebuilds exactly the indexes found
// wrong. With OpenLDAP as the oracle: slapadd's database after slapindex,
// and dirload's database after slapd applied adds, modifies, renames and
// deletes online, verify clean.
#include <doctest/doctest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/idl/idl_format.h"
#include "lib/store/store.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/child_process.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

enum class Kind { kNativeLmdb, kNativeBdb, kMdb };

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kNativeLmdb:
      return "native lmdb";
    case Kind::kNativeBdb:
      return "native bdb";
    case Kind::kMdb:
      return "mdb";
  }
  return "";
}

constexpr int kPeople = 240;

const std::vector<std::string> kIndexes = {
    "objectClass eq", "cn pres,eq,sub,approx", "sn pres,eq,sub",
    "uid pres,eq",    "mail eq,sub",           "uidNumber eq",
    "name eq",        "description pres",      "telephoneNumber eq",
    "member eq"};

// The suffix (ID 1), ou=people (2), ou=groups (3), the people (4 on), then
// the groups: entry IDs follow the input on every format.
std::string Ldif() {
  std::string l =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\no: Example\n"
      "dc: example\n\n"
      "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n\n"
      "dn: ou=groups,dc=example,dc=com\nobjectClass: organizationalUnit\nou: groups\n\n";
  for (int i = 0; i < kPeople; ++i) {
    const std::string n = std::to_string(i);
    l += "dn: uid=p" + n +
         ",ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
         "objectClass: posixAccount\nuid: p" +
         n + "\ncn: Person Number " + n + "\ncn;lang-de: Mensch " + n + "\nsn: Surname" +
         std::to_string(i % 17) + "\nmail: p" + n +
         "@example.com\nuidNumber: " + std::to_string(1000 + i) +
         "\ngidNumber: 100\nhomeDirectory: /home/p" + n + "\n" +
         (i % 3 == 0 ? "description: every third\n" : "") +
         (i % 5 == 0 ? "telephoneNumber: +1 555 0" + n + "\n" : "") + "\n";
  }
  for (int g = 0; g < 4; ++g) {
    l += "dn: cn=group" + std::to_string(g) +
         ",ou=groups,dc=example,dc=com\nobjectClass: groupOfNames\ncn: group" + std::to_string(g) +
         "\n";
    for (int i = g; i < kPeople; i += 7) {
      l += "member: uid=p" + std::to_string(i) + ",ou=people,dc=example,dc=com\n";
    }
    l += "\n";
  }
  return l;
}
constexpr uint64_t kLastId = 3 + kPeople + 4;

std::string Conf(const TempDir& t, const std::string& name, const std::string& dir) {
  return testing::SlapdConf()
      .LoadBackMdb()
      .Include(testing::kExampleSchemas)
      .Line("sizelimit unlimited")
      .Database("mdb")
      .Suffix(testing::kExampleSuffix)
      .RootDn(testing::kExampleRootDn)
      .Line("rootpw secret")
      .Directory(dir)
      .MaxSize(1073741824)
      .Indexes(kIndexes)
      .Write(t, name);
}

struct Loaded {
  std::string dir, conf;
};

Loaded Load(const TempDir& t, Kind kind, const std::string& name) {
  Loaded db;
  db.dir = t.File(name);
  fs::create_directory(db.dir);
  db.conf = Conf(t, name + ".conf", db.dir);
  std::vector<std::string> args = {
      "add", "-f", db.conf, "-l", t.Write(name + ".ldif", Ldif()), "--progress", "never"};
  if (kind == Kind::kNativeLmdb) args.insert(args.end(), {"--format", "native"});
  if (kind == Kind::kNativeBdb) args.insert(args.end(), {"--format", "native", "--backend", "bdb"});
  RunResult r = RunDirload(args);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  return db;
}

RunResult Verify(const Loaded& db, std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"verify", "-f", db.conf, "--db", db.dir, "--progress", "never"};
  args.insert(args.end(), more.begin(), more.end());
  return RunDirload(args);
}

// The line of the text report that gives `index`'s verdict.
std::string IndexLine(const std::string& out, const std::string& index) {
  const std::string head = "index " + index + " (";
  size_t at = out.find(head);
  if (at == std::string::npos) return "";
  return out.substr(at, out.find('\n', at) - at);
}

// --- faults, written with the engine itself ---------------------------------

std::unique_ptr<mdb::MdbEnv> OpenMdb(const std::string& dir, const std::string& index) {
  mdb::MdbEnvOptions o;
  if (!index.empty()) o.index_names = {index};
  Result<std::unique_ptr<mdb::MdbEnv>> env = mdb::MdbEnv::Open(dir, o);
  REQUIRE_MESSAGE(env.ok(), env.status().ToString());
  return std::move(*env);
}

std::unique_ptr<Store> OpenStore(Kind kind, const std::string& dir) {
  Result<std::unique_ptr<Store>> s =
      Store::Open(kind == Kind::kNativeBdb ? Backend::kBdb : Backend::kLmdb, dir, StoreOptions{});
  REQUIRE_MESSAGE(s.ok(), s.status().ToString());
  return std::move(*s);
}

void Ok(const Status& st) { REQUIRE_MESSAGE(st.ok(), st.ToString()); }

// The first equality key of the uid index loses its (only) ID.
void RemovePair(Kind kind, const std::string& dir) {
  if (kind == Kind::kMdb) {
    auto env = OpenMdb(dir, "uid");
    Result<mdb::MdbDb> db = env->Index("uid");
    REQUIRE(db.ok());
    Result<mdb::MdbTxn> txn = env->Begin(true);
    REQUIRE(txn.ok());
    std::string key, dup;
    Ok(txn->Scan(*db, [&](std::string_view k, std::string_view v) {
      if (key.empty() && k != mdb::MdbPresenceKey()) key = k, dup = v;
      return Status::Ok();
    }));
    Ok(txn->DeleteDup(*db, key, dup));
    Ok(txn->Commit());
    return;
  }
  auto store = OpenStore(kind, dir);
  std::unique_ptr<Cursor> c = store->NewCursor(IndexTableName("uid"));
  c->Seek("=");  // the first equality key
  REQUIRE(c->valid());
  const std::string key(c->key());
  c.reset();
  Ok(store->Delete(IndexTableName("uid"), key));
  Ok(store->Commit());
}

// The first equality key of the uid index also lists the suffix entry (ID 1).
void AddPair(Kind kind, const std::string& dir) {
  if (kind == Kind::kMdb) {
    auto env = OpenMdb(dir, "uid");
    Result<mdb::MdbDb> db = env->Index("uid");
    REQUIRE(db.ok());
    Result<mdb::MdbTxn> txn = env->Begin(true);
    REQUIRE(txn.ok());
    std::string key;
    Ok(txn->Scan(*db, [&](std::string_view k, std::string_view) {
      if (key.empty() && k != mdb::MdbPresenceKey()) key = k;
      return Status::Ok();
    }));
    Ok(txn->Put(*db, key, mdb::MdbIdBytes(1)));
    Ok(txn->Commit());
    return;
  }
  auto store = OpenStore(kind, dir);
  std::unique_ptr<Cursor> c = store->NewCursor(IndexTableName("uid"));
  c->Seek("=");  // the first equality key
  REQUIRE(c->valid());
  const std::string key(c->key());
  TailHeader header;
  std::string_view body;
  Ok(ParseTail(c->value(), &header, &body));
  std::vector<EntryId> ids = {1};
  Ok(DecodeChunkBody(body, 1, &ids));
  c.reset();
  std::string value;
  EncodeTail(TailHeader{ids.size(), header.full_chunks}, ids, &value);
  Ok(store->Put(IndexTableName("uid"), key, value));
  Ok(store->Commit());
}

// The last entry (a group) loses its node in the DN tree.
void RemoveTreeNode(Kind kind, const std::string& dir) {
  if (kind == Kind::kMdb) {
    auto env = OpenMdb(dir, "");
    Result<mdb::MdbTxn> txn = env->Begin(true);
    REQUIRE(txn.ok());
    std::string self;
    Ok(txn->ForEachDup(env->dn2i(), mdb::MdbIdKey(kLastId), [&](std::string_view v) {
      if (self.empty()) self = v;
      return Status::Ok();
    }));
    REQUIRE_FALSE(self.empty());
    Ok(txn->DeleteDup(env->dn2i(), mdb::MdbIdKey(kLastId), self));
    Ok(txn->Commit());
    return;
  }
  auto store = OpenStore(kind, dir);
  std::string key;
  {
    std::unique_ptr<Cursor> c = store->NewCursor(kDn2IdTable);
    for (c->SeekToFirst(); c->valid(); c->Next()) {
      if (GetBigEndian64(c->value()) == kLastId) key = c->key();
    }
  }
  REQUIRE_FALSE(key.empty());
  Ok(store->Delete(kDn2IdTable, key));
  Ok(store->Commit());
}

// slapd's subtree count of ou=people (ID 2, under the suffix, ID 1) one too many.
void MiscountSubtree(const std::string& dir) {
  auto env = OpenMdb(dir, "");
  Result<mdb::MdbTxn> txn = env->Begin(true);
  REQUIRE(txn.ok());
  std::optional<mdb::MdbDnNode> people;
  Ok(txn->ForEachDup(env->dn2i(), mdb::MdbIdKey(1), [&](std::string_view v) {
    Result<mdb::MdbDnNode> n = mdb::DecodeMdbDnNode(v);
    if (n.ok() && n->child && n->id == 2) people = *n;
    return Status::Ok();
  }));
  REQUIRE(people.has_value());
  CHECK(people->nsubs == 1 + kPeople);
  people->nsubs += 1;
  Result<std::string> bytes = mdb::EncodeMdbDnNode(*people);
  REQUIRE(bytes.ok());
  Ok(txn->ReplaceDup(env->dn2i(), mdb::MdbIdKey(1), *bytes));
  Ok(txn->Commit());
}

// Entry 5's record cut to half its length.
void TruncateEntry(Kind kind, const std::string& dir) {
  if (kind == Kind::kMdb) {
    auto env = OpenMdb(dir, "");
    Result<mdb::MdbTxn> txn = env->Begin(true);
    REQUIRE(txn.ok());
    Result<std::string_view> v = txn->Get(env->id2e(), mdb::MdbIdKey(5));
    REQUIRE(v.ok());
    const std::string half(v->substr(0, v->size() / 2));
    Ok(txn->Put(env->id2e(), mdb::MdbIdKey(5), half));
    Ok(txn->Commit());
    return;
  }
  auto store = OpenStore(kind, dir);
  std::string value;
  Result<bool> found = store->Get(kId2EntryTable, BigEndian64(5), &value);
  REQUIRE((found.ok() && *found));
  Ok(store->Put(kId2EntryTable, BigEndian64(5), value.substr(0, value.size() / 2)));
  Ok(store->Commit());
}

void CopyDatabase(const Loaded& from, const TempDir& t, const std::string& name, Loaded* to) {
  to->dir = t.File(name);
  fs::copy(from.dir, to->dir, fs::copy_options::recursive);
  std::error_code ec;
  fs::remove(to->dir + "/dirload.lock", ec);
  to->conf = Conf(t, name + ".conf", to->dir);
}

void VerifiesClean(const Loaded& db) {
  RunResult r = Verify(db);
  CHECK_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK_MESSAGE(r.out.find("verdict: clean") != std::string::npos, r.out);
  for (const char* name : {"objectClass", "cn", "uid", "name", "member", "uidNumber"}) {
    CHECK_MESSAGE(IndexLine(r.out, name).find("complete and clean") != std::string::npos, r.out);
  }
}

TEST_CASE("verify: a loaded database is clean, and every injected fault is found") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  for (Kind kind : {Kind::kNativeLmdb, Kind::kNativeBdb, Kind::kMdb}) {
    const std::string kind_name = KindName(kind);
    CAPTURE(kind_name);
    TempDir t;
    const Loaded db = Load(t, kind, "db");
    VerifiesClean(db);

    {
      Loaded f;
      CopyDatabase(db, t, "removed", &f);
      RemovePair(kind, f.dir);
      RunResult r = Verify(f);
      CHECK_MESSAGE(r.exit_code == 1, r.Describe());
      CHECK_MESSAGE(IndexLine(r.out, "uid").find("incomplete (1 missing)") != std::string::npos,
                    r.out);
      CHECK_MESSAGE(r.out.find("missing: uid ") != std::string::npos, r.out);
      CHECK_MESSAGE(IndexLine(r.out, "cn").find("complete and clean") != std::string::npos, r.out);
    }
    {
      Loaded f;
      CopyDatabase(db, t, "added", &f);
      AddPair(kind, f.dir);
      RunResult r = Verify(f);
      CHECK_MESSAGE(r.exit_code == 1, r.Describe());
      CHECK_MESSAGE(IndexLine(r.out, "uid").find("unclean (1 extra)") != std::string::npos, r.out);
      CHECK_MESSAGE(r.out.find("extra: uid ") != std::string::npos, r.out);
      CHECK_MESSAGE(r.out.find("entry 1 (dc=example,dc=com)") != std::string::npos, r.out);
    }
    {
      Loaded f;
      CopyDatabase(db, t, "tree", &f);
      RemoveTreeNode(kind, f.dir);
      RunResult r = Verify(f);
      CHECK_MESSAGE(r.exit_code == 1, r.Describe());
      CHECK_MESSAGE(r.out.find("DN tree: ") != std::string::npos, r.out);
      CHECK_MESSAGE(r.out.find("0 in the DN tree") == std::string::npos, r.out);
    }
    {
      Loaded f;
      CopyDatabase(db, t, "truncated", &f);
      TruncateEntry(kind, f.dir);
      RunResult r = Verify(f);
      CHECK_MESSAGE(r.exit_code == 1, r.Describe());
      CHECK_MESSAGE(r.out.find("entry 5: its record does not decode") != std::string::npos, r.out);
    }
    if (kind == Kind::kMdb) {
      Loaded f;
      CopyDatabase(db, t, "nsubs", &f);
      MiscountSubtree(f.dir);
      RunResult r = Verify(f);
      CHECK_MESSAGE(r.exit_code == 1, r.Describe());
      CHECK_MESSAGE(r.out.find("nsubs " + std::to_string(kPeople + 2) + ", but its subtree holds " +
                               std::to_string(kPeople + 1)) != std::string::npos,
                    r.out);
    }
  }
}

TEST_CASE("verify --fix rebuilds the indexes found wrong, and only those") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  for (Kind kind : {Kind::kNativeLmdb, Kind::kNativeBdb, Kind::kMdb}) {
    const std::string kind_name = KindName(kind);
    CAPTURE(kind_name);
    TempDir t;
    Loaded db = Load(t, kind, "db");
    RemovePair(kind, db.dir);
    RunResult fixed = Verify(db, {"--fix"});
    CHECK_MESSAGE(fixed.exit_code == 0, fixed.Describe());
    CHECK_MESSAGE(fixed.out.find("fixed: uid\n") != std::string::npos, fixed.out);
    CHECK_MESSAGE(fixed.out.find("fixed: cn") == std::string::npos, fixed.out);
    VerifiesClean(db);
  }
}

TEST_CASE("verify: attributes named, --json, --jobs") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  Loaded db = Load(t, Kind::kMdb, "db");
  AddPair(Kind::kMdb, db.dir);
  RunResult only = Verify(db, {"cn", "mail"});
  CHECK_MESSAGE(only.exit_code == 0, only.Describe());
  CHECK(IndexLine(only.out, "uid").empty());
  CHECK_FALSE(IndexLine(only.out, "mail").empty());
  RunResult json = Verify(db, {"--json", "-", "--jobs", "1"});
  CHECK_MESSAGE(json.exit_code == 1, json.Describe());
  CHECK(json.out.find("\"clean\": false") != std::string::npos);
  CHECK(json.out.find("{\"attribute\": \"uid\", \"kinds\": \"pres,eq\", \"present\": true") !=
        std::string::npos);
  CHECK(json.out.find("\"missing\": 0, \"extra\": 1") != std::string::npos);
  CHECK(json.out.find("verdict: ") == std::string::npos);  // only the JSON
  RunResult unknown = Verify(db, {"telexNumber"});
  CHECK_MESSAGE(unknown.exit_code == 2, unknown.Describe());
}

TEST_CASE("verify: index databases no longer configured are listed, not checked") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  Loaded db = Load(t, Kind::kMdb, "db");
  Loaded fewer = db;
  fewer.conf = testing::SlapdConf()
                   .LoadBackMdb()
                   .Include(testing::kExampleSchemas)
                   .Database("mdb")
                   .Suffix(testing::kExampleSuffix)
                   .Directory(db.dir)
                   .MaxSize(1073741824)
                   .Indexes({"objectClass eq", "uid pres,eq"})
                   .Write(t, "fewer.conf");
  RunResult r = Verify(fewer);
  CHECK_MESSAGE(r.exit_code == 0, r.Describe());
  CHECK_MESSAGE(r.out.find("index tables no longer configured: cn description mail member name "
                           "sn telephoneNumber uidNumber\n") != std::string::npos,
                r.out);
  CHECK(IndexLine(r.out, "cn").empty());
}

// --- OpenLDAP as the oracle ---------------------------------------------------

TEST_CASE("verify: slapadd's database, its indexes rebuilt by slapindex, is clean") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slapindex");
  TempDir t;
  const std::string dir = t.File("db");
  fs::create_directory(dir);
  const std::string conf = Conf(t, "db.conf", dir);
  testing::ProcessResult added =
      testing::RunSlapadd({"-q", "-f", conf, "-l", t.Write("in.ldif", Ldif())});
  REQUIRE_MESSAGE(added.exit_code == 0, added.Describe());
  testing::ProcessResult indexed = testing::RunSlapindex({"-q", "-f", conf});
  REQUIRE_MESSAGE(indexed.exit_code == 0, indexed.Describe());
  VerifiesClean(Loaded{dir, conf});
}

TEST_CASE("verify: dirload's database after slapd's adds, modifies, renames and deletes") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slapd", "ldapmodify", "ldapmodrdn", "ldapdelete");
  TempDir t;
  const Loaded db = Load(t, Kind::kMdb, "db");
  {
    testing::Slapd slapd(t, "slapd", db.conf);
    std::string adds;
    for (int i = 0; i < 20; ++i) {
      const std::string n = "n" + std::to_string(i);
      adds += "dn: uid=" + n +
              ",ou=people,dc=example,dc=com\nchangetype: add\n"
              "objectClass: inetOrgPerson\nuid: " +
              n + "\ncn: New Person " + n + "\nsn: Newcomer\nmail: " + n +
              "@example.org\ndescription: added online\n\n";
    }
    adds +=
        "dn: ou=moved,dc=example,dc=com\nchangetype: add\nobjectClass: organizationalUnit\n"
        "ou: moved\n\n";
    testing::ProcessResult r =
        testing::RunLdapClient("ldapmodify", slapd.url(), t.Write("adds.ldif", adds));
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    std::string mods;
    for (int i = 0; i < 30; ++i) {
      mods +=
          "dn: uid=p" + std::to_string(i) +
          ",ou=people,dc=example,dc=com\nchangetype: modify\n"
          "replace: sn\nsn: Renamed" +
          std::to_string(i) + "\n-\nadd: cn\ncn: Alias " + std::to_string(i) +
          "\n-\ndelete: mail\n-\n" +
          (i % 3 == 0 ? "delete: description\n-\n" : "add: description\ndescription: new\n-\n") +
          "\n";
    }
    mods +=
        "dn: cn=group1,ou=groups,dc=example,dc=com\nchangetype: modify\ndelete: member\n"
        "member: uid=p1,ou=people,dc=example,dc=com\n-\n\n";
    r = testing::RunLdapClient("ldapmodify", slapd.url(), t.Write("mods.ldif", mods));
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    std::string renames;
    for (int i = 40; i < 50; ++i) {
      renames += "dn: uid=p" + std::to_string(i) +
                 ",ou=people,dc=example,dc=com\n"
                 "changetype: modrdn\nnewrdn: uid=q" +
                 std::to_string(i) + "\ndeleteoldrdn: 1\n" +
                 (i % 2 == 0 ? "newsuperior: ou=moved,dc=example,dc=com\n" : "") + "\n";
    }
    r = testing::RunLdapClient("ldapmodify", slapd.url(), t.Write("renames.ldif", renames));
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    r = testing::RunLdapClient("ldapmodrdn", slapd.url(), "",
                               {"-r", "ou=groups,dc=example,dc=com", "ou=teams"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    std::vector<std::string> gone;
    for (int i = 100; i < 130; ++i) {
      gone.push_back("uid=p" + std::to_string(i) + ",ou=people,dc=example,dc=com");
    }
    gone.push_back("uid=n3,ou=people,dc=example,dc=com");
    r = testing::RunLdapClient("ldapdelete", slapd.url(), "", gone);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    testing::Slapd::Answer a = slapd.Search("dc=example,dc=com", "sub", "(uid=q42)");
    REQUIRE(a.entries.size() == 1);
  }
  VerifiesClean(db);
}

}  // namespace
}  // namespace dirload
