// End-to-end tests of `dirload stat` as a user runs it: the real binary on a
// database that `dirload add` made, on both engines; the text report, the
// JSON report (to stdout and to a file), and the exit status when there is no
// database.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/support/mini_json.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::JsonValue;
using testing::RunDirload;
using testing::RunResult;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";

// Six people: sn smith x3, jones x2, li x1; every cn different.
std::string PeopleLdif() {
  std::string ldif = std::string("dn: ") + kSuffix +
                     "\nobjectClass: dcObject\nobjectClass: organization\ndc: example\n"
                     "o: Example\n\n"
                     "dn: ou=people," +
                     kSuffix + "\nobjectClass: organizationalUnit\nou: people\n\n";
  const std::vector<std::string> sn = {"smith", "jones", "smith", "li", "jones", "smith"};
  for (size_t i = 0; i < sn.size(); ++i) {
    std::string uid = "p" + std::to_string(i);
    ldif += "dn: uid=" + uid + ",ou=people," + kSuffix +
            "\nobjectClass: inetOrgPerson\nuid: " + uid + "\ncn: Person " + std::to_string(i) +
            "\nsn: " + sn[i] + "\n\n";
  }
  return ldif;
}

const JsonValue* Index(const JsonValue& report, const std::string& table) {
  const JsonValue* indexes = report.Find("indexes");
  if (indexes == nullptr) return nullptr;
  for (const JsonValue& ix : indexes->array()) {
    const JsonValue* name = ix.Find("table");
    if (name != nullptr && name->string() == table) return &ix;
  }
  return nullptr;
}

std::vector<double> Histogram(const JsonValue& index) {
  std::vector<double> out;
  for (const JsonValue& b : index.Find("histogram")->array()) {
    out.push_back(b.Find("lists")->number());
  }
  return out;
}

