#include "lib/index/sorted_runs.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "lib/util/coding.h"

namespace dirload {
namespace {

constexpr size_t kWriteBuffer = 1 << 20;

std::string Errno(std::string_view what, const std::string& path) {
  return std::string(what) + " '" + path + "': " + std::strerror(errno);
}

}  // namespace

Result<std::unique_ptr<ScopedTempDir>> ScopedTempDir::Create(const std::string& parent) {
  std::string base = parent;
  if (base.empty()) {
    const char* env = std::getenv("TMPDIR");
    base = (env != nullptr && *env != '\0') ? env : "/tmp";
  }
  // The process ID in the name lets `dirload recover` tell the directories
  // of killed runs from those of running ones.
  std::string tmpl = base + "/dirload-sort-" + std::to_string(::getpid()) + "-XXXXXX";
  if (::mkdtemp(tmpl.data()) == nullptr) {
    return Status::IoError(Errno("cannot create a temporary directory under", base));
  }
  return std::unique_ptr<ScopedTempDir>(new ScopedTempDir(tmpl));
}

Result<std::vector<std::string>> RemoveDeadSpillDirs(const std::string& parent) {
  std::string base = parent;
  if (base.empty()) {
    const char* env = std::getenv("TMPDIR");
    base = (env != nullptr && *env != '\0') ? env : "/tmp";
  }
  std::vector<std::string> removed;
  std::error_code ec;
  constexpr std::string_view kPrefix = "dirload-sort-";
  for (const auto& e : std::filesystem::directory_iterator(base, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0 || !e.is_directory(ec)) continue;
    const std::string rest = name.substr(kPrefix.size());
    const size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0) continue;
    long pid = 0;
    auto [p, err] = std::from_chars(rest.data(), rest.data() + dash, pid);
    if (err != std::errc() || p != rest.data() + dash || pid <= 0) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive
    std::error_code rm;
    std::filesystem::remove_all(e.path(), rm);
    if (rm) return Status::IoError("remove " + e.path().string() + ": " + rm.message());
    removed.push_back(e.path().string());
  }
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Status::IoError("list " + base + ": " + ec.message());
  }
  return removed;
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

FileHandle::~FileHandle() {
  if (fd_ >= 0) ::close(fd_);
}

