// Store: the storage interface every dirload phase writes through, with two
// engines behind it, LMDB (the default) and Berkeley DB 5.3. A store is one
// directory holding named tables ("meta", "id2entry", "dn2id", "idx.<attr>";
// see tables.h), each an ordered map from byte-string keys to byte-string
// values. Keys compare bytewise (memcmp, a prefix sorts first) on both engines,
// so a key range means the same thing everywhere.
//
// Writes are batched: everything written since the last Commit() is one
// transaction, and Sync() puts what is committed on disk. A bulk load appends
// in key order (Append), commits every few thousand entries, and syncs once at
// the end, as slapadd -q does. What a transaction guarantees differs by engine
// and mode, and the caller relies only on the common part:
//   - LMDB always runs transactions. Without `durable` a commit is not synced
//     (MDB_NOSYNC | MDB_NOMETASYNC), so a crash can lose recent commits; with
//     it every commit is synced. A batch that would outgrow the free part of
//     the map is committed in parts, the map grown between them (see
//     lmdb_store.h; with the default map it does not happen).
//   - Berkeley DB runs transactions only when `durable` (DB_INIT_TXN, a write
//     ahead log, recovery on open). Without it writes go into the cache as they
//     are made: Commit() marks a boundary and rolls nothing back, and a store
//     closed without Commit() keeps what was written.
// So a crash or an abandoned batch leaves a database the caller must not trust;
// the loader's `loading` state in "meta" is what tells.
//
// Tables are created by the first write that names them; reading a table that
// does not exist sees an empty table and does not create it.
//
// Thread safety: a Store and its cursors are used by one thread at a time, and
// a batch of writes is committed by the thread that made it. Nothing here is
// synchronised. Two stores must not be open on the same directory in one
// process (LMDB's locks are per process).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/util/status.h"

namespace dirload {

enum class Backend { kLmdb, kBdb };

std::string_view BackendName(Backend backend);  // "lmdb", "bdb"
Result<Backend> ParseBackend(std::string_view name);

// Which engine made the database in `dir`: LMDB leaves data.mdb, Berkeley DB
// one <table>.bdb file per table. NotFound when it is neither.
Result<Backend> DetectBackend(const std::string& dir);

// Berkeley DB's buffer-pool priority for a table's pages (DB_PRIORITY_*): how
// soon they are evicted relative to other pages. LMDB has no cache of its own.
enum class CachePriority { kDefault, kVeryLow, kLow, kHigh, kVeryHigh };

std::string_view CachePriorityName(CachePriority priority);  // "default", "very_low", ...
Result<CachePriority> ParseCachePriority(std::string_view name);

// Entries of a few hundred bytes to a few KB overflow 4 KB pages (an item
// over a quarter page gets pages of its own). Measured on a 285,000-entry
// load: 4 KB pages 3.4 s and 845 MB, 16 KB pages 1.6 s and 382 MB, 64 KB
// 1.4 s and 364 MB; 16 KB, as OpenLDAP's back-bdb uses for id2entry.
inline constexpr uint32_t kBdbId2EntryPageSize = 16384;

// 1 TB of address space, not of disk or memory: without MDB_WRITEMAP the file
// grows only as pages are written. So large that the map never has to grow
// in practice (see lmdb_store.h).
inline constexpr uint64_t kDefaultLmdbMapSize = 1ull << 40;
// With MDB_WRITEMAP the file is as large as the map (sparse) while it is
// open, so the map starts here and grows as the store needs.
inline constexpr uint64_t kDefaultLmdbWriteMapSize = 1ull << 30;

struct StoreOptions {
  // Create the directory (one level) and the environment if missing.
  // Exclusive with read_only.
  bool create = false;
  // Open for reading only; every write fails. LMDB falls back to opening
  // without its lock file when that file cannot be opened (a read-only
  // directory): safe only while no process writes the database.
  bool read_only = false;
  // LMDB: sync every commit. BDB: transactions, write-ahead log, recovery.
  // Off, nothing reaches the disk for certain before Sync().
  bool durable = false;

  // --- LMDB ---
  // Initial map size in bytes; 0 picks kDefaultLmdbMapSize. The map grows on
  // its own (see lmdb_store.h), so this only sets where growth starts.
  uint64_t lmdb_map_size = 0;
  // Turn off the kernel's read-ahead on the map (MDB_NORDAHEAD): helps random
  // reads of a database larger than memory, hurts sequential scans.
  bool lmdb_no_readahead = false;
  // Write through a writable map (MDB_WRITEMAP) when the environment is
  // created by this open and not durable: the pages a transaction dirties
  // are the file's own pages in the kernel's page cache, not heap copies
  // written out at commit (see lmdb_store.h). Not for a file that existed:
  // a damaged page written in place faults in memcpy, outside the engine's
  // code, where the damage handler (damage_signal.h) cannot name the file.
  bool lmdb_write_map = false;

