// Running the real dirload binary from the integration tests, through
// tests/support/child_process.h. Test-only.
//
// Thread safety: as ChildProcess; RunDirload is reentrant.
#pragma once

#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/openldap.h"

namespace dirload::testing {

using RunResult = ProcessResult;

// $DIRLOAD_BINARY_DIR/tools/dirload.
std::string DirloadPath();

// Empty when the dirload binary is there to run; otherwise why not, so a test
// can stop at once instead of failing every command.
std::string DirloadMissing();

// A dirload child process: Start() takes dirload's arguments, without the
// program.
class Child : public ChildProcess {
 public:
  bool Start(const std::vector<std::string>& args, const std::string& out_path,
             const std::string& err_path, std::string* error);
};

// Runs dirload with `args` to completion and returns its exit status and output.
RunResult RunDirload(const std::vector<std::string>& args, double timeout_seconds = 300);

}  // namespace dirload::testing

// At the top of an oracle test case: fails without the dirload binary, and
// returns (skipping the case, with a message) when slapadd, slapcat,
// mdb_dump, back_mdb or the other programs named are not installed.
#define DIRLOAD_SKIP_WITHOUT_OPENLDAP(...)                                       \
  do {                                                                           \
    REQUIRE_MESSAGE(::dirload::testing::DirloadMissing().empty(),                \
                    ::dirload::testing::DirloadMissing());                       \
    DIRLOAD_SKIP_UNLESS_OPENLDAP("slapadd", "slapcat", "mdb_dump", __VA_ARGS__); \
  } while (0)
