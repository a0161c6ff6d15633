#include "lib/config/slapd_config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "lib/config/slapd_directives.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// Splits a slapd.conf line into words; double quotes group, backslash escapes.
Result<std::vector<std::string>> Words(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    std::string w;
    bool quoted = false;
    while (i < line.size() && (quoted || !std::isspace(static_cast<unsigned char>(line[i])))) {
      char c = line[i++];
      if (c == '"') {
        quoted = !quoted;
      } else if (c == '\\' && i < line.size()) {
        w += line[i++];
      } else {
        w += c;
      }
    }
    if (quoted) return Status::ParseError("unterminated quote");
    out.push_back(std::move(w));
  }
  return out;
}

std::string Join(const std::vector<std::string>& w, size_t from) {
  std::string out;
  for (size_t i = from; i < w.size(); ++i) out += (i > from ? " " : "") + w[i];
  return out;
}

// A count for an index_* line: a whole number at least `min`.
Result<uint32_t> ParseCount(const std::string& text, uint32_t min) {
  uint32_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min) {
    return Status::ParseError("'" + text + "' is not a number of at least " + std::to_string(min));
  }
  return v;
}

Result<bool> ParseOnOff(const std::string& text) {
  std::string t = AsciiLowerCopy(text);
  if (t == "on" || t == "true" || t == "yes") return true;
  if (t == "off" || t == "false" || t == "no") return false;
  return Status::ParseError("'" + text + "' is neither on nor off");
}

// Orders the sections by number and adds the frontend and config databases
// slapd always has, so that numbers index the same sections as slapadd -n.
void FinishDatabases(SlapdConfig* cfg) {
  for (int number : {-1, 0}) {
    if (cfg->FindDatabase(number) != nullptr) continue;
    SlapdDatabase implicit;
    implicit.number = number;
    implicit.type = number < 0 ? "frontend" : "config";
    implicit.where = cfg->path;
    cfg->databases.push_back(std::move(implicit));
  }
  std::stable_sort(
      cfg->databases.begin(), cfg->databases.end(),
      [](const SlapdDatabase& a, const SlapdDatabase& b) { return a.number < b.number; });
}

Result<SlapdConfig> ParseText(const std::string& text, const std::string& path);

}  // namespace

std::string ConfigIndexLine::Where() const {
  if (line > 0) return file + ":" + std::to_string(line);
  return file;
}

const SlapdDatabase* SlapdConfig::FindDatabase(int number) const {
  for (const SlapdDatabase& d : databases) {
    if (d.number == number) return &d;
  }
  return nullptr;
}

std::string ModuleName(std::string_view arg) {
  size_t slash = arg.rfind('/');
  if (slash != std::string_view::npos) arg.remove_prefix(slash + 1);
  for (std::string_view ext : {".la", ".so"}) {
    size_t dot = arg.find(ext);
    if (dot != std::string_view::npos && dot > 0) {
      arg = arg.substr(0, dot);
      break;
    }
  }
  return std::string(arg);
}

std::string ThirdPartyModules(const std::vector<std::string>& modules) {
  std::string out;
  for (const std::string& m : modules) {
    if (!SlapdKnowsModule(m)) out += (out.empty() ? "'" : ", '") + m + "'";
  }
  return out;
}

Result<uint64_t> ParseByteSize(std::string_view text) {
  std::string t(text);
  if (t.empty()) return Status::InvalidArgument("empty size");
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  std::string unit = AsciiLowerCopy(end);
  if (unit == "b") unit.clear();
  if (!unit.empty() && unit.back() == 'b') unit.pop_back();  // "512MB" = "512M"
  if (!unit.empty() && unit.back() == 'i') unit.pop_back();  // "512MiB"
  double mult = 1;
  if (unit == "k") {
    mult = 1024.0;
  } else if (unit == "m") {
    mult = 1024.0 * 1024;
  } else if (unit == "g") {
    mult = 1024.0 * 1024 * 1024;
  } else if (unit == "t") {
    mult = 1024.0 * 1024 * 1024 * 1024;
  } else if (!unit.empty()) {
    return Status::InvalidArgument("bad size '" + t + "' (use a number with K, M, G or T)");
  }
  if (end == t.c_str() || !(v >= 0) || std::isinf(v)) {
    return Status::InvalidArgument("bad size '" + t + "'");
  }
  return static_cast<uint64_t>(std::llround(v * mult));
}

