// Damaged database files and a full or limited file system, with the real
// binary: every command ends with a one-line message naming the database and
// exit status 4 (or 3 where it refuses the database before reading it),
// never by a signal. Native LMDB, native Berkeley DB and slapd's back-mdb
// format; a data.mdb cut short, a page of garbage in the middle of a file, a
// tmpfs that fills up (ENOSPC) and a file size limit (EFBIG). Berkeley DB
// tables made before page checksums (without DB_CHKSUM) still open.
#include <db.h>
#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::RunDirload;
using testing::RunProcess;
using testing::RunResult;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";

// `n` people under ou=people; each entry carries ~200 bytes of description so
// that the databases span a few hundred pages.
std::string WriteLdif(const TempDir& tmp, const std::string& name, int first, int n) {
  std::string text;
  if (first == 0) {
    text +=
        "dn: dc=example,dc=com\nobjectClass: dcObject\nobjectClass: organization\n"
        "dc: example\no: Example\n\n"
        "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\nou: people\n\n";
  }
  for (int i = first; i < first + n; ++i) {
    const std::string id = std::to_string(i);
    text += "dn: uid=u" + id + ",ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n";
    text += "uid: u" + id + "\ncn: User Number " + id + "\nsn: Number" + id + "\n";
    text += "description: " + std::string(200, 'x') + " " + id + "\n\n";
  }
  return tmp.Write(name, text);
}

struct Kind {
  const char* name;
  std::vector<std::string> options;  // for a new database
};

const Kind kNativeLmdb{"native lmdb", {"--backend", "lmdb", "--format", "native"}};
const Kind kNativeBdb{"native bdb", {"--backend", "bdb", "--format", "native"}};
const Kind kMdb{"mdb", {"--format", "mdb"}};

std::vector<std::string> AddArgs(const Kind& kind, const std::string& db, const std::string& ldif) {
  std::vector<std::string> args = {"add", "--db",       db,      "--suffix", kSuffix,       "-l",
                                   ldif,  "--progress", "never", "--index",  "cn,sn eq,sub"};
  args.insert(args.end(), kind.options.begin(), kind.options.end());
  return args;
}

void Load(const Kind& kind, const std::string& db, const std::string& ldif) {
  RunResult r = RunDirload(AddArgs(kind, db, ldif), 60);
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
}

uint64_t FileBytes(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return static_cast<uint64_t>(st.st_size);
}

// The bytes the file really holds: slapd's format writes through a map and
// its data.mdb is a sparse file the size of the map.
uint64_t AllocatedBytes(const std::string& path) {
  struct stat st;
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return std::min<uint64_t>(static_cast<uint64_t>(st.st_blocks) * 512,
                            static_cast<uint64_t>(st.st_size));
}

void Truncate(const std::string& path, uint64_t size) {
  REQUIRE(::truncate(path.c_str(), static_cast<off_t>(size)) == 0);
}

