// MdbEnv: a back-mdb environment (the directory slapd's `database mdb` uses)
// opened with liblmdb exactly as slapd 2.5 opens it, so that what dirload
// writes is what slapd reads and LMDB compares keys and duplicates the way
// slapd does. LMDB stores no comparators or flags beyond the sub-database's
// own: every open must repeat them, which is this class's reason to exist.
//
// Sub-databases and the flags they are opened with:
//   ad2i  INTEGERKEY                              uint32 -> description text
//   dn2i  INTEGERKEY | DUPSORT, dn2i dup compare  ID -> diskNode (mdb_dn_node.h)
//   id2e  INTEGERKEY, ID compare                  ID -> entry (mdb_entry_codec.h)
//   id2v  DUPSORT, id2v key and dup compare       (ID, ad2i number) -> values of a
//         `multival` attribute (mdb_id2v.h); the dup order depends on the
//         attribute, which LMDB's comparator is not told: writers name it
//         with an MdbId2vOrderScope around their puts
//   one per index, named by the type's canonical name:
//         DUPSORT | DUPFIXED | INTEGERDUP         key -> 8-byte IDs
// maxdbs is 128 as in slapd. Engine errors come back as Status with origin
// kStorage and the operation, path and LMDB's message; this file is the only
// one that knows LMDB's error codes.
//
// Thread safety: an MdbEnv may be shared by threads; each MdbTxn belongs to
// one thread. One write transaction at a time (LMDB serialises them). The
// MdbEnv must outlive its transactions.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/format/mdb/mdb_value_order.h"
#include "lib/store/background_flush.h"
#include "lib/util/status.h"

namespace dirload::mdb {

// slapd's MDB_INDICES: named databases per environment, the 4 main ones included.
inline constexpr unsigned kMdbMaxDbs = 128;

inline constexpr std::string_view kMdbAd2i = "ad2i";
inline constexpr std::string_view kMdbDn2i = "dn2i";
inline constexpr std::string_view kMdbId2e = "id2e";
inline constexpr std::string_view kMdbId2v = "id2v";

struct MdbEnvOptions {
  bool read_only = false;
  // mdb_env_set_mapsize (slapd's maxsize). 0 keeps the size the
  // environment already has, or LMDB's default for a new one.
  uint64_t map_size = 0;
  // Writers: create the directory's data file and the main sub-databases if
  // absent, and create these index databases. Readers open every index
  // database the environment lists, whatever this says.
  std::vector<std::string> index_names;
  // slapadd -q: no sync per commit (MDB_NOSYNC); Sync() makes the data
  // durable.
  bool quick = false;
  // Writes go straight into a writable map of the file (MDB_WRITEMAP, which
  // also sizes the file to the map, sparsely) instead of into LMDB's heap
  // copies of the pages, written at commit. Writers only.
  bool write_map = false;
};

// A sub-database handle; valid for the MdbEnv's lifetime.
struct MdbDb {
  unsigned dbi = 0;
};

enum class MdbPutMode {
  kOverwrite,    // replace (non-dup tables) or add a duplicate
  kNoOverwrite,  // AlreadyExists if the key (non-dup) or pair (dup) is present
  kAppend,       // key greater than every key present (MDB_APPEND)
  kAppendDup,    // duplicate greater than the key's others (MDB_APPENDDUP)
};

// mdb_stat of one sub-database.
struct MdbDbStat {
  uint32_t page_size = 0;
  uint32_t depth = 0;
  uint64_t branch_pages = 0;
  uint64_t leaf_pages = 0;
  uint64_t overflow_pages = 0;
  uint64_t entries = 0;  // pairs, duplicates included
};

class MdbEnv;
class MdbKeyCursor;

// The order of the id2v duplicates that puts on this thread compare while
// it lives: slapd orders each key's values by its attribute's equality rule
// (mdb_value_order.h), and LMDB hands its comparator the two values alone.
// Scopes nest; outside any, id2v compares as MdbValueOrder::kOctet.
class MdbId2vOrderScope {
 public:
  explicit MdbId2vOrderScope(MdbValueOrder order);
  ~MdbId2vOrderScope();
  MdbId2vOrderScope(const MdbId2vOrderScope&) = delete;
  MdbId2vOrderScope& operator=(const MdbId2vOrderScope&) = delete;

 private:
  MdbValueOrder saved_;
};

// A transaction. Move-only; aborts in its destructor unless committed.
class MdbTxn {
 public:
  MdbTxn(MdbTxn&& other) noexcept;
  MdbTxn& operator=(MdbTxn&& other) noexcept;
  MdbTxn(const MdbTxn&) = delete;
  MdbTxn& operator=(const MdbTxn&) = delete;
  ~MdbTxn();

