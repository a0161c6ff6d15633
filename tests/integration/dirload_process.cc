#include "tests/integration/dirload_process.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "tests/support/temp_dir.h"

namespace dirload::testing {
namespace {

std::vector<std::string> WithProgram(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {DirloadPath()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

}  // namespace

std::string DirloadPath() { return BinaryDir() + "/tools/dirload"; }

std::string DirloadMissing() {
  std::string path = DirloadPath();
  if (::access(path.c_str(), X_OK) == 0) return "";
  return path + " cannot be run (" + std::strerror(errno) +
         "); build the dirload target or set DIRLOAD_BINARY_DIR";
}

bool Child::Start(const std::vector<std::string>& args, const std::string& out_path,
                  const std::string& err_path, std::string* error) {
  return ChildProcess::Start(WithProgram(args), out_path, err_path, error);
}

RunResult RunDirload(const std::vector<std::string>& args, double timeout_seconds) {
  RunResult result = RunProcess(WithProgram(args), timeout_seconds);
  // Messages name the command as a user types it.
  std::vector<std::string> shown = {"dirload"};
  shown.insert(shown.end(), args.begin(), args.end());
  result.command = QuoteCommand(shown);
  return result;
}

}  // namespace dirload::testing
