#include "lib/format/mdb/mdb_env.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "tests/support/temp_dir.h"

namespace dirload::mdb {
namespace {

using dirload::testing::TempDir;

TEST_CASE("mdb env: write, reopen read-only, read back in slapd's orders") {
  TempDir dir;
  {
    MdbEnvOptions o;
    o.map_size = 8 << 20;
    o.index_names = {"cn", "objectClass"};
    auto env = MdbEnv::Open(dir.path().string(), o);
    REQUIRE_MESSAGE(env.ok(), env.status().ToString());
    auto txn = (*env)->Begin(true);
    REQUIRE(txn.ok());
    // dn2i duplicates go in the dup-compare order whatever the insert order.
    std::string key0 = MdbIdBytes(0);
    REQUIRE(txn->Put((*env)->dn2i(), key0, *EncodeMdbDnNode(MdbDnNode{true, "dc=b", "dc=B", 2, 1}))
                .ok());
    REQUIRE(txn->Put((*env)->dn2i(), key0, *EncodeMdbDnNode(MdbDnNode{true, "dc=a", "dc=A", 1, 1}))
                .ok());
    REQUIRE(txn->Put((*env)->dn2i(), key0, MdbDummyRootNode()).ok());
    CHECK(txn->Put((*env)->dn2i(), key0, MdbDummyRootNode(), MdbPutMode::kNoOverwrite).code() ==
          StatusCode::kAlreadyExists);
    // id2e keys in ID order (native integers), appended.
    for (uint64_t id : {1, 2, 300}) {
      REQUIRE(
          txn->Put((*env)->id2e(), MdbIdBytes(id), "e" + std::to_string(id), MdbPutMode::kAppend)
              .ok());
    }
    Status st = txn->Put((*env)->id2e(), MdbIdBytes(5), "x", MdbPutMode::kAppend);
    CHECK(st.code() == StatusCode::kAlreadyExists);  // MDB_KEYEXIST: not in order
    CHECK(st.origin() == ErrorOrigin::kStorage);
    auto cn = (*env)->Index("cn");
    REQUIRE(cn.ok());
    for (uint64_t id : {3, 1, 2}) REQUIRE(txn->Put(*cn, "kkkk", MdbIdBytes(id)).ok());
    REQUIRE(txn->Commit().ok());
    CHECK((*env)->Index("sn").status().code() == StatusCode::kNotFound);
  }
  MdbEnvOptions ro;
  ro.read_only = true;
  auto env = MdbEnv::Open(dir.path().string(), ro);
  REQUIRE_MESSAGE(env.ok(), env.status().ToString());
  CHECK((*env)->index_names() == std::vector<std::string>{"cn", "objectClass"});
  auto txn = (*env)->Begin(false);
  REQUIRE(txn.ok());
  std::vector<std::string> nodes;
  REQUIRE(txn->Scan((*env)->dn2i(),
                    [&](std::string_view, std::string_view v) {
                      nodes.push_back(DecodeMdbDnNode(v)->nrdn);
                      return Status::Ok();
                    })
              .ok());
  CHECK(nodes == std::vector<std::string>{"", "dc=a", "dc=b"});
  std::vector<std::string> ids;
  REQUIRE(txn->Scan((*env)->id2e(),
                    [&](std::string_view, std::string_view v) {
                      ids.emplace_back(v);
                      return Status::Ok();
                    })
              .ok());
  CHECK(ids == std::vector<std::string>{"e1", "e2", "e300"});
  std::vector<std::string> dups;
  REQUIRE(txn->Scan(*(*env)->Index("cn"),
                    [&](std::string_view, std::string_view v) {
                      dups.emplace_back(v);
                      return Status::Ok();
                    })
              .ok());
  CHECK(dups == std::vector<std::string>{MdbIdBytes(1), MdbIdBytes(2), MdbIdBytes(3)});
  uint64_t keys = 0, pairs = 0;
  REQUIRE(txn->Count(*(*env)->Index("cn"), &keys, &pairs).ok());
  CHECK(keys == 1);
  CHECK(pairs == 3);
  CHECK(txn->Get((*env)->id2e(), MdbIdBytes(2)).value() == "e2");
  CHECK(txn->Get((*env)->id2e(), MdbIdBytes(9)).status().code() == StatusCode::kNotFound);
  CHECK(!(*env)->Begin(true).ok());
}

TEST_CASE("mdb env: errors carry the storage origin and the path") {
  MdbEnvOptions o;
  auto env = MdbEnv::Open("/nonexistent/dirload-mdb", o);
  REQUIRE(!env.ok());
  CHECK(env.status().origin() == ErrorOrigin::kStorage);
  CHECK(env.status().message().find("/nonexistent/dirload-mdb") != std::string::npos);
  TempDir dir;
  o.index_names = {"id2e"};
  auto bad = MdbEnv::Open(dir.path().string(), o);
  CHECK(bad.status().code() == StatusCode::kInvalidArgument);
}

TEST_CASE("mdb env: a map that is too small reports ResourceExhausted") {
  TempDir dir;
  MdbEnvOptions o;
  o.map_size = 64 << 10;
  auto env = MdbEnv::Open(dir.path().string(), o);
  REQUIRE(env.ok());
  auto txn = (*env)->Begin(true);
  REQUIRE(txn.ok());
  Status st;
  std::string big(4000, 'x');
  for (uint64_t id = 1; id < 1000 && st.ok(); ++id) {
    st = txn->Put((*env)->id2e(), MdbIdBytes(id), big, MdbPutMode::kAppend);
  }
  CHECK(st.code() == StatusCode::kResourceExhausted);
  CHECK(st.origin() == ErrorOrigin::kStorage);
}

}  // namespace
}  // namespace dirload::mdb
