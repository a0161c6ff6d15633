// Status and Result<T>: how every fallible function in ldif/ and lib/ reports
// failure. Library code never throws across its boundary and never prints; it
// returns one of these and the caller (ultimately tools/) decides what to say.
//
// Thread safety: values; a Status or Result may be moved between threads but a
// single instance is not synchronised.
#pragma once

#include <cassert>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace dirload {

enum class StatusCode {
  kOk = 0,
  kInvalidArgument,  // the caller asked for something malformed
  kParseError,       // input data (LDIF, config, schema) is malformed
  kNotFound,
  kAlreadyExists,
  kIoError,      // the operating system or a library said no
  kCorruption,   // stored or compressed data is damaged
  kUnsupported,  // well-formed but outside what dirload does
  kResourceExhausted,
  kInternal,
};

std::string_view StatusCodeName(StatusCode code);

// Where an error comes from. The code says what went wrong; the origin says
// whose it is, and decides the exit status in tools/ (exit_codes.h):
// configuration 2, input records 1, a database refused 3, storage 4. Errors
// keep kUnspecified until the layer that knows the origin marks them
// (WithOrigin); tools/ then falls back on the code.
enum class ErrorOrigin {
  kUnspecified = 0,
  kUsage,          // command-line options
  kConfiguration,  // slapd.conf, slapd.d, .schema files, index lines
  kInput,          // LDIF records and their byte streams (including gzip)
  kDatabase,       // a database that is incomplete, foreign, locked or stale
  kStorage,        // the engine or the file system failed
};

std::string_view ErrorOriginName(ErrorOrigin origin);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  // A code of kOk makes an OK status; its message is dropped.
  Status(StatusCode code, std::string message)
      : failure_(code == StatusCode::kOk
                     ? nullptr
                     : std::make_unique<Failure>(
                           Failure{code, ErrorOrigin::kUnspecified, std::move(message)})) {}
  Status(const Status& other)
      : failure_(other.failure_ ? std::make_unique<Failure>(*other.failure_) : nullptr) {}
  Status(Status&& other) noexcept = default;
  Status& operator=(const Status& other) {
    if (this != &other) *this = Status(other);
    return *this;
  }
  Status& operator=(Status&& other) noexcept = default;
  ~Status() = default;

  static Status Ok() { return Status(); }
  static Status InvalidArgument(std::string m) {
    return {StatusCode::kInvalidArgument, std::move(m)};
  }
  static Status ParseError(std::string m) { return {StatusCode::kParseError, std::move(m)}; }
  static Status NotFound(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
  static Status AlreadyExists(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
  static Status IoError(std::string m) { return {StatusCode::kIoError, std::move(m)}; }
  static Status Corruption(std::string m) { return {StatusCode::kCorruption, std::move(m)}; }
  static Status Unsupported(std::string m) { return {StatusCode::kUnsupported, std::move(m)}; }
  static Status ResourceExhausted(std::string m) {
    return {StatusCode::kResourceExhausted, std::move(m)};
  }
  static Status Internal(std::string m) { return {StatusCode::kInternal, std::move(m)}; }

  bool ok() const { return failure_ == nullptr; }
  StatusCode code() const { return failure_ ? failure_->code : StatusCode::kOk; }
  ErrorOrigin origin() const { return failure_ ? failure_->origin : ErrorOrigin::kUnspecified; }
  const std::string& message() const { return failure_ ? failure_->message : EmptyMessage(); }
  // "OK", or the message alone: messages already say what, where and which.
  std::string ToString() const { return ok() ? std::string("OK") : failure_->message; }

  // Returns a copy whose message is prefixed with context ("file.ldif:12: ").
  Status WithPrefix(std::string_view prefix) const {
    if (ok()) return *this;
    Status s(failure_->code, std::string(prefix) + failure_->message);
    s.failure_->origin = failure_->origin;
    return s;
  }

  // Returns a copy marked as coming from `origin`, unless it is OK or already
  // marked: the innermost layer that knows the origin wins.
  Status WithOrigin(ErrorOrigin origin) const {
    if (ok() || failure_->origin != ErrorOrigin::kUnspecified) return *this;
    Status s = *this;
    s.failure_->origin = origin;
    return s;
  }

 private:
  // Only a failure carries anything: an OK status, which most calls on the
  // hot paths return once per value, is one null pointer to make, move and
  // destroy, not a string.
  struct Failure {
    StatusCode code;
    ErrorOrigin origin;
    std::string message;
  };
  static const std::string& EmptyMessage();
  std::unique_ptr<Failure> failure_;
};

// Either a T or a non-OK Status.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) {  // NOLINT: implicit by design
    assert(!std::get<Status>(v_).ok() && "Result built from an OK Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  // REQUIRES: !ok() for status() to carry a message; OK otherwise.
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(v_); }

  // REQUIRES: ok()
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace dirload

// Returns early from the enclosing function when `expr` yields a non-OK Status.
#define DIRLOAD_RETURN_IF_ERROR(expr)  \
  do {                                 \
    ::dirload::Status _dl_st = (expr); \
    if (!_dl_st.ok()) return _dl_st;   \
  } while (0)

#define DIRLOAD_CONCAT_INNER(a, b) a##b
#define DIRLOAD_CONCAT(a, b) DIRLOAD_CONCAT_INNER(a, b)
// Declares `lhs` from a Result, or returns its Status from the enclosing function.
#define DIRLOAD_ASSIGN_OR_RETURN(lhs, expr) \
  DIRLOAD_ASSIGN_OR_RETURN_IMPL(DIRLOAD_CONCAT(_dl_res_, __LINE__), lhs, expr)
#define DIRLOAD_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()
