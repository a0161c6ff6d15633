#include "lib/util/library_versions.h"

#include <db.h>
#include <lmdb.h>
#include <utf8proc.h>
#include <zlib.h>

namespace dirload {

namespace {

std::string Dotted(int major, int minor, int patch) {
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

}  // namespace

std::vector<LibraryVersion> RuntimeLibraryVersions() {
  std::vector<LibraryVersion> libraries;
  int major = 0, minor = 0, patch = 0;
  // Both return a banner ("LMDB 0.9.24: (July 24, 2019)"); the numbers are
  // what an operator compares.
  mdb_version(&major, &minor, &patch);
  libraries.push_back({"liblmdb", Dotted(major, minor, patch)});
  db_version(&major, &minor, &patch);
  libraries.push_back({"libdb", Dotted(major, minor, patch)});
  libraries.push_back({"zlib", zlibVersion()});
  libraries.push_back({"utf8proc", utf8proc_version()});
  return libraries;
}

}  // namespace dirload
