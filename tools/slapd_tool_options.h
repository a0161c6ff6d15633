// The options slapadd, slapcat and slapindex share and that dirload takes
// with their meanings: `-d LEVEL` (debug level), `-o name[=value]`, `-g`, and
// the letters dirload accepts only to say what they mean here. They are
// parsed in one place so that every command reads them alike.
//
// Thread safety: pure functions.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/load/operational_attributes.h"
#include "lib/util/status.h"
#include "lib/util/uuid.h"

namespace dirload::tools {

// What `-o` said. Unset fields were not given.
struct ToolOptionValues {
  std::optional<bool> schema_check;  // schema-check=yes|no
  std::optional<bool> value_check;   // value-check=yes|no
  std::optional<int> ldif_wrap;      // ldif-wrap=N (0: do not fold)
  // repeated-values=store|reject (dirload's): refuse an entry with a value
  // given twice in one attribute instead of storing it as slapadd does.
  std::optional<bool> reject_repeated_values;
  // add: the identity of the entries (lib/load/loader.h). uuid=dn|time:
  // name-based entryUUIDs, in uuid-namespace=UUID (RFC 4122's X.500 name
  // space by default); csn-time=TIME: one fixed time for every CSN and
  // timestamp made; remove-sids=SID,... (OpenLDAP 2.7's slapadd option).
  bool uuid_from_dn = false;
  std::optional<Uuid> uuid_name_space;
  std::optional<WallTime> csn_time;
  std::vector<int> remove_sids;
};

// Which -o names a command takes.
enum class ToolKind { kAdd, kCat, kIndex };

// Parses the `-o` values of one command. Names are slapd's (`ldif-wrap`, also
// spelt `ldif_wrap`); slapd's syslog options are accepted and have no effect.
// An unknown name or a bad value is a usage error naming it.
Result<ToolOptionValues> ParseToolOptions(const std::vector<std::string>& values, ToolKind kind);

// slapd's debug level: a number (decimal, 0x hex, -1 for all) or a level name
// (trace, packets, args, conns, ber, filter, config, acl, stats, stats2,
// shell, parse, sync, none, any); repeated -d values are OR'd.
Result<int> ParseDebugLevel(const std::vector<std::string>& values);

// The slapd tool options every command registers: `-d LEVEL`, `-o`, `-g`.
struct CommonToolArgs {
  std::vector<std::string> debug;
  std::vector<std::string> options;
  bool no_glue = false;
};

// Registers -d, -o and -g on `cmd`; `o_help` lists the -o names it takes.
void AddCommonToolOptions(CLI::App* cmd, CommonToolArgs* args, const std::string& o_help);

// The LDIF fold width of cat: slapcat's ldif-wrap. `0` asks for slapcat's
// default width, 78; "no" (returned as 0) for no folding.
Result<int> ParseLdifWrap(std::string_view value);

}  // namespace dirload::tools