  // --- Berkeley DB ---
  uint64_t bdb_cache_size = 256ull << 20;  // DB_ENV->set_cachesize
  // Largest read-only file the cache maps instead of reading into buffers
  // (DB_ENV->set_mp_mmapsize); 0 keeps the engine's default (10 MB).
  uint64_t bdb_mmap_size = 0;
  // Page size of tables created from now on. 0: kBdbId2EntryPageSize for
  // id2entry, the engine's default (the file system's block) for the rest.
  uint32_t bdb_page_size = 0;
  CachePriority bdb_id2entry_priority = CachePriority::kDefault;
};

// Keys are 1..kMaxKeySize bytes on both engines: LMDB's limit (its default
// build) applies to Berkeley DB too, so a database loads the same on either.
// Values may be up to 4 GB.
inline constexpr size_t kMaxKeySize = 511;

// Buffer-pool figures of one table's file (memp_fstat). Evictions are counted
// only for the whole environment.
struct FileCacheStats {
  bool available = false;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t pages_created = 0;
  uint64_t pages_read = 0;
  uint64_t pages_written = 0;
  uint64_t pages_mapped = 0;
};

// Buffer-pool figures of the whole environment (Berkeley DB memp_stat), and
// of each table's file that the pool has seen (memp_fstat).
struct CacheStats {
  bool available = false;  // false on LMDB: the kernel's page cache does the work
  uint64_t cache_bytes = 0;
  uint64_t hits = 0;
  uint64_t misses = 0;
  uint64_t pages_created = 0;  // new pages, never read
  uint64_t pages_read = 0;
  uint64_t pages_written = 0;
  uint64_t pages_mapped = 0;  // pages served from memory-mapped files
  uint64_t clean_evictions = 0;
  uint64_t dirty_evictions = 0;  // a dirty page written out to make room
  uint64_t trickle_writes = 0;
  uint64_t pages_in_cache = 0;
  uint64_t dirty_pages_in_cache = 0;
  // Per table, sorted by name. A table's figures survive its handle being
  // closed and reopened (they are summed), and vanish when it is dropped.
  std::vector<std::pair<std::string, FileCacheStats>> tables;
};

struct TableStats {
  std::string name;
  uint64_t entries = 0;
  uint32_t page_size = 0;
  uint32_t depth = 0;
  uint64_t branch_pages = 0;
  uint64_t leaf_pages = 0;
  uint64_t overflow_pages = 0;  // values too large for a leaf page
  uint64_t free_pages = 0;      // BDB: on the file's free list; LMDB: 0 (shared free list)
  uint64_t bytes = 0;           // (branch + leaf + overflow) * page_size
  uint64_t file_bytes = 0;      // BDB: the table's file; LMDB: 0 (one file for all)
  FileCacheStats cache;
};

struct StoreStats {
  Backend backend = Backend::kLmdb;
  std::string path;
  uint64_t file_bytes = 0;         // data files in the directory (not logs or locks)
  uint64_t map_size = 0;           // LMDB: current map size
  uint64_t map_used = 0;           // LMDB: bytes up to the highest page in use
  uint32_t map_growths = 0;        // LMDB: times this store enlarged the map
  uint32_t early_commits = 0;      // LMDB: batches committed in parts to grow the map
  CacheStats cache;                // taken before the tables are walked
  std::vector<TableStats> tables;  // sorted by name
};

// What the engine actually runs with, read back from it (get_cachesize,
// get_mp_mmapsize, get_priority, ...), so a test or `--stats` can show that an
// option took effect.
struct TableSettings {
  std::string name;
  uint32_t page_size = 0;
  CachePriority priority = CachePriority::kDefault;
  bool read_only = false;
};

struct EngineSettings {
  Backend backend = Backend::kLmdb;
  bool read_only = false;
  bool transactional = false;         // BDB: DB_INIT_TXN; LMDB: always
  bool sync_on_commit = false;        // LMDB: !MDB_NOSYNC; BDB: transactional
  uint64_t cache_bytes = 0;           // BDB get_cachesize (as the engine sized it); LMDB 0
  uint64_t mmap_size = 0;             // BDB get_mp_mmapsize; LMDB 0
  uint64_t map_size = 0;              // LMDB map size; BDB 0
  bool no_readahead = false;          // LMDB MDB_NORDAHEAD
  bool write_map = false;             // LMDB MDB_WRITEMAP
  std::vector<TableSettings> tables;  // tables opened so far, sorted by name
};

// An ordered walk over one table. Starts unpositioned (valid() false); Seek*
// positions it. A cursor keeps its position across Commit() and other writes:
// Next() continues after the last key it returned, and if that entry was
// deleted meanwhile, at the one after it.
//
// key() and value() stay valid until this cursor moves or the store is written
// to or committed. Errors are sticky: after one, valid() is false and status()
// says why.
//
// REQUIRES: the Store outlives its cursors (a cursor left over reports an
// error instead of touching freed memory).
class Cursor {
 public:
  virtual ~Cursor() = default;
  Cursor(const Cursor&) = delete;
  Cursor& operator=(const Cursor&) = delete;

