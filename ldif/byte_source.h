// ByteSource: where LDIF bytes come from. A file, standard input or a memory
// buffer; gzip input is detected by its magic bytes (never by the file name)
// and inflated transparently, so every consumer sees plain LDIF.
//
// gzip input is inflated on a thread of its own, a few blocks ahead of the
// consumer, so inflating and parsing overlap.
//
// Thread safety: a source is used by one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "lib/util/status.h"

namespace dirload::ldif {

class ByteSource {
 public:
  virtual ~ByteSource() = default;

  // Reads up to `n` bytes into `buf`. Returns the count read; 0 means end of
  // input. A truncated or corrupt gzip stream is an error naming the byte
  // offset in the compressed input.
  virtual Result<size_t> Read(char* buf, size_t n) = 0;

  // Name used in messages: the path, or "<stdin>", or a caller-chosen label.
  virtual const std::string& name() const = 0;

  // Bytes consumed from the underlying input (compressed bytes for gzip):
  // with input_size() it gives progress.
  virtual uint64_t input_offset() const = 0;
  // Size of the underlying input when known (a regular file), else 0.
  virtual uint64_t input_size() const = 0;
  virtual bool compressed() const = 0;
};

// Opens `path` for reading ("-" is standard input). Detects gzip by magic.
// `name`, when given, names a file in messages instead of its path (a copy
// of standard input is still "<stdin>" to the user).
Result<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path,
                                                   const std::string& name = {});

// A source over bytes held in memory (also detects gzip by magic).
std::unique_ptr<ByteSource> MemoryByteSource(std::string data, std::string name = "<memory>");

}  // namespace dirload::ldif
