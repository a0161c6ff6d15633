#include "ldif/byte_source.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "lib/util/file.h"

namespace dirload::ldif {
namespace {

constexpr size_t kRawBlock = size_t{256} << 10;

// The undecoded input: a file descriptor or a memory buffer.
class RawInput {
 public:
  virtual ~RawInput() = default;
  virtual Result<size_t> ReadRaw(char* buf, size_t n) = 0;
  virtual uint64_t size() const = 0;
};

// Reads `fd`; `owned` closes it when it was opened here (standard input is
// left open).
class FdInput final : public RawInput {
 public:
  FdInput(int fd, UniqueFd owned, std::string name, uint64_t size)
      : fd_(fd), owned_(std::move(owned)), name_(std::move(name)), size_(size) {}
  Result<size_t> ReadRaw(char* buf, size_t n) override {
    for (;;) {
      ssize_t r = ::read(fd_, buf, n);
      if (r >= 0) return static_cast<size_t>(r);
      if (errno == EINTR) continue;
      return Status::IoError(name_ + ": read: " + std::strerror(errno));
    }
  }
  uint64_t size() const override { return size_; }

 private:
  int fd_;
  UniqueFd owned_;
  std::string name_;
  uint64_t size_;
};

class MemoryInput final : public RawInput {
 public:
  explicit MemoryInput(std::string data) : data_(std::move(data)) {}
  Result<size_t> ReadRaw(char* buf, size_t n) override {
    size_t k = std::min(n, data_.size() - pos_);
    std::memcpy(buf, data_.data() + pos_, k);
    pos_ += k;
    return k;
  }
  uint64_t size() const override { return data_.size(); }

 private:
  std::string data_;
  size_t pos_ = 0;
};

// Reads the first bytes to look for the gzip magic, then hands them back
// before the rest of the input.
class Peeked {
 public:
  explicit Peeked(std::unique_ptr<RawInput> in) : in_(std::move(in)) {}

  Status Peek() {
    head_.resize(2);
    size_t got = 0;
    while (got < 2) {
      Result<size_t> r = in_->ReadRaw(head_.data() + got, 2 - got);
      if (!r.ok()) return r.status();
      if (*r == 0) break;
      got += *r;
    }
    head_.resize(got);
    return Status::Ok();
  }
  bool IsGzip() const {
    return head_.size() == 2 && static_cast<unsigned char>(head_[0]) == 0x1f &&
           static_cast<unsigned char>(head_[1]) == 0x8b;
  }
  Result<size_t> Read(char* buf, size_t n) {
    if (head_pos_ < head_.size()) {
      size_t k = std::min(n, head_.size() - head_pos_);
      std::memcpy(buf, head_.data() + head_pos_, k);
      head_pos_ += k;
      offset_ += k;
      return k;
    }
    Result<size_t> r = in_->ReadRaw(buf, n);
    if (r.ok()) offset_ += *r;
    return r;
  }
  uint64_t offset() const { return offset_; }
  uint64_t size() const { return in_->size(); }

 private:
  std::unique_ptr<RawInput> in_;
  std::string head_;
  size_t head_pos_ = 0;
  uint64_t offset_ = 0;
};

class PlainSource final : public ByteSource {
 public:
  PlainSource(Peeked in, std::string name) : in_(std::move(in)), name_(std::move(name)) {}
  Result<size_t> Read(char* buf, size_t n) override { return in_.Read(buf, n); }
  const std::string& name() const override { return name_; }
  uint64_t input_offset() const override { return in_.offset(); }
  uint64_t input_size() const override { return in_.size(); }
  bool compressed() const override { return false; }

 private:
  Peeked in_;
  std::string name_;
};

// Inflates a gzip stream, including concatenated members (as `cat a.gz b.gz`
// produces and gzip itself accepts).
class GzipSource final : public ByteSource {
 public:
  GzipSource(Peeked in, std::string name) : in_(std::move(in)), name_(std::move(name)) {
    std::memset(&zs_, 0, sizeof zs_);
    in_buf_.resize(kRawBlock);
  }
  ~GzipSource() override {
    if (initialised_) inflateEnd(&zs_);
  }

