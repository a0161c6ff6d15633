// Shared by the schema tests: one built-in Schema, built on first use and
// only read afterwards.
#pragma once

#include "lib/schema/schema.h"

namespace dirload::testing {

inline const Schema& BuiltinSchema() {
  // Schema::Builtin() has its own test; if it ever fails, value() aborts the
  // binary loudly rather than letting every test fail one by one.
  static const Schema schema = Schema::Builtin().value();
  return schema;
}

}  // namespace dirload::testing
