#include "lib/store/lmdb_store.h"

#include <lmdb.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <utility>

#include "lib/store/background_flush.h"
#include "lib/store/engine_cursor.h"
#include "lib/store/lmdb_error.h"
#include "lib/store/lmdb_file_check.h"
#include "lib/store/store_util.h"
#include "lib/store/tables.h"
#include "lib/util/damage_signal.h"
#include "lib/util/file.h"

namespace dirload {
namespace {

using store_internal::CursorRegistry;
using store_internal::EngineCursor;

constexpr std::string_view kEngine = "lmdb";
constexpr unsigned kMaxTables = 1024;  // dirload needs ~20; the cost is a small array per txn
constexpr uint64_t kMinHeadroom = 64ull << 20;
constexpr uint64_t kMapRounding = 1ull << 20;
// The map reserved when the default cannot be (a limit on address space).
constexpr uint64_t kFallbackMapSize = 1ull << 30;
// Pages a commit may need beyond what the writes account for: the main
// database's records of the changed tables, the free list's own tree.
constexpr uint64_t kCommitSlackPages = 64;

// An LMDB return code as a Status naming the operation, table and path.
Status LmdbError(int rc, std::string_view op, std::string_view table, const std::string& path) {
  rc = LmdbCauseOf(rc, path);
  const StatusCode code = LmdbStatusCode(rc);
  std::string msg = "lmdb: ";
  msg += op;
  if (!table.empty()) {
    msg += '(';
    msg += table;
    msg += ')';
  }
  msg += " in ";
  msg += path;
  msg += ": ";
  msg += LmdbErrorText(rc);
  // A missing key or table is for the caller to judge; every other engine
  // failure is the storage's.
  Status st(code, std::move(msg));
  return code == StatusCode::kNotFound ? st : st.WithOrigin(ErrorOrigin::kStorage);
}

MDB_val Val(std::string_view s) { return MDB_val{s.size(), const_cast<char*>(s.data())}; }
std::string_view View(const MDB_val& v) {
  return std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}

struct EnvCloser {
  void operator()(MDB_env* env) const { mdb_env_close(env); }
};
using EnvHandle = std::unique_ptr<MDB_env, EnvCloser>;

// A transaction that aborts unless committed.
class Txn {
 public:
  Txn() = default;
  Txn(Txn&& other) noexcept : txn_(std::exchange(other.txn_, nullptr)) {}
  Txn& operator=(Txn&& other) noexcept {
    if (this != &other) {
      Abort();
      txn_ = std::exchange(other.txn_, nullptr);
    }
    return *this;
  }
  ~Txn() { Abort(); }

  int Begin(MDB_env* env, unsigned flags) {
    Abort();
    return mdb_txn_begin(env, nullptr, flags, &txn_);
  }
  // The transaction is gone afterwards, whatever the result.
  int Commit() { return mdb_txn_commit(std::exchange(txn_, nullptr)); }
  void Abort() {
    if (txn_ != nullptr) mdb_txn_abort(std::exchange(txn_, nullptr));
  }
  MDB_txn* get() const { return txn_; }
  explicit operator bool() const { return txn_ != nullptr; }

 private:
  MDB_txn* txn_ = nullptr;
};

// A cursor handle. REQUIRES: closed before its transaction ends (LMDB frees
// write-transaction cursors itself at that point).
class CursorHandle {
 public:
  CursorHandle() = default;
  CursorHandle(CursorHandle&& other) noexcept : cursor_(std::exchange(other.cursor_, nullptr)) {}
  CursorHandle& operator=(CursorHandle&& other) noexcept {
    if (this != &other) {
      Close();
      cursor_ = std::exchange(other.cursor_, nullptr);
    }
    return *this;
  }
  ~CursorHandle() { Close(); }

  int Open(MDB_txn* txn, MDB_dbi dbi) {
    Close();
    return mdb_cursor_open(txn, dbi, &cursor_);
  }
  void Close() {
    if (cursor_ != nullptr) mdb_cursor_close(std::exchange(cursor_, nullptr));
  }
  MDB_cursor* get() const { return cursor_; }
  explicit operator bool() const { return cursor_ != nullptr; }

 private:
  MDB_cursor* cursor_ = nullptr;
};

struct LmdbTable {
  explicit LmdbTable(std::string table_name) : name(std::move(table_name)) {}