// Overwrites with garbage the 4 KB page that holds `marker` (an entry's
// value, so the page is one a full read of the entries reaches), or the
// middle page of the file's data when the marker is not there.
void WriteGarbage(const std::string& path, const std::string& marker) {
  // Only the data: slapd's format's file is a sparse one the size of its map.
  std::string bytes(std::min<uint64_t>(FileBytes(path), AllocatedBytes(path) * 2), '\0');
  {
    std::ifstream in(path, std::ios::binary);
    in.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  size_t at = bytes.find(marker);
  const uint64_t page = (at != std::string::npos ? at : AllocatedBytes(path) / 2) / 4096 * 4096;
  std::mt19937 rng(11);
  std::string garbage(4096, '\0');
  for (char& c : garbage) c = static_cast<char>(rng());
  int fd = ::open(path.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  CHECK(::pwrite(fd, garbage.data(), garbage.size(), static_cast<off_t>(page)) ==
        static_cast<ssize_t>(garbage.size()));
  ::close(fd);
}

// A command on a damaged database: never a signal; when it fails, status 4
// (or 3, refused) and one line, naming the database for status 4. Returns
// whether it failed.
bool FailsCleanly(const RunResult& r, const std::string& db) {
  INFO(r.Describe());
  CHECK(r.signal == 0);
  CHECK(!r.timed_out);
  if (r.exit_code == 0) return false;
  CHECK((r.exit_code == 4 || r.exit_code == 3));
  // Storage errors name the database. A refusal (3) from a layer above the
  // engine that found a record or an index inconsistent may not (yet).
  if (r.exit_code == 4) CHECK(r.err.find(db) != std::string::npos);
  // An append into slapd's format reads the stored entries first in phase
  // 2, where it rebuilds the indexes: phase 1's summary line comes before.
  std::string_view err = r.err;
  while (err.starts_with("phase ") && err.find('\n') != std::string_view::npos) {
    err.remove_prefix(err.find('\n') + 1);
  }
  CHECK(err.find("dirload: ") == 0);
  // One line per failure; the load may add one saying what it undid.
  const size_t lines = std::count(err.begin(), err.end(), '\n');
  CHECK(lines >= 1);
  CHECK(lines <= 2);
  return true;
}

// Runs cat, search, stat, index --all and an append on `db`; returns how
// many failed (each cleanly).
int RunAll(const Kind& kind, const std::string& db, const std::string& more) {
  std::vector<std::vector<std::string>> commands = {
      {"cat", "--db", db},     {"search", "--db", db, "-b", kSuffix, "(cn=User*)"},
      {"stat", "--db", db},    {"index", "--db", db, "--all", "--progress", "never"},
      AddArgs(kind, db, more),
  };
  int failed = 0;
  for (const auto& args : commands) {
    if (FailsCleanly(RunDirload(args, 60), db)) ++failed;
  }
  return failed;
}

std::string DataFile(const Kind& kind, const std::string& db) {
  (void)kind;
  return db + "/data.mdb";
}

TEST_CASE("a data.mdb cut short is refused by every command before it is mapped") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string ldif = WriteLdif(tmp, "base.ldif", 0, 1500);
  const std::string more = WriteLdif(tmp, "more.ldif", 1500, 10);
  for (const Kind* kind : {&kNativeLmdb, &kMdb}) {
    SUBCASE(kind->name) {
      const std::string db = tmp.File("db");
      Load(*kind, db, ldif);
      const std::string file = DataFile(*kind, db);
      Truncate(file, AllocatedBytes(file) / 2 / 4096 * 4096);
      const std::string size = std::to_string(FileBytes(file));
      std::vector<std::vector<std::string>> commands = {
          {"cat", "--db", db},      {"search", "--db", db, "-b", kSuffix, "(cn=User*)"},
          {"stat", "--db", db},     {"index", "--db", db, "--all", "--progress", "never"},
          AddArgs(*kind, db, more),
      };
      for (const auto& args : commands) {
        RunResult r = RunDirload(args, 60);
        INFO(r.Describe());
        CHECK(r.signal == 0);
        CHECK(r.exit_code == 4);
        CHECK(r.err.find("database file damaged: " + file + " (" + size +
                         " bytes, the database needs ") != std::string::npos);
        CHECK(r.err.find("restore a copy or load again") != std::string::npos);
      }
    }
  }
}

TEST_CASE("a data.mdb whose meta pages are garbage is refused") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string db = tmp.File("db");
  Load(kNativeLmdb, db, WriteLdif(tmp, "base.ldif", 0, 50));
  const std::string file = db + "/data.mdb";
  std::string garbage(8192, '\x5a');
  int fd = ::open(file.c_str(), O_WRONLY);
  REQUIRE(fd >= 0);
  REQUIRE(::pwrite(fd, garbage.data(), garbage.size(), 0) == 8192);
  ::close(fd);
  RunResult r = RunDirload({"cat", "--db", db}, 60);
  INFO(r.Describe());
  CHECK(r.exit_code == 4);
  CHECK(r.err.find("database file damaged: " + file) != std::string::npos);
  CHECK(r.err.find("no valid meta page") != std::string::npos);
}

