// Running the real dirload binary from the integration tests: spawn it with
// its output captured to files, wait with a time limit (a hung child fails
// the test instead of hanging it), or kill it mid-run. Test-only.
//
// Thread safety: one thread at a time per Child; RunDirload is reentrant.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace dirload::testing {

// $DIRLOAD_BINARY_DIR/tools/dirload.
std::string DirloadPath();

// Empty when the dirload binary is there to run; otherwise why not, so a test
// can stop at once instead of failing every command.
std::string DirloadMissing();

struct RunResult {
  std::string command;     // the argument list, for messages
  int exit_code = -1;      // -1 when the child died of a signal or timed out
  int signal = 0;          // the signal that ended it, if any
  bool timed_out = false;  // killed by Wait() after the time limit
  std::string out;         // standard output
  std::string err;         // standard error

  // The command, how it ended and what it said on stderr: for failure messages.
  std::string Describe() const;
};

// One dirload child process. Its standard input is /dev/null.
class Child {
 public:
  Child() = default;
  // Kills (SIGKILL) and reaps a child that is still running.
  ~Child();
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Starts dirload with `args` (without the program name); stdout and stderr
  // go to the given files. Returns false and sets `*error` when it cannot.
  bool Start(const std::vector<std::string>& args, const std::string& out_path,
             const std::string& err_path, std::string* error);

  // True while the child runs; reaps it once it has exited.
  bool Running();
  // Sends `sig` to a running child.
  void Kill(int sig);
  // Waits up to `timeout_seconds` for the child to end (killing it after
  // that) and fills exit_code, signal and timed_out of `*result`.
  void Wait(double timeout_seconds, RunResult* result);

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

// Runs dirload to completion and returns its exit status and output.
RunResult RunDirload(const std::vector<std::string>& args, double timeout_seconds = 300);

}  // namespace dirload::testing