  // kOpen: dbi is valid. kMissing: the sub-database does not exist (nothing
  // but this store creates tables, so that stays true until it writes one).
  // kUnknown: ask LMDB; after an abort a handle opened in the aborted
  // transaction is gone, so every table goes back to kUnknown.
  enum class State { kUnknown, kMissing, kOpen };

  std::string name;
  State state = State::kUnknown;
  MDB_dbi dbi = 0;
  bool read_only = false;
  // Kept open through the write transaction so that successive MDB_APPENDs
  // find the last page without walking down from the root.
  CursorHandle append_cursor;
};

enum class WriteOp : uint8_t { kPut, kAppend, kDelete, kDrop };

// An upper bound on the new map pages a write transaction can take, so that
// the store commits and grows the map before LMDB would fail with MAP_FULL (a
// transaction that hits MAP_FULL is lost). A write can copy each page on its
// path once per transaction (copy-on-write), split every level of the tree
// and add a root, and take overflow pages for a large value; at commit, every
// page replaced goes on the free list, 8 bytes each. Pages reused from the
// free list only make the real figure smaller.
struct SpaceBudget {
  uint64_t free_pages = 0;      // map pages past the last one in use at begin
  uint64_t existing_pages = 0;  // pages in use at begin: each copied at most once
  uint64_t touched = 0;
  uint64_t fresh = 0;
  uint64_t freed = 0;  // pages of dropped tables
  uint64_t slack = kCommitSlackPages;

  uint64_t Bound(uint32_t page_size) const {
    uint64_t copied = std::min(touched, existing_pages);
    uint64_t free_list = 2 * (copied + freed) * sizeof(uint64_t) / page_size;
    return copied + fresh + free_list + slack;
  }
};

struct WriteCost {
  uint64_t touched = 0;
  uint64_t fresh = 0;
  uint64_t freed = 0;
};

class LmdbStore final : public Store {
 public:
  LmdbStore(std::string path, EnvHandle env, bool read_only)
      : path_(std::move(path)), env_(std::move(env)), read_only_(read_only) {}
  ~LmdbStore() override;

  Status Init();

  Backend backend() const override { return Backend::kLmdb; }
  const std::string& path() const override { return path_; }

  Status Put(std::string_view table, std::string_view key, std::string_view value) override;
  Status Append(std::string_view table, std::string_view key, std::string_view value) override;
  Result<bool> Get(std::string_view table, std::string_view key, std::string* value) override;
  Status Delete(std::string_view table, std::string_view key) override;
  Status DropTable(std::string_view table) override;
  Result<std::vector<std::string>> ListTables() override;
  std::unique_ptr<Cursor> NewCursor(std::string_view table) override;
  Status Commit() override;
  Status Sync() override;
  Status ReopenReadOnly(std::string_view table) override;
  Result<StoreStats> Statistics() override;
  Result<CacheStats> CacheStatistics() override;
  Result<EngineSettings> Settings() override;

  // For LmdbCursor.
  CursorRegistry* registry() { return &registry_; }
  MDB_txn* txn() const { return txn_.get(); }
  // Begins a transaction if needed and opens `table` if it exists: false when
  // it does not.
  Result<bool> PrepareRead(LmdbTable* table);
  Status Error(int rc, std::string_view op, std::string_view table) const {
    return LmdbError(rc, op, table, path_);
  }

 private:
  Result<LmdbTable*> FindTable(std::string_view name);
  Status EnsureTxn();
  // MDB_SUCCESS with the table open, MDB_NOTFOUND when missing and !create.
  int OpenDbi(LmdbTable* table, bool create);
  Result<LmdbTable*> TableForWrite(std::string_view name, std::string_view op);
  WriteCost CostOf(WriteOp op, const MDB_stat& table, std::string_view key,
                   std::string_view value) const;
  // One write, after making sure the map has room for it: commits early and
  // grows the map when the transaction's bound would pass the free space. A
  // delete or drop of something missing succeeds. LMDB's own failures come
  // back as the code in *rc with an OK status.
  Status Write(WriteOp op, LmdbTable* table, std::string_view key, std::string_view value, int* rc);
  // Closes what lives in the current transaction (cursors) before it ends.
  void ReleaseTxnUsers();
  void AbortTxn();
  Status GrowMap(uint64_t min_size);
  // Keeps the free part of the map at least max(64 MB, 4 x the largest
  // transaction's bound, 2 x `pending_pages` pages).
  Status GrowIfLow(uint64_t pending_pages);
  // After a commit without sync: the kernel starts writing its pages out.
  void StartWriteback();
  Status RefreshMapInfo();