// Berkeley DB frees nothing more once a checksum failure has made it panic
// (its handles can then only be closed with DB_RUNRECOVERY), so under
// AddressSanitizer the leak check would turn dirload's exit status 4 into
// its own. The leak is the engine's, at exit, after the error: the children
// of these cases run without the leak check.
class NoLeakCheck {
 public:
  NoLeakCheck() {
    const char* old = std::getenv("ASAN_OPTIONS");
    had_ = old != nullptr;
    if (had_) old_ = old;
    std::string now = had_ ? old_ + ":detect_leaks=0" : "detect_leaks=0";
    ::setenv("ASAN_OPTIONS", now.c_str(), 1);
  }
  ~NoLeakCheck() {
    if (had_) {
      ::setenv("ASAN_OPTIONS", old_.c_str(), 1);
    } else {
      ::unsetenv("ASAN_OPTIONS");
    }
  }
  NoLeakCheck(const NoLeakCheck&) = delete;
  NoLeakCheck& operator=(const NoLeakCheck&) = delete;

 private:
  bool had_ = false;
  std::string old_;
};

TEST_CASE("a page of garbage ends commands with a message, never a signal") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string ldif = WriteLdif(tmp, "base.ldif", 0, 1500);
  const std::string more = WriteLdif(tmp, "more.ldif", 1500, 10);
  const std::string db = tmp.File("db");
  SUBCASE("native lmdb") {
    Load(kNativeLmdb, db, ldif);
    WriteGarbage(db + "/data.mdb", "User Number 750");
    CHECK(RunAll(kNativeLmdb, db, more) >= 1);
  }
  SUBCASE("mdb") {
    Load(kMdb, db, ldif);
    WriteGarbage(db + "/data.mdb", "User Number 750");
    CHECK(RunAll(kMdb, db, more) >= 1);
  }
  SUBCASE("native bdb: an index, a table with page checksums") {
    Load(kNativeBdb, db, ldif);
    NoLeakCheck engine_panicked;
    WriteGarbage(db + "/idx.cn.bdb", "user number 750");
    RunResult r = RunDirload({"search", "--db", db, "-b", kSuffix, "(cn=User Number 750)"}, 60);
    INFO(r.Describe());
    CHECK(r.signal == 0);
    CHECK(r.exit_code == 4);
    CHECK(r.err.find("database file damaged: " + db + "/idx.cn.bdb") != std::string::npos);
    CHECK(RunAll(kNativeBdb, db, more) >= 1);
  }
  SUBCASE("native bdb: id2entry, kept without checksums so that it can be mapped") {
    Load(kNativeBdb, db, ldif);
    WriteGarbage(db + "/id2entry.bdb", "User Number 750");
    RunResult r = RunDirload({"cat", "--db", db}, 60);
    CHECK(FailsCleanly(r, db));
    CHECK(RunAll(kNativeBdb, db, more) >= 1);
  }
}

// Copies every record of a Berkeley DB btree into a new file made without
// page checksums, as dirload made its tables before it used them.
void CopyWithoutChecksums(const std::string& from, const std::string& to) {
  DB* src = nullptr;
  DB* dst = nullptr;
  REQUIRE(db_create(&src, nullptr, 0) == 0);
  REQUIRE(src->open(src, nullptr, from.c_str(), nullptr, DB_BTREE, DB_RDONLY, 0) == 0);
  u_int32_t flags = 0;
  REQUIRE(src->get_flags(src, &flags) == 0);
  // dirload's own tables have checksums now, but id2entry (see bdb_store.cc).
  CHECK(((flags & DB_CHKSUM) != 0) == (from.find("/id2entry.bdb") == std::string::npos));
  REQUIRE(db_create(&dst, nullptr, 0) == 0);
  REQUIRE(dst->open(dst, nullptr, to.c_str(), nullptr, DB_BTREE, DB_CREATE, 0644) == 0);
  DBC* c = nullptr;
  REQUIRE(src->cursor(src, nullptr, &c, 0) == 0);
  DBT k{}, v{};
  int rc;
  while ((rc = c->get(c, &k, &v, DB_NEXT)) == 0) REQUIRE(dst->put(dst, nullptr, &k, &v, 0) == 0);
  CHECK(rc == DB_NOTFOUND);
  c->close(c);
  REQUIRE(dst->get_flags(dst, &flags) == 0);
  CHECK((flags & DB_CHKSUM) == 0);
  src->close(src, 0);
  dst->close(dst, 0);
}

