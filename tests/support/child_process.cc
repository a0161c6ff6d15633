#include "tests/support/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "tests/support/temp_dir.h"

extern char** environ;

namespace dirload::testing {

std::string ProcessResult::Describe() const {
  std::string s = "$ " + command + "\n";
  if (timed_out) {
    s += "-> timed out and was killed\n";
  } else if (signal != 0) {
    s += "-> killed by signal " + std::to_string(signal) + "\n";
  } else {
    s += "-> exit " + std::to_string(exit_code) + "\n";
  }
  // Enough of stderr to see the reason without flooding the report.
  constexpr size_t kMaxErr = 3000;
  s += "stderr: " + (err.size() > kMaxErr ? err.substr(0, kMaxErr) + "..." : err);
  return s;
}

std::string QuoteCommand(const std::vector<std::string>& argv) {
  std::string command;
  for (const std::string& a : argv) {
    if (!command.empty()) command += " ";
    bool plain = !a.empty() && a.find_first_of(" ()*&|!\"'$\\<>;?=~") == std::string::npos;
    command += plain ? a : "'" + a + "'";
  }
  return command;
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

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
  }
}

bool ChildProcess::Start(const std::vector<std::string>& argv, const std::string& out_path,
                         const std::string& err_path, std::string* error) {
  if (argv.empty()) {
    *error = "no program to run";
    return false;
  }
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
  int rc = ::posix_spawn(&pid_, storage[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    pid_ = -1;
    *error = "posix_spawn " + argv[0] + ": " + std::strerror(rc);
    return false;
  }
  reaped_ = false;
  return true;
}

bool ChildProcess::Running() {
  if (pid_ <= 0 || reaped_) return false;
  pid_t r = ::waitpid(pid_, &status_, WNOHANG);
  if (r == pid_ || (r < 0 && errno != EINTR)) {
    reaped_ = true;
    return false;
  }
  return true;
}

void ChildProcess::Kill(int sig) {
  if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
}

void ChildProcess::Wait(double timeout_seconds, ProcessResult* result) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  // Poll rather than block so the time limit needs no signal handling; the
  // interval grows so short commands are not slowed and long ones cost little.
  long sleep_ns = 100'000;
  while (Running()) {
    if (Clock::now() >= deadline) {
      Kill(SIGKILL);
      ::waitpid(pid_, &status_, 0);
      reaped_ = true;
      result->timed_out = true;
      break;
    }
    timespec ts{0, sleep_ns};
    ::nanosleep(&ts, nullptr);
    if (sleep_ns < 5'000'000) sleep_ns *= 2;
  }
  if (!result->timed_out && WIFEXITED(status_)) {
    result->exit_code = WEXITSTATUS(status_);
  } else if (WIFSIGNALED(status_)) {
    result->exit_code = -1;
    result->signal = WTERMSIG(status_);
  }
}

ProcessResult RunProcess(const std::vector<std::string>& argv, double timeout_seconds) {
  ProcessResult result;
  result.command = QuoteCommand(argv);
  TempDir io;
  ChildProcess child;
  std::string error;
  if (!child.Start(argv, io.File("stdout"), io.File("stderr"), &error)) {
    result.err = error;
    return result;
  }
  child.Wait(timeout_seconds, &result);
  result.out = ReadFile(io.File("stdout"));
  result.err = ReadFile(io.File("stderr"));
  return result;
}

}  // namespace dirload::testing