  std::string path_;
  EnvHandle env_;
  bool read_only_;
  uint32_t page_size_ = 0;
  uint64_t map_size_ = 0;
  Txn txn_;
  std::map<std::string, std::unique_ptr<LmdbTable>, std::less<>> tables_;
  LmdbTable* last_table_ = nullptr;  // the table most calls in a row name
  CursorRegistry registry_;
  SpaceBudget budget_;  // of the current write transaction
  uint64_t largest_txn_pages_ = 0;
  uint32_t map_growths_ = 0;
  uint32_t early_commits_ = 0;
  // Made at the first commit that starts writeback; gone before the environment.
  std::unique_ptr<BackgroundFlush> flush_;
};

class LmdbCursor final : public EngineCursor {
 public:
  LmdbCursor(LmdbStore* store, LmdbTable* table)
      : EngineCursor(store->registry(), table), store_(store), table_(table) {}

 private:
  Result<bool> OpenHandle() const override {
    DIRLOAD_ASSIGN_OR_RETURN(bool exists, store_->PrepareRead(table_));
    if (!exists) return false;
    int rc = handle_.Open(store_->txn(), table_->dbi);
    if (rc != MDB_SUCCESS) return store_->Error(rc, "mdb_cursor_open", table_->name);
    return true;
  }

  void CloseHandle() const override { handle_.Close(); }

  Result<bool> MoveHandle(Move move, std::string_view target, std::string_view* key,
                          std::string_view* value) const override {
    MDB_val k{0, nullptr};
    MDB_val v{0, nullptr};
    MDB_cursor_op op = MDB_NEXT;
    switch (move) {
      case Move::kFirst:
        op = MDB_FIRST;
        break;
      case Move::kLast:
        op = MDB_LAST;
        break;
      case Move::kSeek:
        op = MDB_SET_RANGE;
        k = Val(target);
        break;
      case Move::kNext:
        op = MDB_NEXT;
        break;
    }
    int rc = mdb_cursor_get(handle_.get(), &k, &v, op);
    if (rc == MDB_NOTFOUND) return false;
    if (rc != MDB_SUCCESS) return store_->Error(rc, "mdb_cursor_get", table_->name);
    *key = View(k);
    *value = View(v);
    return true;
  }

