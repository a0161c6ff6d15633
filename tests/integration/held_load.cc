#include "tests/integration/held_load.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "tests/integration/dirload_process.h"

namespace dirload::testing {

void SleepMs(int ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, nullptr);
}

HeldLoad::HeldLoad(const TempDir& tmp, const std::string& name,
                   const std::vector<std::string>& args, const std::string& ldif)
    : text_(ReadFile(ldif)) {
  fifo_ = tmp.File(name + ".fifo");
  REQUIRE(::mkfifo(fifo_.c_str(), 0600) == 0);
  std::vector<std::string> argv = {DirloadPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"-l", fifo_, "--progress", "never"});
  err_ = tmp.File(name + ".err");
  std::string error;
  REQUIRE_MESSAGE(child_.Start(argv, tmp.File(name + ".out"), err_, &error), error);
  // Blocks until the load opens its input.
  fd_ = ::open(fifo_.c_str(), O_WRONLY | O_CLOEXEC);
  REQUIRE(fd_ >= 0);
  half_ = text_.find("\n\ndn: ", text_.size() / 2) + 2;
  Write(std::string_view(text_).substr(0, half_));
}

HeldLoad::~HeldLoad() {
  if (fd_ >= 0) ::close(fd_);
}

bool HeldLoad::WaitForLock(const std::string& dir) {
  const std::string want = std::to_string(child_.pid()) + " ";
  for (int i = 0; i < 1000 && child_.Running(); ++i) {
    if (ReadFile(dir + "/dirload.lock").rfind(want, 0) == 0) return true;
    SleepMs(10);
  }
  return false;
}

ProcessResult HeldLoad::Finish() {
  Write(std::string_view(text_).substr(half_));
  ::close(fd_);
  fd_ = -1;
  ProcessResult r;
  child_.Wait(300, &r);
  r.err = ReadFile(err_);
  return r;
}

void HeldLoad::Kill() {
  child_.Kill(SIGKILL);
  ProcessResult r;
  child_.Wait(30, &r);
}

void HeldLoad::Write(std::string_view part) {
  while (!part.empty()) {
    ssize_t n = ::write(fd_, part.data(), part.size());
    REQUIRE(n > 0);
    part.remove_prefix(static_cast<size_t>(n));
  }
}

}  // namespace dirload::testing