TEST_CASE("dirload stat reports tables, indexes and the engine of a loaded database") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.Write("people.ldif", PeopleLdif());
  for (const std::string backend : {"lmdb", "bdb"}) {
    CAPTURE(backend);
    std::string db = t.File("db-" + backend);
    RunResult add =
        RunDirload({"add", "--db", db, "--suffix", kSuffix, "--backend", backend, "-l", input,
                    "--progress", "never", "--index", "sn pres,eq", "--index", "cn eq"});
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());

    // The text report.
    RunResult text = RunDirload({"stat", "--db", db});
    REQUIRE_MESSAGE(text.exit_code == 0, text.Describe());
    CHECK_MESSAGE(text.out.find("idx.sn") != std::string::npos, text.out);
    CHECK_MESSAGE(text.out.find("idx.cn") != std::string::npos, text.out);
    CHECK_MESSAGE(text.out.find("id2entry") != std::string::npos, text.out);
    CHECK_MESSAGE(text.out.find("ID list lengths") != std::string::npos, text.out);
    CHECK_MESSAGE(text.out.find("backend     " + backend) != std::string::npos, text.out);
    CHECK_MESSAGE(text.out.find("entries     8") != std::string::npos, text.out);
    CHECK_MESSAGE(text.out.find("sn pres,eq") != std::string::npos, text.out);
    if (backend == "lmdb") {
      CHECK_MESSAGE(text.out.find("map size") != std::string::npos, text.out);
      CHECK_MESSAGE(text.out.find("none of its own") != std::string::npos, text.out);
    } else {
      CHECK_MESSAGE(text.out.find("cache size") != std::string::npos, text.out);
      CHECK_MESSAGE(text.out.find("memp_stat") != std::string::npos, text.out);
    }

    // --json -: only JSON on stdout, with the counts of the data loaded.
    RunResult json = RunDirload({"stat", "--db", db, "--json", "-"});
    REQUIRE_MESSAGE(json.exit_code == 0, json.Describe());
    JsonValue report;
    std::string error;
    REQUIRE_MESSAGE(testing::ParseJson(json.out, &report, &error), error << "\n" << json.out);
    CHECK(report.Find("backend")->string() == backend);
    CHECK(report.Find("state")->string() == "ready");
    CHECK(report.Find("entries")->number() == 8);
    CHECK(report.Find("next_id")->number() == 9);
    CHECK(report.Find("suffix")->string() == kSuffix);
    const JsonValue* sn = Index(report, "idx.sn");
    REQUIRE(sn != nullptr);
    CHECK(sn->Find("keys")->number() == 4);  // pres + smith, jones, li
    CHECK(sn->Find("ids")->number() == 12);  // 6 presence + 6 equality
    CHECK(sn->Find("longest")->number() == 6);
    CHECK(sn->Get({"kinds", "pres", "keys"})->number() == 1);
    CHECK(sn->Get({"kinds", "eq", "keys"})->number() == 3);
    CHECK(sn->Get({"kinds", "eq", "ids"})->number() == 6);
    CHECK(Histogram(*sn) == std::vector<double>{1, 2, 1});  // li; jones, smith; presence
    CHECK(sn->Find("config")->string() == "sn pres,eq");
    CHECK(sn->Find("record")->string() == "built");
    const JsonValue* cn = Index(report, "idx.cn");
    REQUIRE(cn != nullptr);
    CHECK(cn->Find("keys")->number() == 6);
    CHECK(cn->Find("ids")->number() == 6);
    CHECK(cn->Find("longest")->number() == 1);
    CHECK(Histogram(*cn) == std::vector<double>{6});
    bool id2entry = false;
    for (const JsonValue& table : report.Find("tables")->array()) {
      if (table.Find("name")->string() == "id2entry") {
        id2entry = true;
        CHECK(table.Find("entries")->number() == 8);
      }
    }
    CHECK(id2entry);
    CHECK(report.Get({"engine", "backend"})->string() == backend);

    // --json FILE: the text on stdout, the same JSON in the file.
    std::string file = t.File("stat-" + backend + ".json");
    RunResult both = RunDirload({"stat", "--db", db, "--json", file});
    REQUIRE_MESSAGE(both.exit_code == 0, both.Describe());
    CHECK(both.out.find("idx.sn") != std::string::npos);
    JsonValue from_file;
    REQUIRE_MESSAGE(testing::ParseJson(testing::ReadFile(file), &from_file, &error), error);
    CHECK(Index(from_file, "idx.sn")->Find("ids")->number() == 12);
  }
}

// The member names of a JSON object, in order.
std::vector<std::string> Keys(const JsonValue& object) {
  std::vector<std::string> out;
  for (const auto& [key, value] : object.members()) out.push_back(key);
  return out;
}

