#include "lib/store/bdb_store.h"

#include <db.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include "lib/store/engine_cursor.h"
#include "lib/store/store_util.h"
#include "lib/store/tables.h"
#include "lib/util/damage_signal.h"

namespace dirload {
namespace {

using store_internal::CursorRegistry;
using store_internal::EngineCursor;

constexpr std::string_view kEngine = "bdb";
constexpr std::string_view kFileSuffix = ".bdb";
// A durable transaction holds a lock per page it writes; a batch of a few
// thousand entries touches more pages than the default table allows.
constexpr u_int32_t kMaxLocks = 200000;
// The pool's mapping limit when set_mp_mmapsize is not called.
constexpr uint64_t kBdbDefaultMmapSize = 10ull << 20;

// Berkeley DB reports detail through its error callback before returning a
// code; the store keeps the latest message here to put into the Status.
struct ErrorSink {
  std::string last;
};

void OnBdbError(const DB_ENV* env, const char* /*prefix*/, const char* message) {
  auto* sink = static_cast<ErrorSink*>(env->app_private);
  if (sink != nullptr && message != nullptr) sink->last = message;
}

// The system error a failed write or read left in Berkeley DB's message: the
// engine often returns DB_RUNRECOVERY (it stops the environment after a
// failed write) and names the cause only there. 0 when there is none.
int SystemCauseIn(std::string_view detail) {
  for (int e : {ENOSPC, EFBIG, EIO}) {
    if (detail.find(std::strerror(e)) != std::string_view::npos) return e;
  }
  return 0;
}

// The one place a Berkeley DB return code becomes a Status.
Status BdbError(int rc, std::string_view op, std::string_view table, const std::string& path,
                ErrorSink* sink) {
  std::string detail;
  if (sink != nullptr) detail = std::exchange(sink->last, std::string());
  const int cause = SystemCauseIn(detail);
  if (cause != 0) rc = cause;
  // A page whose checksum fails, or a file the engine cannot make sense of.
  const bool damaged =
      cause == 0 && (rc == DB_VERIFY_BAD || rc == DB_PAGE_NOTFOUND ||
                     detail.find("checksum") != std::string::npos ||
                     (rc == DB_RUNRECOVERY && detail.find("page") != std::string::npos));
  StatusCode code = StatusCode::kIoError;
  switch (rc) {
    case DB_NOTFOUND:
    case ENOENT:
      code = StatusCode::kNotFound;
      break;
    case DB_KEYEXIST:
      code = StatusCode::kAlreadyExists;
      break;
    case DB_RUNRECOVERY:
    case DB_VERIFY_BAD:
    case DB_PAGE_NOTFOUND:
    case DB_SECONDARY_BAD:
      code = StatusCode::kCorruption;
      break;
    case ENOMEM:
    case ENOSPC:
    case EFBIG:
    case DB_LOCK_NOTGRANTED:
    case DB_LOCK_DEADLOCK:
      code = StatusCode::kResourceExhausted;
      break;
    case EINVAL:
      code = StatusCode::kInvalidArgument;
      break;
    default:
      break;
  }
  std::string msg = "bdb: ";
  msg += op;
  if (!table.empty()) {
    msg += '(';
    msg += table;
    msg += ')';
  }
  msg += " in ";
  msg += path;
  msg += ": ";
  if (damaged) {
    code = StatusCode::kCorruption;
    msg += "database file damaged: ";
    msg += path;
    if (!table.empty()) {
      msg += '/';
      msg += table;
      msg += kFileSuffix;
    }
    msg += " (";
    msg += detail.empty() ? std::string(db_strerror(rc)) : detail;
    msg += "); restore a copy or load again";
  } else {
    msg += db_strerror(rc);
    if (!detail.empty()) {
      msg += " (";
      msg += detail;
      msg += ')';
    }
  }
  // A missing key or table is for the caller to judge; every other engine
  // failure is the storage's.
  Status st(code, std::move(msg));
  return code == StatusCode::kNotFound ? st : st.WithOrigin(ErrorOrigin::kStorage);
}

DBT Dbt(std::string_view s) {
  DBT d{};
  d.data = const_cast<char*>(s.data());
  d.size = static_cast<u_int32_t>(s.size());
  return d;
}
std::string_view View(const DBT& d) {
  return std::string_view(static_cast<const char*>(d.data), d.size);
}

DB_CACHE_PRIORITY ToBdb(CachePriority p) {
  switch (p) {
    case CachePriority::kVeryLow:
      return DB_PRIORITY_VERY_LOW;
    case CachePriority::kLow:
      return DB_PRIORITY_LOW;
    case CachePriority::kHigh:
      return DB_PRIORITY_HIGH;
    case CachePriority::kVeryHigh:
      return DB_PRIORITY_VERY_HIGH;
    case CachePriority::kDefault:
      break;
  }
  return DB_PRIORITY_DEFAULT;
}

CachePriority FromBdb(DB_CACHE_PRIORITY p) {
  switch (p) {
    case DB_PRIORITY_VERY_LOW:
      return CachePriority::kVeryLow;
    case DB_PRIORITY_LOW:
      return CachePriority::kLow;
    case DB_PRIORITY_HIGH:
      return CachePriority::kHigh;
    case DB_PRIORITY_VERY_HIGH:
      return CachePriority::kVeryHigh;
    default:
      return CachePriority::kDefault;
  }
}

// Memory Berkeley DB allocated for statistics, released with free().
struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
template <typename T>
using StatPtr = std::unique_ptr<T, FreeDeleter>;

struct EnvCloser {
  void operator()(DB_ENV* env) const { env->close(env, 0); }
};
using EnvHandle = std::unique_ptr<DB_ENV, EnvCloser>;

// A database handle; closing flushes the file's dirty pages from the pool.
class DbHandle {
 public:
  DbHandle() = default;
  explicit DbHandle(DB* db) : db_(db) {}
  DbHandle(DbHandle&& other) noexcept : db_(std::exchange(other.db_, nullptr)) {}
  DbHandle& operator=(DbHandle&& other) noexcept {
    if (this != &other) {
      Close(0);
      db_ = std::exchange(other.db_, nullptr);
    }
    return *this;
  }
  ~DbHandle() { Close(0); }

