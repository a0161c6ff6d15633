#include "lib/format/mdb/mdb_env.h"

#include <lmdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <utility>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_id2v.h"
#include "lib/store/lmdb_error.h"
#include "lib/store/lmdb_file_check.h"
#include "lib/util/damage_signal.h"
#ifdef DIRLOAD_FAULT_INJECTION
#include "lib/store/fault_injection.h"
#endif

namespace dirload::mdb {
namespace {

constexpr unsigned kIndexFlags = MDB_DUPSORT | MDB_DUPFIXED | MDB_INTEGERDUP;

// slapd's ID order for id2e keys: native unsigned 64-bit integers.
extern "C" int IdCompare(const MDB_val* a, const MDB_val* b) {
  uint64_t x, y;
  std::memcpy(&x, a->mv_data, sizeof x);
  std::memcpy(&y, b->mv_data, sizeof y);
  return x < y ? -1 : x > y;
}

// id2v's order: the entry ID (native unsigned 64-bit), then the 2-byte
// ad2i number (back-mdb's mdb_id2v_compare).
extern "C" int Id2vKeyCompare(const MDB_val* a, const MDB_val* b) {
  if (int c = IdCompare(a, b); c != 0) return c;
  uint16_t x = 0, y = 0;
  if (a->mv_size >= 10) std::memcpy(&x, static_cast<const char*>(a->mv_data) + 8, 2);
  if (b->mv_size >= 10) std::memcpy(&y, static_cast<const char*>(b->mv_data) + 8, 2);
  return static_cast<int>(x) - static_cast<int>(y);
}

thread_local MdbValueOrder id2v_order = MdbValueOrder::kOctet;

// id2v's duplicate order (back-mdb's mdb_id2v_dupsort): the attribute's
// equality order on the normalized copies that lead both stored values.
extern "C" int Id2vDupCompare(const MDB_val* a, const MDB_val* b) {
  auto ordered = [](const MDB_val* v) {
    return MdbId2vOrderedPart(std::string_view(static_cast<const char*>(v->mv_data), v->mv_size));
  };
  return MdbCompareValues(id2v_order, ordered(a), ordered(b));
}

MDB_val Val(std::string_view s) { return MDB_val{s.size(), const_cast<char*>(s.data())}; }
std::string_view View(const MDB_val& v) {
  return std::string_view(static_cast<const char*>(v.mv_data), v.mv_size);
}
MDB_txn* Txn(void* p) { return static_cast<MDB_txn*>(p); }

bool IsMainTable(std::string_view name) {
  return name == kMdbAd2i || name == kMdbDn2i || name == kMdbId2e || name == kMdbId2v;
}

}  // namespace

MdbId2vOrderScope::MdbId2vOrderScope(MdbValueOrder order) : saved_(id2v_order) {
  id2v_order = order;
}
MdbId2vOrderScope::~MdbId2vOrderScope() { id2v_order = saved_; }

Status MdbEnv::EngineError(int rc, std::string_view op) const {
  rc = LmdbCauseOf(rc, path_);
  std::string msg = std::string(op) + ": " + path_ + ": " + LmdbErrorText(rc);
  if (rc == MDB_INCOMPATIBLE) msg += " (a sub-database has other flags than back-mdb's)";
  return Status(LmdbStatusCode(rc), std::move(msg)).WithOrigin(ErrorOrigin::kStorage);
}

Result<std::unique_ptr<MdbEnv>> MdbEnv::Open(const std::string& dir, const MdbEnvOptions& options) {
  std::unique_ptr<MdbEnv> env(new MdbEnv());
  env->path_ = dir;
  env->read_only_ = options.read_only;
  MDB_env* e = nullptr;
  int rc = mdb_env_create(&e);
  if (rc != 0) return env->EngineError(rc, "mdb_env_create");
  env->env_ = e;
  ReportLmdbAssertionsAsDamage(e);
  if (options.map_size != 0) {
    rc = mdb_env_set_mapsize(e, options.map_size);
    if (rc != 0) return env->EngineError(rc, "mdb_env_set_mapsize");
  }
  rc = mdb_env_set_maxdbs(e, kMdbMaxDbs);
  if (rc != 0) return env->EngineError(rc, "mdb_env_set_maxdbs");
  unsigned flags = 0;
  if (options.read_only) {
    flags |= MDB_RDONLY;
    // Never without the lock file (MDB_NOLOCK): its reader table and locks
    // are how slapd and every other process see each other.
    const std::string lock = dir + "/lock.mdb";
    struct stat st {};
    if (::stat(lock.c_str(), &st) == 0 && ::access(lock.c_str(), R_OK | W_OK) != 0) {
      return Status::IoError(lock + " (slapd's lock file, owner uid " + std::to_string(st.st_uid) +
                             ") cannot be opened for reading and writing by this user, and "
                             "LMDB reads through it: run as its owner or as root")
          .WithOrigin(ErrorOrigin::kDatabase);
    }
  }
  if (options.quick && !options.read_only) flags |= MDB_NOSYNC;
  if (options.write_map && !options.read_only) flags |= MDB_WRITEMAP;
  DIRLOAD_RETURN_IF_ERROR(CheckLmdbDataFile(dir + "/data.mdb"));
  rc = mdb_env_open(e, dir.c_str(), flags, 0600);
  if (rc != 0) return env->EngineError(rc, "mdb_env_open");
  RegisterMappedDatabaseFile(dir + "/data.mdb");
  DIRLOAD_RETURN_IF_ERROR(env->OpenDbs(options));
  return env;
}

Status MdbEnv::OpenDbs(const MdbEnvOptions& options) {
  MDB_env* e = static_cast<MDB_env*>(env_);
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(e, nullptr, read_only_ ? MDB_RDONLY : 0, &txn);
  if (rc != 0) return EngineError(rc, "mdb_txn_begin");
  // Aborting a transaction also closes the handles it opened.
  auto fail = [&](int code, const std::string& op) {
    mdb_txn_abort(txn);
    return EngineError(code, op);
  };
  const unsigned create = read_only_ ? 0 : MDB_CREATE;
  struct Main {
    std::string_view name;
    unsigned flags;
    MdbDb* db;
  } mains[] = {
      {kMdbAd2i, MDB_INTEGERKEY, &ad2i_},
      {kMdbDn2i, MDB_INTEGERKEY | MDB_DUPSORT, &dn2i_},
      {kMdbId2e, MDB_INTEGERKEY, &id2e_},
      {kMdbId2v, MDB_DUPSORT, &id2v_},
  };
  for (Main& m : mains) {
    std::string name(m.name);
    MDB_dbi dbi;
    rc = mdb_dbi_open(txn, name.c_str(), m.flags | create, &dbi);
    if (rc != 0) return fail(rc, "mdb_dbi_open(" + name + ")");
    m.db->dbi = dbi;
  }
  rc = mdb_set_compare(txn, id2e_.dbi, IdCompare);
  if (rc != 0) return fail(rc, "mdb_set_compare(id2e)");
  rc = mdb_set_dupsort(txn, dn2i_.dbi, MdbDn2iDupCompare);
  if (rc != 0) return fail(rc, "mdb_set_dupsort(dn2i)");
  rc = mdb_set_compare(txn, id2v_.dbi, Id2vKeyCompare);
  if (rc != 0) return fail(rc, "mdb_set_compare(id2v)");
  rc = mdb_set_dupsort(txn, id2v_.dbi, Id2vDupCompare);
  if (rc != 0) return fail(rc, "mdb_set_dupsort(id2v)");

  std::vector<std::string> names;
  if (read_only_) {
    MDB_dbi main_dbi;
    rc = mdb_dbi_open(txn, nullptr, 0, &main_dbi);
    if (rc != 0) return fail(rc, "mdb_dbi_open(main)");
    MDB_cursor* c = nullptr;
    rc = mdb_cursor_open(txn, main_dbi, &c);
    if (rc != 0) return fail(rc, "mdb_cursor_open(main)");
    MDB_val k, v;
    for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
         rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
      std::string name(View(k));
      if (!IsMainTable(name)) names.push_back(std::move(name));
    }
    mdb_cursor_close(c);
    if (rc != MDB_NOTFOUND) return fail(rc, "mdb_cursor_get(main)");
  } else {
    names = options.index_names;
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (const std::string& name : names) {
    if (IsMainTable(name)) {
      mdb_txn_abort(txn);
      return Status::InvalidArgument("index database name '" + name +
                                     "' is one of back-mdb's own tables")
          .WithOrigin(ErrorOrigin::kConfiguration);
    }
    MDB_dbi dbi;
    rc = mdb_dbi_open(txn, name.c_str(), kIndexFlags | create, &dbi);
    if (rc != 0) return fail(rc, "mdb_dbi_open(" + name + ")");
    indexes_.push_back({name, MdbDb{dbi}});
  }
  rc = mdb_txn_commit(txn);
  if (rc != 0) return EngineError(rc, "mdb_txn_commit");
  return Status::Ok();
}

MdbEnv::~MdbEnv() {
  flush_.reset();  // its thread uses the environment's file
  if (env_ != nullptr) mdb_env_close(static_cast<MDB_env*>(env_));
  ClearMappedDatabaseFile(path_ + "/data.mdb");
}

Result<MdbDb> MdbEnv::Index(std::string_view name) const {
  auto it = std::lower_bound(indexes_.begin(), indexes_.end(), name,
                             [](const auto& p, std::string_view n) { return p.first < n; });
  if (it == indexes_.end() || it->first != name) {
    return Status::NotFound(path_ + ": no index database '" + std::string(name) + "'");
  }
  return it->second;
}

std::vector<std::string> MdbEnv::index_names() const {
  std::vector<std::string> names;
  for (const auto& p : indexes_) names.push_back(p.first);
  return names;
}

Result<MdbTxn> MdbEnv::Begin(bool write) {
  if (write && read_only_) {
    return Status::InvalidArgument(path_ + ": write transaction on a read-only environment");
  }
  MDB_txn* txn = nullptr;
  int rc = mdb_txn_begin(static_cast<MDB_env*>(env_), nullptr, write ? 0 : MDB_RDONLY, &txn);
  if (rc != 0) return EngineError(rc, "mdb_txn_begin");
  return MdbTxn(this, txn);
}

Status MdbEnv::Sync() {
  if (read_only_) return Status::Ok();
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kSync); !st.ok()) return st;
#endif
  DIRLOAD_RETURN_IF_ERROR(FinishWriteback());
  int rc = mdb_env_sync(static_cast<MDB_env*>(env_), 1);
  if (rc != 0) return EngineError(rc, "mdb_env_sync");
  return Status::Ok();
}

