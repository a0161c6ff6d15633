// The versions of the libraries the dirload command runs with, as each
// reports itself at run time (mdb_version, db_version, zlibVersion,
// utf8proc_version): after a library upgrade they name the library now
// loaded, not the one the build saw.
//
// A target of its own (dirload_library_versions), apart from dirload_util: it
// links every engine library to ask its version, which the rest of lib/util
// must not, and which programs that use none of them should not load.
//
// Thread safety: safe to call from any thread.
#pragma once

#include <vector>

#include "lib/util/build_info.h"

namespace dirload {

// liblmdb, libdb, zlib and utf8proc, in that order.
std::vector<LibraryVersion> RuntimeLibraryVersions();

}  // namespace dirload
