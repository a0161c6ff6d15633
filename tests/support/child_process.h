// Running a program from a test: spawn it with stdin from /dev/null and its
// output captured to files, wait with a time limit (a hung child fails the
// test instead of hanging it), or kill it mid-run. Test-only.
//
// Thread safety: one thread at a time per ChildProcess; RunProcess and
// FindProgram are reentrant.
#pragma once

#include <sys/types.h>

#include <string>
#include <string_view>
#include <vector>

namespace dirload::testing {

struct ProcessResult {
  std::string command;     // the argument list, quoted for a shell, for messages
  int exit_code = -1;      // -1 when it could not start, died of a signal or timed out
  int signal = 0;          // the signal that ended it, if any
  bool timed_out = false;  // killed by Wait() after the time limit
  std::string out;         // standard output
  std::string err;         // standard error

  // The command, how it ended and the start of its stderr: for failure messages.
  std::string Describe() const;
};

// `argv` joined with spaces, each argument a shell would split quoted, so a
// failure message can be pasted and rerun.
std::string QuoteCommand(const std::vector<std::string>& argv);

// The full path of an executable called `name`, looked up in $PATH and then in
// the sbin directories (slapadd lives in /usr/sbin, often not on a user's
// PATH); empty when there is none.
std::string FindProgram(std::string_view name);

class ChildProcess {
 public:
  ChildProcess() = default;
  // Kills (SIGKILL) and reaps a child that is still running.
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  // Starts argv[0] (a path) with the rest as its arguments; stdout and stderr
  // go to the given files. Returns false and sets `*error` when it cannot.
  bool Start(const std::vector<std::string>& argv, const std::string& out_path,
             const std::string& err_path, std::string* error);

  // True while the child runs; reaps it once it has exited.
  bool Running();
  // Sends `sig` to a running child.
  void Kill(int sig);
  // Waits up to `timeout_seconds` for the child to end (killing it after
  // that) and fills exit_code, signal and timed_out of `*result`.
  void Wait(double timeout_seconds, ProcessResult* result);

  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
  bool reaped_ = false;
  int status_ = 0;
};

// Runs argv[0] (a path) with the remaining arguments to completion, killing it
// after `timeout_seconds`, and returns how it ended and what it printed.
ProcessResult RunProcess(const std::vector<std::string>& argv, double timeout_seconds = 300);

}  // namespace dirload::testing