  Status Put(MdbDb db, std::string_view key, std::string_view value,
             MdbPutMode mode = MdbPutMode::kOverwrite);
  // Makes room for a value of `size` bytes under `key` (MDB_RESERVE) and
  // returns where to write it, valid until the next write in this
  // transaction. Not for DUPSORT databases.
  Result<char*> Reserve(MdbDb db, std::string_view key, size_t size, MdbPutMode mode);
  // The value of `key` (the first duplicate on dup tables); NotFound if
  // absent. The view points into the map: valid until the transaction ends
  // or, in a write transaction, the next write.
  Result<std::string_view> Get(MdbDb db, std::string_view key);
  // Every (key, value) pair in order, duplicates included; stops at and
  // returns the first non-OK status `fn` returns. The views stay valid as
  // Get's do (in a read transaction, until it ends).
  Status Scan(MdbDb db,
              const std::function<Status(std::string_view key, std::string_view value)>& fn);
  // The pairs from the first key >= `from` on, in order, while `fn` returns
  // true; stops at the first error.
  Status ScanFrom(
      MdbDb db, std::string_view from,
      const std::function<Result<bool>(std::string_view key, std::string_view value)>& fn);
  // Number of keys (not duplicates) and of pairs.
  Status Count(MdbDb db, uint64_t* keys, uint64_t* pairs);
  Status Stat(MdbDb db, MdbDbStat* out);

  // The greatest key and its (first) value; NotFound when `db` is empty.
  Status Last(MdbDb db, std::string_view* key, std::string_view* value);
  // Dup tables: the stored duplicate of `key` that the table's duplicate
  // order finds equal to `probe` (on dn2i: the node with probe's nrdn);
  // NotFound if none.
  Result<std::string_view> GetDup(MdbDb db, std::string_view key, std::string_view probe);
  // The same, with nullopt for none: for lookups that mostly miss.
  Result<std::optional<std::string_view>> FindDup(MdbDb db, std::string_view key,
                                                  std::string_view probe);
  // Replaces the duplicate of `key` equal to `value` in duplicate order with
  // `value`. REQUIRES: the stored one has value's size (LMDB rewrites it in
  // place). NotFound if there is none.
  Status ReplaceDup(MdbDb db, std::string_view key, std::string_view value);
  // DUPFIXED tables: appends `count` duplicates of `size` bytes each, back
  // to back in `data`, under `key` with one MDB_MULTIPLE put. REQUIRES: key
  // greater than every key present, duplicates ascending.
  Status AppendMultiple(MdbDb db, std::string_view key, std::string_view data, size_t size);
  // DUPFIXED tables: adds `count` duplicates of `size` bytes under `key`, an
  // existing key or a new one anywhere in key order, with one MDB_MULTIPLE
  // put. REQUIRES: the duplicates ascending and above those `key` holds.
  Status AddMultiple(MdbDb db, std::string_view key, std::string_view data, size_t size);
  // Dup tables: how many duplicates `key` holds (0 when absent), and its
  // first and last ones (views valid until the next write).
  struct DupRange {
    uint64_t count = 0;
    std::string_view first, last;
  };
  Result<DupRange> Dups(MdbDb db, std::string_view key);
  // Removes `key` with every duplicate it holds; NotFound when absent.
  Status DeleteKey(MdbDb db, std::string_view key);
  // Removes the one duplicate `value` of `key`; NotFound when absent.
  Status DeleteDup(MdbDb db, std::string_view key, std::string_view value);
  // Dup tables: appends to *out up to `limit` duplicates of `key` in
  // duplicate order (views valid as Get's) and returns how many it found.
  Result<size_t> ReadDups(MdbDb db, std::string_view key, size_t limit,
                          std::vector<std::string_view>* out);
  // Dup tables: calls `fn` for each duplicate of `key` in duplicate order
  // (none when the key is absent); stops at and returns the first non-OK
  // status `fn` returns.
  Status ForEachDup(MdbDb db, std::string_view key,
                    const std::function<Status(std::string_view value)>& fn);
  // DUPFIXED tables of 8-byte duplicates (the index databases): a cursor
  // that walks them key by key, for merges against keys made elsewhere.
  Result<MdbKeyCursor> KeyCursor(MdbDb db);
  // Removes every pair of `db`, keeping the sub-database.
  Status Drop(MdbDb db);
  // Removes `db` itself from the environment (mdb_drop with delete). Its
  // handle, and the MdbEnv's entry for it, must not be used afterwards.
  Status DeleteDb(MdbDb db);

  Status Commit();
  void Abort();

