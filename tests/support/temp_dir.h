// TempDir: a fresh directory under $TMPDIR for one test, removed with its
// contents when the object goes out of scope. Test-only helper.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace dirload::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dirload-test-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string File(std::string_view name) const { return (path_ / name).string(); }
  // Writes `bytes` to a file in the directory and returns its path.
  std::string Write(std::string_view name, std::string_view bytes) const {
    std::string p = File(name);
    std::ofstream(p, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return p;
  }

 private:
  std::filesystem::path path_;
};

// The current directory set to `dir` for the object's life, then restored:
// slapd.conf's relative paths are relative to it.
class InDirectory {
 public:
  explicit InDirectory(const std::filesystem::path& dir) : was_(std::filesystem::current_path()) {
    std::filesystem::current_path(dir);
  }
  ~InDirectory() {
    std::error_code ec;
    std::filesystem::current_path(was_, ec);
  }
  InDirectory(const InDirectory&) = delete;
  InDirectory& operator=(const InDirectory&) = delete;

 private:
  std::filesystem::path was_;
};

// Reads a whole file; empty when it cannot be read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// An environment variable, or `fallback` when unset.
inline std::string Env(const char* name, const char* fallback = "") {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

#ifdef DIRLOAD_CORPUS_DIR_DEFAULT
// Where the shared LDIF corpus, the source tree and the build tree are.
inline std::string CorpusDir() { return Env("DIRLOAD_CORPUS_DIR", DIRLOAD_CORPUS_DIR_DEFAULT); }
inline std::string SourceDir() { return Env("DIRLOAD_SOURCE_DIR", DIRLOAD_SOURCE_DIR_DEFAULT); }
inline std::string BinaryDir() { return Env("DIRLOAD_BINARY_DIR", DIRLOAD_BINARY_DIR_DEFAULT); }
#endif

}  // namespace dirload::testing
