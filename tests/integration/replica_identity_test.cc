// Replicas loaded apart: `dirload add -o uuid=dn -o csn-time=TIME -S SID -w`
// run on the same LDIF in several directories gives the same data.mdb, byte
// for byte, and a syncrepl consumer started on one of them beside a provider
// on another (slapd 2.5's syncprov and syncrepl, on 127.0.0.1) finds itself
// in sync: its refresh brings no entry, and a later change on the provider
// reaches it. Without the options the same LDIF gives other entryUUIDs in
// every load.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "bench/ldif_generator.h"
#include "lib/util/uuid.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/ldif_compare.h"
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

constexpr char kCsnTime[] = "20260101000000Z";
const std::vector<std::string> kIndexes = {
    "objectClass eq",     "entryCSN,entryUUID eq", "uid eq",
    "cn,sn,mail eq,sub",  "givenName eq,sub",      "telephoneNumber eq",
    "departmentNumber eq"};

// One replica's slapd.conf: the example database in DIR/NAME, and `extra`
// lines at its end (syncprov, syncrepl).
std::string ReplicaConf(const TempDir& tmp, const std::string& name,
                        const std::vector<std::string>& modules,
                        const std::vector<std::string>& extra) {
  const std::string dir = tmp.File(name);
  fs::create_directories(dir);
  testing::SlapdConf conf;
  conf.LoadBackMdb().Include(testing::kExampleSchemas);
  for (const std::string& m : modules) conf.ModuleLoad(m);
  return conf.Line("sizelimit unlimited")
      .Database("mdb")
      .Suffix(testing::kExampleSuffix)
      .RootDn(testing::kExampleRootDn)
      .Line("rootpw secret")
      .Directory(dir)
      .MaxSize(uint64_t{1} << 30)
      .Indexes(kIndexes)
      .Lines(extra)
      .Write(tmp, name + ".conf");
}

std::string GenerateInput(const TempDir& tmp, uint64_t entries) {
  bench::GeneratorOptions options;
  options.entries = entries;
  options.seed = 7;
  const std::string path = tmp.File("in.ldif");
  Status s = bench::GenerateLdifFile(options, path, false);
  REQUIRE_MESSAGE(s.ok(), s.message());
  return path;
}

RunResult LoadReplica(const std::string& conf, const std::string& ldif,
                      std::vector<std::string> more = {}) {
  std::vector<std::string> args = {"add", "-f", conf, "-l", ldif, "-S", "1", "-w"};
  args.insert(args.end(), more.begin(), more.end());
  return RunDirload(args);
}

std::vector<std::string> IdentityOptions() {
  return {"-o", "uuid=dn", "-o", std::string("csn-time=") + kCsnTime};
}

// The first value of `name` in an ldapsearch or slapcat record.
std::string ValueOf(const std::string& record, const std::string& name) {
  const std::string key = "\n" + name + ": ";
  size_t at = ("\n" + record).find(key);
  if (at == std::string::npos) return "";
  at += key.size() - 1;
  return record.substr(at, record.find('\n', at) - at);
}

// slapd's log: polls `path` until it holds `text`, for at most `seconds`.
bool LogShows(const std::string& path, const std::string& text, double seconds) {
  for (double waited = 0; waited < seconds; waited += 0.2) {
    if (testing::ReadFile(path).find(text) != std::string::npos) return true;
    testing::SleepSeconds(0.2);
  }
  return false;
}

RunResult Cmp(const std::string& a, const std::string& b) {
  return testing::RunProcess({testing::FindProgram("cmp"), a, b}, 60);
}

