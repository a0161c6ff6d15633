#include "lib/util/file.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <utility>

#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

bool IsOpen(int fd) { return ::fcntl(fd, F_GETFD) != -1; }

int OpenDevNull() {
  const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  REQUIRE(fd >= 0);
  return fd;
}

TEST_CASE("UniqueFd closes what it owns when it goes out of scope") {
  const int raw = OpenDevNull();
  {
    UniqueFd fd(raw);
    CHECK(fd.valid());
    CHECK(fd.get() == raw);
    CHECK(IsOpen(raw));
  }
  CHECK_FALSE(IsOpen(raw));
}

TEST_CASE("UniqueFd move construction hands ownership over") {
  const int raw = OpenDevNull();
  UniqueFd from(raw);
  UniqueFd to(std::move(from));
  CHECK_FALSE(from.valid());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
  CHECK(to.get() == raw);
  CHECK(IsOpen(raw));
  to.reset();
  CHECK_FALSE(IsOpen(raw));
}

TEST_CASE("UniqueFd move assignment closes the descriptor it held before") {
  const int first = OpenDevNull();
  const int second = OpenDevNull();
  UniqueFd a(first);
  UniqueFd b(second);
  a = std::move(b);
  CHECK_FALSE(IsOpen(first));
  CHECK(IsOpen(second));
  CHECK(a.get() == second);
  CHECK_FALSE(b.valid());  // NOLINT(bugprone-use-after-move)
  a = UniqueFd();
  CHECK_FALSE(IsOpen(second));
  CHECK_FALSE(a.valid());
}

TEST_CASE("UniqueFd release gives the descriptor up without closing it") {
  const int raw = OpenDevNull();
  {
    UniqueFd fd(raw);
    CHECK(fd.release() == raw);
    CHECK_FALSE(fd.valid());
  }
  CHECK(IsOpen(raw));
  ::close(raw);
}

TEST_CASE("UniqueFd Close reports close(2) and leaves nothing to close") {
  UniqueFd empty;
  CHECK(empty.Close() == 0);
  const int raw = OpenDevNull();
  UniqueFd fd(raw);
  CHECK(fd.Close() == 0);
  CHECK_FALSE(fd.valid());
  CHECK_FALSE(IsOpen(raw));
  CHECK(fd.Close() == 0);
}

TEST_CASE("syncing files and directories") {
  testing::TempDir dir;
  const std::string file = dir.Write("data", "bytes");
  CHECK(SyncPath(file).ok());
  CHECK(SyncPath(dir.path().string()).ok());
  CHECK(SyncDirectory(dir.path().string()).ok());

  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  REQUIRE(fd.valid());
  CHECK(SyncFd(fd.get(), file).ok());
}

TEST_CASE("sync failures name the operation, the path and the system's reason") {
  testing::TempDir dir;
  const std::string missing = dir.File("missing");
  Status st = SyncPath(missing);
  CHECK(st.code() == StatusCode::kIoError);
  CHECK(st.origin() == ErrorOrigin::kUnspecified);
  CHECK(st.message() == "open " + missing + ": " + std::strerror(ENOENT));

  const std::string file = dir.Write("plain", "x");
  st = SyncDirectory(file);
  CHECK(st.code() == StatusCode::kIoError);
  CHECK(st.message() == "open " + file + ": " + std::strerror(ENOTDIR));

  st = SyncFd(-1, "nothing");
  CHECK(st.message() == std::string("fsync nothing: ") + std::strerror(EBADF));
}

}  // namespace
}  // namespace dirload
