// What `--version` says about a build: dirload's version, the git commit and
// build type it was made from (fixed when it was built), and the text that
// lists them with the libraries the program runs with.
//
// The library versions are asked of the libraries themselves by the caller
// (lib/util/library_versions.h for dirload's own; dirload-searchrate adds
// libldap's), so this module links none of them and every program can use it.
//
// Thread safety: pure functions over constants.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dirload {

// One library as it reports itself at run time.
struct LibraryVersion {
  std::string name;     // e.g. "liblmdb"
  std::string version;  // e.g. "0.9.24"
};

// The project's version (CMake's project() VERSION), e.g. "0.1.0".
std::string_view ProjectVersion();

// The commit the build was made from, abbreviated to 12 hex digits, with
// "-dirty" when tracked files differed from it; "unknown" when the source
// was not a git checkout. Brought up to date on every build.
std::string_view BuildCommit();

// The build type (Release, Debug, ...), with the sanitizers the build
// carries in parentheses, e.g. "Debug (address,undefined)".
std::string_view BuildType();

// The --version text, one item a line, the last line without its newline
// (the caller ends it as it prints):
//   PROGRAM VERSION
//   commit: COMMIT
//   build: TYPE
//   NAME: VERSION       (each of `libraries`, in order)
std::string VersionText(std::string_view program, const std::vector<LibraryVersion>& libraries);

}  // namespace dirload
