// A `dirload add` that runs for as long as a test wants: its input is a FIFO
// the test writes, half at the start and the rest on Finish(), so that the
// test can act while the load holds its lock and has written part of its
// input (or kill it there). Test-only.
//
// Thread safety: one thread.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/temp_dir.h"

namespace dirload::testing {

void SleepMs(int ms);

class HeldLoad {
 public:
  // Starts dirload with `args` plus "-l FIFO --progress never" and writes the
  // first half of `ldif` (whole records) into the FIFO.
  HeldLoad(const TempDir& tmp, const std::string& name, const std::vector<std::string>& args,
           const std::string& ldif);
  ~HeldLoad();
  HeldLoad(const HeldLoad&) = delete;
  HeldLoad& operator=(const HeldLoad&) = delete;

  pid_t pid() const { return child_.pid(); }
  // Until the load has taken the lock of `dir` and written its process ID.
  bool WaitForLock(const std::string& dir);
  // Writes the rest of the input and returns how the load ended.
  ProcessResult Finish();
  // kill -9, and reaps it.
  void Kill();

 private:
  void Write(std::string_view part);
  std::string text_, fifo_, err_;
  size_t half_ = 0;
  int fd_ = -1;
  ChildProcess child_;
};

}  // namespace dirload::testing
