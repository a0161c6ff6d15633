// The two storage engines as doctest type parameters, so that one
// TEST_CASE_TEMPLATE runs on both. Test-only.
#pragma once

#include "lib/store/store.h"

namespace dirload::testing {

struct LmdbEngine {
  static constexpr Backend kBackend = Backend::kLmdb;
};
struct BdbEngine {
  static constexpr Backend kBackend = Backend::kBdb;
};

}  // namespace dirload::testing

#define ENGINES ::dirload::testing::LmdbEngine, ::dirload::testing::BdbEngine
