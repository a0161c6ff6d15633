#include "lib/util/build_info.h"

#include <doctest/doctest.h>

#include <regex>
#include <string>

#include "lib/util/library_versions.h"

namespace dirload {
namespace {

TEST_CASE("VersionText gives the program, its build, then each library, one a line") {
  const std::string text = VersionText("prog", {{"liba", "1.2.3"}, {"libb", "OpenLDAP 2.5.13"}});
  const std::string expected =
      "prog " + std::string(ProjectVersion()) + "\ncommit: " + std::string(BuildCommit()) +
      "\nbuild: " + std::string(BuildType()) + "\nliba: 1.2.3\nlibb: OpenLDAP 2.5.13";
  CHECK(text == expected);
  CHECK(VersionText("prog", {}).find("liba") == std::string::npos);
}

TEST_CASE("the build is named: a dotted version, a commit or unknown, a build type") {
  CHECK(std::regex_match(std::string(ProjectVersion()), std::regex("[0-9]+\\.[0-9]+\\.[0-9]+")));
  const std::string commit(BuildCommit());
  INFO("commit: ", commit);
  CHECK((commit == "unknown" || std::regex_match(commit, std::regex("[0-9a-f]{12}(-dirty)?"))));
  CHECK(!BuildType().empty());
}

TEST_CASE("the libraries report their versions") {
  const std::vector<LibraryVersion> libraries = RuntimeLibraryVersions();
  REQUIRE(libraries.size() == 4);
  const char* names[] = {"liblmdb", "libdb", "zlib", "utf8proc"};
  for (size_t i = 0; i < libraries.size(); ++i) {
    INFO(names[i], ": ", libraries[i].version);
    CHECK(libraries[i].name == names[i]);
    CHECK(std::regex_match(libraries[i].version, std::regex("[0-9]+\\.[0-9]+(\\.[0-9]+)*.*")));
  }
}

}  // namespace
}  // namespace dirload
