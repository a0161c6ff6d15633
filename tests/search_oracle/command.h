// Running any program (dirload, slapadd, slapcat, mdb_dump) from the search
// oracle tests: spawn it with stdin from /dev/null and its output captured to
// files, wait with a time limit so a hung child fails the test instead of
// hanging it. Test-only.
//
// Thread safety: every function is reentrant; each call uses its own files.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dirload::testing {

struct CommandResult {
  std::string command;     // the argument list, for messages
  int exit_code = -1;      // -1 when the child could not start, died of a signal or timed out
  int signal = 0;          // the signal that ended it, if any
  bool timed_out = false;  // killed after the time limit
  std::string out;         // standard output
  std::string err;         // standard error

  // The command, how it ended and the start of its stderr: for failure messages.
  std::string Describe() const;
};

// The full path of an executable called `name`, looked up in $PATH and then in
// the sbin directories (slapadd lives in /usr/sbin, often not on a user's
// PATH); empty when there is none.
std::string FindProgram(std::string_view name);

// Runs argv[0] (a path) with the remaining arguments to completion, killing it
// after `timeout_seconds`.
CommandResult RunCommand(const std::vector<std::string>& argv, double timeout_seconds = 300);

}  // namespace dirload::testing