 private:
  // One MDB_MULTIPLE put of `data` (items of `size` bytes) with `flags`.
  Status PutMultiple(MdbDb db, std::string_view key, std::string_view data, size_t size,
                     unsigned flags, const char* what);
  // The transaction's own cursor on `db`, opened on first use and kept:
  // LMDB starts a lookup from a positioned cursor's page when the key lies
  // on it, so lookups in key order (an index settled key after key) skip
  // the descent from the root. LMDB fixes it up after writes through any
  // other cursor of the transaction.
  Result<void*> CursorOn(MdbDb db);  // MDB_cursor*
  void ForgetCursor(MdbDb db);       // before a drop
  void CloseCursors();
  friend class MdbEnv;
  MdbTxn(const MdbEnv* env, void* txn) : env_(env), txn_(txn) {}
  const MdbEnv* env_ = nullptr;
  void* txn_ = nullptr;         // MDB_txn*
  std::vector<void*> cursors_;  // MDB_cursor* by dbi, null until used
};

// MdbTxn::KeyCursor's cursor: each key of an index database in key order
// with its duplicates read as 8-byte IDs a page at a time. Move-only; must
// not outlive its transaction.
class MdbKeyCursor {
 public:
  MdbKeyCursor(MdbKeyCursor&& other) noexcept;
  MdbKeyCursor& operator=(MdbKeyCursor&& other) noexcept;
  MdbKeyCursor(const MdbKeyCursor&) = delete;
  MdbKeyCursor& operator=(const MdbKeyCursor&) = delete;
  ~MdbKeyCursor();

  // Positions on the first key; valid() is false when there is none.
  Status First();
  // Moves to the next key.
  Status NextKey();
  bool valid() const { return valid_; }
  // REQUIRES: valid(). The view is valid until the cursor moves.
  std::string_view key() const { return key_; }
  // REQUIRES: valid(). The current key's duplicates, in their order, as IDs.
  Status ReadIds(std::vector<uint64_t>* ids);

 private:
  friend class MdbTxn;
  MdbKeyCursor(const MdbEnv* env, void* cursor) : env_(env), cursor_(cursor) {}
  Status Position(int rc);
  const MdbEnv* env_ = nullptr;
  void* cursor_ = nullptr;  // MDB_cursor*
  bool valid_ = false;
  std::string_view key_;
};

class MdbEnv {
 public:
  // Opens (a writer also creates) the environment in the existing directory
  // `dir` and its sub-databases. A reader uses the lock file as mdb_dump
  // does (safe while slapd writes), except when lock.mdb is absent (using it
  // would create it; then nothing uses the environment) or cannot be
  // written (another user's files; then a running slapd is not excluded):
  // then it reads without it (MDB_NOLOCK).
  static Result<std::unique_ptr<MdbEnv>> Open(const std::string& dir, const MdbEnvOptions& options);
  ~MdbEnv();
  MdbEnv(const MdbEnv&) = delete;
  MdbEnv& operator=(const MdbEnv&) = delete;

  MdbDb ad2i() const { return ad2i_; }
  MdbDb dn2i() const { return dn2i_; }
  MdbDb id2e() const { return id2e_; }
  MdbDb id2v() const { return id2v_; }
  // An index database by type name (exact spelling); NotFound if not open.
  Result<MdbDb> Index(std::string_view name) const;
  // Names of the open index databases, sorted.
  std::vector<std::string> index_names() const;

  Result<MdbTxn> Begin(bool write);
  // Flushes to disk (needed after `quick` writes).
  Status Sync();
  // After a commit: starts writing the data file's dirty pages out and
  // flushing them to the disk beside the work (background_flush.h), so that
  // a later Sync has less left to wait for; Sync reports what went wrong.
  void StartWriteback();
  // Waits for the flush StartWriteback asked for; what went wrong with it.
  // Before closing an environment that is not synced.
  Status FinishWriteback();
  // Writes a compact copy of the environment's data file into the existing
  // directory `dir` (mdb_env_copy2), consistent as of one read transaction.
  Status CopyTo(const std::string& dir);

  const std::string& path() const { return path_; }
  // An error status for LMDB return code `rc` during `op`, kStorage.
  Status EngineError(int rc, std::string_view op) const;

 private:
  MdbEnv() = default;
  Status OpenDbs(const MdbEnvOptions& options);

  std::string path_;
  void* env_ = nullptr;  // MDB_env*
  bool read_only_ = false;
  std::unique_ptr<BackgroundFlush> flush_;  // from the first StartWriteback
  MdbDb ad2i_, dn2i_, id2e_, id2v_;
  std::vector<std::pair<std::string, MdbDb>> indexes_;  // sorted by name
};

}  // namespace dirload::mdb
