// The LMDB engine of Store. One environment (data.mdb, lock.mdb) per store
// directory; each table is a named sub-database of it.
//
// Writes run in one write transaction from the first write after a Commit()
// to the next Commit(). Without `durable` the environment runs with
// MDB_NOSYNC | MDB_NOMETASYNC and Sync() forces one mdb_env_sync; with it,
// LMDB syncs every commit.
//
// The map grows as needed; callers never see MDB_MAP_FULL. LMDB cannot
// resize under a live transaction, and a transaction that hits MAP_FULL is
// lost, so the store never lets one get there: before each write it adds the
// most map pages the write could take (copy-on-write of its path, a split at
// every level, overflow pages, free-list records at commit) to a bound for
// the transaction. When the bound would pass the map's free space, it commits
// the batch so far, enlarges the map (at least doubling it) and goes on in a
// new transaction. After every commit it also keeps at least max(64 MB,
// 4 x the largest transaction's bound) free. The price of the check is a few
// additions and an mdb_stat per write.
//
// The default map is kDefaultLmdbMapSize (1 TB): on 64-bit Linux this costs
// address space only, since without MDB_WRITEMAP the file grows as pages are
// written, and with it a batch is never split. Measured on a 285,000-entry
// load (440 MB): 1 GB, 64 GB and 1 TB maps load at the same speed, and a
// 1 MB start grows in a handful of steps. Were the batches instead kept in a
// journal to replay after MAP_FULL, the extra copy would cost about 20% of
// the store's load time.
//
// With StoreOptions::lmdb_write_map, a store that creates its environment
// (and is not durable) writes through a writable map (MDB_WRITEMAP): a
// dirtied page is the file's page in the kernel's page cache, where LMDB
// otherwise keeps a malloc'ed copy of each for the transaction and writes it
// at commit. Those copies are the part of a load's anonymous memory that
// grows with the input (random dn2id inserts dirty a new leaf page per
// entry). Measured on 1,000,000 entries with --sort-memory 64M, side by
// side: the native load's peak RssAnon went from 279 to 188 MB and slapd's
// format's (whose scratch store it is) from 212 to 155 MB. The file is as
// large as the map while open, so such a map starts at
// kDefaultLmdbWriteMapSize and grows; closing truncates the file to the
// pages in use. It is not the default: a 10,000,000-entry native load
// through the map (database and LDIF together larger than the machine's
// memory) spent most of its time waiting on writeback, pages cleaned and
// dirtied again at every commit, and was stopped after 23 minutes in phase
// 1. Only the slapd format's scratch store, small and short-lived, uses it.
//
// A read-only store reads one snapshot until Commit() releases it. When the
// lock file cannot be opened (a read-only copy), it opens without locking
// (MDB_NOLOCK), which is safe only while no process writes the database.
//
// Thread safety: as Store.
#pragma once

#include <memory>
#include <string>

#include "lib/store/store.h"

namespace dirload {

[[nodiscard]] Result<std::unique_ptr<Store>> OpenLmdbStore(const std::string& dir,
                                                           const StoreOptions& options);

}  // namespace dirload
