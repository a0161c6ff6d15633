// One writer per database (lib/db/database_lock.h), with the real
// binary: a second writer is refused at once (exit 3) with the holder's
// process ID and command line, on both formats; readers of LMDB go on; a
// writer killed with -9 blocks nobody.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "bench/ldif_generator.h"
#include "tests/integration/dirload_process.h"
#include "tests/integration/held_load.h"
#include "tests/support/child_process.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::ChildProcess;
using testing::DirloadPath;
using testing::HeldLoad;
using testing::ProcessResult;
using testing::ReadFile;
using testing::RunDirload;
using testing::SleepMs;
using testing::TempDir;

constexpr char kSuffix[] = "dc=example,dc=com";

std::string Generate(const TempDir& tmp, const std::string& name, uint64_t entries) {
  bench::GeneratorOptions go;
  go.entries = entries;
  go.suffix = kSuffix;
  const std::string path = tmp.File(name);
  REQUIRE(bench::GenerateLdifFile(go, path).ok());
  return path;
}

std::vector<std::string> NativeAdd(const std::string& dir, const std::string& ldif) {
  return {"add", "--format", "native",     "--db",  dir,       "--suffix",    kSuffix,
          "-l",  ldif,       "--progress", "never", "--index", "cn,sn eq,sub"};
}

// The test itself holds the lock, as another writer would.
struct HeldLock {
  explicit HeldLock(const std::string& dir, const std::string& holder) {
    fd = ::open((dir + "/dirload.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX | LOCK_NB) == 0);
    REQUIRE(::ftruncate(fd, 0) == 0);
    REQUIRE(::pwrite(fd, holder.data(), holder.size(), 0) == static_cast<ssize_t>(holder.size()));
  }
  ~HeldLock() { ::close(fd); }
  int fd = -1;
};

TEST_CASE("a second writer is refused at once and told who holds the database") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string ldif = Generate(tmp, "in.ldif", 300);
  const std::string dir = tmp.File("db");
  auto first = RunDirload(NativeAdd(dir, ldif));
  REQUIRE_MESSAGE(first.exit_code == 0, first.Describe());
  {
    HeldLock held(dir, "4242 dirload add --db " + dir + "\n");
    const auto t0 = std::chrono::steady_clock::now();
    auto add = RunDirload(NativeAdd(dir, ldif));
    CHECK(add.exit_code == 3);
    CHECK_MESSAGE(
        add.err.find("in use by process 4242 (dirload add --db " + dir + ")") != std::string::npos,
        add.err);
    auto index = RunDirload({"index", "--db", dir, "--progress", "never"});
    CHECK(index.exit_code == 3);
    CHECK(index.err.find("in use by process 4242") != std::string::npos);
    // Refused at once, not after waiting.
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20));
    // Readers are not writers.
    auto cat = RunDirload({"cat", "--db", dir});
    CHECK_MESSAGE(cat.exit_code == 0, cat.Describe());
    auto check = RunDirload({"index", "--db", dir, "--check"});
    CHECK_MESSAGE(check.exit_code == 0, check.Describe());
  }
  // Released: the next writer goes ahead (the file stays, unlocked).
  auto index = RunDirload({"index", "--db", dir, "--progress", "never"});
  CHECK_MESSAGE(index.exit_code == 0, index.Describe());
}

TEST_CASE("two real loads: the second is refused and the first completes") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string ldif = Generate(tmp, "in.ldif", 2000);
  const std::string small = Generate(tmp, "small.ldif", 100);
  for (const char* format : {"native", "mdb"}) {
    CAPTURE(format);
    const std::string dir = tmp.File(std::string("db-") + format);
    HeldLoad first(tmp, format, {"add", "--format", format, "--db", dir, "--suffix", kSuffix},
                   ldif);
    REQUIRE_MESSAGE(first.WaitForLock(dir), "the first load never held the lock");
    auto second = RunDirload({"add", "--format", format, "--db", dir, "--suffix", kSuffix, "-l",
                              small, "--progress", "never"});
    CHECK(second.exit_code == 3);
    CHECK_MESSAGE(
        second.err.find("in use by process " + std::to_string(first.pid())) != std::string::npos,
        second.err);
    ProcessResult done = first.Finish();
    CHECK_MESSAGE(done.exit_code == 0, done.err);
    auto count = RunDirload({"cat", "--db", dir});
    REQUIRE_MESSAGE(count.exit_code == 0, count.Describe());
    size_t entries = 0;
    for (size_t p = count.out.find("dn: "); p != std::string::npos;
         p = count.out.find("\ndn: ", p + 1)) {
      ++entries;
    }
    CHECK(entries == 2000);
  }
}

TEST_CASE("a writer killed with -9 blocks nobody") {
  REQUIRE_MESSAGE(testing::DirloadMissing().empty(), testing::DirloadMissing());
  TempDir tmp;
  const std::string ldif = Generate(tmp, "in.ldif", 2000);
  const std::string dir = tmp.File("db");
  {
    HeldLoad killed(tmp, "killed", {"add", "--format", "mdb", "--db", dir, "--suffix", kSuffix},
                    ldif);
    REQUIRE(killed.WaitForLock(dir));
    killed.Kill();
  }
  auto again = RunDirload({"add", "--format", "mdb", "--db", dir, "--suffix", kSuffix, "-l", ldif,
                           "--progress", "never"});
  CHECK_MESSAGE(again.exit_code == 0, again.Describe());
}

}  // namespace
}  // namespace dirload
