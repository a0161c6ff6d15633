#include "lib/load/loader.h"

#include <doctest/doctest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <set>

#include "ldif/writer.h"
#include "lib/entry/entry_record.h"
#include "lib/format/native/database_meta.h"
#include "lib/format/native/native_sink.h"
#include "lib/load/dry_run_sink.h"
#include "lib/schema/schema.h"
#include "lib/store/tables.h"
#include "lib/util/coding.h"
#include "lib/util/uuid.h"
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
  std::vector<ldif::Record> entries;  // in ID order
  DatabaseMeta meta;
};

void LoadInto(Backend backend, const std::string& dir, const std::string& ldif, bool cont, Run* run,
              const std::function<void(LoadOptions*)>& tweak = {}, bool check_schema = true,
              size_t dn2id_buffer_bytes = size_t{64} << 20) {
  StoreOptions so;
  so.create = true;
  Result<std::unique_ptr<Store>> store = Store::Open(backend, dir, so);
  REQUIRE(store.ok());
  LoadOptions lo;
  lo.suffix = "dc=example,dc=com";
  lo.continue_on_error = cont;
  if (tweak) tweak(&lo);
  EntryChecker checker(&testing::BuiltinSchema(), check_schema, lo.repeated_values);
  NativeSinkOptions sink_options;
  sink_options.commit_every = 2;  // many small transactions
  sink_options.dn2id_buffer_bytes = dn2id_buffer_bytes;
  NativeSink sink(store->get(), sink_options);
  Loader loader(lo, &sink, &checker, &run->rejects, nullptr);
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
    // A run that failed may not have saved the dictionary.
    if (run->meta.state == DatabaseState::kReady) {
      REQUIRE(EntryToRecord(e, dict, &run->entries.emplace_back()).ok());
    }
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

// A chain of missing ancestors thousands deep: each gets an ID reserved and
// the entry below them is rejected at the end, in time linear in the depth
// (it once took minutes at 2,000 levels). Entries below the chain that do
// come, and two holes met from two sides, go with their topmost missing
// ancestor, named as the first entry below it spelt it.
TEST_CASE("a 10,000-level chain of missing ancestors is rejected at once, with or without -c") {
  constexpr int kDepth = 10000;
  std::string chain;  // ou=l10000,...,ou=l1 (no suffix)
  for (int i = kDepth; i >= 1; --i) chain += "ou=l" + std::to_string(i) + (i > 1 ? "," : "");
  const std::string deep = chain + ",dc=example,dc=com";
  const std::string ldif =
      std::string(kTop) +                                                                    // 1-6
      "dn: " + deep + "\nobjectClass: organizationalUnit\nou: l" + std::to_string(kDepth) +  // 7
      "\n\n" + "dn: OU=L2, ou=l1,dc=example,dc=com\nobjectClass: organizationalUnit\nou: l2\n\n" +
      "dn: ou=below," + deep + "\nobjectClass: organizationalUnit\nou: below\n\n" +
      std::string(kPeople);
  for (bool cont : {true, false}) {
    CAPTURE(cont);
    testing::TempDir dir;
    Run run;
    const auto start = std::chrono::steady_clock::now();
    LoadInto(Backend::kLmdb, dir.File("db"), ldif, cont, &run);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds < 5.0);  // well under a second in a release build
    if (!cont) {
      REQUIRE_FALSE(run.summary.ok());
      CHECK(run.summary.status().message().find("in.ldif:7: ") == 0);
      CHECK(run.summary.status().message().find(
                "parent entry 'ou=l1,dc=example,dc=com' does not exist") != std::string::npos);
      continue;
    }
    REQUIRE(run.summary.ok());
    CHECK(run.summary->rejected == 3);
    CHECK(run.summary->entries_loaded == 2);
    CHECK(run.dns_in_id_order ==
          std::vector<std::string>{"dc=example,dc=com", "ou=people,dc=example,dc=com"});
    REQUIRE(run.rejects.messages.size() == 3);
    // In input order; ou=l2 (spelt otherwise) filled no hole of its own: it
    // lies below ou=l1, the chain's topmost missing ancestor.
    CHECK(run.rejects.messages[0].find("in.ldif:7: ou=l10000,") == 0);
    CHECK(run.rejects.messages[1].find("in.ldif:11: OU=L2,ou=l1,dc=example,dc=com: ") == 0);
    CHECK(run.rejects.messages[2].find("in.ldif:15: ou=below,ou=l10000,") == 0);
    for (const std::string& m : run.rejects.messages) {
      CHECK(m.find("parent entry 'ou=l1,dc=example,dc=com' does not exist") != std::string::npos);
    }
  }
}