  LmdbStore* store_;
  LmdbTable* table_;
  mutable CursorHandle handle_;
};

LmdbStore::~LmdbStore() {
  registry_.OrphanAll();
  for (auto& [name, table] : tables_) table->append_cursor.Close();
  txn_.Abort();
  uint64_t in_use = 0;
  unsigned flags = 0;
  MDB_envinfo info;
  if (mdb_env_get_flags(env_.get(), &flags) == MDB_SUCCESS && (flags & MDB_WRITEMAP) != 0 &&
      mdb_env_info(env_.get(), &info) == MDB_SUCCESS) {
    in_use = (info.me_last_pgno + 1) * page_size_;
  }
  flush_.reset();
  env_.reset();
  // A writable map made the file as large as the map; no page past the last
  // committed one is referenced, and LMDB reads a shorter file with a larger
  // map, so the rest goes. Failing that leaves a sparse tail, nothing worse.
  if (in_use != 0) (void)::truncate((path_ + "/data.mdb").c_str(), static_cast<off_t>(in_use));
  ClearMappedDatabaseFile(path_ + "/data.mdb");
}

Status LmdbStore::Init() {
  MDB_stat st;
  int rc = mdb_env_stat(env_.get(), &st);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_env_stat", "");
  page_size_ = st.ms_psize;
  if (!read_only_) {
    // Reader slots left by crashed processes would pin old pages forever.
    int dead = 0;
    rc = mdb_reader_check(env_.get(), &dead);
    if (rc != MDB_SUCCESS) return Error(rc, "mdb_reader_check", "");
  }
  return RefreshMapInfo();
}

Status LmdbStore::RefreshMapInfo() {
  MDB_envinfo info;
  int rc = mdb_env_info(env_.get(), &info);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_env_info", "");
  map_size_ = info.me_mapsize;
  return Status::Ok();
}

Result<LmdbTable*> LmdbStore::FindTable(std::string_view name) {
  if (last_table_ != nullptr && last_table_->name == name) return last_table_;
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    Status valid = ValidateTableName(name);
    if (!valid.ok()) return valid.WithPrefix("lmdb: " + path_ + ": ");
    it = tables_.emplace(std::string(name), std::make_unique<LmdbTable>(std::string(name))).first;
  }
  last_table_ = it->second.get();
  return last_table_;
}

Status LmdbStore::EnsureTxn() {
  if (txn_) return Status::Ok();
  int rc = txn_.Begin(env_.get(), read_only_ ? MDB_RDONLY : 0);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_txn_begin", "");
  if (read_only_) return Status::Ok();
  MDB_envinfo info;
  rc = mdb_env_info(env_.get(), &info);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_env_info", "");
  MDB_stat free_db;
  rc = mdb_stat(txn_.get(), 0, &free_db);  // dbi 0: LMDB's free list
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_stat", "free list");
  budget_ = SpaceBudget{};
  budget_.existing_pages = info.me_last_pgno + 1;
  uint64_t map_pages = info.me_mapsize / page_size_;
  budget_.free_pages = map_pages > budget_.existing_pages ? map_pages - budget_.existing_pages : 0;
  budget_.slack += free_db.ms_branch_pages + free_db.ms_leaf_pages + free_db.ms_overflow_pages +
                   4 * tables_.size();
  return Status::Ok();
}

int LmdbStore::OpenDbi(LmdbTable* table, bool create) {
  MDB_dbi dbi = 0;
  int rc = mdb_dbi_open(txn_.get(), table->name.c_str(), create ? MDB_CREATE : 0, &dbi);
  if (rc == MDB_SUCCESS) {
    table->dbi = dbi;
    table->state = LmdbTable::State::kOpen;
  } else if (rc == MDB_NOTFOUND) {
    table->state = LmdbTable::State::kMissing;
  }
  return rc;
}

Result<bool> LmdbStore::PrepareRead(LmdbTable* table) {
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  if (table->state == LmdbTable::State::kUnknown) {
    int rc = OpenDbi(table, false);
    if (rc != MDB_SUCCESS && rc != MDB_NOTFOUND) return Error(rc, "mdb_dbi_open", table->name);
  }
  return table->state == LmdbTable::State::kOpen;
}

Result<LmdbTable*> LmdbStore::TableForWrite(std::string_view name, std::string_view op) {
  if (read_only_) return store_internal::ReadOnlyError(kEngine, op, name, path_, true);
  DIRLOAD_ASSIGN_OR_RETURN(LmdbTable * table, FindTable(name));
  if (table->read_only) return store_internal::ReadOnlyError(kEngine, op, name, path_, false);
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  return table;
}

WriteCost LmdbStore::CostOf(WriteOp op, const MDB_stat& table, std::string_view key,
                            std::string_view value) const {
  uint64_t path = table.ms_depth + 1;
  uint64_t splits = table.ms_depth + 2;
  WriteCost c;
  switch (op) {
    case WriteOp::kPut:
    case WriteOp::kAppend: {
      c.touched = path;
      c.fresh = splits;
      // A node larger than about half a page moves its value to overflow pages.
      size_t node = 8 + key.size() + value.size();
      if (node > page_size_ / 2 - 32) c.fresh += (value.size() + 16 + page_size_ - 1) / page_size_;
      break;
    }
    case WriteOp::kDelete:
      // Rebalancing copies the siblings too, and a changed separator can split.
      c.touched = 2 * path;
      c.fresh = splits;
      break;
    case WriteOp::kDrop:
      c.touched = 8;
      c.fresh = 8;
      c.freed = table.ms_branch_pages + table.ms_leaf_pages + table.ms_overflow_pages;
      break;
  }
  return c;
}

Status LmdbStore::Write(WriteOp op, LmdbTable* table, std::string_view key, std::string_view value,
                        int* rc) {
  bool create = op == WriteOp::kPut || op == WriteOp::kAppend;
  if (table->state != LmdbTable::State::kOpen) {
    *rc = OpenDbi(table, create);
    if (*rc == MDB_NOTFOUND && !create) *rc = MDB_SUCCESS;
    if (*rc != MDB_SUCCESS || table->state != LmdbTable::State::kOpen) return Status::Ok();
  }
  MDB_stat st;
  *rc = mdb_stat(txn_.get(), table->dbi, &st);
  if (*rc != MDB_SUCCESS) return Status::Ok();
  WriteCost cost = CostOf(op, st, key, value);
  SpaceBudget after = budget_;
  after.touched += cost.touched;
  after.fresh += cost.fresh;
  after.freed += cost.freed;
  if (after.Bound(page_size_) > budget_.free_pages) {
    // The batch may outgrow the map: commit it in two parts and grow between.
    uint64_t pending = after.Bound(page_size_) - budget_.Bound(page_size_) + kCommitSlackPages;
    ++early_commits_;
    DIRLOAD_RETURN_IF_ERROR(Commit());
    DIRLOAD_RETURN_IF_ERROR(GrowIfLow(pending));
    DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
    after = budget_;
    after.touched += cost.touched;
    after.fresh += cost.fresh;
    after.freed += cost.freed;
    if (after.Bound(page_size_) > budget_.free_pages) {
      return Status::Internal("lmdb: " + path_ + ": no room for one write to " + table->name +
                              " after growing the map to " + std::to_string(map_size_) + " bytes");
    }
  }
  budget_ = after;

  MDB_val k = Val(key);
  MDB_val v = Val(value);
  switch (op) {
    case WriteOp::kPut:
      *rc = mdb_put(txn_.get(), table->dbi, &k, &v, 0);
      break;
    case WriteOp::kAppend:
      *rc = MDB_SUCCESS;
      if (!table->append_cursor) *rc = table->append_cursor.Open(txn_.get(), table->dbi);
      if (*rc == MDB_SUCCESS) {
        *rc = mdb_cursor_put(table->append_cursor.get(), &k, &v, MDB_APPEND);
      }
      break;
    case WriteOp::kDelete:
      *rc = mdb_del(txn_.get(), table->dbi, &k, nullptr);
      if (*rc == MDB_NOTFOUND) *rc = MDB_SUCCESS;
      break;
    case WriteOp::kDrop:
      registry_.DetachTable(table);
      table->append_cursor.Close();
      *rc = mdb_drop(txn_.get(), table->dbi, 1);
      // mdb_drop closes the handle at once, whatever becomes of the txn.
      table->state = LmdbTable::State::kUnknown;
      break;
  }
  if (*rc == MDB_MAP_FULL) {
    // The bound above was wrong: a bug, not a condition to handle. LMDB has
    // made the transaction unusable.
    Status lost = Error(*rc, "write", table->name);
    AbortTxn();
    return Status::Internal(
        lost.message() + " (the store's space bound was exceeded; the uncommitted batch is lost)");
  }
  return Status::Ok();
}

void LmdbStore::ReleaseTxnUsers() {
  registry_.DetachAll();
  for (auto& [name, table] : tables_) table->append_cursor.Close();
}

void LmdbStore::AbortTxn() {
  ReleaseTxnUsers();
  txn_.Abort();
  for (auto& [name, table] : tables_) table->state = LmdbTable::State::kUnknown;
}

Status LmdbStore::GrowMap(uint64_t min_size) {
  uint64_t size = std::max(min_size, map_size_ * 2);
  size = (size + kMapRounding - 1) / kMapRounding * kMapRounding;
  int rc = mdb_env_set_mapsize(env_.get(), size);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_env_set_mapsize", "");
  ++map_growths_;
  return RefreshMapInfo();
}

Status LmdbStore::GrowIfLow(uint64_t pending_pages) {
  MDB_envinfo info;
  int rc = mdb_env_info(env_.get(), &info);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_env_info", "");
  uint64_t used = (info.me_last_pgno + 1) * page_size_;
  uint64_t want_free =
      std::max({kMinHeadroom, 4 * largest_txn_pages_ * page_size_, 2 * pending_pages * page_size_});
  if (info.me_mapsize >= used && info.me_mapsize - used >= want_free) return Status::Ok();
  return GrowMap(used + 2 * want_free);
}

Status LmdbStore::Put(std::string_view table, std::string_view key, std::string_view value) {
  DIRLOAD_RETURN_IF_ERROR(store_internal::CheckKey(kEngine, "put", table, path_, key));
  DIRLOAD_ASSIGN_OR_RETURN(LmdbTable * t, TableForWrite(table, "put"));
  int rc = MDB_SUCCESS;
  DIRLOAD_RETURN_IF_ERROR(Write(WriteOp::kPut, t, key, value, &rc));
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_put", t->name);
  return Status::Ok();
}

Status LmdbStore::Append(std::string_view table, std::string_view key, std::string_view value) {
  DIRLOAD_RETURN_IF_ERROR(store_internal::CheckKey(kEngine, "append", table, path_, key));
  DIRLOAD_ASSIGN_OR_RETURN(LmdbTable * t, TableForWrite(table, "append"));
  int rc = MDB_SUCCESS;
  DIRLOAD_RETURN_IF_ERROR(Write(WriteOp::kAppend, t, key, value, &rc));
  if (rc == MDB_SUCCESS) return Status::Ok();
  if (rc == MDB_KEYEXIST) {
    // MDB_APPEND refuses a key not above the last one; say which keys.
    MDB_val k{0, nullptr};
    MDB_val v{0, nullptr};
    int last_rc = mdb_cursor_get(t->append_cursor.get(), &k, &v, MDB_LAST);
    if (last_rc != MDB_SUCCESS) return Error(last_rc, "mdb_cursor_get", t->name);
    return store_internal::AppendOrderError(kEngine, t->name, path_, key, View(k));
  }
  return Error(rc, "mdb_cursor_put(MDB_APPEND)", t->name);
}

Result<bool> LmdbStore::Get(std::string_view table, std::string_view key, std::string* value) {
  DIRLOAD_RETURN_IF_ERROR(store_internal::CheckKey(kEngine, "get", table, path_, key));
  DIRLOAD_ASSIGN_OR_RETURN(LmdbTable * t, FindTable(table));
  DIRLOAD_ASSIGN_OR_RETURN(bool exists, PrepareRead(t));
  if (!exists) return false;
  MDB_val k = Val(key);
  MDB_val v{0, nullptr};
  int rc = mdb_get(txn_.get(), t->dbi, &k, &v);
  if (rc == MDB_NOTFOUND) return false;
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_get", t->name);
  value->assign(static_cast<const char*>(v.mv_data), v.mv_size);
  return true;
}

Status LmdbStore::Delete(std::string_view table, std::string_view key) {
  DIRLOAD_RETURN_IF_ERROR(store_internal::CheckKey(kEngine, "delete", table, path_, key));
  DIRLOAD_ASSIGN_OR_RETURN(LmdbTable * t, TableForWrite(table, "delete"));
  int rc = MDB_SUCCESS;
  DIRLOAD_RETURN_IF_ERROR(Write(WriteOp::kDelete, t, key, {}, &rc));
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_del", t->name);
  return Status::Ok();
}

Status LmdbStore::DropTable(std::string_view table) {
  if (read_only_) return store_internal::ReadOnlyError(kEngine, "drop", table, path_, true);
  DIRLOAD_ASSIGN_OR_RETURN(LmdbTable * t, FindTable(table));
  DIRLOAD_RETURN_IF_ERROR(Commit());
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  int rc = MDB_SUCCESS;
  DIRLOAD_RETURN_IF_ERROR(Write(WriteOp::kDrop, t, {}, {}, &rc));
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_drop", t->name);
  t->read_only = false;
  return Commit();
}

Result<std::vector<std::string>> LmdbStore::ListTables() {
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  MDB_dbi main_dbi = 0;
  int rc = mdb_dbi_open(txn_.get(), nullptr, 0, &main_dbi);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_dbi_open", "main");
  CursorHandle cursor;
  rc = cursor.Open(txn_.get(), main_dbi);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_cursor_open", "main");
  // The main database holds nothing but the names of the sub-databases.
  std::vector<std::string> names;
  MDB_val k{0, nullptr};
  MDB_val v{0, nullptr};
  for (rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_FIRST); rc == MDB_SUCCESS;
       rc = mdb_cursor_get(cursor.get(), &k, &v, MDB_NEXT)) {
    names.emplace_back(View(k));
  }
  if (rc != MDB_NOTFOUND) return Error(rc, "mdb_cursor_get", "main");
  return names;
}

