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

}  // namespace
}  // namespace dirload