FileHandle& FileHandle::operator=(FileHandle&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

Status FileHandle::Close(const std::string& path) {
  if (fd_ < 0) return Status::Ok();
  int rc = ::close(fd_);
  fd_ = -1;
  if (rc != 0) return Status::IoError(Errno("close", path));
  return Status::Ok();
}

Result<std::unique_ptr<RunWriter>> RunWriter::Create(const std::string& path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IoError(Errno("cannot create sort run", path));
  std::unique_ptr<RunWriter> w(new RunWriter(path, FileHandle(fd)));
  w->buf_.reserve(kWriteBuffer + 4096);
  return w;
}

Status RunWriter::Add(uint32_t table, std::string_view key, std::span<const EntryId> ids) {
  PutVarint(table, &buf_);
  PutVarint(key.size(), &buf_);
  buf_.append(key);
  PutVarint(ids.size(), &buf_);
  EntryId prev = 0;
  for (EntryId id : ids) {
    PutVarint(id - prev, &buf_);
    prev = id;
    if (buf_.size() >= kWriteBuffer) DIRLOAD_RETURN_IF_ERROR(FlushBuffer());
  }
  if (buf_.size() >= kWriteBuffer) DIRLOAD_RETURN_IF_ERROR(FlushBuffer());
  return Status::Ok();
}

Status RunWriter::FlushBuffer() {
  const char* p = buf_.data();
  size_t left = buf_.size();
  while (left > 0) {
    ssize_t n = ::write(fd_.fd(), p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(Errno("cannot write sort run", path_));
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  bytes_ += buf_.size();
  buf_.clear();
  return Status::Ok();
}

Status RunWriter::Finish() {
  DIRLOAD_RETURN_IF_ERROR(FlushBuffer());
  return fd_.Close(path_);
}

RunReader::RunReader(std::string path, FileHandle fd, size_t buffer_bytes)
    : path_(std::move(path)), fd_(std::move(fd)) {
  buf_.resize(std::max<size_t>(buffer_bytes, 64 << 10));
}

Result<std::unique_ptr<RunReader>> RunReader::Open(const std::string& path, size_t buffer_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError(Errno("cannot open sort run", path));
  return std::unique_ptr<RunReader>(new RunReader(path, FileHandle(fd), buffer_bytes));
}

bool RunReader::Fill(size_t n) {
  if (end_ - pos_ >= n) return true;
  if (eof_) return false;
  // Move the unread bytes to the front, grow if one record needs more room,
  // then read until `n` bytes are there or the file ends.
  std::memmove(buf_.data(), buf_.data() + pos_, end_ - pos_);
  end_ -= pos_;
  pos_ = 0;
  if (buf_.size() < n) buf_.resize(n * 2);
  while (end_ < n) {
    ssize_t got = ::read(fd_.fd(), buf_.data() + end_, buf_.size() - end_);
    if (got < 0) {
      if (errno == EINTR) continue;
      status_ = Status::IoError(Errno("cannot read sort run", path_));
      return false;
    }
    if (got == 0) {
      eof_ = true;
      return false;
    }
    end_ += static_cast<size_t>(got);
  }
  return true;
}

bool RunReader::ReadVarint(uint64_t* v) {
  Fill(10);  // a shorter tail is fine when the file ends
  std::string_view in(buf_.data() + pos_, end_ - pos_);
  size_t before = in.size();
  if (!GetVarint(&in, v)) return false;
  pos_ += before - in.size();
  return true;
}

bool RunReader::Next() {
  if (!status_.ok()) return false;
  if (pos_ == end_ && !Fill(1)) return false;  // clean end of file
  uint64_t table = 0, key_len = 0, count = 0;
  auto corrupt = [this](std::string_view what) {
    if (status_.ok())
      status_ = Status::Corruption("sort run '" + path_ + "': " + std::string(what));
    return false;
  };
  if (!ReadVarint(&table) || !ReadVarint(&key_len)) return corrupt("truncated record header");
  if (key_len == 0 || key_len > 65535) return corrupt("bad key length");
  if (!Fill(key_len)) return corrupt("truncated key");
  key_.assign(buf_.data() + pos_, key_len);
  pos_ += key_len;
  if (!ReadVarint(&count) || count == 0) return corrupt("bad ID count");
  ids_.clear();
  ids_.reserve(count);
  EntryId id = 0;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t d = 0;
    if (!ReadVarint(&d)) return corrupt("truncated IDs");
    id += d;
    ids_.push_back(id);
  }
  table_ = static_cast<uint32_t>(table);
  return true;
}

Status MergeRuns(const std::vector<std::string>& paths, size_t buffer_bytes, const MergeFn& fn) {
  std::vector<std::unique_ptr<RunReader>> readers;
  for (const std::string& p : paths) {
    DIRLOAD_ASSIGN_OR_RETURN(std::unique_ptr<RunReader> r, RunReader::Open(p, buffer_bytes));
    readers.push_back(std::move(r));
  }
  // Min-heap of reader indices by (table, key, run number).
  auto greater = [&readers](size_t a, size_t b) {
    const RunReader& x = *readers[a];
    const RunReader& y = *readers[b];
    if (x.table() != y.table()) return x.table() > y.table();
    int c = x.key().compare(y.key());
    if (c != 0) return c > 0;
    return a > b;
  };
  std::vector<size_t> heap;
  for (size_t i = 0; i < readers.size(); ++i) {
    if (readers[i]->Next()) {
      heap.push_back(i);
    } else {
      DIRLOAD_RETURN_IF_ERROR(readers[i]->status());
    }
  }
  std::make_heap(heap.begin(), heap.end(), greater);
  std::vector<EntryId> ids;
  std::string key;
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), greater);
    size_t r = heap.back();
    heap.pop_back();
    uint32_t table = readers[r]->table();
    key.assign(readers[r]->key());
    ids.assign(readers[r]->ids().begin(), readers[r]->ids().end());
    // Gather the same key from later runs (they pop in run order).
    std::vector<size_t> advanced{r};
    while (!heap.empty()) {
      const RunReader& top = *readers[heap.front()];
      if (top.table() != table || top.key() != key) break;
      std::pop_heap(heap.begin(), heap.end(), greater);
      size_t s = heap.back();
      heap.pop_back();
      if (!ids.empty() && readers[s]->ids().front() <= ids.back()) {
        return Status::Internal("sort runs overlap in IDs for one key");
      }
      ids.insert(ids.end(), readers[s]->ids().begin(), readers[s]->ids().end());
      advanced.push_back(s);
    }
    DIRLOAD_RETURN_IF_ERROR(fn(table, key, ids));
    for (size_t s : advanced) {
      if (readers[s]->Next()) {
        heap.push_back(s);
        std::push_heap(heap.begin(), heap.end(), greater);
      } else {
        DIRLOAD_RETURN_IF_ERROR(readers[s]->status());
      }
    }
  }
  return Status::Ok();
}

}  // namespace dirload