std::unique_ptr<Cursor> LmdbStore::NewCursor(std::string_view table) {
  Result<LmdbTable*> t = FindTable(table);
  if (!t.ok()) return store_internal::NewErrorCursor(t.status());
  return std::make_unique<LmdbCursor>(this, *t);
}

Status LmdbStore::Commit() {
  if (!txn_) return Status::Ok();
  ReleaseTxnUsers();
  if (read_only_) {
    // Committing (not aborting) a read transaction keeps the table handles
    // it opened; tables missing from the old snapshot may exist in the next.
    int rc = txn_.Commit();
    for (auto& [name, table] : tables_) {
      if (table->state == LmdbTable::State::kMissing) table->state = LmdbTable::State::kUnknown;
    }
    if (rc != MDB_SUCCESS) return Error(rc, "mdb_txn_commit", "");
    return Status::Ok();
  }
  uint64_t bound = budget_.Bound(page_size_);
  int rc = txn_.Commit();
  if (rc != MDB_SUCCESS) {
    for (auto& [name, table] : tables_) table->state = LmdbTable::State::kUnknown;
    return Error(rc, "mdb_txn_commit", "");
  }
  largest_txn_pages_ = std::max(largest_txn_pages_, bound);
  StartWriteback();
  return GrowIfLow(0);
}

