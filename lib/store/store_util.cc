#include "lib/store/store_util.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>

#include "lib/store/store.h"
#include "lib/util/ascii.h"
#include "lib/util/file.h"

namespace dirload::store_internal {
namespace {

constexpr size_t kMaxKeyBytesShown = 48;

std::string Errno(std::string_view engine, std::string_view op, const std::string& path, int err) {
  return std::string(engine) + ": " + std::string(op) + " " + path + ": " + std::strerror(err);
}

struct DirCloser {
  void operator()(DIR* d) const { ::closedir(d); }
};
using DirHandle = std::unique_ptr<DIR, DirCloser>;

}  // namespace

std::string DescribeKey(std::string_view key) {
  bool printable = !key.empty() && std::all_of(key.begin(), key.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '\'';
  });
  std::string_view shown = key.substr(0, kMaxKeyBytesShown);
  std::string out;
  if (printable) {
    out = "'" + std::string(shown) + "'";
  } else {
    out = "0x";
    out += HexEncode(shown);
  }
  if (shown.size() < key.size()) out += "...";
  return out;
}

Status CheckKey(std::string_view engine, std::string_view op, std::string_view table,
                const std::string& path, std::string_view key) {
  if (!key.empty() && key.size() <= kMaxKeySize) return Status::Ok();
  std::string what = key.empty() ? "an empty key"
                                 : "a key of " + std::to_string(key.size()) +
                                       " bytes, over the limit of " + std::to_string(kMaxKeySize);
  return Status::InvalidArgument(std::string(engine) + ": " + std::string(op) + "(" +
                                 std::string(table) + ") in " + path + ": " + what);
}

Status AppendOrderError(std::string_view engine, std::string_view table, const std::string& path,
                        std::string_view key, std::string_view last_key) {
  return Status::InvalidArgument(std::string(engine) + ": append(" + std::string(table) + ") in " +
                                 path + ": key " + DescribeKey(key) +
                                 " is not greater than the last key " + DescribeKey(last_key) +
                                 " (Append requires ascending keys)");
}

Status ReadOnlyError(std::string_view engine, std::string_view op, std::string_view table,
                     const std::string& path, bool whole_store) {
  return Status::InvalidArgument(
      std::string(engine) + ": " + std::string(op) + "(" + std::string(table) + ") in " + path +
      ": " + (whole_store ? "the store is open read-only" : "the table was reopened read-only"));
}

Status PrepareDirectory(std::string_view engine, const std::string& dir, bool create) {
  struct stat st;
  if (::stat(dir.c_str(), &st) == 0) {
    if (!S_ISDIR(st.st_mode)) {
      return Status::InvalidArgument(std::string(engine) + ": " + dir + ": not a directory");
    }
    return Status::Ok();
  }
  int err = errno;
  if (err != ENOENT) return Status::IoError(Errno(engine, "stat", dir, err));
  if (!create) {
    return Status::NotFound(std::string(engine) + ": " + dir + ": no such database directory");
  }
  if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return Status::IoError(Errno(engine, "mkdir", dir, errno));
  }
  return Status::Ok();
}

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0;
}

uint64_t FileSize(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return 0;
  return static_cast<uint64_t>(st.st_size);
}

Result<std::vector<std::string>> ListFilesWithSuffix(std::string_view engine,
                                                     const std::string& dir,
                                                     std::string_view suffix) {
  DirHandle d(::opendir(dir.c_str()));
  if (d == nullptr) return Status::IoError(Errno(engine, "opendir", dir, errno));
  std::vector<std::string> names;
  for (;;) {
    errno = 0;
    struct dirent* e = ::readdir(d.get());
    if (e == nullptr) {
      if (errno != 0) return Status::IoError(Errno(engine, "readdir", dir, errno));
      break;
    }
    std::string_view name(e->d_name);
    if (name.size() <= suffix.size() || name.substr(name.size() - suffix.size()) != suffix) {
      continue;
    }
    struct stat st;
    std::string full = dir + "/" + std::string(name);
    if (::stat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    names.emplace_back(name.substr(0, name.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

Status SyncDirectory(std::string_view engine, const std::string& dir) {
  return ::dirload::SyncDirectory(dir).WithPrefix(std::string(engine) + ": ");
}

}  // namespace dirload::store_internal