TEST_CASE("replicas loaded apart are byte-identical and syncrepl finds them in sync") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("slapd", "slapdn", "ldapsearch", "ldapadd", "cmp");
  if (!fs::exists("/usr/lib/ldap/syncprov.la")) {
    MESSAGE("slapd's syncprov module is not installed: skipping");
    return;
  }
  TempDir tmp;
  const std::string ldif = GenerateInput(tmp, 3000);
  // The provider's, the consumer's and a third, each loaded on its own.
  const std::string provider_conf =
      ReplicaConf(tmp, "provider", {"syncprov"}, {"overlay syncprov"});
  const std::string third_conf = ReplicaConf(tmp, "third", {}, {});
  for (const std::string& conf : {provider_conf, third_conf}) {
    RunResult r = LoadReplica(conf, ldif, IdentityOptions());
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  }
  testing::Slapd provider(tmp, "provider", provider_conf);
  const std::string consumer_conf =
      ReplicaConf(tmp, "consumer", {},
                  {"syncrepl rid=001 provider=" + provider.url() + " bindmethod=simple binddn=\"" +
                   testing::kExampleRootDn + "\" credentials=secret searchbase=\"" +
                   testing::kExampleSuffix + "\" type=refreshAndPersist retry=\"1 +\""});
  // The consumer's own load, its entries checked by the writing thread
  // alone: the same bytes.
  std::vector<std::string> options = IdentityOptions();
  options.insert(options.end(), {"--threads", "0"});
  RunResult loaded = LoadReplica(consumer_conf, ldif, options);
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
  for (const char* other : {"consumer", "third"}) {
    CAPTURE(other);
    RunResult same = Cmp(tmp.File("provider/data.mdb"), tmp.File(std::string(other) + "/data.mdb"));
    CHECK_MESSAGE(same.exit_code == 0, same.Describe());
  }

  // Every entryUUID is the name-based UUID of the DN as slapd normalizes it
  // (slapdn -N); the CSNs have the time given.
  testing::Slapd::Answer before =
      provider.Search(testing::kExampleSuffix, "sub", "(objectClass=*)", {"*", "+"});
  REQUIRE(before.exit_code == 0);
  REQUIRE(before.entries.size() == 3000);
  std::vector<std::string> slapdn = {"-f", provider_conf, "-N"};
  for (const std::string& e : before.entries) slapdn.push_back(ValueOf(e, "dn"));
  RunResult normalized = testing::RunOpenLdapTool("slapdn", slapdn, 120);
  REQUIRE_MESSAGE(normalized.exit_code == 0, normalized.Describe());
  std::vector<std::string> ndns;
  for (size_t at = 0, end; at < normalized.out.size(); at = end + 1) {
    end = normalized.out.find('\n', at);
    if (end == std::string::npos) end = normalized.out.size();
    ndns.push_back(normalized.out.substr(at, end - at));
  }
  REQUIRE(ndns.size() == before.entries.size());
  std::map<std::string, std::string> csn_by_uuid;
  for (size_t i = 0; i < before.entries.size(); ++i) {
    const std::string& e = before.entries[i];
    CAPTURE(ndns[i]);
    CHECK(ValueOf(e, "entryUUID") == FormatUuid(NameBasedUuid(kX500NameSpace, ndns[i])));
    const std::string csn = ValueOf(e, "entryCSN");
    CHECK(csn.substr(0, 23) == "20260101000000.000000Z#");
    CHECK(csn.substr(29) == "#001#000000");
    CHECK(ValueOf(e, "createTimestamp") == kCsnTime);
    csn_by_uuid[ValueOf(e, "entryUUID")] = csn;
  }
  CHECK(csn_by_uuid.size() == 3000);
  CHECK(ValueOf(before.entries.front(), "entryUUID").size() == kUuidTextSize);
  // RFC 4122's X.500 name space and the suffix, as Python's uuid.uuid5 makes it.
  CHECK(FormatUuid(NameBasedUuid(kX500NameSpace, "dc=example,dc=com")) ==
        "86845e9f-6224-5313-acb4-60c6bee4017f");

  // The consumer sends its own contextCSN and is told it is up to date.
  testing::Slapd consumer(tmp, "consumer", consumer_conf, /*debug_level=*/"16384");  // sync
  const std::string context_csn =
      ValueOf(provider.Search(testing::kExampleSuffix, "base", "(objectClass=*)", {"contextCSN"})
                  .entries.at(0),
              "contextCSN");
  CHECK(context_csn == "20260101000000.000000Z#000bb7#001#000000");  // 3000 entries: 0 to bb7
  REQUIRE_MESSAGE(LogShows(consumer.log(), "LDAP_RES_INTERMEDIATE", 30),
                  testing::ReadFile(consumer.log()));
  const std::string log = testing::ReadFile(consumer.log());
  CHECK_MESSAGE(log.find("sending cookie=rid=001,csn=" + context_csn) != std::string::npos, log);
  CHECK_MESSAGE(log.find("syncrepl_entry") == std::string::npos, log);
  testing::Slapd::Answer consumer_view =
      consumer.Search(testing::kExampleSuffix, "sub", "(objectClass=*)", {"*", "+"});
  CHECK(consumer_view.entries == before.entries);

  // A change on the provider reaches the consumer: the two stay one.
  const std::string change = tmp.Write(
      "later.ldif", "dn: ou=Later,dc=example,dc=com\nobjectClass: organizationalUnit\nou: Later\n");
  testing::ProcessResult added = testing::RunLdapClient("ldapadd", provider.url(), change);
  REQUIRE_MESSAGE(added.exit_code == 0, added.Describe());
  bool arrived = false;
  for (int i = 0; i < 150 && !arrived; ++i) {
    arrived = consumer.Search(testing::kExampleSuffix, "sub", "(ou=Later)").entries.size() == 1;
    if (!arrived) testing::SleepSeconds(0.2);
  }
  REQUIRE_MESSAGE(arrived, testing::ReadFile(consumer.log()));
  CHECK(LogShows(consumer.log(), "syncrepl_entry", 10));
  testing::Slapd::Answer after_provider =
      provider.Search(testing::kExampleSuffix, "sub", "(objectClass=*)", {"*", "+"});
  testing::Slapd::Answer after_consumer;
  for (int i = 0; i < 50; ++i) {  // contextCSN follows the entry
    after_consumer = consumer.Search(testing::kExampleSuffix, "sub", "(objectClass=*)", {"*", "+"});
    if (after_consumer.entries == after_provider.entries) break;
    testing::SleepSeconds(0.2);
  }
  CHECK(after_provider.entries.size() == 3001);
  CHECK(after_consumer.entries == after_provider.entries);
}