TEST_CASE("Berkeley DB tables made without page checksums still open and take appends") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string db = tmp.File("db");
  Load(kNativeBdb, db, WriteLdif(tmp, "base.ldif", 0, 200));
  RunResult before = RunDirload({"cat", "--db", db}, 60);
  REQUIRE_MESSAGE(before.exit_code == 0, before.Describe());
  const std::string old = tmp.File("old");
  std::filesystem::create_directory(old);
  for (const auto& e : std::filesystem::directory_iterator(db)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() == ".bdb") {
      CopyWithoutChecksums(e.path().string(), old + "/" + name);
    }
  }
  RunResult cat = RunDirload({"cat", "--db", old}, 60);
  REQUIRE_MESSAGE(cat.exit_code == 0, cat.Describe());
  CHECK(cat.out == before.out);
  RunResult add = RunDirload(AddArgs(kNativeBdb, old, WriteLdif(tmp, "more.ldif", 200, 5)), 60);
  CHECK_MESSAGE(add.exit_code == 0, add.Describe());
  RunResult search = RunDirload({"search", "--db", old, "-b", kSuffix, "(cn=User Number 203)"}, 60);
  CHECK_MESSAGE(search.exit_code == 0, search.Describe());
  CHECK(search.out.find("uid=u203,") != std::string::npos);
}

// A 1 MB tmpfs, mounted for the test case and unmounted after.
class SmallTmpfs {
 public:
  explicit SmallTmpfs(const std::string& dir) : dir_(dir) {
    std::filesystem::create_directory(dir_);
    mounted_ = ::mount("tmpfs", dir_.c_str(), "tmpfs", 0, "size=1M") == 0;
  }
  ~SmallTmpfs() {
    if (mounted_) ::umount(dir_.c_str());
  }
  bool mounted() const { return mounted_; }

 private:
  std::string dir_;
  bool mounted_ = false;
};

TEST_CASE("a full file system is named as such, with the database's path") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string ldif = WriteLdif(tmp, "base.ldif", 0, 3000);
  SmallTmpfs fs(tmp.File("small"));
  if (!fs.mounted()) {
    MESSAGE("cannot mount a tmpfs (not root, or no permission): skipping");
    return;
  }
  const std::string db = tmp.File("small") + "/db";
  for (const Kind* kind : {&kNativeLmdb, &kNativeBdb, &kMdb}) {
    SUBCASE(kind->name) {
      RunResult r = RunDirload(AddArgs(*kind, db, ldif), 60);
      INFO(r.Describe());
      CHECK(r.signal == 0);
      CHECK(r.exit_code == 4);
      CHECK(r.err.find("No space left on device") != std::string::npos);
      CHECK(r.err.find(db) != std::string::npos);
      std::filesystem::remove_all(db);
    }
  }
}

TEST_CASE("a file size limit is named as such, with the database's path") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  const std::string sh = testing::FindProgram("sh");
  if (sh.empty()) {
    MESSAGE("no sh to set the limit with: skipping");
    return;
  }
  TempDir tmp;
  const std::string ldif = WriteLdif(tmp, "base.ldif", 0, 3000);
  const std::string db = tmp.File("db");
  for (const Kind* kind : {&kNativeLmdb, &kNativeBdb}) {
    SUBCASE(kind->name) {
      // The limit is set in a shell that then runs dirload: SIGXFSZ ignored,
      // so a write past 1 MB fails with EFBIG instead of killing it.
      std::vector<std::string> argv = {sh, "-c", "trap '' XFSZ; ulimit -f 1024; exec \"$@\"", "sh",
                                       testing::DirloadPath()};
      for (const std::string& a : AddArgs(*kind, db, ldif)) argv.push_back(a);
      RunResult r = RunProcess(argv, 60);
      INFO(r.Describe());
      CHECK(r.signal == 0);
      CHECK(r.exit_code == 4);
      CHECK(r.err.find("File too large") != std::string::npos);
      CHECK(r.err.find(db) != std::string::npos);
      std::filesystem::remove_all(db);
    }
  }
}

}  // namespace
}  // namespace dirload
