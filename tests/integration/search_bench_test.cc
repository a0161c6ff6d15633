// dirload search --bench on the three kinds of database: every search of the
// run is counted, its entries equal what the same search finds alone, values
// are escaped before they enter the filter, each worker count gets its line,
// and the error paths exit with the status scripts expect.
#include <doctest/doctest.h>

#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";
constexpr int kUsers = 30;

std::string WriteLdif(const TempDir& tmp) {
  std::string text =
      "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
      "dc: example\no: Example\n\n"
      "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n\n";
  for (int i = 0; i < kUsers; ++i) {
    const std::string id = std::to_string(i);
    text += "dn: uid=u" + id + ",ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n";
    // Three users share each surname.
    text += "uid: u" + id + "\ncn: User " + id + "\nsn: Family" + std::to_string(i % 10) + "\n\n";
  }
  return tmp.Write("people.ldif", text);
}

struct BenchLine {
  int workers = 0;
  uint64_t requests = 0, entries = 0, errors = 0;
  double requests_per_second = 0;
};

// The lines after the header, by worker count.
std::map<int, BenchLine> ParseBench(const std::string& out) {
  std::istringstream in(out);
  std::string header;
  std::getline(in, header);
  REQUIRE(header.rfind("workers requests entries errors seconds requests_per_second", 0) == 0);
  std::map<int, BenchLine> lines;
  BenchLine l;
  double seconds = 0;
  while (in >> l.workers >> l.requests >> l.entries >> l.errors >> seconds >>
         l.requests_per_second) {
    std::string rest;
    std::getline(in, rest);
    lines[l.workers] = l;
  }
  return lines;
}

struct Kind {
  const char* name;
  const char* dir;
  std::vector<std::string> options;
};

