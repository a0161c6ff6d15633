// The built-in schema, built once per fuzzing process and shared by every
// input (building it per input would dominate each run). Test-only.
//
// Thread safety: a function-local static, initialised once.
#pragma once

#include <cstdlib>
#include <utility>

#include "lib/schema/schema.h"

namespace dirload::fuzz {

inline const Schema& BuiltinSchema() {
  static const Schema* schema = [] {
    Result<Schema> s = Schema::Builtin();
    if (!s.ok()) std::abort();
    return new Schema(std::move(*s));
  }();
  return *schema;
}

}  // namespace dirload::fuzz
