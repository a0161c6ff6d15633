#include "lib/pipeline/loader.h"

#include <doctest/doctest.h>

#include "lib/pipeline/database_meta.h"
#include "lib/schema/schema.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"
#include "tests/schema/builtin_fixture.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

class CollectRejects final : public RejectSink {
 public:
  Status Reject(const std::string& message, std::string_view text) override {
    messages.push_back(message);
    texts.emplace_back(text);
    return Status::Ok();
  }
  std::vector<std::string> messages;
  std::vector<std::string> texts;
};

constexpr const char* kTop =
    "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
    "dc: example\no: Example\n\n";

std::string Person(const std::string& uid,
                   const std::string& parent = "ou=people,dc=example,dc=com") {
  return "dn: uid=" + uid + "," + parent + "\nobjectClass: inetOrgPerson\nuid: " + uid +
         "\ncn: " + uid + "\nsn: " + uid + "\n\n";
}

constexpr const char* kPeople =
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n\n";

struct Run {
  Result<LoadSummary> summary = Status::Internal("not run");
  CollectRejects rejects;
  std::vector<std::string> dns_in_id_order;
  DatabaseMeta meta;
};

void LoadInto(Backend backend, const std::string& dir, const std::string& ldif, bool cont,
              Run* run) {
  StoreOptions so;
  so.create = true;
  Result<std::unique_ptr<Store>> store = Store::Open(backend, dir, so);
  REQUIRE(store.ok());
  EntryChecker checker(&testing::BuiltinSchema(), true);
  LoadOptions lo;
  lo.suffix = "dc=example,dc=com";
  lo.continue_on_error = cont;
  lo.commit_every = 2;  // many small transactions
  Loader loader(lo, store->get(), &checker, &run->rejects, nullptr);
  ldif::Reader reader(ldif::MemoryByteSource(ldif, "in.ldif"));
  run->summary = loader.Run(&reader);
  AttributeDictionary dict;
  Result<DatabaseMeta> meta = ReadMeta(store->get(), &dict);
  REQUIRE(meta.ok());
  run->meta = *meta;
  std::unique_ptr<Cursor> c = (*store)->NewCursor(kId2EntryTable);
  EntryId previous = 0;
  for (c->SeekToFirst(); c->valid(); c->Next()) {
    CHECK(GetBigEndian64(c->key()) > previous);
    previous = GetBigEndian64(c->key());
    EntryView e;
    REQUIRE(DecodeEntry(c->value(), &e).ok());
    run->dns_in_id_order.emplace_back(e.dn);
  }
}

TEST_CASE("a child before its parent reserves the parent's ID, as slapadd does") {
  for (Backend b : {Backend::kLmdb, Backend::kBdb}) {
    CAPTURE(BackendName(b));
    testing::TempDir dir;
    Run run;
    LoadInto(b, dir.File("db"), std::string(kTop) + Person("a") + Person("b") + kPeople, false,
             &run);
    REQUIRE(run.summary.ok());
    CHECK(run.summary->entries_loaded == 4);
    CHECK(run.meta.state == DatabaseState::kReady);
    CHECK(run.meta.entries == 4);
    CHECK(run.meta.next_id == 5);
    REQUIRE(run.dns_in_id_order.size() == 4);
    CHECK(run.dns_in_id_order[1] == "ou=people,dc=example,dc=com");
    CHECK(run.dns_in_id_order[2] == "uid=a,ou=people,dc=example,dc=com");
  }
}

TEST_CASE("stored DNs drop insignificant spaces and take the parent's spelling") {
  testing::TempDir dir;
  Run run;
  LoadInto(
      Backend::kLmdb, dir.File("db"),
      std::string(kTop) +
          "dn: ou=People, dc=example, dc=com\nobjectClass: organizationalUnit\nou: People\n\n" +
          Person("a", "ou=people,dc=example,dc=com"),
      false, &run);
  REQUIRE(run.summary.ok());
  REQUIRE(run.dns_in_id_order.size() == 3);
  CHECK(run.dns_in_id_order[1] == "ou=People,dc=example,dc=com");
  CHECK(run.dns_in_id_order[2] == "uid=a,ou=People,dc=example,dc=com");
}

TEST_CASE("an ancestor that never comes rejects and removes everything below it") {
  testing::TempDir dir;
  Run run;
  LoadInto(Backend::kLmdb, dir.File("db"),
           std::string(kTop) + Person("a", "ou=x,ou=gone,dc=example,dc=com") +
               "dn: ou=x,ou=gone,dc=example,dc=com\nobjectClass: organizationalUnit\nou: x\n\n" +
               Person("b", "ou=x,ou=gone,dc=example,dc=com"),
           true, &run);
  REQUIRE(run.summary.ok());
  CHECK(run.summary->entries_loaded == 1);
  CHECK(run.summary->rejected == 3);
  CHECK(run.dns_in_id_order.size() == 1);
  REQUIRE(run.rejects.messages.size() == 3);
  CHECK(run.rejects.messages[0].find("in.ldif:7: uid=a,ou=x,ou=gone") == 0);
  CHECK(run.rejects.messages[1].find("in.ldif:13: ou=x,ou=gone") == 0);
  CHECK(run.rejects.messages[2].find("in.ldif:17: uid=b") == 0);
  for (const std::string& m : run.rejects.messages) {
    CHECK(m.find("parent entry 'ou=gone,dc=example,dc=com' does not exist") != std::string::npos);
  }
}

