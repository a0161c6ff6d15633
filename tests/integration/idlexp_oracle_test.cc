// back-mdb's `idlexp N`: a key lists up to 2^N - 1 IDs before it becomes a
// range. With idlexp 17 and 65,600 entries the objectClass keys stay lists
// where the default (16) makes them ranges: dirload's add and index give
// slapadd's and slapindex's sub-databases, and the setting is read from
// slapd.conf as slapd reads it (any section; 16 to 30).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/integration/slapd_server.h"
#include "tests/support/mdb_dump.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr int kPeople = 65600;

std::string People() {
  std::string ldif =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\no: E\n"
      "dc: example\n\n";
  for (int i = 0; i < kPeople; ++i) {
    const std::string uid = "u" + std::to_string(i);
    ldif += "dn: uid=" + uid + ",dc=example,dc=com\nobjectClass: account\nuid: " + uid + "\n\n";
  }
  return ldif;
}

std::string Conf(const TempDir& t, const std::string& name, const std::string& idlexp) {
  const std::string dir = t.File(name);
  std::filesystem::create_directory(dir);
  testing::SlapdConf conf;
  conf.LoadBackMdb().Include(testing::kExampleSchemas);
  if (!idlexp.empty()) conf.Line("backend mdb").Line("idlexp " + idlexp);
  return conf.Database("mdb")
      .Suffix(testing::kExampleSuffix)
      .Directory(dir)
      .MaxSize(268435456)
      .Indexes({"objectClass eq", "uid eq"})
      .Write(t, name + ".conf");
}

// The number of duplicates of the objectClass key with the most of them.
size_t LongestObjectClassList(const std::string& dir) {
  const std::string dump = testing::MdbDump(dir, "objectClass");
  size_t longest = 0, run = 0;
  // mdb_dump prints key and value lines in turn, each with a leading space.
  std::string key;
  size_t line_no = 0;
  for (size_t at = 0; at < dump.size();) {
    size_t end = dump.find('\n', at);
    if (end == std::string::npos) end = dump.size();
    const std::string line = dump.substr(at, end - at);
    at = end + 1;
    if (line.empty() || line[0] != ' ') continue;
    if (line_no++ % 2 == 0) {
      run = line == key ? run + 1 : 1;
      key = line;
      longest = std::max(longest, run);
    }
  }
  return longest;
}

// The sub-databases but id2e, whose entries carry the times and entryUUIDs
// each load made.
std::string IndexDifferences(const std::string& mine, const std::string& theirs) {
  std::string out;
  for (const char* name : {"dn2i", "ad2i", "objectClass", "uid"}) {
    const std::string d =
        testing::FirstDifference(testing::MdbDump(mine, name), testing::MdbDump(theirs, name));
    if (!d.empty()) out += std::string(name) + ": " + d + "\n";
  }
  return out;
}

TEST_CASE("idlexp 17: keys of 65,600 IDs stay lists, as slapadd and slapindex leave them") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapindex", "slaptest", "mdb_dump");
  TempDir t;
  const std::string ldif = t.Write("people.ldif", People());
  const std::string theirs = Conf(t, "slapadd", "17");
  const std::string mine = Conf(t, "dirload", "17");
  const std::string plain = Conf(t, "plain", "");
  testing::ProcessResult added = testing::RunSlapadd({"-q", "-f", theirs, "-l", ldif});
  REQUIRE_MESSAGE(added.exit_code == 0, added.Describe());
  RunResult loaded = RunDirload({"add", "-q", "-f", mine, "-l", ldif, "--progress", "never"});
  REQUIRE_MESSAGE(loaded.exit_code == 0, loaded.Describe());
  RunResult default_loaded =
      RunDirload({"add", "-q", "-f", plain, "-l", ldif, "--progress", "never"});
  REQUIRE_MESSAGE(default_loaded.exit_code == 0, default_loaded.Describe());

  // The test means something only if the setting changes the database.
  CHECK(LongestObjectClassList(t.File("slapadd")) >= kPeople);
  CHECK(LongestObjectClassList(t.File("plain")) == 3);  // {0, lo, hi}
  CHECK(IndexDifferences(t.File("dirload"), t.File("slapadd")) == "");

  // A rebuild of both with the same setting.
  testing::ProcessResult reindexed = testing::RunSlapindex({"-q", "-f", theirs, "objectClass"});
  REQUIRE_MESSAGE(reindexed.exit_code == 0, reindexed.Describe());
  RunResult rebuilt = RunDirload({"index", "-f", mine, "objectClass", "--progress", "never"});
  REQUIRE_MESSAGE(rebuilt.exit_code == 0, rebuilt.Describe());
  CHECK(IndexDifferences(t.File("dirload"), t.File("slapadd")) == "");

  // The same from cn=config, where slaptest puts it in olcBkMdbIdlExp.
  const std::string slapd_d = t.File("slapd.d");
  std::filesystem::create_directory(slapd_d);
  testing::ProcessResult converted = testing::RunSlaptest({"-f", mine, "-F", slapd_d});
  REQUIRE_MESSAGE(converted.exit_code == 0, converted.Describe());
  RunResult from_dir = RunDirload({"index", "-F", slapd_d, "objectClass", "--progress", "never"});
  REQUIRE_MESSAGE(from_dir.exit_code == 0, from_dir.Describe());
  CHECK(IndexDifferences(t.File("dirload"), t.File("slapadd")) == "");
}

TEST_CASE("idlexp out of slapd's range is a configuration error naming the line") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  const std::string conf = Conf(t, "bad", "15");
  RunResult r = RunDirload({"add", "-u", "-f", conf, "-l", t.Write("in.ldif", "")});
  CHECK(r.exit_code == 2);
  CHECK_MESSAGE(r.err.find("idlexp") != std::string::npos, r.err);
  CHECK_MESSAGE(r.err.find("bad.conf:") != std::string::npos, r.err);
}

}  // namespace
}  // namespace dirload