TEST_CASE("a dry run (add -u) rejects what the load rejects, with the same messages") {
  const std::string ldif =
      std::string(kTop) + Person("a", "ou=x,ou=gone,dc=example,dc=com") +
      "dn: ou=x,ou=gone,dc=example,dc=com\nobjectClass: organizationalUnit\nou: x\n\n" +
      Person("b", "ou=x,ou=gone,dc=example,dc=com") + Person("c", "dc=example,dc=com") +
      Person("c", "dc=example,dc=com");
  testing::TempDir dir;
  Run stored;
  LoadInto(Backend::kLmdb, dir.File("db"), ldif, true, &stored);
  REQUIRE(stored.summary.ok());

  EntryChecker checker(&testing::BuiltinSchema(), true);
  LoadOptions lo;
  lo.suffix = "dc=example,dc=com";
  lo.continue_on_error = true;
  DryRunSink sink;
  CollectRejects rejects;
  Loader loader(lo, &sink, &checker, &rejects, nullptr);
  ldif::Reader reader(ldif::MemoryByteSource(ldif, "in.ldif"));
  Result<LoadSummary> dry = loader.Run(&reader);
  REQUIRE(dry.ok());
  CHECK(dry->entries_loaded == stored.summary->entries_loaded);
  CHECK(dry->entries_loaded == 2);
  CHECK(dry->rejected == 4);
  CHECK(rejects.messages == stored.rejects.messages);
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

TEST_CASE("a DN longer than a store key loads (dn2id's long keys, lib/schema/dn.h)") {
  testing::TempDir dir;
  Run run;
  std::string uid(600, 'x');
  LoadInto(Backend::kLmdb, dir.File("db"), std::string(kTop) + kPeople + Person(uid) + Person("b"),
           true, &run);
  REQUIRE(run.summary.ok());
  CHECK(run.summary->entries_loaded == 4);
  CHECK(run.rejects.messages.empty());
}

}  // namespace
}  // namespace dirload