  // The handle is gone afterwards, whatever the result.
  int Close(u_int32_t flags) {
    if (db_ == nullptr) return 0;
    DB* db = std::exchange(db_, nullptr);
    return db->close(db, flags);
  }
  DB* get() const { return db_; }
  explicit operator bool() const { return db_ != nullptr; }

 private:
  DB* db_ = nullptr;
};

// A transaction that aborts unless committed.
class TxnHandle {
 public:
  TxnHandle() = default;
  TxnHandle(TxnHandle&& other) noexcept : txn_(std::exchange(other.txn_, nullptr)) {}
  TxnHandle& operator=(TxnHandle&& other) noexcept {
    if (this != &other) {
      Abort();
      txn_ = std::exchange(other.txn_, nullptr);
    }
    return *this;
  }
  ~TxnHandle() { Abort(); }

  int Begin(DB_ENV* env) {
    Abort();
    return env->txn_begin(env, nullptr, &txn_, 0);
  }
  // The transaction is gone afterwards, whatever the result.
  int Commit() {
    DB_TXN* txn = std::exchange(txn_, nullptr);
    return txn->commit(txn, 0);
  }
  void Abort() {
    if (txn_ == nullptr) return;
    DB_TXN* txn = std::exchange(txn_, nullptr);
    txn->abort(txn);
  }
  DB_TXN* get() const { return txn_; }
  explicit operator bool() const { return txn_ != nullptr; }

 private:
  DB_TXN* txn_ = nullptr;
};

// A cursor handle. REQUIRES: closed before its transaction ends and before
// its database handle closes.
class DbcHandle {
 public:
  DbcHandle() = default;
  DbcHandle(DbcHandle&& other) noexcept : dbc_(std::exchange(other.dbc_, nullptr)) {}
  DbcHandle& operator=(DbcHandle&& other) noexcept {
    if (this != &other) {
      Close();
      dbc_ = std::exchange(other.dbc_, nullptr);
    }
    return *this;
  }
  ~DbcHandle() { Close(); }

  int Open(DB* db, DB_TXN* txn) {
    Close();
    return db->cursor(db, txn, &dbc_, 0);
  }
  void Close() {
    if (dbc_ == nullptr) return;
    DBC* dbc = std::exchange(dbc_, nullptr);
    dbc->close(dbc);
  }
  DBC* get() const { return dbc_; }