void MdbEnv::StartWriteback() {
  if (read_only_) return;
  if (flush_ == nullptr) {
    flush_ = NewLmdbFlush(static_cast<MDB_env*>(env_), path_ + "/data.mdb",
                          /*through_writable_map=*/true);
    if (flush_ == nullptr) return;
  }
  flush_->Kick();
}

Status MdbEnv::FinishWriteback() { return flush_ == nullptr ? Status::Ok() : flush_->Drain(); }

Status MdbEnv::CopyTo(const std::string& dir) {
  // A page-for-page copy up to the last page in use (a sparse map of
  // maxsize bytes does not become a file of that size). Not compacting:
  // that walks every tree, and LMDB overruns its own buffers on a damaged
  // page; a plain copy leaves damage for the checks that report it.
  int rc = mdb_env_copy2(static_cast<MDB_env*>(env_), dir.c_str(), 0);
  if (rc != 0) return EngineError(rc, "mdb_env_copy2 to " + dir);
  return Status::Ok();
}

MdbTxn::MdbTxn(MdbTxn&& other) noexcept
    : env_(other.env_), txn_(other.txn_), cursors_(std::move(other.cursors_)) {
  other.txn_ = nullptr;
  other.cursors_.clear();
}

MdbTxn& MdbTxn::operator=(MdbTxn&& other) noexcept {
  if (this != &other) {
    Abort();
    env_ = other.env_;
    txn_ = other.txn_;
    cursors_ = std::move(other.cursors_);
    other.txn_ = nullptr;
    other.cursors_.clear();
  }
  return *this;
}

