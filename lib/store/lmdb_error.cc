#include "lib/store/lmdb_error.h"

#include <lmdb.h>

#include <cerrno>

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

}  // namespace dirload
