// The entry selection slapcat and slapschema take (-a FILTER, -s DN, -H
// URL), shared by `cat` and `schema-check`: registering the options and
// turning them into lib/'s EntrySelection.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "lib/format/format.h"
#include "lib/util/status.h"

namespace dirload::tools {

struct SelectionArgs {
  std::string filter;   // -a: only entries matching it
  std::string subtree;  // -s: only this subtree
  std::string url;      // -H ldap:///BASE??SCOPE?FILTER
};

void AddSelectionOptions(CLI::App* cmd, SelectionArgs* args);

// The scope, base and filter of -H, -s and -a: as in slapcat, -a wins over
// the URL's filter and -s over its base. nullopt: every entry. Errors: a bad
// URL or filter (kUsage).
Result<std::optional<EntrySelection>> ParseSelection(const SelectionArgs& args);

}  // namespace dirload::tools
