#include "tests/support/openldap.h"

#include <filesystem>

namespace dirload::testing {

std::string OpenLdapMissing(const std::vector<std::string>& programs) {
  std::string missing;
  auto note = [&missing](std::string_view what) {
    missing += missing.empty() ? "not installed: " : ", ";
    missing += what;
  };
  for (const std::string& p : programs) {
    if (FindProgram(p).empty()) note(p);
  }
  if (!std::filesystem::exists("/usr/lib/ldap/back_mdb.la")) note("back_mdb");
  return missing;
}

ProcessResult RunOpenLdapTool(std::string_view program, const std::vector<std::string>& args,
                              double timeout_seconds) {
  std::vector<std::string> argv = {FindProgram(program)};
  if (argv[0].empty()) {
    ProcessResult result;
    result.command = std::string(program);
    result.err = std::string(program) + " is not installed";
    return result;
  }
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, timeout_seconds);
}

}  // namespace dirload::testing
