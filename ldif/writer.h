// ldif::Writer: LDIF output that slapcat users recognise.
//
// `dn:` first, then attributes in stored order, one line per value, folded at
// 76 columns by default (continuation lines start with one space), records
// separated by one blank line. A value is written base64 (`::`) exactly when
// RFC 2849 does not allow it as a SAFE-STRING: it starts with a space, ':' or
// '<', ends with a space, or holds a byte that is NUL, CR, LF or >= 0x80.
// Output is deterministic: the same records give the same bytes.
//
// Thread safety: one thread at a time.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "ldif/record.h"
#include "lib/util/status.h"

namespace dirload::ldif {

struct WriterOptions {
  // Maximum physical line length in bytes, the "\n" not counted: the first
  // line of a value holds `wrap` bytes, each continuation line one space and
  // up to wrap - 1 bytes. 0 disables folding; 1 behaves as 2. 76 gives the
  // bytes of `slapcat -o ldif-wrap=76`; plain slapcat folds at 78.
  size_t wrap = 76;
  // Choose base64 as slapcat does (SlapcatNeedsBase64) instead of by RFC
  // 2849 alone: what `dirload cat` writes for slapd's own database format.
  bool slapcat_base64 = false;
};

// True when `value` must be base64-encoded in LDIF (see above).
bool NeedsBase64(std::string_view value);

// slapcat's (libldap's ldif_put) stricter rule: base64 unless the value is
// empty, or starts and ends with a graphic ASCII character, does not start
// with ':' or '<', and holds only printable ASCII (0x20..0x7e; a tab or any
// byte >= 0x80 means base64); always base64 for userPassword (also as
// 2.5.4.35, any case) and for descriptions containing ";binary".
bool SlapcatNeedsBase64(std::string_view description, std::string_view value);

// Appends one `description: value` (or `::` base64) line, folded per
// `options`, including the final "\n". An empty value is written as
// `description:` with nothing after the colon, as slapcat writes it (RFC 2849
// allows an empty FILL and SAFE-STRING).
void AppendAttributeLine(std::string_view description, std::string_view value,
                         const WriterOptions& options, std::string* out);

// Appends `record` (dn line, attribute lines, then a blank line). The dn
// follows the same base64 and folding rules as values. Change records are
// written with their changetype line after the dn, and a "-" separator
// (description "-") as a bare "-" line.
void AppendRecord(const Record& record, const WriterOptions& options, std::string* out);

// Where output bytes go: a file, standard output, optionally gzip-compressed.
class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Status Write(std::string_view bytes) = 0;
  // Flushes and closes; errors (disk full, gzip trailer) surface here.
  // Closing twice is harmless; Write after Close is an error. Destroying a
  // sink without Close releases it but may leave the output incomplete (a
  // gzip stream without its trailer).
  virtual Status Close() = 0;
};

// Opens `path` for writing, created or truncated ("-" is standard output,
// which Close leaves open). With `gzip`, output is a gzip stream (zlib level
// `level`, -1..9). Errors name the operation, the path and the system's or
// zlib's message.
Result<std::unique_ptr<ByteSink>> OpenByteSink(const std::string& path, bool gzip = false,
                                               int level = 6);

// Buffers records and writes them to a sink in blocks of about 1 MiB. Call
// Flush() and then the sink's Close() at the end: the destructor writes
// nothing.
class Writer {
 public:
  // `sink` is borrowed and must outlive the writer.
  Writer(ByteSink* sink, WriterOptions options = {});
  // Appends one record, with the blank line that ends it, to the buffer and
  // writes the buffer to the sink once it is over the block size.
  Status Write(const Record& record);
  // Writes buffered bytes to the sink (does not close it). The buffer is
  // emptied even when the sink fails, so nothing is written twice.
  Status Flush();
  uint64_t records_written() const { return records_; }

 private:
  ByteSink* sink_;
  WriterOptions options_;
  std::string buf_;
  uint64_t records_ = 0;
};

}  // namespace dirload::ldif
