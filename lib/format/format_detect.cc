#include "lib/format/format_detect.h"

#include <lmdb.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "lib/store/lmdb_file_check.h"
#include "lib/store/tables.h"
#include "lib/util/damage_signal.h"

namespace dirload {
namespace {

bool IsMdbTable(std::string_view name) {
  return name == "ad2i" || name == "dn2i" || name == "id2e" || name == "id2v";
}

bool IsNativeTable(std::string_view name) {
  return name == kMetaTable || name == kId2EntryTable || name == kDn2IdTable ||
         name.substr(0, kIndexTablePrefix.size()) == kIndexTablePrefix;
}

Status Refused(Status s) { return s.WithOrigin(ErrorOrigin::kDatabase); }

// "a, b, c" with at most `limit` names, then "and N more".
std::string NameList(const std::vector<std::string>& names, size_t limit = 12) {
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; ++i) {
    if (i > 0) out += ", ";
    out += names[i];
  }
  if (names.size() > limit) out += " and " + std::to_string(names.size() - limit) + " more";
  return out;
}

// Closes the environment it owns.
struct EnvCloser {
  MDB_env* env = nullptr;
  ~EnvCloser() {
    if (env != nullptr) mdb_env_close(env);
  }
};

Status LmdbError(int rc, std::string_view op, const std::string& dir) {
  return Status::IoError(std::string(op) + ": " + dir + ": " + mdb_strerror(rc))
      .WithOrigin(ErrorOrigin::kStorage);
}

// Opens `dir` read-only with `flags` added; 0 or LMDB's error code.
int OpenReadOnly(const std::string& dir, unsigned flags, EnvCloser* out) {
  MDB_env* env = nullptr;
  int rc = mdb_env_create(&env);
  if (rc != 0) return rc;
  ReportLmdbAssertionsAsDamage(env);
  // 2.5's back-mdb limit; the main database is all that is read here.
  mdb_env_set_maxdbs(env, 128);
  rc = mdb_env_open(env, dir.c_str(), MDB_RDONLY | flags, 0);
  if (rc != 0) {
    mdb_env_close(env);
    return rc;
  }
  out->env = env;
  return 0;
}

Result<std::vector<std::string>> ListLmdbTables(const std::string& dir) {
  const std::string lock = dir + "/lock.mdb";
  const bool lock_usable = ::access(lock.c_str(), R_OK | W_OK) == 0;
  // A damaged file is refused here, before it is mapped, or blamed if it faults.
  const std::string data_file = dir + "/data.mdb";
  DIRLOAD_RETURN_IF_ERROR(CheckLmdbDataFile(data_file));
  RegisterMappedDatabaseFile(data_file);
  struct Unregister {
    const std::string& file;
    ~Unregister() { ClearMappedDatabaseFile(file); }
  } unregister{data_file};
  EnvCloser env;
  int rc = OpenReadOnly(dir, lock_usable ? 0 : MDB_NOLOCK, &env);
  if (rc == EACCES && lock_usable) rc = OpenReadOnly(dir, MDB_NOLOCK, &env);
  if (rc != 0) return LmdbError(rc, "mdb_env_open", dir);
  MDB_txn* txn = nullptr;
  rc = mdb_txn_begin(env.env, nullptr, MDB_RDONLY, &txn);
  if (rc != 0) return LmdbError(rc, "mdb_txn_begin", dir);
  std::vector<std::string> names;
  MDB_dbi main_dbi;
  MDB_cursor* cursor = nullptr;
  rc = mdb_dbi_open(txn, nullptr, 0, &main_dbi);
  if (rc == 0) rc = mdb_cursor_open(txn, main_dbi, &cursor);
  if (rc != 0) {
    mdb_txn_abort(txn);
    return LmdbError(rc, "mdb_dbi_open(main)", dir);
  }
  MDB_val k, v;
  for (rc = mdb_cursor_get(cursor, &k, &v, MDB_FIRST); rc == 0;
       rc = mdb_cursor_get(cursor, &k, &v, MDB_NEXT)) {
    names.emplace_back(static_cast<const char*>(k.mv_data), k.mv_size);
  }
  mdb_cursor_close(cursor);
  mdb_txn_abort(txn);
  if (rc != MDB_NOTFOUND) return LmdbError(rc, "mdb_cursor_get(main)", dir);
  return names;
}

}  // namespace

std::string_view DatabaseFormatName(DatabaseFormat format) {
  return format == DatabaseFormat::kMdb ? "mdb" : "native";
}

Result<DatabaseFormat> ParseDatabaseFormat(std::string_view name) {
  if (name == "native") return DatabaseFormat::kNative;
  if (name == "mdb") return DatabaseFormat::kMdb;
  return Status::InvalidArgument("unknown database format '" + std::string(name) +
                                 "' (mdb or native)");
}

Result<DatabaseFormat> ClassifyLmdbTables(const std::string& dir,
                                          const std::vector<std::string>& names) {
  std::vector<std::string> mdb, native, other;
  for (const std::string& n : names) {
    if (IsMdbTable(n)) {
      mdb.push_back(n);
    } else if (IsNativeTable(n)) {
      native.push_back(n);
    } else {
      other.push_back(n);
    }
  }
  if (!mdb.empty() && !native.empty()) {
    return Refused(Status::Unsupported(dir + "/data.mdb holds both slapd back-mdb tables (" +
                                       NameList(mdb) + ") and dirload's native tables (" +
                                       NameList(native) + "): refusing to guess its format"));
  }
  if (!mdb.empty()) return DatabaseFormat::kMdb;
  if (!native.empty()) return DatabaseFormat::kNative;
  if (names.empty()) {
    return Refused(Status::NotFound(dir + "/data.mdb holds no tables: neither a dirload "
                                          "database nor slapd's back-mdb"));
  }
  return Refused(Status::Unsupported(dir +
                                     "/data.mdb holds neither dirload's tables nor slapd "
                                     "back-mdb's (ad2i, dn2i, id2e), only: " +
                                     NameList(other)));
}

Result<DatabaseFormat> DetectDatabaseFormat(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Refused(Status::NotFound(dir + ": no such directory"));
  }
  if (fs::exists(fs::path(dir) / "data.mdb", ec)) {
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> names, ListLmdbTables(dir));
    return ClassifyLmdbTables(dir, names);
  }
  size_t files = 0;
  for (const fs::directory_entry& e : fs::directory_iterator(dir, ec)) {
    ++files;
    if (e.is_regular_file(ec) && e.path().extension() == ".bdb") return DatabaseFormat::kNative;
  }
  if (ec) {
    return Status::IoError(dir + ": list: " + ec.message()).WithOrigin(ErrorOrigin::kStorage);
  }
  return Refused(Status::NotFound(
      dir +
      (files == 0 ? ": empty directory"
                  : ": " + std::to_string(files) + " files, but neither data.mdb nor *.bdb") +
      ": no database here"));
}

}  // namespace dirload