TEST_CASE("search --bench counts every search, on every kind of database") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string ldif = WriteLdif(tmp);
  std::string uids, surnames;
  for (int i = 0; i < kUsers; ++i) uids.append("u").append(std::to_string(i)).append("\n");
  for (int i = 0; i < 10; ++i) surnames.append("Family").append(std::to_string(i)).append("\n");
  const std::string uid_file = tmp.Write("uids.txt", uids);
  const std::string sn_file = tmp.Write("sn.txt", surnames);
  // A value that is a filter's wildcard unless escaped: escaped, it matches
  // no uid; unescaped, (uid=*) would match every user.
  const std::string star_file = tmp.Write("star.txt", "*\n");

  for (const Kind& kind :
       {Kind{"native lmdb", "db-lmdb", {"--backend", "lmdb", "--format", "native"}},
        Kind{"native bdb", "db-bdb", {"--backend", "bdb", "--format", "native"}},
        Kind{"mdb", "db-mdb", {"--format", "mdb"}}}) {
    CAPTURE(kind.name);
    const std::string dir = tmp.File(kind.dir);
    std::vector<std::string> add = {"add", "--db",       dir,     "--suffix", kSuffix,    "-l",
                                    ldif,  "--progress", "never", "--index",  "uid,sn eq"};
    add.insert(add.end(), kind.options.begin(), kind.options.end());
    RunResult r = RunDirload(add, 60);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());

    // uid= finds one entry per search; two worker counts, a line each.
    r = RunDirload({"search", "--db", dir, "--bench", "1,3", "--bench-requests", "40", "--values",
                    uid_file, "(uid=%s)"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    std::map<int, BenchLine> lines = ParseBench(r.out);
    REQUIRE(lines.size() == 2);
    CHECK(lines[1].requests == 40);
    CHECK(lines[1].entries == 40);
    CHECK(lines[3].requests == 120);
    CHECK(lines[3].entries == 120);
    CHECK(lines[3].errors == 0);
    CHECK(lines[3].requests_per_second > 0);

    // sn= finds what the same search finds alone, with the index and without.
    RunResult alone = RunDirload({"search", "--db", dir, "--count", "(sn=Family3)"});
    REQUIRE_MESSAGE(alone.exit_code == 0, alone.Describe());
    CHECK(alone.out == "3\n");
    for (const char* no_index : {"", "--no-index"}) {
      std::vector<std::string> args = {
          "search",           "--db", dir,        "--bench", "2",
          "--bench-requests", "25",   "--values", sn_file,   "(sn=%s)"};
      if (*no_index) args.push_back(no_index);
      r = RunDirload(args);
      REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
      lines = ParseBench(r.out);
      CHECK(lines[2].requests == 50);
      CHECK(lines[2].entries == 150);
    }

    // The children scope: each user is below ou=people; the entry itself
    // is not a child of its own DN.
    const std::string people = "ou=people," + std::string(kSuffix);
    r = RunDirload({"search", "--db", dir, "-b", people, "-s", "children", "--bench", "2",
                    "--bench-requests", "10", "--values", uid_file, "(uid=%s)"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    lines = ParseBench(r.out);
    CHECK(lines[2].requests == 20);
    CHECK(lines[2].entries == 20);
    const std::string ou_file = tmp.Write("ou.txt", "people\n");
    r = RunDirload({"search", "--db", dir, "-b", people, "-s", "children", "--bench", "1",
                    "--bench-requests", "4", "--values", ou_file, "(ou=%s)"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    lines = ParseBench(r.out);
    CHECK(lines[1].requests == 4);
    CHECK(lines[1].entries == 0);

    r = RunDirload({"search", "--db", dir, "--bench", "1", "--bench-requests", "5", "--values",
                    star_file, "(uid=%s)"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    lines = ParseBench(r.out);
    CHECK(lines[1].requests == 5);
    CHECK(lines[1].entries == 0);

    // A search that fails is counted, named, and makes the exit status 1.
    r = RunDirload({"search", "--db", dir, "-b", "ou=nothere,dc=example,dc=com", "--bench", "2",
                    "--bench-requests", "3", "--values", uid_file, "(uid=%s)"});
    CHECK(r.exit_code == 1);
    lines = ParseBench(r.out);
    CHECK(lines[2].requests == 6);
    CHECK(lines[2].errors == 6);
    CHECK_MESSAGE(r.err.find("6 of 6 searches failed") != std::string::npos, r.err);
    CHECK(r.err.find("ou=nothere") != std::string::npos);
  }
}

TEST_CASE("search --bench: usage errors exit 2 with a message, a bad filter 1") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string dir = tmp.File("db");
  RunResult r = RunDirload(
      {"add", "--db", dir, "--suffix", kSuffix, "-l", WriteLdif(tmp), "--progress", "never"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  const std::string values = tmp.Write("v.txt", "u1\n");
  const std::string empty = tmp.Write("empty.txt", "\n\n");
  struct Case {
    std::vector<std::string> args;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--bench", "1", "(uid=%s)"}, "no --values file"},
           {{"--bench", "1", "--values", values, "(uid=u1)"}, "has no %s"},
           {{"--bench", "1", "--values", tmp.File("none.txt"), "(uid=%s)"}, "none.txt"},
           {{"--bench", "1", "--values", empty, "(uid=%s)"}, "no values"},
           {{"--bench", "0", "--values", values, "(uid=%s)"}, "1 to 1024"},
       }) {
    std::vector<std::string> args = {"search", "--db", dir, "--bench-requests", "1"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    r = RunDirload(args);
    CAPTURE(c.message);
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
    CHECK_MESSAGE(r.err.find(c.message) != std::string::npos, r.err);
    CHECK(r.out.empty());
  }
  // A filter that does not parse is bad input, as for a plain search: 1.
  r = RunDirload({"search", "--db", dir, "--bench", "1", "--values", values, "(uid=%s"});
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("filter: offset 7: missing ')'") != std::string::npos);
  CHECK(r.out.empty());
}

}  // namespace
}  // namespace dirload