MdbTxn::~MdbTxn() { Abort(); }

void MdbTxn::CloseCursors() {
  for (void* c : cursors_) {
    if (c != nullptr) mdb_cursor_close(static_cast<MDB_cursor*>(c));
  }
  cursors_.clear();
}

void MdbTxn::ForgetCursor(MdbDb db) {
  if (db.dbi < cursors_.size() && cursors_[db.dbi] != nullptr) {
    mdb_cursor_close(static_cast<MDB_cursor*>(cursors_[db.dbi]));
    cursors_[db.dbi] = nullptr;
  }
}

Result<void*> MdbTxn::CursorOn(MdbDb db) {
  if (cursors_.size() <= db.dbi) cursors_.resize(db.dbi + 1, nullptr);
  if (cursors_[db.dbi] == nullptr) {
    MDB_cursor* c = nullptr;
    int rc = mdb_cursor_open(Txn(txn_), db.dbi, &c);
    if (rc != 0) return env_->EngineError(rc, "mdb_cursor_open");
    cursors_[db.dbi] = c;
  }
  return cursors_[db.dbi];
}

void MdbTxn::Abort() {
  // A read transaction's cursors are the caller's to close, before it ends.
  CloseCursors();
  if (txn_ != nullptr) mdb_txn_abort(Txn(txn_));
  txn_ = nullptr;
}