TEST_CASE("without -o uuid=dn and -o csn-time every load gives other entryUUIDs and CSNs") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP("cmp");
  TempDir tmp;
  const std::string ldif = GenerateInput(tmp, 200);
  std::map<std::string, std::string> uuid[2], csn[2];
  for (int i = 0; i < 2; ++i) {
    const std::string name = "db" + std::to_string(i);
    const std::string conf = ReplicaConf(tmp, name, {}, {});
    RunResult r = LoadReplica(conf, ldif);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    RunResult cat = testing::RunSlapcat({"-f", conf}, 60);
    REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
    for (const std::string& e : testing::SplitRecords(cat.out)) {
      const std::string dn = ValueOf(e, "dn");
      uuid[i][dn] = ValueOf(e, "entryUUID");
      csn[i][dn] = ValueOf(e, "entryCSN");
    }
  }
  REQUIRE(uuid[0].size() == 200);
  REQUIRE(uuid[1].size() == 200);
  for (const auto& [dn, value] : uuid[0]) {
    CAPTURE(dn);
    CHECK(value != uuid[1][dn]);
    CHECK(value[14] == '1');  // time-based, as slapadd makes them
  }
  CHECK(csn[0] != csn[1]);
  CHECK(Cmp(tmp.File("db0/data.mdb"), tmp.File("db1/data.mdb")).exit_code == 1);
}