Result<uint32_t> ParseIdlExponent(std::string_view text) {
  uint32_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  // 2^30 IDs is the most back-mdb's 32-bit counts allow.
  if (ec != std::errc() || end != text.data() + text.size() || n < 16 || n > 30) {
    return Status::InvalidArgument("'" + std::string(text) +
                                   "' is not an exponent from 16 to 30, as back-mdb takes it")
        .WithOrigin(ErrorOrigin::kConfiguration);
  }
  return n;
}

Result<MultivalLine> ParseMultivalLine(std::string_view attrs, std::string_view thresholds) {
  MultivalLine out;
  auto bad = [](std::string m) {
    return Status::InvalidArgument(std::move(m)).WithOrigin(ErrorOrigin::kConfiguration);
  };
  size_t start = 0;
  while (start <= attrs.size()) {
    size_t comma = attrs.find(',', start);
    if (comma == std::string_view::npos) comma = attrs.size();
    if (comma > start) out.attributes.emplace_back(attrs.substr(start, comma - start));
    start = comma + 1;
  }
  if (out.attributes.empty()) return bad("no attributes specified");
  const size_t comma = thresholds.find(',');
  auto number = [](std::string_view t, uint32_t* n) {
    auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), *n);
    return !t.empty() && ec == std::errc() && end == t.data() + t.size();
  };
  if (comma == std::string_view::npos || !number(thresholds.substr(0, comma), &out.hi) ||
      !number(thresholds.substr(comma + 1), &out.lo) || out.lo > out.hi) {
    return bad("invalid hi/lo thresholds '" + std::string(thresholds) +
               "' (HI,LO with LO no greater than HI)");
  }
  return out;
}

std::string PathAsSlapdOpensIt(const std::string& written) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::absolute(written, ec);
  return ec ? written : p.string();
}