Status MdbTxn::Commit() {
  if (txn_ == nullptr) return Status::InvalidArgument("commit of a finished transaction");
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kCommit); !st.ok()) return st;
#endif
  CloseCursors();
  int rc = mdb_txn_commit(Txn(txn_));
  txn_ = nullptr;
  if (rc != 0) return env_->EngineError(rc, "mdb_txn_commit");
  return Status::Ok();
}

Status MdbTxn::Put(MdbDb db, std::string_view key, std::string_view value, MdbPutMode mode) {
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kWrite); !st.ok()) return st;
#endif
  unsigned flags = 0;
  switch (mode) {
    case MdbPutMode::kOverwrite:
      break;
    case MdbPutMode::kNoOverwrite: {
      unsigned dbflags = 0;
      int rc = mdb_dbi_flags(Txn(txn_), db.dbi, &dbflags);
      if (rc != 0) return env_->EngineError(rc, "mdb_dbi_flags");
      flags = (dbflags & MDB_DUPSORT) ? MDB_NODUPDATA : MDB_NOOVERWRITE;
      break;
    }
    case MdbPutMode::kAppend:
      flags = MDB_APPEND;
      break;
    case MdbPutMode::kAppendDup:
      flags = MDB_APPENDDUP;
      break;
  }
  DIRLOAD_ASSIGN_OR_RETURN(void* c, CursorOn(db));
  MDB_val k = Val(key), v = Val(value);
  int rc = mdb_cursor_put(static_cast<MDB_cursor*>(c), &k, &v, flags);
  if (rc != 0) return env_->EngineError(rc, "mdb_put");
  return Status::Ok();
}

Result<char*> MdbTxn::Reserve(MdbDb db, std::string_view key, size_t size, MdbPutMode mode) {
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kWrite); !st.ok()) return st;
#endif
  unsigned flags = MDB_RESERVE;
  if (mode == MdbPutMode::kAppend) flags |= MDB_APPEND;
  if (mode == MdbPutMode::kNoOverwrite) flags |= MDB_NOOVERWRITE;
  if (mode == MdbPutMode::kAppendDup) {
    return Status::InvalidArgument("Reserve: not for DUPSORT databases");
  }
  MDB_val k = Val(key), v;
  v.mv_size = size;
  v.mv_data = nullptr;
  int rc = mdb_put(Txn(txn_), db.dbi, &k, &v, flags);
  if (rc != 0) return env_->EngineError(rc, "mdb_put(reserve)");
  return static_cast<char*>(v.mv_data);
}