void LmdbStore::StartWriteback() {
  // Without a sync per commit the kernel keeps the pages written until the
  // final sync, which then waits for the whole file at the disk's speed
  // (background writeback starts only past a tenth of memory), and the disk
  // keeps them in its cache until a flush. Both are started at each commit
  // and go on beside the load (background_flush.h). Not through a writable
  // map: writing back its pages would make the next write to each fault again.
  if (flush_ == nullptr) {
    flush_ = NewLmdbFlush(env_.get(), path_, /*through_writable_map=*/false);
    if (flush_ == nullptr) return;
  }
  flush_->Kick();
}

Status LmdbStore::Sync() {
  DIRLOAD_RETURN_IF_ERROR(Commit());
  if (read_only_) return Status::Ok();
  if (flush_ != nullptr) DIRLOAD_RETURN_IF_ERROR(flush_->Drain());
  int rc = mdb_env_sync(env_.get(), 1);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_env_sync", "");
  return store_internal::SyncDirectory(kEngine, path_);
}

Status LmdbStore::ReopenReadOnly(std::string_view table) {
  DIRLOAD_ASSIGN_OR_RETURN(LmdbTable * t, FindTable(table));
  DIRLOAD_RETURN_IF_ERROR(Commit());
  // LMDB reads every table through the same map; there is nothing to reopen.
  t->read_only = true;
  return Status::Ok();
}

