#include "lib/util/uuid.h"

#include <doctest/doctest.h>

#include <string>

namespace dirload {
namespace {

TEST_CASE("a UUID's text form both ways") {
  Result<Uuid> u = ParseUuid("6BA7B814-9dad-11d1-80b4-00c04fd430c8");
  REQUIRE(u.ok());
  CHECK(*u == kX500NameSpace);
  CHECK(FormatUuid(*u) == "6ba7b814-9dad-11d1-80b4-00c04fd430c8");
  for (const char* bad :
       {"", "6ba7b814-9dad-11d1-80b4-00c04fd430c", "6ba7b8149dad11d180b400c04fd430c8",
        "6ba7b814-9dad-11d1-80b4-00c04fd430cg", "6ba7b81-49dad-11d1-80b4-00c04fd430c8",
        "6ba7b814+9dad-11d1-80b4-00c04fd430c8"}) {
    CAPTURE(bad);
    Result<Uuid> r = ParseUuid(bad);
    REQUIRE_FALSE(r.ok());
    CHECK(r.status().message().find("is not a UUID") != std::string::npos);
  }
}

// The values Python's uuid.uuid5 (RFC 4122 4.3) gives.
TEST_CASE("name-based UUIDs are version 5 and the RFC's") {
  const Uuid dns = *ParseUuid("6ba7b810-9dad-11d1-80b4-00c04fd430c8");
  CHECK(FormatUuid(NameBasedUuid(dns, "python.org")) == "886313e1-3b8a-5372-9b90-0c9aee199e5d");
  CHECK(FormatUuid(NameBasedUuid(kX500NameSpace, "dc=example,dc=com")) ==
        "86845e9f-6224-5313-acb4-60c6bee4017f");
  CHECK(FormatUuid(NameBasedUuid(kX500NameSpace, "uid=a,ou=people,dc=example,dc=com")) ==
        "162d3dd4-683a-536e-99bf-15990e579b11");
  // Another name space, another UUID for the same name.
  CHECK(NameBasedUuid(dns, "dc=example,dc=com") !=
        NameBasedUuid(kX500NameSpace, "dc=example,dc=com"));
}

}  // namespace
}  // namespace dirload