Result<std::string_view> MdbTxn::Get(MdbDb db, std::string_view key) {
  DIRLOAD_ASSIGN_OR_RETURN(void* c, CursorOn(db));
  MDB_val k = Val(key), v;
  int rc = mdb_cursor_get(static_cast<MDB_cursor*>(c), &k, &v, MDB_SET);
  if (rc != 0) return env_->EngineError(rc, "mdb_get");
  return View(v);
}

Status MdbTxn::Scan(MdbDb db, const std::function<Status(std::string_view, std::string_view)>& fn) {
  MDB_cursor* c = nullptr;
  int rc = mdb_cursor_open(Txn(txn_), db.dbi, &c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_open");
  MDB_val k, v;
  Status st;
  for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
       rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
    st = fn(View(k), View(v));
    if (!st.ok()) break;
  }
  mdb_cursor_close(c);
  if (!st.ok()) return st;
  if (rc != MDB_NOTFOUND) return env_->EngineError(rc, "mdb_cursor_get");
  return Status::Ok();
}

Result<MdbKeyCursor> MdbTxn::KeyCursor(MdbDb db) {
  MDB_cursor* c = nullptr;
  int rc = mdb_cursor_open(Txn(txn_), db.dbi, &c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_open");
  return MdbKeyCursor(env_, c);
}

MdbKeyCursor::MdbKeyCursor(MdbKeyCursor&& other) noexcept
    : env_(other.env_),
      cursor_(std::exchange(other.cursor_, nullptr)),
      valid_(other.valid_),
      key_(other.key_) {}

MdbKeyCursor& MdbKeyCursor::operator=(MdbKeyCursor&& other) noexcept {
  if (this != &other) {
    if (cursor_ != nullptr) mdb_cursor_close(static_cast<MDB_cursor*>(cursor_));
    env_ = other.env_;
    cursor_ = std::exchange(other.cursor_, nullptr);
    valid_ = other.valid_;
    key_ = other.key_;
  }
  return *this;
}

MdbKeyCursor::~MdbKeyCursor() {
  if (cursor_ != nullptr) mdb_cursor_close(static_cast<MDB_cursor*>(cursor_));
}

Status MdbKeyCursor::Position(int rc) {
  valid_ = false;
  if (rc == MDB_NOTFOUND) return Status::Ok();
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_get");
  MDB_val k, v;
  rc = mdb_cursor_get(static_cast<MDB_cursor*>(cursor_), &k, &v, MDB_GET_CURRENT);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_get");
  key_ = View(k);
  valid_ = true;
  return Status::Ok();
}

Status MdbKeyCursor::First() {
  MDB_val k, v;
  return Position(mdb_cursor_get(static_cast<MDB_cursor*>(cursor_), &k, &v, MDB_FIRST));
}

Status MdbKeyCursor::NextKey() {
  MDB_val k, v;
  return Position(mdb_cursor_get(static_cast<MDB_cursor*>(cursor_), &k, &v, MDB_NEXT_NODUP));
}

Status MdbKeyCursor::ReadIds(std::vector<uint64_t>* ids) {
  ids->clear();
  auto* c = static_cast<MDB_cursor*>(cursor_);
  auto append = [&](const MDB_val& v) {
    const size_t n = v.mv_size / 8;
    const size_t at = ids->size();
    ids->resize(at + n);
    std::memcpy(ids->data() + at, v.mv_data, n * 8);
    if constexpr (std::endian::native != std::endian::little) {
      for (size_t i = at; i < ids->size(); ++i) (*ids)[i] = __builtin_bswap64((*ids)[i]);
    }
  };
  MDB_val k{0, nullptr}, v{0, nullptr};
  // A key with one duplicate keeps it in its node, where GET_MULTIPLE sees
  // none (and says so by success with nothing filled in): read it as is.
  size_t count = 0;
  int rc = mdb_cursor_count(c, &count);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_count");
  if (count == 1) {
    rc = mdb_cursor_get(c, &k, &v, MDB_GET_CURRENT);
    if (rc != 0) return env_->EngineError(rc, "mdb_cursor_get");
    append(v);
    return Status::Ok();
  }
  // The cursor is on the key's first duplicate: GET_MULTIPLE gives the page
  // of duplicates from there, NEXT_MULTIPLE the following pages.
  rc = mdb_cursor_get(c, &k, &v, MDB_GET_MULTIPLE);
  while (rc == 0) {
    append(v);
    v = MDB_val{0, nullptr};
    rc = mdb_cursor_get(c, &k, &v, MDB_NEXT_MULTIPLE);
  }
  if (rc != MDB_NOTFOUND) return env_->EngineError(rc, "mdb_cursor_get");
  return Status::Ok();
}

Status MdbTxn::ScanFrom(MdbDb db, std::string_view from,
                        const std::function<Result<bool>(std::string_view, std::string_view)>& fn) {
  MDB_cursor* c = nullptr;
  int rc = mdb_cursor_open(Txn(txn_), db.dbi, &c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_open");
  MDB_val k = Val(from), v;
  Status st;
  for (rc = mdb_cursor_get(c, &k, &v, MDB_SET_RANGE); rc == 0;
       rc = mdb_cursor_get(c, &k, &v, MDB_NEXT)) {
    Result<bool> more = fn(View(k), View(v));
    if (!more.ok()) {
      st = more.status();
      break;
    }
    if (!*more) break;
  }
  mdb_cursor_close(c);
  if (!st.ok()) return st;
  if (rc != 0 && rc != MDB_NOTFOUND) return env_->EngineError(rc, "mdb_cursor_get");
  return Status::Ok();
}

Status MdbTxn::AddMultiple(MdbDb db, std::string_view key, std::string_view data, size_t size) {
  // APPENDDUP alone: the key is found wherever it is, the duplicates go
  // after those it holds.
  return PutMultiple(db, key, data, size, MDB_APPENDDUP, "AddMultiple");
}

Result<MdbTxn::DupRange> MdbTxn::Dups(MdbDb db, std::string_view key) {
  DIRLOAD_ASSIGN_OR_RETURN(void* cursor, CursorOn(db));
  auto* c = static_cast<MDB_cursor*>(cursor);
  DupRange out;
  MDB_val k = Val(key), v;
  int rc = mdb_cursor_get(c, &k, &v, MDB_SET_KEY);
  if (rc == 0) {
    size_t n = 0;
    rc = mdb_cursor_count(c, &n);
    out.count = n;
    if (rc == 0) rc = mdb_cursor_get(c, &k, &v, MDB_FIRST_DUP);
    if (rc == 0) out.first = View(v);
    if (rc == 0) rc = mdb_cursor_get(c, &k, &v, MDB_LAST_DUP);
    if (rc == 0) out.last = View(v);
  } else if (rc == MDB_NOTFOUND) {
    rc = 0;
  }
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_get(dups)");
  return out;
}

Status MdbTxn::DeleteKey(MdbDb db, std::string_view key) {
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kWrite); !st.ok()) return st;
#endif
  MDB_val k = Val(key);
  int rc = mdb_del(Txn(txn_), db.dbi, &k, nullptr);
  if (rc != 0) return env_->EngineError(rc, "mdb_del");
  return Status::Ok();
}

