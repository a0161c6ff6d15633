#include "lib/util/build_info.h"

// DIRLOAD_BUILD_COMMIT, written by cmake/DirloadBuildCommit.cmake on every
// build; DIRLOAD_VERSION, DIRLOAD_BUILD_TYPE and DIRLOAD_SANITIZERS come from
// lib/util/CMakeLists.txt.
#include "dirload_build_commit.h"

namespace dirload {

std::string_view ProjectVersion() { return DIRLOAD_VERSION; }

std::string_view BuildCommit() { return DIRLOAD_BUILD_COMMIT; }

std::string_view BuildType() {
  static const std::string type = [] {
    std::string t = DIRLOAD_BUILD_TYPE;
    if (t.empty()) t = "unspecified";
    std::string_view sanitizers = DIRLOAD_SANITIZERS;
    if (!sanitizers.empty()) t += " (" + std::string(sanitizers) + ")";
    return t;
  }();
  return type;
}

std::string VersionText(std::string_view program, const std::vector<LibraryVersion>& libraries) {
  std::string text;
  text.append(program).append(" ").append(ProjectVersion());
  text.append("\ncommit: ").append(BuildCommit());
  text.append("\nbuild: ").append(BuildType());
  for (const LibraryVersion& lib : libraries) {
    text.append("\n").append(lib.name).append(": ").append(lib.version);
  }
  return text;
}

}  // namespace dirload
