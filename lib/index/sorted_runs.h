// Sorted runs for the sort index builder: a run is a temporary file of ID
// lists in ascending (table, key) order, written when the in-memory grouping
// of one stretch of the id2entry scan reaches --sort-memory, and the runs are
// k-way merged at the end. Runs are written in scan order, so for one key the
// IDs of an earlier run all precede those of a later one, and the merge
// concatenates them in run order.
//
// Run file format (private to one process run, never kept):
//   repeated: varint table, varint key length, key bytes, varint ID count
//             (>= 1), the IDs as varints (first absolute, then deltas)
//
// ScopedTempDir is the private directory runs live in: created with a unique
// name under the given parent, removed with its contents by the destructor,
// whichever way the build ends.
//
// Thread safety: one thread per object.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/entry/entry_codec.h"
#include "lib/util/status.h"

namespace dirload {

// Removes the spill directories under `parent` (empty: as Create) whose
// process no longer runs (a run killed with -9 cannot remove its own).
// Returns their paths.
Result<std::vector<std::string>> RemoveDeadSpillDirs(const std::string& parent);

class ScopedTempDir {
 public:
  // A new directory "dirload-sort-PID-XXXXXX" under `parent` (empty:
  // $TMPDIR, else /tmp).
  static Result<std::unique_ptr<ScopedTempDir>> Create(const std::string& parent);
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  explicit ScopedTempDir(std::string path) : path_(std::move(path)) {}
  std::string path_;
};

// An owned file descriptor.
class FileHandle {
 public:
  FileHandle() = default;
  explicit FileHandle(int fd) : fd_(fd) {}
  ~FileHandle();
  FileHandle(FileHandle&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileHandle& operator=(FileHandle&& other) noexcept;
  int fd() const { return fd_; }
  Status Close(const std::string& path);

 private:
  int fd_ = -1;
};

class RunWriter {
 public:
  static Result<std::unique_ptr<RunWriter>> Create(const std::string& path);
  // REQUIRES: (table, key) ascending across calls; ids ascending, non-empty.
  [[nodiscard]] Status Add(uint32_t table, std::string_view key, std::span<const EntryId> ids);
  // Flushes and closes the file.
  [[nodiscard]] Status Finish();
  uint64_t bytes() const { return bytes_; }

 private:
  RunWriter(std::string path, FileHandle fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  Status FlushBuffer();

  std::string path_;
  FileHandle fd_;
  std::string buf_;
  uint64_t bytes_ = 0;
};

class RunReader {
 public:
  static Result<std::unique_ptr<RunReader>> Open(const std::string& path, size_t buffer_bytes);
  // Moves to the next record; false at the end of the file (check status()).
  bool Next();
  uint32_t table() const { return table_; }
  std::string_view key() const { return key_; }
  const std::vector<EntryId>& ids() const { return ids_; }
  const Status& status() const { return status_; }

 private:
  RunReader(std::string path, FileHandle fd, size_t buffer_bytes);
  // Makes at least `n` bytes available from pos_; false at end of file.
  bool Fill(size_t n);
  bool ReadVarint(uint64_t* v);

  std::string path_;
  FileHandle fd_;
  std::string buf_;
  size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  uint32_t table_ = 0;
  std::string key_;
  std::vector<EntryId> ids_;
  Status status_;
};

// Merges the runs (in run order) and calls fn once per (table, key) in
// ascending order with every ID of that key, ascending.
using MergeFn =
    std::function<Status(uint32_t table, std::string_view key, std::span<const EntryId> ids)>;
[[nodiscard]] Status MergeRuns(const std::vector<std::string>& paths, size_t buffer_bytes,
                               const MergeFn& fn);

}  // namespace dirload
