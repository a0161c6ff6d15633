// A look at an LMDB data file (data.mdb) before it is mapped: is it whole?
//
// LMDB maps the file and trusts it. A file cut short (a copy that stopped, a
// full disk during a copy) makes the first read of a page past its end raise
// SIGBUS instead of returning an error, so both LMDB open paths (the native
// store, lmdb_store.cc, and slapd's back-mdb environment, mdb_env.cc) read
// the two meta pages first and refuse a file shorter than the database they
// describe. The check reads 2 small blocks with pread; it does not walk the
// trees, so damage inside the file is left to LMDB and, when that faults, to
// lib/util/damage_signal.h. What else both open paths do the same way to
// an environment is here too: its assertions reported as damage, and its
// background flush.
//
// Thread safety: CheckLmdbDataFile is a pure function of the file; the
// others act on one environment, from the thread that owns it.
#pragma once

#include <memory>
#include <string>

#include "lib/store/background_flush.h"
#include "lib/util/status.h"

struct MDB_env;

namespace dirload {

// OK when `file` is absent or empty (a new database) or when a valid meta
// page describes a database that fits in the file. Otherwise
// Status::Corruption, origin kStorage, naming the file: "database file
// damaged: PATH (SIZE bytes, the database needs N); restore a copy or load
// again", or "...: PATH (no valid meta page); ...". A file that cannot be
// read is an IoError, origin kStorage.
Status CheckLmdbDataFile(const std::string& file);

// LMDB checks its pages with assertions that abort; on `env` they end the
// process as a damaged file does (lib/util/damage_signal.h): a message naming
// the registered file and exit status 4.
void ReportLmdbAssertionsAsDamage(MDB_env* env);

// A BackgroundFlush for `env`'s data file (named `file` in its errors), or
// null where it has nothing to do: commits that sync already (no
// MDB_NOSYNC), or, unless `through_writable_map`, a file written through a
// writable map, whose pages written back would fault again at their next
// write.
std::unique_ptr<BackgroundFlush> NewLmdbFlush(MDB_env* env, const std::string& file,
                                              bool through_writable_map);

}  // namespace dirload
