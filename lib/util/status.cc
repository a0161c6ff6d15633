#include "lib/util/status.h"

namespace dirload {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kInvalidArgument:
      return "invalid argument";
    case StatusCode::kParseError:
      return "parse error";
    case StatusCode::kNotFound:
      return "not found";
    case StatusCode::kAlreadyExists:
      return "already exists";
    case StatusCode::kIoError:
      return "I/O error";
    case StatusCode::kCorruption:
      return "corruption";
    case StatusCode::kUnsupported:
      return "unsupported";
    case StatusCode::kResourceExhausted:
      return "resource exhausted";
    case StatusCode::kInternal:
      return "internal error";
  }
  return "unknown";
}

std::string_view ErrorOriginName(ErrorOrigin origin) {
  switch (origin) {
    case ErrorOrigin::kUnspecified:
      return "unspecified";
    case ErrorOrigin::kUsage:
      return "usage";
    case ErrorOrigin::kConfiguration:
      return "configuration";
    case ErrorOrigin::kInput:
      return "input";
    case ErrorOrigin::kDatabase:
      return "database";
    case ErrorOrigin::kStorage:
      return "storage";
  }
  return "unknown";
}

const std::string& Status::EmptyMessage() {
  static const std::string empty;
  return empty;
}

}  // namespace dirload