namespace dirload {
namespace {

constexpr int64_t k20240102030405 = 1704164645;  // 2024-01-02 03:04:05 UTC

// A clock that advances one microsecond per reading, from 03:04:05.
void SteppingClock(LoadOptions* lo) {
  auto micros = std::make_shared<uint32_t>(0);
  lo->clock = [micros] { return WallTime{k20240102030405, ++*micros}; };
  lo->uuid_seed = 7;
}

std::vector<std::string> Names(const ldif::Record& r) {
  std::vector<std::string> names;
  for (size_t i = 0; i < r.size(); ++i) names.emplace_back(r.attribute(i).description);
  return names;
}

std::vector<std::string> Values(const ldif::Record& r, std::string_view name) {
  std::vector<std::string> values;
  for (size_t i = 0; i < r.size(); ++i) {
    if (r.attribute(i).description == name) values.emplace_back(r.attribute(i).value);
  }
  return values;
}

const std::vector<std::string> kSlapaddOrder = {
    "structuralObjectClass", "entryUUID",      "creatorsName", "createTimestamp", "entryCSN",
    "modifiersName",         "modifyTimestamp"};

TEST_CASE("operational attributes are appended as slapadd appends them") {
  testing::TempDir dir;
  Run run;
  LoadInto(Backend::kLmdb, dir.File("db"), std::string(kTop) + kPeople + Person("a"), false, &run,
           [](LoadOptions* lo) {
             SteppingClock(lo);
             lo->rootdn = "cn=admin,dc=example,dc=com";
             lo->sid = 5;
           });
  REQUIRE(run.summary.ok());
  REQUIRE(run.entries.size() == 3);
  std::vector<std::string> want = {"objectClass", "objectClass", "dc", "o"};
  want.insert(want.end(), kSlapaddOrder.begin(), kSlapaddOrder.end());
  const ldif::Record& top = run.entries[0];
  CHECK(Names(top) == want);
  CHECK(Values(top, "structuralObjectClass") == std::vector<std::string>{"organization"});
  CHECK(Values(top, "creatorsName") == std::vector<std::string>{"cn=admin,dc=example,dc=com"});
  CHECK(Values(top, "modifiersName") == std::vector<std::string>{"cn=admin,dc=example,dc=com"});
  CHECK(Values(top, "createTimestamp") == std::vector<std::string>{"20240102030405Z"});
  CHECK(Values(top, "modifyTimestamp") == std::vector<std::string>{"20240102030405Z"});
  CHECK(Values(top, "entryCSN") ==
        std::vector<std::string>{"20240102030405.000001Z#000000#005#000000"});
  CHECK(Values(run.entries[1], "structuralObjectClass") ==
        std::vector<std::string>{"organizationalUnit"});
  CHECK(Values(run.entries[2], "structuralObjectClass") ==
        std::vector<std::string>{"inetOrgPerson"});
  CHECK(Values(run.entries[2], "entryCSN") ==
        std::vector<std::string>{"20240102030405.000003Z#000000#005#000000"});
  std::set<std::string> uuids;
  for (const ldif::Record& r : run.entries) {
    REQUIRE(Values(r, "entryUUID").size() == 1);
    uuids.insert(Values(r, "entryUUID")[0]);
  }
  CHECK(uuids.size() == 3);
}

TEST_CASE("operational values in the input are kept as written; only absent ones are added") {
  testing::TempDir dir;
  Run run;
  LoadInto(Backend::kLmdb, dir.File("db"),
           std::string(kTop) +
               "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n"
               "entryUUID: CD9C747E-81A3-1041-8D79-D538592ED736\n"
               "createTimestamp: 20200101000000Z\n"
               "entryCSN: 20200101000000.123456Z#000000#001#000000\n\n",
           false, &run, SteppingClock);
  REQUIRE(run.summary.ok());
  REQUIRE(run.entries.size() == 2);
  const ldif::Record& e = run.entries[1];
  CHECK(Names(e) == std::vector<std::string>{"objectClass", "ou", "entryUUID", "createTimestamp",
                                             "entryCSN", "structuralObjectClass", "creatorsName",
                                             "modifiersName", "modifyTimestamp"});
  CHECK(Values(e, "entryUUID") == std::vector<std::string>{"CD9C747E-81A3-1041-8D79-D538592ED736"});
  CHECK(Values(e, "createTimestamp") == std::vector<std::string>{"20200101000000Z"});
  CHECK(Values(e, "entryCSN") ==
        std::vector<std::string>{"20200101000000.123456Z#000000#001#000000"});
  // No rootdn: the names are empty, as slapadd leaves them without one.
  CHECK(Values(e, "creatorsName") == std::vector<std::string>{""});
}

TEST_CASE("lastmod off adds nothing; without schema checks there is no structuralObjectClass") {
  testing::TempDir dir;
  Run off;
  LoadInto(Backend::kLmdb, dir.File("off"), std::string(kTop), false, &off,
           [](LoadOptions* lo) { lo->lastmod = false; });
  REQUIRE(off.summary.ok());
  REQUIRE(off.entries.size() == 1);
  CHECK(Names(off.entries[0]) == std::vector<std::string>{"objectClass", "objectClass", "dc", "o"});

  Run unchecked;
  LoadInto(Backend::kLmdb, dir.File("s"), std::string(kTop), false, &unchecked, SteppingClock,
           /*check_schema=*/false);
  REQUIRE(unchecked.summary.ok());
  REQUIRE(unchecked.entries.size() == 1);
  std::vector<std::string> want = {"objectClass", "objectClass", "dc", "o"};
  want.insert(want.end(), kSlapaddOrder.begin() + 1, kSlapaddOrder.end());
  CHECK(Names(unchecked.entries[0]) == want);
}

TEST_CASE("-w merges the greatest entryCSN per server ID into the suffix's contextCSN") {
  testing::TempDir dir;
  SUBCASE("the suffix has none: it goes at the end, equal to the last entryCSN") {
    Run run;
    LoadInto(Backend::kLmdb, dir.File("db"), std::string(kTop) + kPeople + Person("a"), false, &run,
             [](LoadOptions* lo) {
               SteppingClock(lo);
               lo->sid = 3;
               lo->write_context_csn = true;
             });
    REQUIRE(run.summary.ok());
    REQUIRE(run.entries.size() == 3);
    CHECK(Names(run.entries[0]).back() == "contextCSN");
    CHECK(Values(run.entries[0], "contextCSN") == Values(run.entries[2], "entryCSN"));
    CHECK(Values(run.entries[0], "contextCSN") ==
          std::vector<std::string>{"20240102030405.000003Z#000000#003#000000"});
  }
  SUBCASE("values of the input: other server IDs kept, the load's replace older ones") {
    Run run;
    LoadInto(Backend::kLmdb, dir.File("db"),
             "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
             "dc: example\no: Example\n"
             "contextCSN: 20200101000000.000000Z#000000#001#000000\n"
             "contextCSN: 20200101000000.000000Z#000000#005#000000\n\n" +
                 std::string(kPeople) +
                 "dn: ou=x,dc=example,dc=com\nobjectClass: organizationalUnit\nou: x\n"
                 "entryCSN: 20300101000000.000000Z#000000#002#000000\n\n",
             false, &run, [](LoadOptions* lo) {
               SteppingClock(lo);
               lo->sid = 5;
               lo->write_context_csn = true;
             });
    REQUIRE(run.summary.ok());
    REQUIRE(run.entries.size() == 3);
    // Where the attribute was, one value per server ID in ascending order (as slapadd -w).
    CHECK(Names(run.entries[0])[4] == "contextCSN");
    CHECK(Values(run.entries[0], "contextCSN") ==
          std::vector<std::string>{"20200101000000.000000Z#000000#001#000000",
                                   "20300101000000.000000Z#000000#002#000000",
                                   "20240102030405.000002Z#000000#005#000000"});
  }
  SUBCASE("none of the stored values superseded: left as it is, new server IDs too") {
    // slapadd -w writes contextCSN only when the load supersedes a stored
    // value (slap_tool_update_ctxcsn); the load's server ID 5 is not added.
    Run run;
    LoadInto(Backend::kLmdb, dir.File("db"),
             "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
             "dc: example\no: Example\n"
             "contextCSN: 20400101000000.000000Z#000000#001#000000\n\n" +
                 std::string(kPeople),
             false, &run, [](LoadOptions* lo) {
               SteppingClock(lo);
               lo->sid = 5;
               lo->write_context_csn = true;
             });
    REQUIRE(run.summary.ok());
    REQUIRE(run.entries.size() == 2);
    CHECK(Values(run.entries[0], "contextCSN") ==
          std::vector<std::string>{"20400101000000.000000Z#000000#001#000000"});
  }
}

TEST_CASE("-j skips the records that start before the line, as slapadd -j") {
  // Lines: top 1-5, people 7-9, uid=a's record from its comment at 11 (DN at
  // 12), uid=b at 18. slapadd -j 11 loads uid=a, -j 12 skips it.
  const std::string ldif =
      std::string(kTop) + kPeople + "# resumed here\n" + Person("a") + Person("b");
  testing::TempDir dir;
  Run first;
  LoadInto(Backend::kLmdb, dir.File("db"), std::string(kTop) + kPeople, false, &first);
  REQUIRE(first.summary.ok());
  SUBCASE("the line of the comment that starts uid=a's record: it loads") {
    Run run;
    LoadInto(Backend::kLmdb, dir.File("db"), ldif, false, &run,
             [](LoadOptions* lo) { lo->skip_to_line = 11; });
    REQUIRE(run.summary.ok());
    CHECK(run.summary->skipped == 2);
    CHECK(run.summary->entries_loaded == 2);
    CHECK(run.dns_in_id_order.size() == 4);
  }
  SUBCASE("the line of uid=a's DN: uid=a is skipped, unchecked") {
    Run run;
    LoadInto(Backend::kLmdb, dir.File("db"),
             std::string(kTop) + kPeople + "# resumed here\n" +
                 "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: nothing\n\n" + Person("b"),
             false, &run, [](LoadOptions* lo) { lo->skip_to_line = 12; });
    REQUIRE(run.summary.ok());
    CHECK(run.summary->skipped == 3);
    CHECK(run.summary->rejected == 0);
    CHECK(run.summary->entries_loaded == 1);
    CHECK(run.dns_in_id_order.back() == "uid=b,ou=people,dc=example,dc=com");
  }
}

void RejectRepeats(LoadOptions* lo) { lo->repeated_values = RepeatedValues::kReject; }

// slapadd 2.5 stores a value given twice (slapadd and slapadd -q both load
// such an entry, keeping both copies), but attribute values are a set (RFC
// 4512) and slapd refuses the same entry over LDAP ("value #0 provided more
// than once"). -o repeated-values=reject refuses it, naming both lines.
TEST_CASE("repeated-values=reject: a value given twice rejects the entry, naming both lines") {
  const std::string ldif =
      std::string(kTop) +                                  // 1-6
      "dn: ou=Sales,dc=example,dc=com\n"                   // 7
      "objectClass: organizationalUnit\n"                  // 8
      "# a comment inside the record\n"                    // 9
      "description: a long\n"                              // 10
      "  folded line\n"                                    // 11
      "ou: Sales\n"                                        // 12
      "ou: SALES\n\n"                                      // 13 (caseIgnoreMatch: equal)
      "dn: ou=x,dc=example,dc=com\n"                       // 15
      "objectClass: organizationalUnit\nou: x\nou: x\n\n"  // 16-18
      "dn: ou=y,dc=example,dc=com\n"                       // 20
      "objectClass: organizationalUnit\nobjectClass: 2.5.6.5\nou: y\n\n" +  // 21-22: one class
      std::string(kPeople);
  testing::TempDir dir;
  Run run;
  LoadInto(Backend::kLmdb, dir.File("db"), ldif, true, &run, RejectRepeats);
  REQUIRE(run.summary.ok());
  CHECK(run.summary->entries_loaded == 2);  // the rest loads with -c
  REQUIRE(run.rejects.messages.size() == 3);
  CHECK(run.rejects.messages[0] ==
        "in.ldif:7: ou=Sales,dc=example,dc=com: attribute 'ou': value 'SALES' at line 13 equals "
        "'Sales' at line 12 (an attribute holds each value once: -o repeated-values=reject)");
  CHECK(run.rejects.messages[1].find("in.ldif:15: ou=x,dc=example,dc=com: attribute 'ou': value "
                                     "'x' at line 18 equals 'x' at line 17") == 0);
  CHECK(run.rejects.messages[2].find("attribute 'objectClass': value '2.5.6.5' at line 22 equals "
                                     "'organizationalUnit' at line 21") != std::string::npos);
  CHECK(run.rejects.texts[0].find("ou: SALES") != std::string::npos);

  Run stop;
  LoadInto(Backend::kLmdb, dir.File("db2"), ldif, false, &stop, RejectRepeats);
  REQUIRE_FALSE(stop.summary.ok());
  CHECK(stop.summary.status().message().find("in.ldif:7: ") == 0);
}

TEST_CASE("repeated values among many, and as bytes where there is no equality rule") {
  std::string group =
      "dn: cn=g,dc=example,dc=com\nobjectClass: groupOfNames\ncn: g\n";  // lines 7-9
  for (int i = 0; i < 20; ++i) {
    group += "member: cn=m" + std::to_string(i) + ",dc=example,dc=com\n";  // lines 10-29
  }
  group += "member: CN=M3, DC=example,dc=com\n\n";  // line 30: distinguishedNameMatch: equal
  testing::TempDir dir;
  Run run;
  LoadInto(Backend::kLmdb, dir.File("db"), std::string(kTop) + group, true, &run, RejectRepeats);
  REQUIRE(run.summary.ok());
  REQUIRE(run.rejects.messages.size() == 1);
  CHECK(run.rejects.messages[0].find("attribute 'member': value 'CN=M3, DC=example,dc=com' at "
                                     "line 30 equals 'cn=m3,dc=example,dc=com' at line 13") !=
        std::string::npos);

  // Without schema checks an undefined attribute's values compare as bytes.
  Run unchecked;
  LoadInto(Backend::kLmdb, dir.File("s"),
           std::string(kTop) +
               "dn: ou=a,dc=example,dc=com\nobjectClass: organizationalUnit\nou: a\n"
               "x-note: a\nx-note: A\n\n"
               "dn: ou=b,dc=example,dc=com\nobjectClass: organizationalUnit\nou: b\n"
               "x-note: b\nx-note: b\n\n",
           true, &unchecked, RejectRepeats, /*check_schema=*/false);
  REQUIRE(unchecked.summary.ok());
  CHECK(unchecked.summary->entries_loaded == 2);
  REQUIRE(unchecked.rejects.messages.size() == 1);
  CHECK(unchecked.rejects.messages[0].find("attribute 'x-note': value 'b'") != std::string::npos);
}

// By default a value given twice is stored as given, both copies in input
// order, as slapadd stores it; the summary counts and names such entries.
TEST_CASE("a value given twice is stored twice by default and counted") {
  const std::string ldif = std::string(kTop) +                         // 1-6
                           "dn: ou=Sales,dc=example,dc=com\n"          // 7
                           "objectClass: organizationalUnit\n"         // 8
                           "ou: Sales\nou: SALES\n"                    // 9-10
                           "userPassword: jaj\nuserPassword: jaj\n\n"  // 11-12
                           "dn: ou=y,dc=example,dc=com\n"              // 14
                           "objectClass: organizationalUnit\nobjectClass: 2.5.6.5\nou: y\n\n" +
                           std::string(kPeople);
  testing::TempDir dir;
  Run run;
  LoadInto(Backend::kLmdb, dir.File("db"), ldif, false, &run);
  REQUIRE(run.summary.ok());
  CHECK(run.summary->rejected == 0);
  CHECK(run.summary->repeated_value_entries == 2);
  REQUIRE(run.summary->repeated_values.size() == 2);
  CHECK(run.summary->repeated_values[0] ==
        "in.ldif:7: ou=Sales,dc=example,dc=com: attribute 'ou': value 'SALES' at line 10 "
        "equals 'Sales' at line 9");
  CHECK(run.summary->repeated_values[1].find("in.ldif:14: ou=y,dc=example,dc=com: attribute "
                                             "'objectClass'") == 0);
  const ldif::Record* sales = nullptr;
  for (const ldif::Record& e : run.entries) {
    if (e.dn() == "ou=Sales,dc=example,dc=com") sales = &e;
  }
  REQUIRE(sales != nullptr);
  CHECK(Values(*sales, "ou") == std::vector<std::string>{"Sales", "SALES"});
  CHECK(Values(*sales, "userPassword") == std::vector<std::string>{"jaj", "jaj"});
}

}  // namespace
}  // namespace dirload

