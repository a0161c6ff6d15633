// dirload add -n 0 -F DIR (or -b cn=config): the cn=config database written
// into an empty slapd.d directory, as slapadd -n 0 does (lib/db/config_load.h).
#pragma once

#include <string>
#include <vector>

#include "tools/database_args.h"

namespace dirload::tools {

struct AddConfigArgs {
  std::string ldif = "-";
  const DatabaseArgs* db = nullptr;  // borrowed; outlives the call
  bool dry_run = false;
  int sid = 0;
  // add's options given that have no meaning for the cn=config database
  // ("-c", "--online", ...): refused, so nothing is silently ignored.
  std::vector<std::string> not_applicable;
};

int RunAddConfig(const AddConfigArgs& args);

}  // namespace dirload::tools
