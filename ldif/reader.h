// ldif::Reader: streaming RFC 2849 parser.
//
// Reads a ByteSource in large blocks, splits it into records at blank lines,
// unfolds continuation lines, decodes base64 (`::`) values and resolves
// `:< file://` URLs. An `include: URL` line that opens a record (comments may
// precede it) reads the records of that LDIF file in its place, as OpenLDAP's
// LDIF reader does (cn=config LDIF includes schema files this way); the line
// ends the record it opens, and includes nest. Memory is bounded by the largest record plus one
// block; a record longer than ReaderOptions::max_record_size is an error.
//
// Errors are per record: after Next() returns an error the reader has skipped
// to the start of the following record, so a caller that continues past bad
// records (-c) reads the next one correctly. I/O and decompression errors are
// fatal: every later call returns the same error.
//
// Thread safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ldif/byte_source.h"
#include "ldif/record.h"
#include "lib/util/status.h"

namespace dirload::ldif {

struct ReaderOptions {
  size_t max_record_size = size_t{64} << 20;
  size_t block_size = size_t{1} << 20;
  // Directory against which relative paths in file: URLs resolve; empty means
  // the current directory. (file:///abs is absolute regardless.)
  std::string url_base_dir;
};

// Where and why the last record failed.
struct ReadError {
  std::string file;
  uint64_t record_line = 0;  // first line of the failing record
  uint64_t line = 0;         // the offending line
  std::string what;
  bool fatal = false;  // I/O or decompression: no further records
  // The failing record's bytes as read (for a reject file); empty for an
  // oversized record or a fatal error.
  std::string text;
};

class Reader {
 public:
  explicit Reader(std::unique_ptr<ByteSource> source, ReaderOptions options = {});
  ~Reader();
  Reader(const Reader&) = delete;
  Reader& operator=(const Reader&) = delete;

  // Reads the next record into `*record` (cleared first). Returns true when a
  // record was read, false at end of input, or an error (see last_error()).
  // Message format: "FILE:LINE: WHAT (record starting at line N)".
  Result<bool> Next(Record* record);

  const ReadError& last_error() const { return error_; }

  // Whether a `version: 1` line was seen at the top of the input.
  bool saw_version() const { return saw_version_; }

  // Progress: bytes consumed from the input (compressed bytes for gzip), the
  // input size if known, and uncompressed bytes parsed so far.
  uint64_t input_offset() const;
  uint64_t input_size() const;
  uint64_t bytes_parsed() const { return consumed_; }
  uint64_t line() const { return line_; }
  // The input being read: an included file's name while inside it.
  const std::string& name() const;

 private:
  // Makes more input available after len_, moving the unparsed tail to the
  // front of the buffer first. Sets eof_ at the end of input.
  Status Fill();
  // Finds the end of the record that starts at pos_: the offset just past the
  // newline before the next blank line, or len_ at end of input. Returns 0
  // when more input is needed.
  size_t FindRecordEnd();
  // Like FindRecordEnd, and records in line_ends_ where each line of the
  // record ends (offsets from pos_), so that parsing does not scan again.
  size_t ScanRecord();
  Result<bool> SkipOversizedRecord();
  // Opens the file an `include:` line names (the last line ScanRecord saw,
  // `text` being the scanned lines) as included_.
  Status OpenInclude(std::string_view text);
  // REQUIRES: line_ends_ describes `text` (ScanRecord just ran).
  Status ParseRecord(std::string_view text, Record* record);
  Status ParseLogicalLine(std::string_view line, uint64_t line_no, Record* record);
  Status ParseValue(std::string_view rest, std::string_view description, uint64_t line_no,
                    Record* record, Record::Span* value);
  Status RecordError(uint64_t line, std::string what);
  // `bytes` in the record: a span of its copy of the record's text when
  // `bytes` lies there, else a copy appended.
  Record::Span Keep(std::string_view bytes, Record* record) const;

  std::unique_ptr<ByteSource> source_;
  ReaderOptions options_;
  ReadError error_;
  Status fatal_;

  std::unique_ptr<char[]> data_;
  size_t cap_ = 0;
  size_t len_ = 0;
  size_t pos_ = 0;   // start of unparsed input in data_
  size_t scan_ = 0;  // FindRecordEnd resumes here (absolute offset in data_)
  bool eof_ = false;

  bool first_record_ = true;
  bool saw_version_ = false;
  uint64_t line_ = 1;      // line number at data_[pos_]
  uint64_t consumed_ = 0;  // uncompressed bytes before data_[pos_]

  // Per-record parse state.
  enum class Expect { kVersionOrDn, kDn, kControlOrChangetype, kContent, kChange };
  Expect expect_ = Expect::kDn;
  uint64_t record_line_ = 0;
  std::string scratch_;  // a folded logical line being assembled
  // The text of the record being parsed, copied whole to the start of its
  // buffer (records up to kKeptTextBytes): descriptions and plain values are
  // spans of that copy, so a record costs one copy instead of one per line.
  static constexpr size_t kKeptTextBytes = size_t{64} << 10;
  std::string_view kept_text_;
  uint32_t kept_at_ = 0;  // where kept_text_'s copy starts in the buffer
  std::vector<uint32_t> line_ends_;
  bool include_line_ = false;  // ScanRecord stopped after an `include:` line

  // The file an `include:` line opened, read until its end before the rest
  // of this input.
  std::unique_ptr<Reader> included_;
};

}  // namespace dirload::ldif