  Status Init() {
    // 15 + 16: zlib window, gzip wrapper only (raw zlib or deflate is not LDIF).
    if (inflateInit2(&zs_, 15 + 16) != Z_OK) {
      return Status::ResourceExhausted(name_ + ": inflateInit2 failed");
    }
    initialised_ = true;
    return Status::Ok();
  }

  Result<size_t> Read(char* buf, size_t n) override {
    if (!error_.ok()) return error_;
    if (done_ || n == 0) return size_t{0};
    zs_.next_out = reinterpret_cast<Bytef*>(buf);
    zs_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    while (zs_.avail_out > 0) {
      if (zs_.avail_in == 0 && !input_eof_) {
        Result<size_t> r = in_.Read(in_buf_.data(), in_buf_.size());
        if (!r.ok()) return Fail(r.status());
        if (*r == 0) {
          input_eof_ = true;
        } else {
          zs_.next_in = reinterpret_cast<Bytef*>(in_buf_.data());
          zs_.avail_in = static_cast<uInt>(*r);
        }
      }
      if (zs_.avail_in == 0 && input_eof_) {
        if (!member_started_) {
          done_ = true;
          break;
        }
        return Fail(Status::Corruption(name_ + ": gzip stream truncated at byte offset " +
                                       std::to_string(CompressedOffset()))
                        .WithOrigin(ErrorOrigin::kInput));
      }
      member_started_ = true;
      int rc = inflate(&zs_, Z_NO_FLUSH);
      if (rc == Z_STREAM_END) {
        member_started_ = false;
        if (inflateReset(&zs_) != Z_OK) {
          return Fail(Status::Internal(name_ + ": inflateReset failed"));
        }
        continue;
      }
      if (rc == Z_BUF_ERROR) continue;  // needs more input; loop reads it
      if (rc != Z_OK) {
        std::string why = zs_.msg ? zs_.msg : "inflate error " + std::to_string(rc);
        return Fail(Status::Corruption(name_ + ": corrupt gzip data at byte offset " +
                                       std::to_string(CompressedOffset()) + ": " + why)
                        .WithOrigin(ErrorOrigin::kInput));
      }
    }
    return static_cast<size_t>(n - zs_.avail_out);
  }

  const std::string& name() const override { return name_; }
  uint64_t input_offset() const override { return in_.offset(); }
  uint64_t input_size() const override { return in_.size(); }
  bool compressed() const override { return true; }

 private:
  uint64_t CompressedOffset() const { return in_.offset() - zs_.avail_in; }
  Status Fail(Status s) {
    error_ = s;
    return s;
  }