TEST_CASE("without -c the first bad record stops the run and the database stays 'loading'") {
  testing::TempDir dir;
  Run run;
  LoadInto(Backend::kLmdb, dir.File("db"),
           std::string(kTop) + kPeople + Person("a") + Person("a") + Person("b"), false, &run);
  REQUIRE_FALSE(run.summary.ok());
  CHECK(run.summary.status().message() ==
        "in.ldif:17: uid=a,ou=people,dc=example,dc=com: duplicate DN: already given at line 11");
  CHECK(run.meta.state == DatabaseState::kLoading);
  CHECK(RequireReady(run.meta, "db").message().find("did not finish") != std::string::npos);
}

TEST_CASE("with -c every good entry loads and every bad one is rejected with its line") {
  testing::TempDir dir;
  Run run;
  std::string ldif = std::string(kTop) + kPeople + Person("a") +
                     Person("a", "ou=people,dc=example,dc=com") +  // duplicate, line 17
                     Person("x", "dc=elsewhere") +                 // not under suffix, line 23
                     Person("y", "ou=gone,dc=example,dc=com") +    // orphan, line 29
                     "dn: uid=z,ou=people,dc=example,dc=com\nchangetype: delete\n\n" +  // 35
                     "dn: uid=n,ou=people,dc=example,dc=com\nobjectClass: person\n"
                     "cn: n\n\n" +  // no sn, line 38
                     "dn: uid=q,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
                     "cn: q\nsn: q\nfoo: bar\n\n" +  // undefined attribute, line 42
                     "dn: uid=r,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
                     "cn: r\nsn: r\ncn:: !!\n\n" +  // bad base64, line 52 (record 48)
                     Person("b");
  LoadInto(Backend::kLmdb, dir.File("db"), ldif, true, &run);
  REQUIRE(run.summary.ok());
  CHECK(run.summary->entries_loaded == 4);
  CHECK(run.summary->rejected == 7);
  CHECK(run.meta.state == DatabaseState::kReady);
  REQUIRE(run.rejects.messages.size() == 7);
  const auto& m = run.rejects.messages;
  CHECK(m[0].find("in.ldif:17: ") == 0);
  CHECK(m[0].find("duplicate DN") != std::string::npos);
  CHECK(m[1].find("in.ldif:23: ") == 0);
  CHECK(m[1].find("not under the suffix") != std::string::npos);
  CHECK(m[2].find("in.ldif:35: ") == 0);
  CHECK(m[2].find("change record") != std::string::npos);
  CHECK(m[3].find("in.ldif:38: ") == 0);
  CHECK(m[3].find("requires attribute 'sn'") != std::string::npos);
  CHECK(m[4].find("in.ldif:42: ") == 0);
  CHECK(m[4].find("'foo' is undefined") != std::string::npos);
  CHECK(m[5].find("in.ldif:52: ") == 0);
  CHECK(m[5].find("base64") != std::string::npos);
  CHECK(run.rejects.texts[5].find("cn:: !!") != std::string::npos);  // the text as read
  // Orphans are known only at the end.
  CHECK(m[6].find("in.ldif:29: ") == 0);
  CHECK(m[6].find("parent entry 'ou=gone,dc=example,dc=com' does not exist") != std::string::npos);
  CHECK(run.rejects.texts[6].find("dn: uid=y,ou=gone,dc=example,dc=com") == 0);
}

TEST_CASE("appending to a ready database continues the IDs; another suffix is refused") {
  testing::TempDir dir;
  Run first, second;
  LoadInto(Backend::kLmdb, dir.File("db"), std::string(kTop) + kPeople, false, &first);
  REQUIRE(first.summary.ok());
  LoadInto(Backend::kLmdb, dir.File("db"), Person("a") + Person("b"), false, &second);
  REQUIRE(second.summary.ok());
  CHECK(second.summary->first_id == 3);
  CHECK(second.meta.entries == 4);
  CHECK(second.dns_in_id_order.size() == 4);
  Run dup;
  LoadInto(Backend::kLmdb, dir.File("db"), Person("a"), false, &dup);
  REQUIRE_FALSE(dup.summary.ok());
  CHECK(dup.summary.status().message().find("already in the database") != std::string::npos);
}

}  // namespace
}  // namespace dirload

namespace dirload {
namespace {

TEST_CASE("a DN too long for a dn2id key is rejected, not a storage failure") {
  testing::TempDir dir;
  Run run;
  std::string uid(600, 'x');
  LoadInto(Backend::kLmdb, dir.File("db"), std::string(kTop) + kPeople + Person(uid) + Person("b"),
           true, &run);
  REQUIRE(run.summary.ok());
  CHECK(run.summary->entries_loaded == 3);
  REQUIRE(run.rejects.messages.size() == 1);
  CHECK(run.rejects.messages[0].find("in.ldif:11: ") == 0);
  CHECK(run.rejects.messages[0].find("DN too long") != std::string::npos);
}

}  // namespace
}  // namespace dirload
