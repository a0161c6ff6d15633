// MdbOnlineWriter: entries added in batches to an existing back-mdb
// database get the index databases a rebuild from id2e gives (slapd's
// incremental insert, the range form past 65,535 IDs included),
// nsubs counted up their ancestors, and IDs after the last stored one.
#include "lib/format/mdb/mdb_online_writer.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_index_builder.h"
#include "lib/format/mdb/mdb_reader.h"
#include "lib/format/mdb/mdb_writer.h"
#include "lib/index/index_spec.h"
#include "lib/schema/schema.h"
#include "tests/support/temp_dir.h"

namespace dirload::mdb {
namespace {

using testing::TempDir;

MdbValue V(std::string_view description, std::string_view value) {
  return MdbValue{description, value, false, {}, false};
}

// Views into `keep`, which must outlive them.
std::vector<MdbValue> Person(const std::string& uid, std::vector<std::string>* keep) {
  std::string cn = uid;
  cn += " person";
  *keep = {uid, cn};
  return {V("objectClass", "inetOrgPerson"), V("uid", (*keep)[0]), V("cn", (*keep)[1]),
          V("sn", (*keep)[0])};
}

// Every (key, duplicate) of each index database, in order.
std::map<std::string, std::vector<std::pair<std::string, std::string>>> Indexes(
    MdbEnv& env, const std::vector<IndexSpec>& specs) {
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> out;
  Result<MdbTxn> txn = env.Begin(false);
  REQUIRE(txn.ok());
  for (const IndexSpec& spec : specs) {
    auto& pairs = out[std::string(spec.name())];
    Status st = txn->Scan(*env.Index(spec.name()), [&](std::string_view k, std::string_view v) {
      pairs.emplace_back(std::string(k), std::string(v));
      return Status::Ok();
    });
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }
  return out;
}

TEST_CASE("online batches give the indexes a rebuild gives, ranges included") {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  IndexConfig config;
  for (const char* line : {"objectClass eq", "uid eq", "cn eq,sub"}) {
    Status st = config.AddLine(*schema, line, "test");
    REQUIRE_MESSAGE(st.ok(), st.ToString());
  }
  TempDir t;
  const std::string dir = t.File("db");
  std::filesystem::create_directory(dir);
  {
    MdbWriterOptions wo;
    wo.map_size = uint64_t{1} << 30;
    for (const IndexSpec& spec : config.specs()) wo.index_names.emplace_back(spec.name());
    auto w = MdbLoadWriter::Create(*schema, dir, wo);
    REQUIRE(w.ok());
    std::vector<MdbValue> suffix = {V("objectClass", "dcObject"), V("objectClass", "organization"),
                                    V("dc", "example"), V("o", "E")};
    std::vector<MdbValue> ou = {V("objectClass", "organizationalUnit"), V("ou", "people")};
    REQUIRE((*w)->AddEntry(1, 0, "dc=example,dc=com", "dc=example,dc=com", suffix).ok());
    REQUIRE((*w)->AddEntry(2, 1, "ou=people", "ou=people", ou).ok());
    REQUIRE((*w)->Finish().ok());
    // The stored entries' keys, as a load's phase 2 writes them.
    REQUIRE((*w)->ReopenForIndexes().ok());
    MdbIndexOptions io;
    io.memory_budget = 0;
    auto built = MdbIndexBuilder::Build((*w)->env(), *schema, config.specs(), io);
    REQUIRE_MESSAGE(built.ok(), built.status().ToString());
  }
  // One more than a key's list holds: objectClass's keys become ranges.
  const uint64_t people = MdbKeyOptions().max_ids_per_key() + 65;
  {
    MdbOnlineOptions oo;
    oo.batch_entries = 5000;
    oo.indexes = config.specs();
    uint64_t commits = 0;
    oo.committed = [&](uint64_t, uint64_t) {
      ++commits;
      return Status::Ok();
    };
    auto w = MdbOnlineWriter::Open(*schema, dir, oo);
    REQUIRE_MESSAGE(w.ok(), w.status().ToString());
    CHECK((*w)->last_id() == 2);
    std::vector<std::string> keep;
    for (uint64_t i = 0; i < people; ++i) {
      std::string uid = "p";
      uid += std::to_string(i);
      std::string rdn = "uid=";
      rdn += uid;
      Status added = (*w)->AddEntry(3 + i, 2, rdn, rdn, Person(uid, &keep));
      REQUIRE_MESSAGE(added.ok(), added.ToString());
    }
    auto found = (*w)->FindChild(2, "uid=p17");
    REQUIRE(found.ok());
    CHECK(found->value_or(0) == 3 + 17);
    REQUIRE((*w)->Finish().ok());
    CHECK(commits == (people + oo.batch_entries - 1) / oo.batch_entries);
    CHECK((*w)->stats().ranges >= 1);
  }
  MdbEnvOptions eo;
  for (const IndexSpec& spec : config.specs()) eo.index_names.emplace_back(spec.name());
  auto env = MdbEnv::Open(dir, eo);
  REQUIRE(env.ok());
  {
    // ou=people counts itself and every person below it.
    Result<MdbTxn> txn = (*env)->Begin(false);
    REQUIRE(txn.ok());
    auto probe = EncodeMdbDnNode(MdbDnNode{true, "ou=people", {}, 0, 0});
    REQUIRE(probe.ok());
    auto child = txn->GetDup((*env)->dn2i(), MdbIdBytes(1), *probe);
    REQUIRE(child.ok());
    auto node = DecodeMdbDnNode(*child);
    REQUIRE(node.ok());
    CHECK(node->nsubs == people + 1);
    std::string_view key, value;
    REQUIRE(txn->Last((*env)->id2e(), &key, &value).ok());
    CHECK(MdbDecodeId(key) == people + 2);
  }
  const auto online = Indexes(**env, config.specs());
  MdbIndexOptions io;
  io.rebuild = true;
  io.memory_budget = 0;
  auto rebuilt = MdbIndexBuilder::Build(**env, *schema, config.specs(), io);
  REQUIRE_MESSAGE(rebuilt.ok(), rebuilt.status().ToString());
  CHECK(rebuilt->ranges >= 1);
  const auto expected = Indexes(**env, config.specs());
  for (const auto& [name, pairs] : expected) {
    CAPTURE(name);
    CHECK(online.at(name).size() == pairs.size());
    CHECK(online.at(name) == pairs);
  }
}

TEST_CASE("online adds keep big attributes in id2v and index the values read back from it") {
  Result<Schema> schema = Schema::Builtin();
  REQUIRE(schema.ok());
  TempDir t;
  const std::string dir = t.File("db");
  std::filesystem::create_directory(dir);
  {
    auto w = MdbLoadWriter::Create(*schema, dir, MdbWriterOptions());
    REQUIRE(w.ok());
    std::vector<MdbValue> suffix = {V("objectClass", "organization"), V("o", "x")};
    REQUIRE((*w)->AddEntry(1, 0, "o=x", "o=x", suffix).ok());
    REQUIRE((*w)->Finish().ok());
  }
  IndexConfig config;
  REQUIRE(config.AddLine(*schema, "member eq", "test").ok());
  {
    MdbOnlineOptions oo;
    oo.indexes = config.specs();
    oo.values.multival = {{"member", 2, 1}};
    oo.values.sorted_types = {"cn"};
    oo.committed = [](uint64_t, uint64_t) { return Status::Ok(); };
    auto w = MdbOnlineWriter::Open(*schema, dir, oo);
    REQUIRE_MESSAGE(w.ok(), w.status().ToString());
    std::vector<MdbValue> group = {V("objectClass", "groupOfNames"),
                                   V("cn", "g"),
                                   V("cn", "a"),
                                   V("member", "cn=ccc,o=x"),
                                   V("member", "cn=b,o=x"),
                                   V("member", "cn=AA,o=x")};
    Status added = (*w)->AddEntry(2, 1, "cn=g", "cn=g", group);
    REQUIRE_MESSAGE(added.ok(), added.ToString());
    REQUIRE((*w)->Finish().ok());
  }
  auto reader = MdbReader::Open(dir);
  REQUIRE(reader.ok());
  MdbReadEntry e;
  REQUIRE((*reader)->Get(2, &e).ok());
  std::vector<std::string> members, cns;
  bool multival = false, sorted = false;
  for (const MdbAttributeView& a : e.stored.attributes) {
    const std::string_view name = (*reader)->dictionary().Name(a.adx);
    if (name == "member") {
      multival = a.multival;
      for (std::string_view v : e.stored.Values(a)) members.emplace_back(v);
    } else if (name == "cn") {
      sorted = a.sorted;
      for (std::string_view v : e.stored.Values(a)) cns.emplace_back(v);
    }
  }
  CHECK(multival);
  CHECK(members == std::vector<std::string>{"cn=b,o=x", "cn=AA,o=x", "cn=ccc,o=x"});
  CHECK(sorted);
  CHECK(cns == std::vector<std::string>{"a", "g"});
  // One key per member: made from the values in id2v.
  MdbEnvOptions eo;
  eo.index_names = {"member"};
  auto env = MdbEnv::Open(dir, eo);
  REQUIRE(env.ok());
  Result<MdbTxn> txn = (*env)->Begin(false);
  REQUIRE(txn.ok());
  uint64_t keys = 0, pairs = 0;
  REQUIRE(txn->Count(*(*env)->Index("member"), &keys, &pairs).ok());
  CHECK(keys == 3);
  CHECK(pairs == 3);
}

}  // namespace
}  // namespace dirload::mdb