  virtual void Seek(std::string_view key) = 0;  // first entry with key >= `key`
  virtual void SeekToFirst() = 0;
  virtual void SeekToLast() = 0;
  // REQUIRES: valid()
  virtual void Next() = 0;

  virtual bool valid() const = 0;
  // REQUIRES: valid()
  virtual std::string_view key() const = 0;
  virtual std::string_view value() const = 0;
  virtual Status status() const = 0;

 protected:
  Cursor() = default;
};

class Store {
 public:
  // Opens (or with options.create, creates) the store in directory `dir`.
  [[nodiscard]] static Result<std::unique_ptr<Store>> Open(Backend backend, const std::string& dir,
                                                           const StoreOptions& options);

  // Closes without committing: uncommitted transactional writes are rolled back.
  virtual ~Store() = default;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  virtual Backend backend() const = 0;
  virtual const std::string& path() const = 0;

  // Inserts or replaces. Every key argument is 1..kMaxKeySize bytes, else the
  // call fails with kInvalidArgument (a cursor's Seek takes any key).
  [[nodiscard]] virtual Status Put(std::string_view table, std::string_view key,
                                   std::string_view value) = 0;
  // Inserts at the end of the table, the fast path of a bulk load: LMDB fills
  // each page before starting the next (MDB_APPEND).
  // REQUIRES: key is greater than every key in the table; otherwise fails with
  // kInvalidArgument and writes nothing.
  [[nodiscard]] virtual Status Append(std::string_view table, std::string_view key,
                                      std::string_view value) = 0;
  // true and *value set, or false when the key (or the table) does not exist.
  [[nodiscard]] virtual Result<bool> Get(std::string_view table, std::string_view key,
                                         std::string* value) = 0;
  // Deleting a key that is not there, or from a table that does not exist,
  // is not an error.
  [[nodiscard]] virtual Status Delete(std::string_view table, std::string_view key) = 0;
  // Commits pending writes first, then removes the table in its own
  // transaction (a Berkeley DB file cannot be removed under an open one).
  // Dropping a table that does not exist is not an error.
  [[nodiscard]] virtual Status DropTable(std::string_view table) = 0;
  // Existing tables, sorted.
  [[nodiscard]] virtual Result<std::vector<std::string>> ListTables() = 0;

  // A cursor over `table`; an invalid name shows up as the cursor's status().
  virtual std::unique_ptr<Cursor> NewCursor(std::string_view table) = 0;

  // Ends the current transaction: everything written since the previous
  // Commit() becomes visible as one unit. In read-only mode it drops the read
  // snapshot, so later reads see newer data.
  [[nodiscard]] virtual Status Commit() = 0;
  // Commit(), then force everything committed onto the disk.
  [[nodiscard]] virtual Status Sync() = 0;

  // Commits pending writes, then reopens `table` for reading only; writes to
  // it fail afterwards. Berkeley DB maps a read-only file smaller than
  // bdb_mmap_size instead of copying its pages through the cache (phase 2
  // scans id2entry this way; not when durable, see bdb_store.h). On LMDB only
  // the write protection applies.
  [[nodiscard]] virtual Status ReopenReadOnly(std::string_view table) = 0;

  // Counts and sizes of every table plus the engine's cache figures. Walks
  // each table on Berkeley DB, which also moves its cache counters; take
  // CacheStatistics() first when the figures of a phase matter.
  [[nodiscard]] virtual Result<StoreStats> Statistics() = 0;
  [[nodiscard]] virtual Result<CacheStats> CacheStatistics() = 0;
  [[nodiscard]] virtual Result<EngineSettings> Settings() = 0;

 protected:
  Store() = default;
};

}  // namespace dirload
