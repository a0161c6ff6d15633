#include "lib/util/status.h"

#include <doctest/doctest.h>

namespace dirload {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::InvalidArgument("odd: " + std::to_string(x));
  return x / 2;
}

Status Quarter(int x, int* out) {
  DIRLOAD_ASSIGN_OR_RETURN(int h, Half(x));
  DIRLOAD_ASSIGN_OR_RETURN(int q, Half(h));
  *out = q;
  return Status::Ok();
}

TEST_CASE("Result carries a value or the error that replaced it") {
  int q = 0;
  CHECK(Quarter(8, &q).ok());
  CHECK(q == 2);
  Status s = Quarter(6, &q);
  CHECK(s.code() == StatusCode::kInvalidArgument);
  CHECK(s.message() == "odd: 3");
  CHECK(s.WithPrefix("in.ldif:4: ").message() == "in.ldif:4: odd: 3");
  CHECK(Status::Ok().WithPrefix("x").ok());
}

TEST_CASE("Status copies, moves and marks its failure; OK carries nothing") {
  Status ok;
  CHECK(ok.ok());
  CHECK(ok.code() == StatusCode::kOk);
  CHECK(ok.origin() == ErrorOrigin::kUnspecified);
  CHECK(ok.message().empty());
  CHECK(ok.ToString() == "OK");
  CHECK(Status(StatusCode::kOk, "ignored").ok());
  CHECK(Status::Ok().WithOrigin(ErrorOrigin::kInput).origin() == ErrorOrigin::kUnspecified);

  Status failed = Status::IoError("disk full").WithOrigin(ErrorOrigin::kStorage);
  // The innermost origin stays.
  CHECK(failed.WithOrigin(ErrorOrigin::kInput).origin() == ErrorOrigin::kStorage);
  Status copy = failed;
  copy = copy.WithPrefix("db: ");
  CHECK(copy.message() == "db: disk full");
  CHECK(copy.origin() == ErrorOrigin::kStorage);
  CHECK(failed.message() == "disk full");  // the copy is its own
  Status moved = std::move(copy);
  CHECK(moved.code() == StatusCode::kIoError);
  CHECK(moved.message() == "db: disk full");
  moved = ok;
  CHECK(moved.ok());
  moved = failed;
  CHECK(moved.ToString() == "disk full");
  const Status& self = moved;
  moved = self;  // assigned to itself, unchanged
  CHECK(moved.message() == "disk full");
  Result<int> r(failed);
  CHECK(!r.ok());
  CHECK(r.status().origin() == ErrorOrigin::kStorage);
}

}  // namespace
}  // namespace dirload
