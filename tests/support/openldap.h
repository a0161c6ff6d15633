// OpenLDAP's offline tools from the oracle tests: whether they are
// installed, and running them. The programs are looked up with FindProgram
// (slapadd and its siblings live in /usr/sbin, often not on a user's PATH);
// the back-mdb databases they write need slapd's back_mdb module.
//
// Thread safety: as RunProcess; every function is reentrant.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tests/support/child_process.h"

namespace dirload::testing {

// Empty when each of `programs` and slapd's back_mdb module are installed;
// otherwise a message naming what is not, e.g. "not installed: slapindex,
// back_mdb".
std::string OpenLdapMissing(const std::vector<std::string>& programs);

// Runs the installed `program` with `args` to completion (see RunProcess).
// When it is not installed the result says so (exit_code -1).
ProcessResult RunOpenLdapTool(std::string_view program, const std::vector<std::string>& args,
                              double timeout_seconds = 300);

inline ProcessResult RunSlapadd(const std::vector<std::string>& args,
                                double timeout_seconds = 300) {
  return RunOpenLdapTool("slapadd", args, timeout_seconds);
}
inline ProcessResult RunSlapcat(const std::vector<std::string>& args,
                                double timeout_seconds = 300) {
  return RunOpenLdapTool("slapcat", args, timeout_seconds);
}
inline ProcessResult RunSlapindex(const std::vector<std::string>& args,
                                  double timeout_seconds = 300) {
  return RunOpenLdapTool("slapindex", args, timeout_seconds);
}
// lmdb-utils' mdb_dump, which the back-mdb oracles read databases with.
inline ProcessResult RunMdbDump(const std::vector<std::string>& args,
                                double timeout_seconds = 300) {
  return RunOpenLdapTool("mdb_dump", args, timeout_seconds);
}
inline ProcessResult RunSlaptest(const std::vector<std::string>& args,
                                 double timeout_seconds = 300) {
  return RunOpenLdapTool("slaptest", args, timeout_seconds);
}

}  // namespace dirload::testing

// At the top of a doctest case: returns, skipping the case with a message
// naming what is missing, unless the programs named and back_mdb are
// installed.
#define DIRLOAD_SKIP_UNLESS_OPENLDAP(...)                   \
  do {                                                      \
    const std::string dirload_openldap_missing =            \
        ::dirload::testing::OpenLdapMissing({__VA_ARGS__}); \
    if (!dirload_openldap_missing.empty()) {                \
      MESSAGE(dirload_openldap_missing << ": skipping");    \
      return;                                               \
    }                                                       \
  } while (0)
