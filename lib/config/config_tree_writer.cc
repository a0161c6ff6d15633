#include "lib/config/config_tree_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "ldif/base64.h"
#include "ldif/writer.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kHeader = "# AUTO-GENERATED FILE - DO NOT EDIT!! Use ldapmodify.\n";
// slapd writes its configuration entries folded at 78 bytes (entry2str).
constexpr size_t kWrap = 78;

Status StorageError(std::string message) {
  return Status::IoError(std::move(message)).WithOrigin(ErrorOrigin::kStorage);
}

std::string Errno(std::string_view op, const std::string& path) {
  return std::string(op) + " " + path + ": " + std::strerror(errno);
}

std::array<uint32_t, 256> MakeCrcTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
    table[i] = c;
  }
  return table;
}

// slapd registers olcRootPW as always written in base64, beside
// userPassword, which ldif::SlapcatNeedsBase64 knows.
void AppendLine(std::string_view description, std::string_view value, std::string* out) {
  if (!value.empty() && EqualsIgnoreCase(description, "olcRootPW")) {
    std::string line(description);
    line += ":: ";
    const size_t head = line.size();
    ldif::Base64Encode(value, &line);
    // Folded as ldif::AppendAttributeLine folds: the first line holds kWrap
    // bytes (at least the description and its colons), each continuation a
    // space and up to kWrap - 1.
    size_t first = std::max(kWrap, head);
    out->append(line, 0, std::min(first, line.size()));
    for (size_t pos = first; pos < line.size(); pos += kWrap - 1) {
      out->append("\n ");
      out->append(line, pos, kWrap - 1);
    }
    out->push_back('\n');
    return;
  }
  ldif::WriterOptions options;
  options.wrap = kWrap;
  options.slapcat_base64 = true;
  ldif::AppendAttributeLine(description, value, options, out);
}

// back-ldif escapes these in file names; dirload does not name such files.
bool SafeFileName(std::string_view rdn) {
  if (rdn.empty()) return false;
  for (unsigned char c : rdn) {
    if (c == '/' || c == ':' || c == '\\' || c == '.' || c < 0x20) return false;
  }
  return true;
}

Status WriteFile(const std::string& path, const std::string& bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return StorageError(Errno("create", path));
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      Status s = StorageError(Errno("write", path));
      ::close(fd);
      return s;
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  if (::close(fd) != 0) return StorageError(Errno("close", path));
  return Status::Ok();
}

Status CheckFileNames(const std::vector<ConfigTreeEntry>& entries) {
  for (const ConfigTreeEntry& e : entries) {
    for (const std::string& rdn : e.rdns) {
      if (!SafeFileName(rdn)) {
        return Status::Unsupported("'" + rdn +
                                   "': a name back-ldif stores escaped ('/', ':', '\\', '.'); "
                                   "dirload does not write such names")
            .WithOrigin(ErrorOrigin::kConfiguration);
      }
    }
  }
  return Status::Ok();
}

