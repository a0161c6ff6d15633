// The Berkeley DB 5.3 engine of Store, on the C API. Each table is one btree
// file, <table>.bdb, in the store directory, all sharing one environment:
// one buffer pool whose statistics cover every phase a process runs. Files
// rather than sub-databases of one file, because the pool keeps its
// priority, memory mapping and per-file statistics per file, and dropping a
// table must give its space back.
//
// The environment is private to the process (DB_PRIVATE: the pool lives in
// heap memory, no region files are left behind), as suits an offline tool.
// Without `durable` it has only the pool: writes go to the cache as they are
// made, Commit() is a no-op, and Sync() flushes and fsyncs every file. With
// `durable` it adds transactions, locking and a write-ahead log
// (log.* files), runs recovery on open, and Sync() takes a checkpoint.
//
// ReopenReadOnly() gives a table a DB_RDONLY handle; if its file is smaller
// than bdb_mmap_size, the pool maps the file instead of reading its pages into
// buffers (FileCacheStats::pages_mapped shows it happened). The pool decides
// to map a file when it first registers it, and keeps the writer's
// registration ("not mappable") while any page of the file is cached, so the
// store first gives the file a new ID (DB_ENV->fileid_reset) to register it
// afresh. Not when durable: the log names files by ID, so there the
// read-only handle reads through the cache.
//
// Thread safety: as Store.
#pragma once

#include <memory>
#include <string>

#include "lib/store/store.h"

namespace dirload {

[[nodiscard]] Result<std::unique_ptr<Store>> OpenBdbStore(const std::string& dir,
                                                          const StoreOptions& options);

}  // namespace dirload
