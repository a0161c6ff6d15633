#include "tools/slapd_tool_options.h"

#include <charconv>

#include "lib/util/ascii.h"

namespace dirload::tools {
namespace {

Status Usage(std::string message) {
  return Status::InvalidArgument(std::move(message)).WithOrigin(ErrorOrigin::kUsage);
}

Result<bool> YesNo(std::string_view name, std::string_view value) {
  std::string v = AsciiLowerCopy(value);
  if (v == "yes" || v == "on" || v == "true") return true;
  if (v == "no" || v == "off" || v == "false") return false;
  return Usage("-o " + std::string(name) + "=" + std::string(value) + ": expected yes or no");
}

// slapd's debug level names (slapd -d ?) and their bits.
struct LevelName {
  std::string_view name;
  int bits;
};
constexpr LevelName kLevels[] = {
    {"trace", 0x1},   {"packets", 0x2}, {"args", 0x4},    {"conns", 0x8},   {"ber", 0x10},
    {"filter", 0x20}, {"config", 0x40}, {"acl", 0x80},    {"stats", 0x100}, {"stats2", 0x200},
    {"shell", 0x400}, {"parse", 0x800}, {"sync", 0x4000}, {"none", 0x8000}, {"any", -1},
};

// add's options for the entries' identity: whether `name` is one of them
// (uuid, uuid-namespace, csn-time, remove-sids), its value in *out.
Result<bool> ParseIdentityOption(const std::string& name, const std::string& value,
                                 ToolOptionValues* out) {
  if (name == "uuid") {
    const std::string v = AsciiLowerCopy(value);
    if (v != "dn" && v != "time") {
      return Usage("-o uuid=" + value +
                   ": expected dn (name-based, from the DN) or time (time-based, the default)");
    }
    out->uuid_from_dn = v == "dn";
    return true;
  }
  if (name == "uuid-namespace") {
    Result<Uuid> ns = ParseUuid(value);
    if (!ns.ok()) return Usage("-o uuid-namespace: " + ns.status().message());
    out->uuid_name_space = *ns;
    return true;
  }
  if (name == "csn-time") {
    Result<WallTime> t = ParseCsnTime(value);
    if (!t.ok()) return Usage("-o csn-time: " + t.status().message());
    out->csn_time = *t;
    return true;
  }
  if (name == "remove-sids") {
    // Decimal server IDs, as slapadd 2.7 reads them.
    std::string_view rest = value;
    if (rest.empty()) return Usage("-o remove-sids needs server IDs (remove-sids=1,2)");
    while (true) {
      const std::string_view id = rest.substr(0, rest.find(','));
      int sid = -1;
      auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), sid);
      if (ec != std::errc() || end != id.data() + id.size() || sid < 0 || sid > 0xfff) {
        return Usage("-o remove-sids=" + value + ": '" + std::string(id) +
                     "' is not a server ID (0 to 4095)");
      }
      out->remove_sids.push_back(sid);
      if (id.size() == rest.size()) break;
      rest.remove_prefix(id.size() + 1);
    }
    return true;
  }
  return false;
}

}  // namespace

Result<int> ParseLdifWrap(std::string_view value) {
  if (AsciiLowerCopy(value) == "no") return 0;
  int n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < 0) {
    return Usage("-o ldif-wrap=" + std::string(value) + ": expected a number of columns or 'no'");
  }
  // slapcat: 0 is its default width, 78.
  return n == 0 ? 78 : n;
}

Result<ToolOptionValues> ParseToolOptions(const std::vector<std::string>& values, ToolKind kind) {
  ToolOptionValues out;
  for (const std::string& item : values) {
    size_t eq = item.find('=');
    std::string name = AsciiLowerCopy(item.substr(0, eq));
    std::string value = eq == std::string::npos ? "" : item.substr(eq + 1);
    for (char& c : name) {
      if (c == '_') c = '-';
    }
    if (name == "syslog" || name == "syslog-level" || name == "syslog-user") {
      continue;  // slapd's logging: dirload writes its messages to stderr
    }
    if (name == "ldif-wrap" && kind != ToolKind::kIndex) {
      DIRLOAD_ASSIGN_OR_RETURN(out.ldif_wrap, ParseLdifWrap(value));
      continue;
    }
    if (name == "schema-check" && kind == ToolKind::kAdd) {
      DIRLOAD_ASSIGN_OR_RETURN(out.schema_check, YesNo(name, value));
      continue;
    }
    if (name == "value-check" && kind == ToolKind::kAdd) {
      DIRLOAD_ASSIGN_OR_RETURN(out.value_check, YesNo(name, value));
      continue;
    }
    if (name == "repeated-values" && kind == ToolKind::kAdd) {
      const std::string v = AsciiLowerCopy(value);
      if (v != "store" && v != "reject") {
        return Usage("-o repeated-values=" + value + ": expected store or reject");
      }
      out.reject_repeated_values = v == "reject";
      continue;
    }
    if (kind == ToolKind::kAdd) {
      DIRLOAD_ASSIGN_OR_RETURN(bool taken, ParseIdentityOption(name, value, &out));
      if (taken) continue;
    }
    return Usage("-o " + item + ": unknown option (this command takes " +
                 std::string(kind == ToolKind::kAdd   ? "ldif-wrap, schema-check, value-check, "
                                                        "repeated-values, uuid, uuid-namespace, "
                                                        "csn-time, remove-sids"
                             : kind == ToolKind::kCat ? "ldif-wrap"
                                                      : "no -o option but syslog's") +
                 ")");
  }
  if (out.uuid_name_space.has_value() && !out.uuid_from_dn) {
    return Usage("-o uuid-namespace names the UUIDs -o uuid=dn makes: give both");
  }
  return out;
}

Result<int> ParseDebugLevel(const std::vector<std::string>& values) {
  int level = 0;
  for (const std::string& v : values) {
    int bits = 0;
    const char* b = v.data();
    const char* e = v.data() + v.size();
    int base = 10;
    if (v.size() > 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
      b += 2;
      base = 16;
    }
    auto [end, ec] = std::from_chars(b, e, bits, base);
    if (ec != std::errc() || end != e) {
      bool found = false;
      for (const LevelName& l : kLevels) {
        if (AsciiLowerCopy(v) == l.name) {
          bits = l.bits;
          found = true;
        }
      }
      if (!found) {
        return Usage("-d " + v +
                     ": not a debug level (a number, or trace, packets, args, conns, ber, "
                     "filter, config, acl, stats, stats2, shell, parse, sync, none, any); the "
                     "database directory is --db DIR");
      }
    }
    level |= bits;
  }
  return level;
}

void AddCommonToolOptions(CLI::App* cmd, CommonToolArgs* a, const std::string& o_help) {
  cmd->add_option("-d,--debug", a->debug,
                  "slapd debug level (number or name, repeatable; slapadd -d). dirload has no "
                  "debug trace: any level other than 0 says as much as -v. The database "
                  "directory is --db");
  cmd->add_option("-o", a->options, "slapd tool option name=value (repeatable): " + o_help);
  cmd->add_flag("-g", a->no_glue,
                "no glue: the selected database alone, not the subordinate databases glued "
                "below it (`subordinate`, olcSubordinate), as slapadd, slapcat and slapindex "
                "-g. Without it, on a glued tree, add routes each entry to the database whose "
                "suffix holds it most closely, cat writes every database of the tree and index "
                "rebuilds each");
}

}  // namespace dirload::tools
