#include "lib/store/lmdb_error.h"

#include <lmdb.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace dirload {

StatusCode LmdbStatusCode(int rc) {
  StatusCode code = StatusCode::kIoError;
  switch (rc) {
    case MDB_NOTFOUND:
    case ENOENT:
      code = StatusCode::kNotFound;
      break;
    case MDB_KEYEXIST:
      code = StatusCode::kAlreadyExists;
      break;
    case MDB_CORRUPTED:
    case MDB_PAGE_NOTFOUND:
    case MDB_INVALID:
    case MDB_VERSION_MISMATCH:
      code = StatusCode::kCorruption;
      break;
    case MDB_MAP_FULL:
    case MDB_DBS_FULL:
    case MDB_READERS_FULL:
    case MDB_TXN_FULL:
    case MDB_CURSOR_FULL:
    case MDB_PAGE_FULL:
    case ENOMEM:
    case ENOSPC:
    case EFBIG:
      code = StatusCode::kResourceExhausted;
      break;
    case MDB_BAD_VALSIZE:
    case MDB_INCOMPATIBLE:
      code = StatusCode::kInvalidArgument;
      break;
    default:
      break;
  }
  return code;
}

namespace {

// Free space below which a short write is taken for a full file system: one
// write of LMDB's is at most a few MB, and a short one leaves less than it
// asked for.
constexpr uint64_t kFullBelowBytes = 1ull << 20;

}  // namespace

int LmdbCauseOf(int rc, const std::string& dir) {
  if (rc != EIO) return rc;
  struct statvfs vfs;
  if (::statvfs(dir.c_str(), &vfs) == 0) {
    // root may use the blocks a file system reserves; others may not.
    uint64_t blocks = ::geteuid() == 0 ? vfs.f_bfree : vfs.f_bavail;
    if (blocks * vfs.f_frsize < kFullBelowBytes) return ENOSPC;
  }
  struct rlimit limit;
  struct stat st;
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
      ::stat((dir + "/data.mdb").c_str(), &st) == 0 &&
      static_cast<uint64_t>(st.st_size) >= static_cast<uint64_t>(limit.rlim_cur)) {
    return EFBIG;
  }
  return rc;
}

std::string LmdbErrorText(int rc) {
  // mdb_strerror passes errno values to strerror; saying so here keeps the
  // system's words whatever LMDB's version does.
  return rc > 0 ? std::string(std::strerror(rc)) : std::string(mdb_strerror(rc));
}

}  // namespace dirload
