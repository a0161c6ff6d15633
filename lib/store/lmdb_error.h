// What an LMDB return code means as a StatusCode: the one place that decides
// it, for dirload's native engine (lmdb_store.cc) and for slapd's back-mdb
// environment (lib/format/mdb/mdb_env.cc), which build their own messages
// around it.
//
// Thread safety: pure functions (LmdbCauseOf looks at the file system).
#pragma once

#include <string>

#include "lib/util/status.h"

namespace dirload {

// `rc` is an LMDB return code (MDB_*) or an errno value LMDB passed on.
StatusCode LmdbStatusCode(int rc);

// `rc` from an operation on the environment in directory `dir`, with an EIO
// that LMDB made up replaced by its cause when the file system shows it.
// LMDB returns EIO when write(2) writes less than asked, which is what a full
// file system (ENOSPC) or the process's file size limit (EFBIG, RLIMIT_FSIZE)
// does to a write that reaches it: the errno that would say so comes only
// with the next write, which LMDB does not make. So: ENOSPC when the file
// system holding `dir` has (next to) no free blocks left, EFBIG when
// data.mdb has reached the file size limit; otherwise `rc` unchanged (a real
// input/output error stays one).
int LmdbCauseOf(int rc, const std::string& dir);

// What to print for `rc`: LMDB's text for its own codes, the system's
// (strerror: "No space left on device") for errno values.
std::string LmdbErrorText(int rc);

}  // namespace dirload
