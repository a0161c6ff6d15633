#include "lib/util/request_values.h"

#include <doctest/doctest.h>

#include <fstream>
#include <vector>

#include "lib/util/latency.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

TEST_CASE("FillFilterTemplate escapes what RFC 4515 asks, at every %s") {
  CHECK(FillFilterTemplate("(uid=%s)", "jdoe") == "(uid=jdoe)");
  CHECK(FillFilterTemplate("(|(uid=%s)(mail=%s*))", "a") == "(|(uid=a)(mail=a*))");
  CHECK(FillFilterTemplate("(cn=%s)", "O(Brien)*\\") == "(cn=O\\28Brien\\29\\2a\\5c)");
  CHECK(FillFilterTemplate("(cn=%s)", std::string_view("a\0b", 3)) == "(cn=a\\00b)");
  CHECK(FillFilterTemplate("(%s)", "uid=x*", /*raw=*/true) == "(uid=x*)");
  CHECK(FillFilterTemplate("(objectClass=*)", "ignored") == "(objectClass=*)");
}

TEST_CASE("ReadRequestValues: one per line, CR and empty lines dropped") {
  testing::TempDir dir;
  std::string path = dir.Write("v.txt", "u1\r\n\nu2\n\r\nu3");
  Result<std::vector<std::string>> v = ReadRequestValues(path);
  REQUIRE(v.ok());
  CHECK(*v == std::vector<std::string>{"u1", "u2", "u3"});

  Result<std::vector<std::string>> empty = ReadRequestValues(dir.Write("e.txt", "\n\r\n"));
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().message().find("e.txt: no values") != std::string::npos);
  Result<std::vector<std::string>> missing = ReadRequestValues(dir.File("none.txt"));
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == StatusCode::kNotFound);
}

TEST_CASE("SummarizeLatencies: nearest-rank percentiles in milliseconds") {
  std::vector<uint32_t> none;
  CHECK(SummarizeLatencies(none).max_ms == 0);
  std::vector<uint32_t> us;
  for (uint32_t i = 100; i >= 1; --i) us.push_back(i * 1000);  // 1..100 ms, reversed
  LatencySummary s = SummarizeLatencies(us);
  CHECK(s.mean_ms == doctest::Approx(50.5));
  CHECK(s.p50_ms == 50);
  CHECK(s.p90_ms == 90);
  CHECK(s.p99_ms == 99);
  CHECK(s.max_ms == 100);
}

}  // namespace
}  // namespace dirload