 private:
  DBC* dbc_ = nullptr;
};

struct BdbTable {
  explicit BdbTable(std::string table_name)
      : name(std::move(table_name)), file(name + std::string(kFileSuffix)) {}

  // kOpen: db is usable. kMissing: no file (only this store creates them).
  enum class State { kUnknown, kMissing, kOpen };

  std::string name;
  std::string file;  // relative to the environment's home, the store directory
  State state = State::kUnknown;
  DbHandle db;
  bool read_only = false;
  // The greatest key, kept so that Append can check its REQUIRES without a
  // lookup per call. Empty while unknown.
  bool last_key_known = false;
  std::string last_key;
};

class BdbStore final : public Store {
 public:
  BdbStore(std::string path, const StoreOptions& options, std::unique_ptr<ErrorSink> sink,
           EnvHandle env, bool read_only, bool transactional)
      : path_(std::move(path)),
        options_(options),
        sink_(std::move(sink)),
        env_(std::move(env)),
        read_only_(read_only),
        transactional_(transactional) {}
  ~BdbStore() override;

  Backend backend() const override { return Backend::kBdb; }
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

  // For BdbCursor.
  CursorRegistry* registry() { return &registry_; }
  DB_TXN* txn() const { return txn_.get(); }
  // Begins a transaction if needed and opens `table` if it exists: false when
  // it does not.
  Result<bool> PrepareRead(BdbTable* table);
  Status Error(int rc, std::string_view op, std::string_view table) const {
    return BdbError(rc, op, table, path_, sink_.get());
  }

 private:
  Result<BdbTable*> FindTable(std::string_view name);
  Status EnsureTxn();
  // 0 with the table open; ENOENT when it does not exist and !create.
  int OpenDb(BdbTable* table, bool create);
  Result<BdbTable*> TableForWrite(std::string_view name, std::string_view op);
  Status LoadLastKey(BdbTable* table);
  void ForgetLastKeys();

  std::string path_;
  StoreOptions options_;
  std::unique_ptr<ErrorSink> sink_;  // outlives env_, whose callback writes to it
  EnvHandle env_;
  bool read_only_;
  bool transactional_;
  TxnHandle txn_;
  std::map<std::string, std::unique_ptr<BdbTable>, std::less<>> tables_;
  BdbTable* last_table_ = nullptr;  // the table most calls in a row name
  CursorRegistry registry_;
};

class BdbCursor final : public EngineCursor {
 public:
  BdbCursor(BdbStore* store, BdbTable* table)
      : EngineCursor(store->registry(), table), store_(store), table_(table) {}

 private:
  Result<bool> OpenHandle() const override {
    DIRLOAD_ASSIGN_OR_RETURN(bool exists, store_->PrepareRead(table_));
    if (!exists) return false;
    int rc = handle_.Open(table_->db.get(), store_->txn());
    if (rc != 0) return store_->Error(rc, "DB->cursor", table_->name);
    return true;
  }

  void CloseHandle() const override { handle_.Close(); }

  Result<bool> MoveHandle(Move move, std::string_view target, std::string_view* key,
                          std::string_view* value) const override {
    // Without DB_DBT_* flags the cursor returns its own buffers, valid until
    // it moves again: what Cursor promises.
    DBT k{};
    DBT v{};
    u_int32_t flag = DB_NEXT;
    switch (move) {
      case Move::kFirst:
        flag = DB_FIRST;
        break;
      case Move::kLast:
        flag = DB_LAST;
        break;
      case Move::kSeek:
        flag = DB_SET_RANGE;
        k = Dbt(target);
        break;
      case Move::kNext:
        flag = DB_NEXT;
        break;
    }
    DBC* dbc = handle_.get();
    int rc = dbc->get(dbc, &k, &v, flag);
    if (rc == DB_NOTFOUND) return false;
    if (rc != 0) return store_->Error(rc, "DBC->get", table_->name);
    *key = View(k);
    *value = View(v);
    return true;
  }

