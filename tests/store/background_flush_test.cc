#include "lib/store/background_flush.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <string>

namespace dirload {
namespace {

TEST_CASE("a background flush of a file succeeds, and Drain says so") {
  char path[] = "/tmp/dirload-flush-XXXXXX";
  const int fd = mkstemp(path);
  REQUIRE(fd >= 0);
  {
    BackgroundFlush flush(fd, path);
    CHECK(flush.Drain().ok());  // nothing asked yet
    for (int i = 0; i < 3; ++i) {
      const std::string page(4096, static_cast<char>('a' + i));
      REQUIRE(::pwrite(fd, page.data(), page.size(), i * 4096) == 4096);
      flush.Kick();
    }
    CHECK(flush.Drain().ok());
  }
  ::close(fd);
  std::remove(path);
}

TEST_CASE("a background flush that fails is reported by Drain, naming the file") {
  // fdatasync refuses a pipe (EINVAL), as a failing disk would refuse a file.
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  {
    BackgroundFlush flush(fds[1], "the-pipe");
    flush.Kick();
    Status st = flush.Drain();
    REQUIRE_FALSE(st.ok());
    CHECK(st.code() == StatusCode::kIoError);
    CHECK(st.origin() == ErrorOrigin::kStorage);
    CHECK(st.message().find("the-pipe") != std::string::npos);
    // The failure stays: a later flush that succeeded would not undo it.
    flush.Kick();
    CHECK_FALSE(flush.Drain().ok());
  }
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_CASE("a flusher that was never kicked starts no thread and ends at once") {
  BackgroundFlush flush(-1, "none");
  CHECK(flush.Drain().ok());
}

}  // namespace
}  // namespace dirload
