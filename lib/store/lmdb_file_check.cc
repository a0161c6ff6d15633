#include "lib/store/lmdb_file_check.h"

#include <fcntl.h>
#include <lmdb.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <optional>

#include "lib/util/damage_signal.h"
#include "lib/util/file.h"

namespace dirload {
namespace {

// LMDB's on-disk layout (mdb.c), native byte order, 64-bit build: every page
// starts with a 16-byte header (page number, pad, flags, bounds); a meta
// page's header is followed by MDB_meta: magic, version, fixed-map address,
// map size, the free and main databases' MDB_db records (48 bytes each; the
// free one's first field holds the page size), the last used page number and
// the id of the transaction that wrote the page.
constexpr size_t kPageHeaderSize = 16;
constexpr size_t kFlagsOffset = 10;  // uint16 in the page header
constexpr uint16_t kMetaPageFlag = 0x08;
constexpr uint32_t kMagic = 0xBEEFC0DE;
constexpr uint32_t kDataVersion = 1;
constexpr size_t kDbRecordSize = 48;
constexpr size_t kMagicOffset = 0;
constexpr size_t kVersionOffset = 4;
constexpr size_t kPageSizeOffset = 8 + 2 * sizeof(uint64_t);  // after address, map size
constexpr size_t kLastPageOffset = kPageSizeOffset + 2 * kDbRecordSize;
constexpr size_t kTxnIdOffset = kLastPageOffset + sizeof(uint64_t);
constexpr size_t kMetaReadSize = kPageHeaderSize + kTxnIdOffset + sizeof(uint64_t);
static_assert(sizeof(void*) == 8 && sizeof(size_t) == 8, "the layout above is LMDB's on 64-bit");
constexpr uint32_t kMinPageSize = 512;
constexpr uint32_t kMaxPageSize = 65536;
// The second meta page sits one page in; when the first cannot tell the page
// size, these are tried (4 KB is what LMDB picks on x86-64 Linux).
constexpr uint32_t kLikelyPageSizes[] = {4096, 8192, 16384, 32768, 65536, 512, 1024, 2048};
// Pages the file may lack at its end and still be whole: pages a transaction
// took and freed again before committing are put on the free list without
// ever being written, so the last used page can lie past the end of the file
// (mdb.c says as much of mm_last_pg). Reads never reach free pages; a file
// cut shorter than this is still caught by lib/util/damage_signal.h when a
// read reaches past its end.
constexpr uint64_t kUnwrittenTailPages = 64;

struct Meta {
  uint32_t page_size = 0;
  uint64_t last_page = 0;
  uint64_t txn_id = 0;
};

template <typename T>
T Load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The meta page at `offset`, if it is one LMDB would accept.
std::optional<Meta> ReadMeta(int fd, off_t offset) {
  unsigned char buf[kMetaReadSize];
  ssize_t n = ::pread(fd, buf, sizeof buf, offset);
  if (n != static_cast<ssize_t>(sizeof buf)) return std::nullopt;
  if ((Load<uint16_t>(buf + kFlagsOffset) & kMetaPageFlag) == 0) return std::nullopt;
  const unsigned char* m = buf + kPageHeaderSize;
  if (Load<uint32_t>(m + kMagicOffset) != kMagic) return std::nullopt;
  if (Load<uint32_t>(m + kVersionOffset) != kDataVersion) return std::nullopt;
  Meta meta;
  meta.page_size = Load<uint32_t>(m + kPageSizeOffset);
  meta.last_page = Load<uint64_t>(m + kLastPageOffset);
  meta.txn_id = Load<uint64_t>(m + kTxnIdOffset);
  if (meta.page_size < kMinPageSize || meta.page_size > kMaxPageSize ||
      (meta.page_size & (meta.page_size - 1)) != 0) {
    return std::nullopt;
  }
  return meta;
}

Status Damaged(const std::string& file, const std::string& why) {
  return Status::Corruption("database file damaged: " + file + " (" + why +
                            "); restore a copy or load again")
      .WithOrigin(ErrorOrigin::kStorage);
}

extern "C" void OnLmdbAssertion(MDB_env* /*env*/, const char* message) {
  ExitIfDatabaseRegistered(message != nullptr ? message : "LMDB assertion");
}

}  // namespace

void ReportLmdbAssertionsAsDamage(MDB_env* env) { mdb_env_set_assert(env, OnLmdbAssertion); }

Status CheckLmdbDataFile(const std::string& file) {
  UniqueFd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return Status::Ok();  // a new database
    return Status::IoError(file + ": " + std::strerror(errno)).WithOrigin(ErrorOrigin::kStorage);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    return Status::IoError(file + ": " + std::strerror(errno)).WithOrigin(ErrorOrigin::kStorage);
  }
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size == 0) return Status::Ok();  // created, never written: LMDB starts it afresh

  std::optional<Meta> first = ReadMeta(fd.get(), 0);
  std::optional<Meta> second;
  if (first) {
    second = ReadMeta(fd.get(), first->page_size);
  } else {
    for (uint32_t ps : kLikelyPageSizes) {
      if ((second = ReadMeta(fd.get(), ps)) && second->page_size == ps) break;
      second.reset();
    }
  }
  if (!first && !second) return Damaged(file, std::to_string(size) + " bytes, no valid meta page");
  // LMDB refuses a file unless both meta pages are valid; say why here
  // rather than let it report an invalid file.
  if (!first || !second) {
    return Damaged(file, std::string("meta page ") + (first ? "1" : "0") + " is not valid");
  }
  const Meta& meta = first->txn_id >= second->txn_id ? *first : *second;
  const uint64_t needed = (meta.last_page + 1) * meta.page_size;
  const uint64_t tolerated = needed - std::min(needed, kUnwrittenTailPages * meta.page_size);
  if (size < tolerated) {
    return Damaged(file,
                   std::to_string(size) + " bytes, the database needs " + std::to_string(needed));
  }
  // LMDB writes whole pages; a file that ends inside one was cut. (A file
  // written through a writable map is the map's size, a multiple too.)
  if (size % meta.page_size != 0) {
    return Damaged(file, std::to_string(size) + " bytes, not a whole number of " +
                             std::to_string(meta.page_size) + "-byte pages");
  }
  return Status::Ok();
}

std::unique_ptr<BackgroundFlush> NewLmdbFlush(MDB_env* env, const std::string& file,
                                              bool through_writable_map) {
  unsigned flags = 0;
  mdb_filehandle_t fd;
  if (mdb_env_get_flags(env, &flags) != MDB_SUCCESS || (flags & MDB_NOSYNC) == 0 ||
      (!through_writable_map && (flags & MDB_WRITEMAP) != 0) ||
      mdb_env_get_fd(env, &fd) != MDB_SUCCESS) {
    return nullptr;
  }
  return std::make_unique<BackgroundFlush>(fd, file);
}

}  // namespace dirload