  BdbStore* store_;
  BdbTable* table_;
  mutable DbcHandle handle_;
};

BdbStore::~BdbStore() {
  registry_.OrphanAll();
  txn_.Abort();
  tables_.clear();  // closes the databases before the environment
  ClearMappedDatabaseFile(path_);
}

Result<BdbTable*> BdbStore::FindTable(std::string_view name) {
  if (last_table_ != nullptr && last_table_->name == name) return last_table_;
  auto it = tables_.find(name);
  if (it == tables_.end()) {
    Status valid = ValidateTableName(name);
    if (!valid.ok()) return valid.WithPrefix("bdb: " + path_ + ": ");
    it = tables_.emplace(std::string(name), std::make_unique<BdbTable>(std::string(name))).first;
  }
  last_table_ = it->second.get();
  return last_table_;
}

Status BdbStore::EnsureTxn() {
  if (!transactional_ || txn_) return Status::Ok();
  int rc = txn_.Begin(env_.get());
  if (rc != 0) return Error(rc, "DB_ENV->txn_begin", "");
  return Status::Ok();
}

int BdbStore::OpenDb(BdbTable* table, bool create) {
  DB* raw = nullptr;
  int rc = db_create(&raw, env_.get(), 0);
  if (rc != 0) return rc;
  DbHandle db(raw);
  uint32_t page_size = options_.bdb_page_size;
  if (page_size == 0 && table->name == kId2EntryTable) page_size = kBdbId2EntryPageSize;
  if (create && page_size != 0) {
    rc = raw->set_pagesize(raw, page_size);
    if (rc != 0) return rc;
  }
  bool read_only = read_only_ || table->read_only;
  u_int32_t flags = 0;
  if (create && !read_only) flags |= DB_CREATE;
  if (read_only) flags |= DB_RDONLY;
  // Page checksums: a damaged page is then an error, not a crash in the
  // engine. Recorded in the file when it is created; for an existing file the
  // engine keeps what the file says, so older tables open as before.
  // The engine does not map files whose pages it must check, so id2entry,
  // the table phase 2 maps read-only when asked (--mmap, the cache
  // experiments), goes without, as does every table of a store opened to be
  // mapped; a fault reading them still ends as a damaged file does
  // (damage_signal.h), and a damaged entry fails to decode.
  if (options_.bdb_mmap_size == 0 && table->name != kId2EntryTable) {
    rc = raw->set_flags(raw, DB_CHKSUM);
    if (rc != 0) return rc;
  }
  // A handle must be opened transactionally to take part in transactions.
  if (transactional_) flags |= DB_AUTO_COMMIT;
  rc = raw->open(raw, nullptr, table->file.c_str(), nullptr, DB_BTREE, flags, 0600);
  if (rc == ENOENT && !create) {
    table->state = BdbTable::State::kMissing;
    return rc;
  }
  if (rc != 0) return rc;
  if (table->name == kId2EntryTable && options_.bdb_id2entry_priority != CachePriority::kDefault) {
    DB_MPOOLFILE* mpf = raw->get_mpf(raw);
    rc = mpf->set_priority(mpf, ToBdb(options_.bdb_id2entry_priority));
    if (rc != 0) return rc;
  }
  table->db = std::move(db);
  table->state = BdbTable::State::kOpen;
  return 0;
}

Result<bool> BdbStore::PrepareRead(BdbTable* table) {
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  if (table->state == BdbTable::State::kUnknown) {
    int rc = OpenDb(table, false);
    if (rc != 0 && rc != ENOENT) return Error(rc, "DB->open", table->name);
  }
  return table->state == BdbTable::State::kOpen;
}

Result<BdbTable*> BdbStore::TableForWrite(std::string_view name, std::string_view op) {
  if (read_only_) return store_internal::ReadOnlyError(kEngine, op, name, path_, true);
  DIRLOAD_ASSIGN_OR_RETURN(BdbTable * table, FindTable(name));
  if (table->read_only) return store_internal::ReadOnlyError(kEngine, op, name, path_, false);
  DIRLOAD_RETURN_IF_ERROR(EnsureTxn());
  if (table->state != BdbTable::State::kOpen) {
    int rc = OpenDb(table, true);
    if (rc != 0) return Error(rc, "DB->open", table->name);
  }
  return table;
}

Status BdbStore::LoadLastKey(BdbTable* table) {
  DbcHandle cursor;
  int rc = cursor.Open(table->db.get(), txn_.get());
  if (rc != 0) return Error(rc, "DB->cursor", table->name);
  DBT k{};
  DBT v{};
  // Only the key is wanted: a partial read of zero value bytes.
  v.flags = DB_DBT_PARTIAL;
  rc = cursor.get()->get(cursor.get(), &k, &v, DB_LAST);
  if (rc == DB_NOTFOUND) {
    table->last_key.clear();  // below every key: keys are never empty
  } else if (rc != 0) {
    return Error(rc, "DBC->get", table->name);
  } else {
    table->last_key.assign(View(k));
  }
  table->last_key_known = true;
  return Status::Ok();
}

void BdbStore::ForgetLastKeys() {
  for (auto& [name, table] : tables_) table->last_key_known = false;
}

Status BdbStore::Put(std::string_view table, std::string_view key, std::string_view value) {
  DIRLOAD_RETURN_IF_ERROR(store_internal::CheckKey(kEngine, "put", table, path_, key));
  DIRLOAD_ASSIGN_OR_RETURN(BdbTable * t, TableForWrite(table, "put"));
  DBT k = Dbt(key);
  DBT v = Dbt(value);
  DB* db = t->db.get();
  int rc = db->put(db, txn_.get(), &k, &v, 0);
  if (rc != 0) return Error(rc, "DB->put", t->name);
  if (t->last_key_known && key > std::string_view(t->last_key)) t->last_key.assign(key);
  return Status::Ok();
}

Status BdbStore::Append(std::string_view table, std::string_view key, std::string_view value) {
  DIRLOAD_RETURN_IF_ERROR(store_internal::CheckKey(kEngine, "append", table, path_, key));
  DIRLOAD_ASSIGN_OR_RETURN(BdbTable * t, TableForWrite(table, "append"));
  if (!t->last_key_known) DIRLOAD_RETURN_IF_ERROR(LoadLastKey(t));
  if (key <= std::string_view(t->last_key)) {
    return store_internal::AppendOrderError(kEngine, t->name, path_, key, t->last_key);
  }
  // A plain put: the btree remembers the last leaf it inserted into and tries
  // it first, so ascending inserts do not walk down from the root.
  DBT k = Dbt(key);
  DBT v = Dbt(value);
  DB* db = t->db.get();
  int rc = db->put(db, txn_.get(), &k, &v, 0);
  if (rc != 0) return Error(rc, "DB->put", t->name);
  t->last_key.assign(key);
  return Status::Ok();
}

Result<bool> BdbStore::Get(std::string_view table, std::string_view key, std::string* value) {
  DIRLOAD_RETURN_IF_ERROR(store_internal::CheckKey(kEngine, "get", table, path_, key));
  DIRLOAD_ASSIGN_OR_RETURN(BdbTable * t, FindTable(table));
  DIRLOAD_ASSIGN_OR_RETURN(bool exists, PrepareRead(t));
  if (!exists) return false;
  DBT k = Dbt(key);
  DBT v{};  // the handle's own buffer, valid until its next call
  DB* db = t->db.get();
  int rc = db->get(db, txn_.get(), &k, &v, 0);
  if (rc == DB_NOTFOUND) return false;
  if (rc != 0) return Error(rc, "DB->get", t->name);
  value->assign(View(v));
  return true;
}

Status BdbStore::Delete(std::string_view table, std::string_view key) {
  DIRLOAD_RETURN_IF_ERROR(store_internal::CheckKey(kEngine, "delete", table, path_, key));
  if (read_only_) return store_internal::ReadOnlyError(kEngine, "delete", table, path_, true);
  DIRLOAD_ASSIGN_OR_RETURN(BdbTable * t, FindTable(table));
  if (t->read_only) return store_internal::ReadOnlyError(kEngine, "delete", table, path_, false);
  DIRLOAD_ASSIGN_OR_RETURN(bool exists, PrepareRead(t));
  if (!exists) return Status::Ok();
  DBT k = Dbt(key);
  DB* db = t->db.get();
  int rc = db->del(db, txn_.get(), &k, 0);
  if (rc == DB_NOTFOUND) return Status::Ok();
  if (rc != 0) return Error(rc, "DB->del", t->name);
  if (t->last_key_known && key == std::string_view(t->last_key)) t->last_key_known = false;
  return Status::Ok();
}

Status BdbStore::DropTable(std::string_view table) {
  if (read_only_) return store_internal::ReadOnlyError(kEngine, "drop", table, path_, true);
  DIRLOAD_ASSIGN_OR_RETURN(BdbTable * t, FindTable(table));
  DIRLOAD_RETURN_IF_ERROR(Commit());
  registry_.DetachTable(t);
  // Its pages are about to be discarded: no point writing them out.
  int rc = t->db.Close(DB_NOSYNC);
  t->state = BdbTable::State::kUnknown;
  if (rc != 0) return Error(rc, "DB->close", t->name);
  rc = env_->dbremove(env_.get(), nullptr, t->file.c_str(), nullptr,
                      transactional_ ? DB_AUTO_COMMIT : 0);
  if (rc != 0 && rc != ENOENT) return Error(rc, "DB_ENV->dbremove", t->name);
  t->state = BdbTable::State::kMissing;
  t->read_only = false;
  t->last_key_known = false;
  return Status::Ok();
}

Result<std::vector<std::string>> BdbStore::ListTables() {
  return store_internal::ListFilesWithSuffix(kEngine, path_, kFileSuffix);
}

std::unique_ptr<Cursor> BdbStore::NewCursor(std::string_view table) {
  Result<BdbTable*> t = FindTable(table);
  if (!t.ok()) return store_internal::NewErrorCursor(t.status());
  return std::make_unique<BdbCursor>(this, *t);
}

Status BdbStore::Commit() {
  if (!txn_) return Status::Ok();
  // Cursors must close before their transaction resolves.
  registry_.DetachAll();
  int rc = txn_.Commit();
  if (rc != 0) {
    ForgetLastKeys();
    return Error(rc, "DB_TXN->commit", "");
  }
  return Status::Ok();
}

Status BdbStore::Sync() {
  DIRLOAD_RETURN_IF_ERROR(Commit());
  if (read_only_) return Status::Ok();
  DB_ENV* env = env_.get();
  if (transactional_) {
    int rc = env->txn_checkpoint(env, 0, 0, DB_FORCE);
    if (rc != 0) return Error(rc, "DB_ENV->txn_checkpoint", "");
  } else {
    int rc = env->memp_sync(env, nullptr);
    if (rc != 0) return Error(rc, "DB_ENV->memp_sync", "");
  }
  // Both write every dirty page and then fdatasync each file (seen with
  // strace); the directory holds the new files' names.
  return store_internal::SyncDirectory(kEngine, path_);
}

Status BdbStore::ReopenReadOnly(std::string_view table) {
  DIRLOAD_ASSIGN_OR_RETURN(BdbTable * t, FindTable(table));
  DIRLOAD_RETURN_IF_ERROR(Commit());
  registry_.DetachTable(t);
  // Closing writes the file's dirty pages; the read-only handle then finds the
  // file complete and may map it.
  int rc = t->db.Close(0);
  t->state = BdbTable::State::kUnknown;
  if (rc != 0) return Error(rc, "DB->close", t->name);
  t->read_only = true;
  // A new file ID, so that the pool registers the file afresh and may map it
  // (see bdb_store.h).
  uint64_t map_limit = options_.bdb_mmap_size != 0 ? options_.bdb_mmap_size : kBdbDefaultMmapSize;
  if (!transactional_ && store_internal::FileExists(path_ + "/" + t->file) &&
      store_internal::FileSize(path_ + "/" + t->file) < map_limit) {
    rc = env_->fileid_reset(env_.get(), t->file.c_str(), 0);
    if (rc != 0) return Error(rc, "DB_ENV->fileid_reset", t->name);
  }
  rc = OpenDb(t, false);
  if (rc != 0 && rc != ENOENT) return Error(rc, "DB->open(DB_RDONLY)", t->name);
  return Status::Ok();
}

Result<CacheStats> BdbStore::CacheStatistics() {
  DB_ENV* env = env_.get();
  DB_MPOOL_STAT* raw = nullptr;
  DB_MPOOL_FSTAT** raw_files = nullptr;
  int rc = env->memp_stat(env, &raw, &raw_files, 0);
  if (rc != 0) return Error(rc, "DB_ENV->memp_stat", "");
  StatPtr<DB_MPOOL_STAT> st(raw);
  StatPtr<DB_MPOOL_FSTAT*> files(raw_files);
  CacheStats c;
  c.available = true;
  c.cache_bytes = (uint64_t{st->st_gbytes} << 30) + st->st_bytes;
  c.hits = st->st_cache_hit;
  c.misses = st->st_cache_miss;
  c.pages_created = st->st_page_create;
  c.pages_read = st->st_page_in;
  c.pages_written = st->st_page_out;
  c.pages_mapped = st->st_map;
  c.clean_evictions = st->st_ro_evict;
  c.dirty_evictions = st->st_rw_evict;
  c.trickle_writes = st->st_page_trickle;
  c.pages_in_cache = st->st_pages;
  c.dirty_pages_in_cache = st->st_page_dirty;

  std::map<std::string, FileCacheStats, std::less<>> per_table;
  for (DB_MPOOL_FSTAT** f = raw_files; f != nullptr && *f != nullptr; ++f) {
    std::string_view file = (*f)->file_name != nullptr ? (*f)->file_name : "";
    if (!file.ends_with(kFileSuffix)) continue;
    // A file can appear more than once (a closed handle's entry lingers).
    FileCacheStats& fc = per_table[std::string(file.substr(0, file.size() - kFileSuffix.size()))];
    fc.available = true;
    fc.hits += (*f)->st_cache_hit;
    fc.misses += (*f)->st_cache_miss;
    fc.pages_created += (*f)->st_page_create;
    fc.pages_read += (*f)->st_page_in;
    fc.pages_written += (*f)->st_page_out;
    fc.pages_mapped += (*f)->st_map;
  }
  c.tables.assign(per_table.begin(), per_table.end());
  return c;
}

Result<StoreStats> BdbStore::Statistics() {
  StoreStats stats;
  stats.backend = Backend::kBdb;
  stats.path = path_;
  DIRLOAD_ASSIGN_OR_RETURN(stats.cache, CacheStatistics());

  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> names, ListTables());
  for (const std::string& name : names) {
    DIRLOAD_ASSIGN_OR_RETURN(BdbTable * t, FindTable(name));
    DIRLOAD_ASSIGN_OR_RETURN(bool exists, PrepareRead(t));
    if (!exists) continue;
    DB* db = t->db.get();
    DB_BTREE_STAT* raw = nullptr;
    int rc = db->stat(db, txn_.get(), &raw, 0);
    if (rc != 0) return Error(rc, "DB->stat", name);
    StatPtr<DB_BTREE_STAT> st(raw);
    TableStats ts;
    ts.name = name;
    ts.entries = st->bt_ndata;
    ts.page_size = st->bt_pagesize;
    ts.depth = st->bt_levels;
    ts.branch_pages = st->bt_int_pg;
    ts.leaf_pages = st->bt_leaf_pg + st->bt_dup_pg;
    ts.overflow_pages = st->bt_over_pg;
    ts.free_pages = st->bt_free;
    ts.bytes = (ts.branch_pages + ts.leaf_pages + ts.overflow_pages) * ts.page_size;
    ts.file_bytes = store_internal::FileSize(path_ + "/" + t->file);
    for (const auto& [table, fc] : stats.cache.tables) {
      if (table == name) ts.cache = fc;
    }
    stats.file_bytes += ts.file_bytes;
    stats.tables.push_back(std::move(ts));
  }
  return stats;
}

Result<EngineSettings> BdbStore::Settings() {
  DB_ENV* env = env_.get();
  EngineSettings s;
  s.backend = Backend::kBdb;
  s.read_only = read_only_;
  u_int32_t open_flags = 0;
  int rc = env->get_open_flags(env, &open_flags);
  if (rc != 0) return Error(rc, "DB_ENV->get_open_flags", "");
  s.transactional = (open_flags & DB_INIT_TXN) != 0;
  s.sync_on_commit = s.transactional;
  u_int32_t gbytes = 0;
  u_int32_t bytes = 0;
  int ncache = 0;
  rc = env->get_cachesize(env, &gbytes, &bytes, &ncache);
  if (rc != 0) return Error(rc, "DB_ENV->get_cachesize", "");
  s.cache_bytes = (uint64_t{gbytes} << 30) + bytes;
  size_t mmap_size = 0;
  rc = env->get_mp_mmapsize(env, &mmap_size);
  if (rc != 0) return Error(rc, "DB_ENV->get_mp_mmapsize", "");
  s.mmap_size = mmap_size;
  for (const auto& [name, table] : tables_) {
    if (table->state != BdbTable::State::kOpen) continue;
    DB* db = table->db.get();
    TableSettings ts;
    ts.name = name;
    u_int32_t page_size = 0;
    rc = db->get_pagesize(db, &page_size);
    if (rc != 0) return Error(rc, "DB->get_pagesize", name);
    ts.page_size = page_size;
    DB_MPOOLFILE* mpf = db->get_mpf(db);
    DB_CACHE_PRIORITY priority = DB_PRIORITY_DEFAULT;
    rc = mpf->get_priority(mpf, &priority);
    if (rc != 0) return Error(rc, "DB_MPOOLFILE->get_priority", name);
    ts.priority = FromBdb(priority);
    ts.read_only = read_only_ || table->read_only;
    s.tables.push_back(std::move(ts));
  }
  return s;
}

}  // namespace