TEST_CASE("-o uuid-namespace names the UUIDs; values the input gives are kept") {
  DIRLOAD_SKIP_WITHOUT_OPENLDAP();
  TempDir tmp;
  const std::string ldif = tmp.Write(
      "in.ldif",
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\ndc: example\n"
      "o: Example\n\n"
      "dn: ou=People, dc=Example, dc=COM\nobjectClass: organizationalUnit\nou: People\n\n"
      "dn: ou=kept,dc=example,dc=com\nobjectClass: organizationalUnit\nou: kept\n"
      "entryUUID: cd9c747e-81a3-1041-8d79-d538592ed736\n"
      "entryCSN: 20200101000000.123456Z#000000#009#000000\n\n");
  const std::string conf = ReplicaConf(tmp, "db", {}, {});
  RunResult r =
      LoadReplica(conf, ldif,
                  {"-o", "uuid=dn", "-o", "uuid-namespace=6ba7b810-9dad-11d1-80b4-00c04fd430c8",
                   "-o", "csn-time=20260101120000.5Z"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  RunResult cat = testing::RunSlapcat({"-f", conf}, 60);
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  const std::vector<std::string> records = testing::SplitRecords(cat.out);
  REQUIRE(records.size() == 3);
  // Python: uuid.uuid5(uuid.NAMESPACE_DNS, "dc=example,dc=com") and
  // "ou=people,dc=example,dc=com" (the normalized DN, whatever the spelling).
  CHECK(ValueOf(records[0], "entryUUID") == "79a07073-60aa-58b0-9a9f-67316efbb1b7");
  CHECK(ValueOf(records[1], "entryUUID") == "24938092-d31c-5424-8d86-8eaf506f47c6");
  CHECK(ValueOf(records[1], "entryCSN") == "20260101120000.500000Z#000001#001#000000");
  CHECK(ValueOf(records[1], "modifyTimestamp") == "20260101120000Z");
  CHECK(ValueOf(records[2], "entryUUID") == "cd9c747e-81a3-1041-8d79-d538592ed736");
  CHECK(ValueOf(records[2], "entryCSN") == "20200101000000.123456Z#000000#009#000000");
  // -w: the greatest per server ID (ou=kept's own CSN has server ID 9).
  CHECK(cat.out.find("contextCSN: 20260101120000.500000Z#000001#001#000000\n") !=
        std::string::npos);
  CHECK(cat.out.find("contextCSN: 20200101000000.123456Z#000000#009#000000\n") !=
        std::string::npos);
}

TEST_CASE("the identity options refuse bad values as usage errors") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string ldif = tmp.Write("in.ldif",
                                     "dn: dc=example,dc=com\nobjectClass: dcObject\n"
                                     "objectClass: organization\ndc: example\no: x\n");
  struct Case {
    std::vector<std::string> options;
    std::string message;
  } cases[] = {
      {{"-o", "uuid=random"},
       "-o uuid=random: expected dn (name-based, from the DN) or time (time-based, the default)"},
      {{"-o", "uuid=dn", "-o", "uuid-namespace=x500"},
       "-o uuid-namespace: 'x500' is not a UUID (8-4-4-4-12 hex digits"},
      {{"-o", "uuid-namespace=6ba7b810-9dad-11d1-80b4-00c04fd430c8"},
       "-o uuid-namespace names the UUIDs -o uuid=dn makes: give both"},
      {{"-o", "csn-time=yesterday"}, "-o csn-time: 'yesterday' is not a GeneralizedTime"},
      {{"-o", "csn-time=19600101000000Z"}, "-o csn-time: '19600101000000Z' is before 1970"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.message);
    std::vector<std::string> args = {"add", "--db", tmp.File("db"), "--suffix", "dc=example,dc=com",
                                     "-l",  ldif};
    args.insert(args.end(), c.options.begin(), c.options.end());
    RunResult r = RunDirload(args);
    CHECK(r.exit_code == 2);
    CHECK_MESSAGE(r.err.find("dirload: " + c.message) != std::string::npos, r.err);
    CHECK_FALSE(fs::exists(tmp.File("db/data.mdb")));
  }
}

}  // namespace
}  // namespace dirload
