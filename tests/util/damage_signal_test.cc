// The damage handlers (lib/util/damage_signal.h), in forked children: a
// SIGBUS with a database registered is reported as damage (exit 4, one
// line); a SIGSEGV of dirload's own code is not blamed on the database and
// still kills the process; with nothing registered both crash as before.
#include "lib/util/damage_signal.h"

#include <doctest/doctest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace dirload {
namespace {

struct Ended {
  bool signaled = false;
  int signal = 0;
  int exit_code = -1;
  std::string err;
};

// Runs `body` in a child with the handlers installed; its stderr is kept.
template <typename Body>
Ended InChild(Body body) {
  int fds[2];
  REQUIRE(::pipe(fds) == 0);
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    InstallDamageSignalHandlers();
    body();
    ::_exit(0);
  }
  ::close(fds[1]);
  Ended e;
  char buf[512];
  ssize_t n;
  while ((n = ::read(fds[0], buf, sizeof buf)) > 0) e.err.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  REQUIRE(::waitpid(pid, &status, 0) == pid);
  e.signaled = WIFSIGNALED(status);
  if (e.signaled) e.signal = WTERMSIG(status);
  if (WIFEXITED(status)) e.exit_code = WEXITSTATUS(status);
  return e;
}

TEST_CASE("a SIGBUS on a registered database is reported as damage, exit 4") {
  Ended e = InChild([] {
    RegisterMappedDatabaseFile("/nonexistent/db/data.mdb");
    ::raise(SIGBUS);
  });
  CHECK_FALSE(e.signaled);
  CHECK(e.exit_code == 4);
  CHECK(e.err ==
        "dirload: database file damaged: /nonexistent/db/data.mdb; restore a copy or load "
        "again\n");
}

TEST_CASE("a SIGSEGV outside the engine's code is a bug, not damage: it still crashes") {
  Ended e = InChild([] {
    RegisterMappedDatabaseFile("/nonexistent/db/data.mdb");
    ::raise(SIGSEGV);  // from libc, on behalf of dirload's own code
  });
  CHECK(e.signaled);
  CHECK(e.signal == SIGSEGV);
  CHECK(e.err.find("damaged") == std::string::npos);
}

TEST_CASE("with no database registered every fault crashes as it would without the handlers") {
  Ended bus = InChild([] {
    RegisterMappedDatabaseFile("/nonexistent/db/data.mdb");
    ClearMappedDatabaseFile("/nonexistent/db/data.mdb");
    ::raise(SIGBUS);
  });
  CHECK(bus.signaled);
  CHECK(bus.signal == SIGBUS);
  CHECK(bus.err.empty());
}

}  // namespace
}  // namespace dirload