Result<std::unique_ptr<Store>> OpenBdbStore(const std::string& dir, const StoreOptions& options) {
  if (options.create && options.read_only) {
    return Status::InvalidArgument("bdb: " + dir + ": create and read_only exclude each other");
  }
  DIRLOAD_RETURN_IF_ERROR(store_internal::PrepareDirectory(kEngine, dir, options.create));
  if (!options.create) {
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> tables,
                             store_internal::ListFilesWithSuffix(kEngine, dir, kFileSuffix));
    if (tables.empty()) {
      return Status::NotFound("bdb: " + dir + ": no Berkeley DB database here (no *.bdb files)");
    }
  }
  auto sink = std::make_unique<ErrorSink>();
  DB_ENV* raw = nullptr;
  int rc = db_env_create(&raw, 0);
  if (rc != 0) return BdbError(rc, "db_env_create", "", dir, nullptr);
  EnvHandle env(raw);
  // Messages go to the sink, never to stderr: library code does not print.
  raw->set_errcall(raw, OnBdbError);
  raw->app_private = sink.get();
  bool transactional = options.durable && !options.read_only;

  rc = raw->set_cachesize(raw, static_cast<u_int32_t>(options.bdb_cache_size >> 30),
                          static_cast<u_int32_t>(options.bdb_cache_size & ((1u << 30) - 1)), 1);
  if (rc != 0) return BdbError(rc, "DB_ENV->set_cachesize", "", dir, sink.get());
  if (options.bdb_mmap_size != 0) {
    rc = raw->set_mp_mmapsize(raw, options.bdb_mmap_size);
    if (rc != 0) return BdbError(rc, "DB_ENV->set_mp_mmapsize", "", dir, sink.get());
  }
  u_int32_t flags = DB_CREATE | DB_PRIVATE | DB_INIT_MPOOL;
  if (transactional) {
    flags |= DB_INIT_TXN | DB_INIT_LOG | DB_INIT_LOCK | DB_RECOVER;
    // One thread, one transaction at a time: a conflict can only be a bug,
    // and it should fail rather than hang.
    rc = raw->set_lk_detect(raw, DB_LOCK_DEFAULT);
    if (rc == 0) rc = raw->set_lk_max_locks(raw, kMaxLocks);
    if (rc == 0) rc = raw->set_lk_max_objects(raw, kMaxLocks);
    if (rc != 0) return BdbError(rc, "DB_ENV->set_lk_*", "", dir, sink.get());
  }
  rc = raw->open(raw, dir.c_str(), flags, 0600);
  if (rc != 0) return BdbError(rc, "DB_ENV->open", "", dir, sink.get());
  // Berkeley DB maps read-only files; a fault reading one is blamed on the
  // database (one directory: the engine does not say which file).
  RegisterMappedDatabaseFile(dir);
  return std::unique_ptr<Store>(std::make_unique<BdbStore>(
      dir, options, std::move(sink), std::move(env), options.read_only, transactional));
}

}  // namespace dirload