Status MdbTxn::DeleteDup(MdbDb db, std::string_view key, std::string_view value) {
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kWrite); !st.ok()) return st;
#endif
  DIRLOAD_ASSIGN_OR_RETURN(void* cursor, CursorOn(db));
  auto* c = static_cast<MDB_cursor*>(cursor);
  MDB_val k = Val(key), v = Val(value);
  int rc = mdb_cursor_get(c, &k, &v, MDB_GET_BOTH);
  if (rc == 0) rc = mdb_cursor_del(c, 0);
  if (rc != 0) return env_->EngineError(rc, "mdb_del(dup)");
  return Status::Ok();
}

Status MdbTxn::Stat(MdbDb db, MdbDbStat* out) {
  MDB_stat st;
  int rc = mdb_stat(Txn(txn_), db.dbi, &st);
  if (rc != 0) return env_->EngineError(rc, "mdb_stat");
  out->page_size = st.ms_psize;
  out->depth = st.ms_depth;
  out->branch_pages = st.ms_branch_pages;
  out->leaf_pages = st.ms_leaf_pages;
  out->overflow_pages = st.ms_overflow_pages;
  out->entries = st.ms_entries;
  return Status::Ok();
}

Status MdbTxn::Count(MdbDb db, uint64_t* keys, uint64_t* pairs) {
  MDB_stat stat;
  int rc = mdb_stat(Txn(txn_), db.dbi, &stat);
  if (rc != 0) return env_->EngineError(rc, "mdb_stat");
  *pairs = stat.ms_entries;
  uint64_t n = 0;
  MDB_cursor* c = nullptr;
  rc = mdb_cursor_open(Txn(txn_), db.dbi, &c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_open");
  MDB_val k, v;
  for (rc = mdb_cursor_get(c, &k, &v, MDB_FIRST); rc == 0;
       rc = mdb_cursor_get(c, &k, &v, MDB_NEXT_NODUP)) {
    ++n;
  }
  mdb_cursor_close(c);
  if (rc != MDB_NOTFOUND) return env_->EngineError(rc, "mdb_cursor_get");
  *keys = n;
  return Status::Ok();
}

Status MdbTxn::Last(MdbDb db, std::string_view* key, std::string_view* value) {
  MDB_cursor* c = nullptr;
  int rc = mdb_cursor_open(Txn(txn_), db.dbi, &c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_open");
  MDB_val k, v;
  rc = mdb_cursor_get(c, &k, &v, MDB_LAST);
  mdb_cursor_close(c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_get(last)");
  *key = View(k);
  *value = View(v);
  return Status::Ok();
}

Result<std::optional<std::string_view>> MdbTxn::FindDup(MdbDb db, std::string_view key,
                                                        std::string_view probe) {
  MDB_cursor* c = nullptr;
  int rc = mdb_cursor_open(Txn(txn_), db.dbi, &c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_open");
  MDB_val k = Val(key), v = Val(probe);
  rc = mdb_cursor_get(c, &k, &v, MDB_GET_BOTH);
  mdb_cursor_close(c);
  if (rc == MDB_NOTFOUND) return std::optional<std::string_view>();
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_get(both)");
  return std::optional<std::string_view>(View(v));
}

Result<std::string_view> MdbTxn::GetDup(MdbDb db, std::string_view key, std::string_view probe) {
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<std::string_view> found, FindDup(db, key, probe));
  if (!found.has_value()) return env_->EngineError(MDB_NOTFOUND, "mdb_cursor_get(both)");
  return *found;
}

Status MdbTxn::ReplaceDup(MdbDb db, std::string_view key, std::string_view value) {
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kWrite); !st.ok()) return st;
#endif
  MDB_cursor* c = nullptr;
  int rc = mdb_cursor_open(Txn(txn_), db.dbi, &c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_open");
  MDB_val k = Val(key), v = Val(value);
  rc = mdb_cursor_get(c, &k, &v, MDB_GET_BOTH);
  if (rc == 0 && v.mv_size != value.size()) {
    mdb_cursor_close(c);
    return Status::InvalidArgument("ReplaceDup: stored duplicate has another size");
  }
  if (rc == 0) {
    MDB_val nv = Val(value);
    rc = mdb_cursor_put(c, &k, &nv, MDB_CURRENT);
  }
  mdb_cursor_close(c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_put(current)");
  return Status::Ok();
}

Status MdbTxn::AppendMultiple(MdbDb db, std::string_view key, std::string_view data, size_t size) {
  return PutMultiple(db, key, data, size, MDB_APPEND | MDB_APPENDDUP, "AppendMultiple");
}

Status MdbTxn::PutMultiple(MdbDb db, std::string_view key, std::string_view data, size_t size,
                           unsigned flags, const char* what) {
  if (size == 0 || data.size() % size != 0 || data.empty()) {
    return Status::InvalidArgument(std::string(what) + ": data is not a whole number of items");
  }
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kWrite); !st.ok()) return st;
#endif
  // The transaction's cursor on `db`: index writes put millions of keys,
  // each of which opening a cursor of its own would allocate and free.
  DIRLOAD_ASSIGN_OR_RETURN(void* cursor, CursorOn(db));
  auto* c = static_cast<MDB_cursor*>(cursor);
  MDB_val k = Val(key);
  MDB_val items[2];
  items[0].mv_size = size;
  items[0].mv_data = const_cast<char*>(data.data());
  items[1].mv_size = data.size() / size;
  items[1].mv_data = nullptr;
  const int rc = mdb_cursor_put(c, &k, items, MDB_MULTIPLE | flags);
  // LMDB reports how many items it stored in items[1].mv_size.
  size_t stored = items[1].mv_size;
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_put(multiple)");
  if (stored != data.size() / size) {
    return Status::Internal(std::string(what) + ": LMDB stored " + std::to_string(stored) + " of " +
                            std::to_string(data.size() / size) + " items");
  }
  return Status::Ok();
}

Result<size_t> MdbTxn::ReadDups(MdbDb db, std::string_view key, size_t limit,
                                std::vector<std::string_view>* out) {
  DIRLOAD_ASSIGN_OR_RETURN(void* cursor, CursorOn(db));
  auto* c = static_cast<MDB_cursor*>(cursor);
  MDB_val k = Val(key), v;
  size_t n = 0;
  int rc = 0;
  for (; n < limit; ++n) {
    rc = mdb_cursor_get(c, &k, &v, n == 0 ? MDB_SET : MDB_NEXT_DUP);
    if (rc != 0) break;
    out->push_back(View(v));
  }
  if (rc != 0 && rc != MDB_NOTFOUND) return env_->EngineError(rc, "mdb_cursor_get(dups)");
  return n;
}

Status MdbTxn::ForEachDup(MdbDb db, std::string_view key,
                          const std::function<Status(std::string_view)>& fn) {
  MDB_cursor* c = nullptr;
  int rc = mdb_cursor_open(Txn(txn_), db.dbi, &c);
  if (rc != 0) return env_->EngineError(rc, "mdb_cursor_open");
  MDB_val k = Val(key), v;
  Status st;
  for (rc = mdb_cursor_get(c, &k, &v, MDB_SET); rc == 0;
       rc = mdb_cursor_get(c, &k, &v, MDB_NEXT_DUP)) {
    st = fn(View(v));
    if (!st.ok()) break;
  }
  mdb_cursor_close(c);
  if (!st.ok()) return st;
  if (rc != MDB_NOTFOUND) return env_->EngineError(rc, "mdb_cursor_get(dup)");
  return Status::Ok();
}

Status MdbTxn::DeleteDb(MdbDb db) {
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kWrite); !st.ok()) return st;
#endif
  ForgetCursor(db);
  int rc = mdb_drop(Txn(txn_), db.dbi, 1);
  if (rc != 0) return env_->EngineError(rc, "mdb_drop(delete)");
  return Status::Ok();
}

Status MdbTxn::Drop(MdbDb db) {
#ifdef DIRLOAD_FAULT_INJECTION
  if (Status st = FaultPoint(FaultOp::kWrite); !st.ok()) return st;
#endif
  ForgetCursor(db);
  int rc = mdb_drop(Txn(txn_), db.dbi, 0);
  if (rc != 0) return env_->EngineError(rc, "mdb_drop");
  return Status::Ok();
}

}  // namespace dirload::mdb