namespace dirload {
namespace {

std::vector<std::pair<std::string, std::string>> Dump(Backend backend, const std::string& dir,
                                                      std::string_view table) {
  StoreOptions so;
  so.read_only = true;
  Result<std::unique_ptr<Store>> store = Store::Open(backend, dir, so);
  REQUIRE(store.ok());
  std::vector<std::pair<std::string, std::string>> records;
  std::unique_ptr<Cursor> c = (*store)->NewCursor(table);
  for (c->SeekToFirst(); c->valid(); c->Next()) records.emplace_back(c->key(), c->value());
  REQUIRE(c->status().ok());
  return records;
}

TEST_CASE("dn2id held in memory and written in key order is the dn2id written entry by entry") {
  // Children before parents, a parent that never comes, duplicates of held
  // and of written names spelt otherwise, a long key, then an append: with
  // every record put as its entry is stored (0), a flush after every entry
  // (1 byte) and one flush at the end, the tables and the rejects are the
  // same.
  const std::string long_uid(600, 'x');
  const std::string first =
      std::string(kTop) + Person("a") + Person("b") + kPeople + Person("c") +
      Person("C", "ou=People, dc=example,dc=com") + Person("y", "ou=gone,dc=example,dc=com") +
      Person(long_uid) + Person("z", "ou=x,ou=later,dc=example,dc=com") +
      "dn: ou=later,dc=example,dc=com\nobjectClass: organizationalUnit\nou: later\n\n" +
      "dn: ou=x,ou=later,dc=example,dc=com\nobjectClass: organizationalUnit\nou: x\n\n" +
      Person("B");
  const std::string second = Person("d") + Person("A") +
                             Person("e", "ou=x,ou=later,dc=example,dc=com") +
                             Person("w", "ou=none,dc=example,dc=com");
  for (Backend b : {Backend::kLmdb, Backend::kBdb}) {
    CAPTURE(BackendName(b));
    std::vector<std::pair<std::string, std::string>> dn2id[3], id2entry[3];
    std::vector<std::string> rejects[3];
    const size_t budgets[3] = {0, 1, size_t{64} << 20};
    for (int i = 0; i < 3; ++i) {
      CAPTURE(budgets[i]);
      testing::TempDir dir;
      Run one, two;
      // SteppingClock: the same operational values in every run.
      LoadInto(b, dir.File("db"), first, true, &one, SteppingClock, true, budgets[i]);
      REQUIRE(one.summary.ok());
      CHECK(one.summary->entries_loaded == 9);
      LoadInto(b, dir.File("db"), second, true, &two, SteppingClock, true, budgets[i]);
      REQUIRE(two.summary.ok());
      CHECK(two.summary->entries_loaded == 2);
      rejects[i] = one.rejects.messages;
      rejects[i].insert(rejects[i].end(), two.rejects.messages.begin(), two.rejects.messages.end());
      dn2id[i] = Dump(b, dir.File("db"), kDn2IdTable);
      id2entry[i] = Dump(b, dir.File("db"), kId2EntryTable);
      CHECK(dn2id[i].size() == 11);
      CHECK(id2entry[i].size() == 11);
    }
    REQUIRE(rejects[0].size() == 5);
    CHECK(rejects[0][0].find("duplicate DN: already given at line") != std::string::npos);
    CHECK(rejects[0][1].find("duplicate DN: already given at line") != std::string::npos);
    CHECK(rejects[0][2].find("parent entry 'ou=gone,dc=example,dc=com' does not exist") !=
          std::string::npos);
    CHECK(rejects[0][3].find("already in the database") != std::string::npos);
    CHECK(rejects[0][4].find("parent entry 'ou=none,dc=example,dc=com' does not exist") !=
          std::string::npos);
    for (int i = 1; i < 3; ++i) {
      CHECK(dn2id[i] == dn2id[0]);
      CHECK(id2entry[i] == id2entry[0]);
      CHECK(rejects[i] == rejects[0]);
    }
  }
}

TEST_CASE("one checking worker or several, or the writing thread alone: the same tables") {
  // Batches of three records and a few hundred of them, so that the writing
  // thread checks some batches itself and the workers finish theirs out of
  // input order; bad records and duplicates among them, whose rejects must
  // come in input order too.
  std::string ldif = std::string(kTop) + kPeople;
  size_t good = 2, bad = 0;
  for (int i = 0; i < 400; ++i) {
    const std::string uid = "u" + std::to_string(i);
    if (i % 17 == 5) {
      ldif += "dn: uid=" + uid +
              ",ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: " + uid +
              "\ncn: x\nsn: x\nnoSuchType: x\n\n";
      ++bad;
    } else if (i % 23 == 7) {
      ldif += Person("u0");  // u0 is good
      ++bad;
    } else {
      ldif += Person(uid);
      ++good;
    }
  }
  // Entries compared as text: the attribute dictionary's numbering follows
  // the order in which the threads first meet each description.
  std::vector<std::pair<std::string, std::string>> dn2id[4];
  std::vector<std::string> id2entry[4], rejects[4];
  for (unsigned threads = 0; threads < 4; ++threads) {
    CAPTURE(threads);
    testing::TempDir dir;
    Run run;
    LoadInto(Backend::kLmdb, dir.File("db"), ldif, true, &run, [&](LoadOptions* lo) {
      SteppingClock(lo);
      lo->threads = threads;
      lo->batch_records = 3;
    });
    REQUIRE(run.summary.ok());
    CHECK(run.summary->entries_loaded == good);
    CHECK(run.summary->rejected == bad);
    dn2id[threads] = Dump(Backend::kLmdb, dir.File("db"), kDn2IdTable);
    for (const ldif::Record& r : run.entries) {
      std::string text;
      ldif::AppendRecord(r, ldif::WriterOptions{}, &text);
      id2entry[threads].push_back(std::move(text));
    }
    rejects[threads] = run.rejects.messages;
  }
  CHECK(id2entry[0].size() == good);
  REQUIRE(rejects[0].size() == bad);
  CHECK(rejects[0][0].find("in.ldif:") == 0);
  for (unsigned threads = 1; threads < 4; ++threads) {
    CAPTURE(threads);
    CHECK(dn2id[threads] == dn2id[0]);
    CHECK(id2entry[threads] == id2entry[0]);
    CHECK(rejects[threads] == rejects[0]);
  }
}

// The options that make replicas loaded apart agree (dirload add -o
// uuid=dn, -o csn-time): the values made depend on the input alone.
TEST_CASE("uuid_name_space and csn_time: the same values in every run, counters in input order") {
  const std::string ldif =
      std::string(kTop) + Person("b") + kPeople + Person("a") +
      "dn: ou=kept,dc=example,dc=com\nobjectClass: organizationalUnit\nou: kept\n"
      "entryUUID: cd9c747e-81a3-1041-8d79-d538592ed736\n"
      "entryCSN: 20200101000000.123456Z#000000#001#000000\n\n";
  std::vector<std::string> texts[2];
  for (unsigned threads : {0u, 3u}) {
    CAPTURE(threads);
    testing::TempDir dir;
    Run run;
    LoadInto(Backend::kLmdb, dir.File("db"), ldif, false, &run, [&](LoadOptions* lo) {
      lo->threads = threads;
      lo->batch_records = 1;
      lo->sid = 2;
      lo->csn_time = WallTime{1767225600, 0};  // 2026-01-01
      lo->uuid_name_space = kX500NameSpace;
    });
    REQUIRE(run.summary.ok());
    REQUIRE(run.entries.size() == 5);
    for (const ldif::Record& r : run.entries) {
      std::string text;
      ldif::AppendRecord(r, ldif::WriterOptions{}, &text);
      texts[threads == 0 ? 0 : 1].push_back(std::move(text));
    }
    // In ID order: the suffix, ou=people (reserved by uid=b), uid=b, uid=a,
    // ou=kept; the counters follow the input (uid=b came before ou=people).
    const ldif::Record& top = run.entries[0];
    CHECK(Values(top, "entryUUID") ==
          std::vector<std::string>{FormatUuid(NameBasedUuid(kX500NameSpace, "dc=example,dc=com"))});
    CHECK(Values(top, "entryCSN") ==
          std::vector<std::string>{"20260101000000.000000Z#000000#002#000000"});
    CHECK(Values(top, "createTimestamp") == std::vector<std::string>{"20260101000000Z"});
    CHECK(Values(run.entries[2], "entryCSN") ==
          std::vector<std::string>{"20260101000000.000000Z#000001#002#000000"});
    CHECK(Values(run.entries[1], "entryCSN") ==
          std::vector<std::string>{"20260101000000.000000Z#000002#002#000000"});
    CHECK(Values(run.entries[1], "entryUUID") ==
          std::vector<std::string>{
              FormatUuid(NameBasedUuid(kX500NameSpace, "ou=people,dc=example,dc=com"))});
    CHECK(Values(run.entries[3], "entryCSN") ==
          std::vector<std::string>{"20260101000000.000000Z#000003#002#000000"});
    // Given values are kept.
    CHECK(Values(run.entries[4], "entryUUID") ==
          std::vector<std::string>{"cd9c747e-81a3-1041-8d79-d538592ed736"});
    CHECK(Values(run.entries[4], "entryCSN") ==
          std::vector<std::string>{"20200101000000.123456Z#000000#001#000000"});
  }
  CHECK(texts[0] == texts[1]);
}

TEST_CASE("remove_sids: those entryCSNs replaced where they stand, no contextCSN of them kept") {
  const std::string ldif =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "dc: example\no: Example\n"
      "contextCSN: 20250101000000.000000Z#000000#002#000000\n"
      "contextCSN: 20250101000000.000000Z#000000#003#000000\n"
      "entryCSN: 20250101000000.000000Z#000000#002#000000\n\n"
      "dn: ou=a,dc=example,dc=com\nobjectClass: organizationalUnit\nou: a\n"
      "entryCSN: 20250102000000.000000Z#000000#002#000000\ndescription: after it\n\n"
      "dn: ou=b,dc=example,dc=com\nobjectClass: organizationalUnit\nou: b\n"
      "entryCSN: 20240101000000.000000Z#000000#003#000000\n\n";
  testing::TempDir dir;
  Run run;
  LoadInto(Backend::kLmdb, dir.File("db"), ldif, false, &run, [](LoadOptions* lo) {
    lo->sid = 1;
    lo->csn_time = WallTime{1767225600, 0};
    lo->remove_sids = {2, 7};  // no -w: implied
  });
  REQUIRE(run.summary.ok());
  CHECK(run.summary->replaced_csns == 2);
  REQUIRE(run.entries.size() == 3);
  const ldif::Record& top = run.entries[0];
  // In place: the value keeps its position among the entry's attributes.
  CHECK(Names(top)[4] == "contextCSN");
  CHECK(Names(top)[5] == "contextCSN");
  CHECK(Names(top)[6] == "entryCSN");
  CHECK(Values(top, "entryCSN") ==
        std::vector<std::string>{"20260101000000.000000Z#000000#001#000000"});
  CHECK(Names(run.entries[1])[2] == "entryCSN");
  CHECK(Values(run.entries[1], "entryCSN") ==
        std::vector<std::string>{"20260101000000.000000Z#000001#001#000000"});
  CHECK(Values(run.entries[2], "entryCSN") ==
        std::vector<std::string>{"20240101000000.000000Z#000000#003#000000"});
  // Server ID 2 gone; 1 the load's greatest (ou=b took counter 2 for its
  // other values but kept its own CSN); 3 as the input gave it (newer than
  // the load's).
  CHECK(Values(top, "contextCSN") ==
        std::vector<std::string>{"20260101000000.000000Z#000001#001#000000",
                                 "20250101000000.000000Z#000000#003#000000"});
  REQUIRE(run.summary->warnings.size() == 1);
  CHECK(run.summary->warnings[0] ==
        "in.ldif:1: dc=example,dc=com: -w overwrites the contextCSN the input gives "
        "(20250101000000.000000Z#000000#002#000000, 20250101000000.000000Z#000000#003#000000; "
        "now 20260101000000.000000Z#000001#001#000000, "
        "20250101000000.000000Z#000000#003#000000)");

  LoadOptions refused;
  refused.sid = 2;
  refused.remove_sids = {1, 2};
  Status st = Loader::CheckOptions(refused);
  CHECK(st.origin() == ErrorOrigin::kUsage);
  CHECK(st.message() == "-o remove-sids holds 2, the server ID (-S) of the CSNs this load makes");
}

TEST_CASE("-w warns when it overwrites the input's contextCSN, not when it keeps it") {
  auto top = [](const std::string& context_csn) {
    return "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
           "dc: example\no: Example\ncontextCSN: " +
           context_csn + "\n\n";
  };
  for (bool newer : {false, true}) {
    CAPTURE(newer);
    testing::TempDir dir;
    Run run;
    const std::string given = newer ? "20400101000000.000000Z#000000#005#000000"
                                    : "20200101000000.000000Z#000000#005#000000";
    LoadInto(Backend::kLmdb, dir.File("db"), top(given) + kPeople, false, &run,
             [](LoadOptions* lo) {
               SteppingClock(lo);
               lo->sid = 5;
               lo->write_context_csn = true;
             });
    REQUIRE(run.summary.ok());
    if (newer) {
      CHECK(run.summary->warnings.empty());
      CHECK(Values(run.entries[0], "contextCSN") == std::vector<std::string>{given});
    } else {
      REQUIRE(run.summary->warnings.size() == 1);
      CHECK(run.summary->warnings[0].find("in.ldif:1: dc=example,dc=com: -w overwrites the "
                                          "contextCSN the input gives (" +
                                          given + "; now 20240102030405.000002Z#000000#005") == 0);
    }
  }
}

}  // namespace
}  // namespace dirload
