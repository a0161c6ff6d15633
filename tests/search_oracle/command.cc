#include "tests/search_oracle/command.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>

#include "tests/support/temp_dir.h"

extern char** environ;

namespace dirload::testing {

std::string CommandResult::Describe() const {
  std::string s = "$ " + command + "\n";
  if (timed_out) {
    s += "-> timed out and was killed\n";
  } else if (signal != 0) {
    s += "-> killed by signal " + std::to_string(signal) + "\n";
  } else {
    s += "-> exit " + std::to_string(exit_code) + "\n";
  }
  constexpr size_t kMaxErr = 3000;
  s += "stderr: " + (err.size() > kMaxErr ? err.substr(0, kMaxErr) + "..." : err);
  return s;
}

std::string FindProgram(std::string_view name) {
  std::string dirs = Env("PATH");
  dirs += ":/usr/local/sbin:/usr/sbin:/sbin";
  size_t start = 0;
  while (start <= dirs.size()) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    if (!dir.empty()) {
      std::string path = dir + "/" + std::string(name);
      if (::access(path.c_str(), X_OK) == 0) return path;
    }
    start = end + 1;
  }
  return "";
}

CommandResult RunCommand(const std::vector<std::string>& argv, double timeout_seconds) {
  CommandResult result;
  for (const std::string& a : argv) {
    if (!result.command.empty()) result.command += " ";
    // Quote what a shell would split, so a message can be pasted and rerun.
    bool plain = !a.empty() && a.find_first_of(" ()*&|!\"'$\\<>;?=~") == std::string::npos;
    result.command += plain ? a : "'" + a + "'";
  }
  if (argv.empty()) {
    result.err = "no program to run";
    return result;
  }

  TempDir io;
  std::string out_path = io.File("stdout"), err_path = io.File("stderr");
  std::vector<std::string> storage = argv;
  std::vector<char*> args;
  for (std::string& a : storage) args.push_back(a.data());
  args.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, storage[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.err = "posix_spawn " + argv[0] + ": " + std::strerror(rc);
    return result;
  }

  // Poll rather than block so the time limit needs no signal handling; the
  // interval grows so short commands are not slowed and long ones cost little.
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  long sleep_ns = 100'000;
  int status = 0;
  while (true) {
    pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) break;
    if (Clock::now() >= deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    timespec ts{0, sleep_ns};
    ::nanosleep(&ts, nullptr);
    if (sleep_ns < 10'000'000) sleep_ns *= 2;
  }
  if (!result.timed_out && WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  result.out = ReadFile(out_path);
  result.err = ReadFile(err_path);
  return result;
}

}  // namespace dirload::testing