// Removes the temporary tree unless released: an error anywhere leaves
// DIR as it was.
class TempTree {
 public:
  explicit TempTree(std::string path) : path_(std::move(path)) {}
  ~TempTree() {
    std::error_code ec;
    if (!path_.empty()) fs::remove_all(path_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

uint32_t ConfigFileCrc32(std::string_view bytes) {
  static const std::array<uint32_t, 256> kTable = MakeCrcTable();
  uint32_t crc = 0xffffffffu;
  for (unsigned char c : bytes) crc = kTable[(crc ^ c) & 0xff] ^ (crc >> 8);
  return crc ^ 0xffffffffu;
}

std::string FormatConfigFile(const ConfigTreeEntry& entry) {
  std::string body;
  AppendLine("dn", entry.rdns.front(), &body);
  for (const ConfigAttribute& a : entry.attributes) {
    for (const std::string& v : a.values) AppendLine(a.description, v, &body);
  }
  char crc[32];
  std::snprintf(crc, sizeof crc, "# CRC32 %08x\n", ConfigFileCrc32(body));
  std::string out(kHeader);
  out += crc;
  out += body;
  return out;
}

std::string ConfigFilePath(const ConfigTreeEntry& entry) {
  std::string path;
  for (size_t i = entry.rdns.size(); i-- > 0;) {
    path += entry.rdns[i];
    path += i == 0 ? ".ldif" : "/";
  }
  return path;
}

Status CheckConfigDirectoryEmpty(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return Status::NotFound(dir + ": no such directory (slapadd -F needs it to exist)")
        .WithOrigin(ErrorOrigin::kConfiguration);
  }
  if (fs::exists(dir + "/cn=config.ldif", ec)) {
    // slapadd reads that configuration and then fails on the input's first
    // entry, which already exists: exit status 1, nothing written.
    return Status::AlreadyExists(dir +
                                 "/cn=config.ldif: cn=config: the entry already exists (the "
                                 "directory holds a configuration; the cn=config database is "
                                 "loaded into an empty directory only)")
        .WithOrigin(ErrorOrigin::kInput);
  }
  if (fs::exists(dir + "/cn=config", ec) && !fs::is_empty(dir + "/cn=config", ec)) {
    return Status::AlreadyExists(dir +
                                 "/cn=config: holds files without cn=config.ldif beside it; "
                                 "remove them or load into an empty directory")
        .WithOrigin(ErrorOrigin::kConfiguration);
  }
  return Status::Ok();
}

Status WriteConfigTree(const std::string& dir, const std::vector<ConfigTreeEntry>& entries) {
  DIRLOAD_RETURN_IF_ERROR(CheckConfigDirectoryEmpty(dir));
  DIRLOAD_RETURN_IF_ERROR(CheckFileNames(entries));
  std::string pattern = dir + "/.dirload-config.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) return StorageError(Errno("mkdtemp", pattern));
  TempTree temp(pattern);
  for (const ConfigTreeEntry& e : entries) {
    const std::string path = temp.path() + "/" + ConfigFilePath(e);
    if (e.rdns.size() > 1) {
      // The parent's directory, made by its first child as back-ldif does.
      const std::string parent = path.substr(0, path.rfind('/'));
      if (::mkdir(parent.c_str(), 0750) != 0 && errno != EEXIST) {
        return StorageError(Errno("mkdir", parent));
      }
    }
    DIRLOAD_RETURN_IF_ERROR(WriteFile(path, FormatConfigFile(e)));
  }
  // cn=config.ldif last: it is what makes DIR a configuration.
  const std::string children = temp.path() + "/cn=config";
  std::error_code ec;
  if (fs::exists(children, ec)) {
    const std::string target = dir + "/cn=config";
    if (::rename(children.c_str(), target.c_str()) != 0) {
      return StorageError(Errno("rename to", target));
    }
  }
  const std::string root = temp.path() + "/cn=config.ldif";
  const std::string target = dir + "/cn=config.ldif";
  if (::rename(root.c_str(), target.c_str()) != 0) {
    Status s = StorageError(Errno("rename to", target));
    fs::remove_all(dir + "/cn=config", ec);
    return s;
  }
  return Status::Ok();
}

Status AddToConfigTree(const std::string& dir, const std::vector<ConfigTreeEntry>& entries) {
  std::error_code ec;
  if (!fs::exists(dir + "/cn=config.ldif", ec)) {
    return Status::NotFound(dir + "/cn=config.ldif: missing: no configuration to add to")
        .WithOrigin(ErrorOrigin::kConfiguration);
  }
  for (const ConfigTreeEntry& e : entries) {
    if (e.rdns.size() < 2) {
      return Status::AlreadyExists(dir + "/cn=config.ldif: cn=config: the entry already exists")
          .WithOrigin(ErrorOrigin::kInput);
    }
  }
  DIRLOAD_RETURN_IF_ERROR(CheckFileNames(entries));
  // Every file is written under a temporary name first and the directories
  // made are remembered, so that an error removes what was added and the
  // configuration stays as it was; the renames come last.
  std::vector<std::string> made_dirs;
  std::vector<std::pair<std::string, std::string>> written;  // (temporary, final)
  auto undo = [&] {
    for (const auto& [temp, final_path] : written) ::unlink(temp.c_str());
    for (auto it = made_dirs.rbegin(); it != made_dirs.rend(); ++it) ::rmdir(it->c_str());
  };
  for (const ConfigTreeEntry& e : entries) {
    const std::string path = dir + "/" + ConfigFilePath(e);
    const std::string parent = path.substr(0, path.rfind('/'));
    if (!fs::is_directory(parent, ec)) {
      if (::mkdir(parent.c_str(), 0750) != 0) {
        Status s = StorageError(Errno("mkdir", parent));
        undo();
        return s;
      }
      made_dirs.push_back(parent);
    }
    if (fs::exists(path, ec)) {
      undo();
      return Status::AlreadyExists(path + ": the entry already exists")
          .WithOrigin(ErrorOrigin::kInput);
    }
    const std::string temp = parent + "/.dirload-new." + e.rdns.front();
    Status st = WriteFile(temp, FormatConfigFile(e));
    if (!st.ok()) {
      undo();
      return st;
    }
    written.emplace_back(temp, path);
  }
  for (size_t i = 0; i < written.size(); ++i) {
    if (::rename(written[i].first.c_str(), written[i].second.c_str()) != 0) {
      Status s = StorageError(Errno("rename to", written[i].second));
      for (size_t j = 0; j < i; ++j) ::unlink(written[j].second.c_str());
      undo();
      return s;
    }
  }
  return Status::Ok();
}

}  // namespace dirload