  Peeked in_;
  std::string name_;
  z_stream zs_;
  bool initialised_ = false;
  std::vector<char> in_buf_;
  bool input_eof_ = false;
  bool member_started_ = false;
  bool done_ = false;
  Status error_;
};

// Runs another source's Read() on a thread of its own, a few blocks ahead of
// the consumer, so that inflating gzip overlaps with parsing: the reader then
// goes as fast as the slower of the two, not their sum. Memory: kDepth blocks.
class PrefetchingSource final : public ByteSource {
 public:
  explicit PrefetchingSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)) {
    worker_ = std::thread([this] { Produce(); });
  }
  ~PrefetchingSource() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }

  Result<size_t> Read(char* buf, size_t n) override {
    size_t copied = 0;
    while (copied < n) {
      if (current_pos_ == current_.size()) {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !full_.empty() || finished_; });
        if (full_.empty()) {
          if (!error_.ok()) {
            if (copied > 0) return copied;  // the error comes with the next call
            return error_;
          }
          break;
        }
        current_.swap(full_.front());
        full_.pop_front();
        current_pos_ = 0;
        consumer_offset_ = offsets_.front();
        offsets_.pop_front();
        lock.unlock();
        cv_.notify_all();
        continue;
      }
      size_t k = std::min(n - copied, current_.size() - current_pos_);
      std::memcpy(buf + copied, current_.data() + current_pos_, k);
      current_pos_ += k;
      copied += k;
    }
    return copied;
  }
  const std::string& name() const override { return inner_->name(); }
  uint64_t input_offset() const override { return consumer_offset_; }
  uint64_t input_size() const override { return inner_->input_size(); }
  bool compressed() const override { return inner_->compressed(); }

 private:
  static constexpr size_t kDepth = 4;
  static constexpr size_t kBlock = size_t{1} << 20;

  void Produce() {
    std::string block;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return full_.size() < kDepth || stop_; });
        if (stop_) return;
      }
      block.resize(kBlock);
      Result<size_t> r = inner_->Read(block.data(), block.size());
      std::lock_guard<std::mutex> lock(mu_);
      if (!r.ok() || *r == 0) {
        if (!r.ok()) error_ = r.status();
        finished_ = true;
        cv_.notify_all();
        return;
      }
      block.resize(*r);
      full_.push_back(std::move(block));
      offsets_.push_back(inner_->input_offset());
      block = std::string();
      cv_.notify_all();
    }
  }

  std::unique_ptr<ByteSource> inner_;
  std::thread worker_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> full_;  // guarded by mu_
  std::deque<uint64_t> offsets_;  // inner input offset after each block; guarded by mu_
  bool finished_ = false;         // guarded by mu_
  bool stop_ = false;             // guarded by mu_
  Status error_;                  // guarded by mu_
  std::string current_;           // consumer side only
  size_t current_pos_ = 0;
  uint64_t consumer_offset_ = 0;
};

Result<std::unique_ptr<ByteSource>> Wrap(std::unique_ptr<RawInput> raw, std::string name) {
  Peeked peeked(std::move(raw));
  DIRLOAD_RETURN_IF_ERROR(peeked.Peek());
  if (peeked.IsGzip()) {
    auto gz = std::make_unique<GzipSource>(std::move(peeked), std::move(name));
    DIRLOAD_RETURN_IF_ERROR(gz->Init());
    return std::unique_ptr<ByteSource>(std::make_unique<PrefetchingSource>(std::move(gz)));
  }
  return std::unique_ptr<ByteSource>(
      std::make_unique<PlainSource>(std::move(peeked), std::move(name)));
}

}  // namespace

Result<std::unique_ptr<ByteSource>> OpenByteSource(const std::string& path,
                                                   const std::string& name) {
  if (path == "-") {
    return Wrap(std::make_unique<FdInput>(STDIN_FILENO, UniqueFd(), "<stdin>", 0), "<stdin>");
  }
  UniqueFd file(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!file.valid()) return Status::IoError(path + ": cannot open: " + std::strerror(errno));
  const int fd = file.get();
  struct stat st;
  uint64_t size = 0;
  if (::fstat(fd, &st) == 0) {
    // A directory is the input's fault, not the storage's.
    if (S_ISDIR(st.st_mode)) {
      return Status::IoError(path + ": is a directory, not an LDIF file")
          .WithOrigin(ErrorOrigin::kInput);
    }
    if (S_ISREG(st.st_mode)) size = static_cast<uint64_t>(st.st_size);
  }
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  const std::string& shown = name.empty() ? path : name;
  return Wrap(std::make_unique<FdInput>(fd, std::move(file), shown, size), shown);
}

std::unique_ptr<ByteSource> MemoryByteSource(std::string data, std::string name) {
  Result<std::unique_ptr<ByteSource>> r =
      Wrap(std::make_unique<MemoryInput>(std::move(data)), std::move(name));
  // Memory input cannot fail to read, and inflateInit2 fails only when out of memory.
  assert(r.ok());
  return std::move(r).value();
}

}  // namespace dirload::ldif
