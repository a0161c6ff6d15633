#include "ldif/writer.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "ldif/base64.h"
#include "lib/util/ascii.h"
#include "lib/util/file.h"

namespace dirload::ldif {
namespace {

// The writer hands the sink blocks of about this size: large enough that
// system calls and deflate calls are a negligible cost per record.
constexpr size_t kFlushThreshold = size_t{1} << 20;

// Has a zero byte anywhere in the 8 bytes of `v` (exact as a yes/no answer).
inline uint64_t HasZeroByte(uint64_t v) {
  return (v - 0x0101010101010101ull) & ~v & 0x8080808080808080ull;
}

// Non-zero when any byte of `w` is NUL, LF, CR or >= 0x80: the bytes that
// may appear nowhere in a SAFE-STRING.
inline uint64_t UnsafeBytes(uint64_t w) {
  return (w & 0x8080808080808080ull) | HasZeroByte(w) | HasZeroByte(w ^ 0x0a0a0a0a0a0a0a0aull) |
         HasZeroByte(w ^ 0x0d0d0d0d0d0d0d0dull);
}

inline bool UnsafeByte(unsigned char c) { return c == 0 || c == '\n' || c == '\r' || c >= 0x80; }

// Inserts "\n " into the logical line out[start, end) so that the first
// physical line holds `wrap` bytes, or the whole `head` ("cn: ") when that is
// longer, as slapcat never splits a description from its colon, and each
// continuation line one space plus up to wrap - 1 bytes. Works in place from
// the back, so each byte moves once.
void FoldInPlace(std::string* out, size_t start, size_t wrap, size_t head) {
  const size_t len = out->size() - start;
  if (wrap == 0 || len <= wrap) return;
  const size_t first = std::max(wrap, std::min(head, len));
  if (len <= first) return;
  const size_t step = wrap - 1;  // payload bytes per continuation line
  const size_t rest = len - first;
  const size_t folds = (rest + step - 1) / step;
  out->resize(out->size() + 2 * folds);
  char* base = out->data() + start + first;  // first byte after the first line
  for (size_t k = folds; k-- > 0;) {
    size_t from = k * step;
    size_t n = k + 1 == folds ? rest - from : step;
    char* dst = base + k * (step + 2);
    std::memmove(dst + 2, base + from, n);
    dst[0] = '\n';
    dst[1] = ' ';
  }
}

std::string ErrnoMessage(std::string_view op, const std::string& name, int err) {
  return std::string(op) + " " + name + ": " + std::strerror(err);
}

Status WriteAll(int fd, const std::string& name, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Status::IoError(ErrnoMessage("write", name, errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return Status::Ok();
}

// Writes to `fd`; `owned` holds it when it was opened here (standard output
// is never closed), and Close() reports a failed close(2).
class FileSink : public ByteSink {
 public:
  FileSink(int fd, UniqueFd owned, std::string name)
      : fd_(fd), owned_(std::move(owned)), name_(std::move(name)) {}

  Status Write(std::string_view bytes) override {
    if (closed_) return Status::Internal("write " + name_ + ": sink is closed");
    return WriteAll(fd_, name_, bytes.data(), bytes.size());
  }

  Status Close() override {
    if (closed_) return Status::Ok();
    closed_ = true;
    if (owned_.Close() != 0) return Status::IoError(ErrnoMessage("close", name_, errno));
    return Status::Ok();
  }

 private:
  int fd_;
  UniqueFd owned_;
  std::string name_;
  bool closed_ = false;
};

// Deflates into a gzip stream (RFC 1952 framing by zlib) and writes the
// compressed bytes to a descriptor in blocks of kOutSize.
class GzipSink : public ByteSink {
 public:
  static constexpr size_t kOutSize = size_t{256} << 10;

  GzipSink(int fd, UniqueFd owned, std::string name)
      : fd_(fd), owned_(std::move(owned)), name_(std::move(name)) {}
  ~GzipSink() override {
    if (initialised_) deflateEnd(&zs_);
  }
  GzipSink(const GzipSink&) = delete;
  GzipSink& operator=(const GzipSink&) = delete;

  Status Init(int level) {
    // 15 + 16: the largest window, with a gzip header and trailer.
    int rc = deflateInit2(&zs_, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    if (rc != Z_OK) return ZlibError("deflateInit2", rc);
    initialised_ = true;
    out_.resize(kOutSize);
    return Status::Ok();
  }

  Status Write(std::string_view bytes) override {
    if (closed_) return Status::Internal("write " + name_ + ": sink is closed");
    zs_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    // zlib counts in uInt; feed very large blocks in pieces.
    size_t left = bytes.size();
    while (left > 0) {
      uInt chunk = left > (1u << 30) ? (1u << 30) : static_cast<uInt>(left);
      zs_.avail_in = chunk;
      DIRLOAD_RETURN_IF_ERROR(Pump(Z_NO_FLUSH));
      left -= chunk;
    }
    return Status::Ok();
  }

  Status Close() override {
    if (closed_) return Status::Ok();
    closed_ = true;
    zs_.avail_in = 0;
    Status st = Pump(Z_FINISH);
    deflateEnd(&zs_);
    initialised_ = false;
    if (owned_.Close() != 0 && st.ok()) st = Status::IoError(ErrnoMessage("close", name_, errno));
    return st;
  }

 private:
  // Runs deflate until it has consumed all input (or, with Z_FINISH, written
  // the trailer), writing each full output block.
  Status Pump(int flush) {
    for (;;) {
      zs_.next_out = reinterpret_cast<Bytef*>(out_.data());
      zs_.avail_out = static_cast<uInt>(out_.size());
      int rc = deflate(&zs_, flush);
      if (rc == Z_STREAM_ERROR) return ZlibError("deflate", rc);
      size_t have = out_.size() - zs_.avail_out;
      DIRLOAD_RETURN_IF_ERROR(WriteAll(fd_, name_, out_.data(), have));
      if (flush == Z_FINISH ? rc == Z_STREAM_END : zs_.avail_out != 0) return Status::Ok();
    }
  }

  Status ZlibError(std::string_view op, int rc) const {
    const char* msg = zs_.msg ? zs_.msg : zError(rc);
    return Status::IoError(std::string(op) + " " + name_ + ": " + msg);
  }

  int fd_;
  UniqueFd owned_;
  std::string name_;
  z_stream zs_{};
  bool initialised_ = false;
  bool closed_ = false;
  std::string out_;
};

}  // namespace

bool NeedsBase64(std::string_view value) {
  const size_t n = value.size();
  if (n == 0) return false;
  auto* p = reinterpret_cast<const unsigned char*>(value.data());
  if (p[0] == ' ' || p[0] == ':' || p[0] == '<' || p[n - 1] == ' ') return true;
  size_t i = 0;
  uint64_t acc = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    acc |= UnsafeBytes(w);
  }
  if (acc != 0) return true;
  for (; i < n; ++i) {
    if (UnsafeByte(p[i])) return true;
  }
  return false;
}

bool SlapcatNeedsBase64(std::string_view description, std::string_view value) {
  if (value.empty()) return false;
  if (description.find(";binary") != std::string_view::npos ||
      EqualsIgnoreCase(description, "userPassword") || EqualsIgnoreCase(description, "2.5.4.35")) {
    return true;
  }
  auto graphic = [](unsigned char c) { return c > 0x20 && c < 0x7f; };
  auto* p = reinterpret_cast<const unsigned char*>(value.data());
  const size_t n = value.size();
  if (!graphic(p[0]) || p[0] == ':' || p[0] == '<' || !graphic(p[n - 1])) return true;
  for (size_t i = 0; i < n; ++i) {
    if (p[i] < 0x20 || p[i] >= 0x7f) return true;
  }
  return false;
}

void AppendAttributeLine(std::string_view description, std::string_view value,
                         const WriterOptions& options, std::string* out) {
  const size_t start = out->size();
  out->append(description);
  // An empty value is written as "attr:" with nothing after the colon, as
  // slapcat does; RFC 2849 allows it (FILL and SAFE-STRING may both be empty).
  size_t head = description.size() + 1;
  if (value.empty()) {
    out->push_back(':');
  } else if (options.slapcat_base64 ? SlapcatNeedsBase64(description, value) : NeedsBase64(value)) {
    out->append(":: ");
    head += 2;
    Base64Encode(value, out);
  } else {
    out->append(": ");
    head += 1;
    out->append(value);
  }
  // A wrap of 1 would leave no room for data on a continuation line.
  FoldInPlace(out, start, options.wrap == 1 ? 2 : options.wrap, head);
  out->push_back('\n');
}

void AppendRecord(const Record& record, const WriterOptions& options, std::string* out) {
  AppendAttributeLine("dn", record.dn(), options, out);
  const bool change = record.kind() == RecordKind::kChange;
  if (change) AppendAttributeLine("changetype", record.changetype(), options, out);
  for (size_t i = 0; i < record.size(); ++i) {
    AttributeView a = record.attribute(i);
    if (change && a.description == "-") {
      out->append("-\n");
    } else {
      AppendAttributeLine(a.description, a.value, options, out);
    }
  }
  out->push_back('\n');
}

Result<std::unique_ptr<ByteSink>> OpenByteSink(const std::string& path, bool gzip, int level) {
  if (gzip && (level < Z_DEFAULT_COMPRESSION || level > Z_BEST_COMPRESSION)) {
    return Status::InvalidArgument("gzip level " + std::to_string(level) + " is outside -1..9");
  }
  int fd = STDOUT_FILENO;
  UniqueFd owned;
  std::string name;
  if (path == "-") {
    name = "<stdout>";
  } else {
    owned.reset(::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666));
    if (!owned.valid()) return Status::IoError(ErrnoMessage("open", path, errno));
    fd = owned.get();
    name = path;
  }
  if (!gzip) {
    return std::unique_ptr<ByteSink>(new FileSink(fd, std::move(owned), std::move(name)));
  }
  auto sink = std::make_unique<GzipSink>(fd, std::move(owned), std::move(name));
  DIRLOAD_RETURN_IF_ERROR(sink->Init(level));
  return std::unique_ptr<ByteSink>(std::move(sink));
}

Writer::Writer(ByteSink* sink, WriterOptions options) : sink_(sink), options_(options) {
  buf_.reserve(kFlushThreshold + (kFlushThreshold >> 2));
}

Status Writer::Write(const Record& record) {
  AppendRecord(record, options_, &buf_);
  ++records_;
  if (buf_.size() >= kFlushThreshold) return Flush();
  return Status::Ok();
}

Status Writer::Flush() {
  if (buf_.empty()) return Status::Ok();
  Status st = sink_->Write(buf_);
  // Cleared even on failure: part of the block may have reached the sink, and
  // writing it again would duplicate records.
  buf_.clear();
  return st;
}

}  // namespace dirload::ldif