namespace {

Result<SlapdConfig> ParseText(const std::string& text, const std::string& path) {
  SlapdConfig cfg;
  cfg.path = path;
  std::istringstream in(text);
  std::string raw;
  int n = 0;
  int next_number = 1;
  SlapdDatabase* db = nullptr;  // the section being read; nullptr: global

  // Lines starting with white space continue the previous line.
  std::vector<std::pair<int, std::string>> logical;
  while (std::getline(in, raw)) {
    ++n;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (!raw.empty() && (raw[0] == ' ' || raw[0] == '\t') && !logical.empty()) {
      size_t k = raw.find_first_not_of(" \t");
      if (k != std::string::npos && raw[k] != '#') logical.back().second += " " + raw.substr(k);
      continue;
    }
    logical.push_back({n, raw});
  }
  // Sections are collected here and only then moved into cfg, so that `db`
  // stays valid while the vector grows.
  std::vector<std::unique_ptr<SlapdDatabase>> sections;
  for (auto& [line_no, l] : logical) {
    const int line_start = line_no;
    std::string where = path + ":" + std::to_string(line_start) + ": ";
    size_t k = l.find_first_not_of(" \t");
    if (k == std::string::npos || l[k] == '#') continue;
    Result<std::vector<std::string>> words = Words(l);
    if (!words.ok()) return words.status().WithPrefix(where);
    const std::vector<std::string>& w = *words;
    // Only white space, as Words() counts it ("\f", "\v"): a blank line.
    if (w.empty()) continue;
    std::string key = AsciiLowerCopy(w[0]);
    // A directive dirload does not need: slapd's are noted (-v lists them);
    // one slapd 2.5 does not know is refused, as slapadd refuses it.
    auto unneeded = [&]() -> Status {
      const bool bdb = db != nullptr && db->type == "bdb";
      if (!SlapdKnowsDirective(w[0]) && !(bdb && BackBdbDirective(w[0]))) {
        const std::string third_party = ThirdPartyModules(cfg.modules);
        if (!third_party.empty()) {
          cfg.warnings.push_back(where + "directive <" + w[0] +
                                 "> is not slapd 2.5's: taken as one of module " + third_party +
                                 ", which dirload does not know, and ignored");
          return Status::Ok();
        }
        return Status::ParseError(where + "unknown directive <" + w[0] + "> " +
                                  (db == nullptr
                                       ? std::string("outside database definitions")
                                       : "inside the definition of database '" + db->type + "'") +
                                  ": slapd 2.5 does not know it, and slapadd refuses it too");
      }
      cfg.notes.push_back(where + "ignored '" + l.substr(k) + "'");
      return Status::Ok();
    };
    auto need = [&](size_t count) -> Status {
      if (w.size() < count + 1) {
        return Status::ParseError(where + "'" + w[0] + "' needs " + std::to_string(count) +
                                  " argument" + (count > 1 ? "s" : ""));
      }
      return Status::Ok();
    };
    if (key == "database") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      auto section = std::make_unique<SlapdDatabase>();
      section->type = AsciiLowerCopy(w[1]);
      if (section->type == "hdb") section->type = "bdb";
      section->where = path + ":" + std::to_string(line_start);
      if (section->type == "frontend") {
        section->number = -1;
      } else if (section->type == "config") {
        section->number = 0;
      } else {
        section->number = next_number++;
      }
      for (const auto& s : sections) {
        if (s->number == section->number) {
          return Status::ParseError(where + "a second '" + w[1] + "' database");
        }
      }
      db = section.get();
      sections.push_back(std::move(section));
      continue;
    }
    if (key == "include") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      cfg.schema_files.push_back(PathAsSlapdOpensIt(w[1]));
      std::string name = std::filesystem::path(w[1]).filename().string();
      if (name.size() > 7 && name.ends_with(".schema")) name.resize(name.size() - 7);
      cfg.schema_names.push_back(name);
    } else if (key == "moduleload") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      cfg.modules.push_back(ModuleName(w[1]));
    } else if (key == "attributeoptions") {
      cfg.attribute_options.Declare();  // even without names, as slapd does
      for (size_t i = 1; i < w.size(); ++i) {
        Status s = cfg.attribute_options.Define(w[i]);
        if (!s.ok()) return s.WithPrefix(where);
      }
    } else if (key == "idlexp") {
      // back-mdb's, and process-wide in slapd: taken in the global, backend
      // or database section alike.
      DIRLOAD_RETURN_IF_ERROR(need(1));
      Result<uint32_t> v = ParseIdlExponent(w[1]);
      if (!v.ok()) return v.status().WithPrefix(where + "idlexp: ");
      cfg.index_tuning.idl_exponent = *v;
    } else if (key == "sortvals") {
      // Global in slapd, wherever it stands.
      DIRLOAD_RETURN_IF_ERROR(need(1));
      for (size_t i = 1; i < w.size(); ++i) cfg.sortvals.push_back(w[i]);
    } else if (key == "index_hash64") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      Result<bool> v = ParseOnOff(w[1]);
      if (!v.ok()) return v.status().WithPrefix(where + w[0] + ": ");
      cfg.index_tuning.hash64 = *v;
    } else if (key == "index_substr_if_minlen" || key == "index_substr_if_maxlen" ||
               key == "index_substr_any_len" || key == "index_substr_any_step" ||
               key == "index_intlen") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      Result<uint32_t> v = ParseCount(w[1], 1);
      if (!v.ok()) return v.status().WithPrefix(where + w[0] + ": ");
      IndexTuning& t = cfg.index_tuning;
      uint32_t* field = key == "index_substr_if_minlen"   ? &t.substr_if_minlen
                        : key == "index_substr_if_maxlen" ? &t.substr_if_maxlen
                        : key == "index_substr_any_len"   ? &t.substr_any_len
                        : key == "index_substr_any_step"  ? &t.substr_any_step
                                                          : &t.intlen;
      *field = *v;
    } else if (key == "serverid") {
      // Global, wherever it stands, as slapd reads it.
      DIRLOAD_RETURN_IF_ERROR(need(1));
      DIRLOAD_ASSIGN_OR_RETURN(ServerId id,
                               ParseServerId(w[1], w.size() > 2 ? std::string_view(w[2]) : "",
                                             path + ":" + std::to_string(line_start)));
      DIRLOAD_RETURN_IF_ERROR(AddServerId(std::move(id), &cfg.server_ids));
    } else if (db == nullptr) {
      DIRLOAD_RETURN_IF_ERROR(unneeded());
    } else if (key == "syncrepl") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      db->consumers.push_back(SyncreplConsumer(Join(w, 1)));
    } else if (key == "multiprovider" || key == "mirrormode") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      Result<bool> v = ParseOnOff(w[1]);
      if (!v.ok()) return v.status().WithPrefix(where + w[0] + ": ");
      db->multiprovider = *v;
    } else if (key == "subordinate") {
      // slapd takes at most one argument, and only "advertise".
      if (w.size() > 2 || (w.size() == 2 && AsciiLowerCopy(w[1]) != "advertise")) {
        return Status::InvalidArgument(where + "subordinate: the only argument is 'advertise'")
            .WithOrigin(ErrorOrigin::kConfiguration);
      }
      db->subordinate = true;
    } else if (key == "suffix") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      db->suffixes.push_back(w[1]);
    } else if (key == "directory") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      db->directory = PathAsSlapdOpensIt(w[1]);
    } else if (key == "multival") {
      DIRLOAD_RETURN_IF_ERROR(need(2));
      Result<MultivalLine> m = ParseMultivalLine(w[1], w[2]);
      if (!m.ok()) return m.status().WithPrefix(where + "multival: ");
      m->where = path + ":" + std::to_string(line_start);
      db->multival.push_back(std::move(*m));
    } else if (key == "index") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      db->index_lines.push_back({Join(w, 1), line_start, path});
    } else if (key == "rootdn") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      db->rootdn = w[1];
    } else if (key == "lastmod") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      Result<bool> v = ParseOnOff(w[1]);
      if (!v.ok()) return v.status().WithPrefix(where + "lastmod: ");
      db->lastmod = *v;
    } else if (key == "maxsize") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      Result<uint64_t> v = ParseByteSize(w[1]);
      if (!v.ok()) return v.status().WithPrefix(where);
      db->maxsize = *v;
    } else if (key == "envflags") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      for (size_t i = 1; i < w.size(); ++i) db->envflags.push_back(AsciiLowerCopy(w[i]));
    } else if (key == "overlay") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      db->overlays.push_back(ModuleName(w[1]));
    } else if (key == "cachesize") {
      // back-bdb's cachesize counts entries, not bytes; dbconfig sets the bytes.
      cfg.notes.push_back(where +
                          "ignored 'cachesize' (an entry count; use dbconfig "
                          "set_cachesize or --cache-size for the engine cache)");
    } else if (key == "dbconfig" && w.size() >= 2 && AsciiLowerCopy(w[1]) == "set_cachesize") {
      // dbconfig set_cachesize GBYTES BYTES NCACHE
      if (w.size() < 4) return Status::ParseError(where + "set_cachesize needs GBYTES BYTES");
      Result<uint64_t> g = ParseByteSize(w[2]);
      Result<uint64_t> b = ParseByteSize(w[3]);
      if (!g.ok() || !b.ok()) return Status::ParseError(where + "bad set_cachesize numbers");
      db->cache_size = *g * (uint64_t{1} << 30) + *b;
    } else {
      DIRLOAD_RETURN_IF_ERROR(unneeded());
    }
  }
  for (auto& s : sections) cfg.databases.push_back(std::move(*s));
  FinishDatabases(&cfg);
  return cfg;
}

}  // namespace

Result<SlapdConfig> ParseSlapdConfig(const std::string& text, const std::string& path) {
  Result<SlapdConfig> cfg = ParseText(text, path);
  if (!cfg.ok()) return cfg.status().WithOrigin(ErrorOrigin::kConfiguration);
  return cfg;
}

Result<SlapdConfig> ReadSlapdConfig(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::InvalidArgument(path +
                                   " is a directory, not a slapd.conf file (use -F for a "
                                   "slapd.d configuration directory)")
        .WithOrigin(ErrorOrigin::kConfiguration);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Status::IoError(path + ": cannot open slapd.conf: " + std::strerror(errno))
        .WithOrigin(ErrorOrigin::kConfiguration);
  }
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    return Status::IoError(path + ": read failed").WithOrigin(ErrorOrigin::kConfiguration);
  }
  return ParseSlapdConfig(ss.str(), path);
}

}  // namespace dirload