Result<StoreStats> LmdbStore::Statistics() {
  StoreStats stats;
  stats.backend = Backend::kLmdb;
  stats.path = path_;
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> names, ListTables());
  for (const std::string& name : names) {
    DIRLOAD_ASSIGN_OR_RETURN(LmdbTable * t, FindTable(name));
    DIRLOAD_ASSIGN_OR_RETURN(bool exists, PrepareRead(t));
    if (!exists) continue;
    MDB_stat st;
    int rc = mdb_stat(txn_.get(), t->dbi, &st);
    if (rc != MDB_SUCCESS) return Error(rc, "mdb_stat", name);
    TableStats ts;
    ts.name = name;
    ts.entries = st.ms_entries;
    ts.page_size = st.ms_psize;
    ts.depth = st.ms_depth;
    ts.branch_pages = st.ms_branch_pages;
    ts.leaf_pages = st.ms_leaf_pages;
    ts.overflow_pages = st.ms_overflow_pages;
    ts.bytes = (ts.branch_pages + ts.leaf_pages + ts.overflow_pages) * ts.page_size;
    stats.tables.push_back(std::move(ts));
  }
  MDB_envinfo info;
  int rc = mdb_env_info(env_.get(), &info);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_env_info", "");
  stats.map_size = info.me_mapsize;
  stats.map_used = (info.me_last_pgno + 1) * page_size_;
  stats.map_growths = map_growths_;
  stats.early_commits = early_commits_;
  stats.file_bytes = store_internal::FileSize(path_ + "/data.mdb");
  return stats;
}

Result<CacheStats> LmdbStore::CacheStatistics() {
  return CacheStats{};  // not available: LMDB reads through the kernel's page cache
}

Result<EngineSettings> LmdbStore::Settings() {
  unsigned flags = 0;
  int rc = mdb_env_get_flags(env_.get(), &flags);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_env_get_flags", "");
  MDB_envinfo info;
  rc = mdb_env_info(env_.get(), &info);
  if (rc != MDB_SUCCESS) return Error(rc, "mdb_env_info", "");
  EngineSettings s;
  s.backend = Backend::kLmdb;
  s.read_only = read_only_;
  s.transactional = true;
  s.sync_on_commit = (flags & MDB_NOSYNC) == 0 && !read_only_;
  s.map_size = info.me_mapsize;
  s.no_readahead = (flags & MDB_NORDAHEAD) != 0;
  s.write_map = (flags & MDB_WRITEMAP) != 0;
  for (const auto& [name, table] : tables_) {
    if (table->state != LmdbTable::State::kOpen) continue;
    TableSettings ts;
    ts.name = name;
    ts.page_size = page_size_;
    ts.read_only = read_only_ || table->read_only;
    s.tables.push_back(std::move(ts));
  }
  return s;
}

