#include "tests/integration/dirload_process.h"

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

std::string DirloadPath() { return BinaryDir() + "/tools/dirload"; }

std::string DirloadMissing() {
  std::string path = DirloadPath();
  if (::access(path.c_str(), X_OK) == 0) return "";
  return path + " cannot be run (" + std::strerror(errno) +
         "); build the dirload target or set DIRLOAD_BINARY_DIR";
}

std::string RunResult::Describe() const {
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

Child::~Child() {
  if (pid_ > 0 && !reaped_) {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, &status_, 0);
  }
}

bool Child::Start(const std::vector<std::string>& args, const std::string& out_path,
                  const std::string& err_path, std::string* error) {
  std::string program = DirloadPath();
  std::vector<std::string> storage;
  storage.push_back(program);
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& a : storage) argv.push_back(a.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  int rc = ::posix_spawn(&pid_, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    pid_ = -1;
    *error = "posix_spawn " + program + ": " + std::strerror(rc);
    return false;
  }
  reaped_ = false;
  return true;
}

bool Child::Running() {
  if (pid_ <= 0 || reaped_) return false;
  pid_t r = ::waitpid(pid_, &status_, WNOHANG);
  if (r == pid_) {
    reaped_ = true;
    return false;
  }
  return true;
}

void Child::Kill(int sig) {
  if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
}

void Child::Wait(double timeout_seconds, RunResult* result) {
  using Clock = std::chrono::steady_clock;
  auto deadline = Clock::now() + std::chrono::duration<double>(timeout_seconds);
  // Poll rather than block so the time limit needs no signal handling; the
  // interval grows so short commands are not slowed and long ones cost little.
  long sleep_ns = 200'000;
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
  if (WIFEXITED(status_)) {
    result->exit_code = WEXITSTATUS(status_);
  } else if (WIFSIGNALED(status_)) {
    result->exit_code = -1;
    result->signal = WTERMSIG(status_);
  }
}

RunResult RunDirload(const std::vector<std::string>& args, double timeout_seconds) {
  RunResult result;
  result.command = "dirload";
  for (const std::string& a : args) result.command += " " + a;
  TempDir io;
  Child child;
  std::string error;
  if (!child.Start(args, io.File("stdout"), io.File("stderr"), &error)) {
    result.err = error;
    return result;
  }
  child.Wait(timeout_seconds, &result);
  result.out = ReadFile(io.File("stdout"));
  result.err = ReadFile(io.File("stderr"));
  return result;
}

}  // namespace dirload::testing