TEST_CASE("dirload stat reports both formats in one shape") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  std::string input = t.Write("people.ldif", PeopleLdif());
  struct Loaded {
    std::string name;
    JsonValue report;
  };
  std::vector<Loaded> loaded;
  const std::vector<std::pair<std::string, std::vector<std::string>>> formats = {
      {"native-lmdb", {"--backend", "lmdb"}},
      {"native-bdb", {"--backend", "bdb"}},
      {"mdb", {"--format", "mdb"}}};
  for (const auto& [name, options] : formats) {
    CAPTURE(name);
    std::string db = t.File("db-" + name);
    std::vector<std::string> add = {"add",        "--db",    db,           "--suffix", kSuffix,
                                    "-l",         input,     "--progress", "never",    "--index",
                                    "sn pres,eq", "--index", "cn eq"};
    add.insert(add.end(), options.begin(), options.end());
    RunResult added = RunDirload(add);
    REQUIRE_MESSAGE(added.exit_code == 0, added.Describe());
    RunResult json = RunDirload({"stat", "--db", db, "--json", "-"});
    REQUIRE_MESSAGE(json.exit_code == 0, json.Describe());
    Loaded l{name, {}};
    std::string error;
    REQUIRE_MESSAGE(testing::ParseJson(json.out, &l.report, &error), error << "\n" << json.out);
    loaded.push_back(std::move(l));

    // The text is laid out the same way for every format.
    RunResult text = RunDirload({"stat", "--db", db});
    REQUIRE_MESSAGE(text.exit_code == 0, text.Describe());
    CHECK_MESSAGE(text.out.find("entries     8\n") != std::string::npos, text.out);
    CHECK_MESSAGE(text.out.find("\ntables (") != std::string::npos, text.out);
    CHECK_MESSAGE(text.out.find("\nindexes\n") != std::string::npos, text.out);
    CHECK_MESSAGE(text.out.find("ID list lengths") != std::string::npos, text.out);
    // LMDB's data.mdb is sparse (its apparent size is the map it grew to):
    // the bytes allocated are shown beside it. Berkeley DB's files are not.
    if (name != "native-bdb") {
      CHECK_MESSAGE(text.out.find("\nallocated   ") != std::string::npos, text.out);
      const JsonValue* allocated = loaded.back().report.Find("allocated_bytes");
      REQUIRE(allocated != nullptr);
      CHECK(allocated->number() > 0);
      CHECK(allocated->number() <= loaded.back().report.Find("file_bytes")->number() + 4096);
    }
  }
  const JsonValue& native = loaded[0].report;
  CHECK(native.Find("format")->string() == "native");
  CHECK(loaded[2].report.Find("format")->string() == "mdb");
  for (const Loaded& l : loaded) {
    CAPTURE(l.name);
    CHECK(Keys(l.report) == Keys(native));
    CHECK(l.report.Find("entries")->number() == 8);
    // Tables and indexes carry the same keys too, whatever the format.
    const JsonValue& table = l.report.Find("tables")->array().at(0);
    CHECK(Keys(table) == Keys(native.Find("tables")->array().at(0)));
    REQUIRE(l.report.Find("indexes")->array().size() == 2);  // cn, sn
    for (size_t i = 0; i < 2; ++i) {
      const JsonValue& ix = l.report.Find("indexes")->array()[i];
      CHECK(Keys(ix) == Keys(native.Find("indexes")->array()[i]));
      CHECK(ix.Find("attribute")->string() == (i == 0 ? "cn" : "sn"));
      // Six people, each with one cn and one sn: six IDs in the equality
      // lists of cn; sn's presence list holds all six too.
      if (i == 0) CHECK(ix.Find("ids")->number() == 6);
      if (i == 1) CHECK(ix.Find("longest")->number() == 6);
    }
  }
  // What slapd's database does not record is null, not made up.
  const JsonValue& mdb = loaded[2].report;
  CHECK(mdb.Find("state")->is_null());
  CHECK(mdb.Find("next_id")->is_null());
  CHECK(mdb.Find("engine")->is_null());
  CHECK(mdb.Find("max_id")->number() == 8);
  CHECK(native.Find("max_id")->is_null());
}

TEST_CASE("dirload stat refuses what is not a database") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir t;
  SUBCASE("a missing directory") {
    RunResult r = RunDirload({"stat", "--db", t.File("missing")});
    CHECK_MESSAGE(r.exit_code == 3, r.Describe());
    CHECK_MESSAGE(r.err.find("no dirload database") != std::string::npos, r.Describe());
    CHECK(r.out.empty());
  }
  SUBCASE("an empty directory") {
    RunResult r = RunDirload({"stat", "--db", t.path().string()});
    CHECK_MESSAGE(r.exit_code == 3, r.Describe());
  }
  SUBCASE("no --db is a usage error") {
    RunResult r = RunDirload({"stat"});
    CHECK_MESSAGE(r.exit_code == 2, r.Describe());
  }
  SUBCASE("a JSON file that cannot be written is an I/O error") {
    std::string db = t.File("db");
    std::string input = t.Write("people.ldif", PeopleLdif());
    RunResult add =
        RunDirload({"add", "--db", db, "--suffix", kSuffix, "-l", input, "--progress", "never"});
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    RunResult r = RunDirload({"stat", "--db", db, "--json", t.File("no-such-dir/stat.json")});
    CHECK_MESSAGE(r.exit_code == 4, r.Describe());
    CHECK_MESSAGE(r.err.find("no-such-dir") != std::string::npos, r.Describe());
  }
}

}  // namespace
}  // namespace dirload