// Opens the environment; `flags` are the mdb_env_open flags. `map_size` 0
// keeps the size recorded in the file.
int OpenEnv(const std::string& dir, uint64_t map_size, unsigned flags, EnvHandle* out) {
  MDB_env* raw = nullptr;
  int rc = mdb_env_create(&raw);
  if (rc != MDB_SUCCESS) return rc;
  EnvHandle env(raw);
  ReportLmdbAssertionsAsDamage(env.get());
  rc = mdb_env_set_maxdbs(env.get(), kMaxTables);
  if (rc != MDB_SUCCESS) return rc;
  if (map_size != 0) {
    rc = mdb_env_set_mapsize(env.get(), map_size);
    if (rc != MDB_SUCCESS) return rc;
  }
  // Readable by its owner alone, as slapadd creates data.mdb: it holds
  // password hashes.
  rc = mdb_env_open(env.get(), dir.c_str(), flags, 0600);
  if (rc != MDB_SUCCESS) return rc;
  *out = std::move(env);
  return MDB_SUCCESS;
}

}  // namespace

Result<std::unique_ptr<Store>> OpenLmdbStore(const std::string& dir, const StoreOptions& options) {
  if (options.create && options.read_only) {
    return Status::InvalidArgument("lmdb: " + dir + ": create and read_only exclude each other");
  }
  DIRLOAD_RETURN_IF_ERROR(store_internal::PrepareDirectory(kEngine, dir, options.create));
  if (!options.create && !store_internal::FileExists(dir + "/data.mdb")) {
    return Status::NotFound("lmdb: " + dir + ": no LMDB database here (data.mdb is missing)");
  }
  // LMDB maps the file and trusts it: a file cut short would fault on the
  // first read past its end.
  const std::string data_file = dir + "/data.mdb";
  DIRLOAD_RETURN_IF_ERROR(CheckLmdbDataFile(data_file));
  // MDB_NOTLS: read transactions are tied to this store, not to a thread.
  unsigned flags = MDB_NOTLS;
  if (options.lmdb_no_readahead) flags |= MDB_NORDAHEAD;
  const bool write_map = options.lmdb_write_map && !options.read_only && !options.durable &&
                         !store_internal::FileExists(data_file);
  if (options.read_only) {
    flags |= MDB_RDONLY;
  } else if (!options.durable) {
    flags |= MDB_NOSYNC | MDB_NOMETASYNC;
  }
  if (write_map) flags |= MDB_WRITEMAP;
  EnvHandle env;
  uint64_t map_size = 0;
  if (options.lmdb_map_size != 0 && !options.read_only) {
    map_size = options.lmdb_map_size;
  } else if (write_map) {
    map_size = kDefaultLmdbWriteMapSize;
  } else if (!options.read_only) {
    map_size = kDefaultLmdbMapSize;
  }
  int rc = OpenEnv(dir, map_size, flags, &env);
  if (rc == ENOMEM && !options.read_only && options.lmdb_map_size == 0) {
    // Not enough address space for the default reservation (ulimit -v).
    rc = OpenEnv(dir, kFallbackMapSize, flags, &env);
  }
  if (options.read_only && rc == EACCES) {
    // No permission to open the lock file: read without it.
    rc = OpenEnv(dir, 0, flags | MDB_NOLOCK, &env);
  }
  if (rc != MDB_SUCCESS) return LmdbError(rc, "mdb_env_open", "", dir);
  if (!options.read_only) {
    DIRLOAD_ASSIGN_OR_RETURN(FileOwner owner, OwnerOf(dir));
    DIRLOAD_RETURN_IF_ERROR(GiveFilesTo(dir, {"data.mdb", "lock.mdb"}, owner));
  }
  RegisterMappedDatabaseFile(data_file);
  auto store = std::make_unique<LmdbStore>(dir, std::move(env), options.read_only);
  DIRLOAD_RETURN_IF_ERROR(store->Init());
  return std::unique_ptr<Store>(std::move(store));
}

}  // namespace dirload
