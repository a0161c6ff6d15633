#include "lib/pipeline/slapd_config.h"

#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

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

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

Result<uint64_t> ParseByteSize(std::string_view text) {
  std::string t(text);
  if (t.empty()) return Status::InvalidArgument("empty size");
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  std::string unit = Lower(std::string(end));
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

Result<SlapdConfig> ParseSlapdConfig(const std::string& text, const std::string& path) {
  SlapdConfig cfg;
  cfg.path = path;
  std::filesystem::path base = std::filesystem::path(path).parent_path();
  std::istringstream in(text);
  std::string raw, line;
  int n = 0, line_start = 0;
  bool in_database = false, skipping_database = false;

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
  for (auto& [ln, l] : logical) {
    line_start = ln;
    std::string where = path + ":" + std::to_string(line_start) + ": ";
    size_t k = l.find_first_not_of(" \t");
    if (k == std::string::npos || l[k] == '#') continue;
    Result<std::vector<std::string>> words = Words(l);
    if (!words.ok()) return words.status().WithPrefix(where);
    const std::vector<std::string>& w = *words;
    std::string key = Lower(w[0]);
    auto need = [&](size_t count) -> Status {
      if (w.size() < count + 1) {
        return Status::ParseError(where + "'" + w[0] + "' needs " + std::to_string(count) +
                                  " argument" + (count > 1 ? "s" : ""));
      }
      return Status::Ok();
    };
    if (key == "database") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      if (in_database || skipping_database) {
        skipping_database = true;
        in_database = false;
        cfg.notes.push_back(where + "ignored a further database section '" + w[1] + "'");
        continue;
      }
      std::string db = Lower(w[1]);
      if (db == "hdb") db = "bdb";
      if (db == "config" || db == "monitor" || db == "frontend") {
        cfg.notes.push_back(where + "ignored database '" + w[1] + "'");
        continue;
      }
      if (db != "mdb" && db != "bdb") {
        return Status::Unsupported(where + "database type '" + w[1] +
                                   "' is not supported (use mdb, bdb or hdb)");
      }
      cfg.database = db;
      in_database = true;
      continue;
    }
    if (skipping_database) continue;
    if (key == "include") {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      std::filesystem::path p = w[1];
      if (p.is_relative() && !base.empty()) p = base / p;
      cfg.schema_files.push_back(p.string());
    } else if (key == "suffix" && in_database) {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      if (cfg.has_suffix) {
        return Status::Unsupported(where + "a database with several suffixes is not supported");
      }
      cfg.suffix = w[1];
      cfg.has_suffix = true;
    } else if (key == "directory" && in_database) {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      std::filesystem::path p = w[1];
      if (p.is_relative() && !base.empty()) p = base / p;
      cfg.directory = p.string();
    } else if (key == "index" && in_database) {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      std::string args;
      for (size_t i = 1; i < w.size(); ++i) args += (i > 1 ? " " : "") + w[i];
      cfg.index_lines.push_back({args, line_start});
    } else if (key == "maxsize" && in_database) {
      DIRLOAD_RETURN_IF_ERROR(need(1));
      Result<uint64_t> v = ParseByteSize(w[1]);
      if (!v.ok()) return v.status().WithPrefix(where);
      cfg.maxsize = *v;
    } else if (key == "cachesize" && in_database) {
      // back-bdb's cachesize counts entries, not bytes; dbconfig sets the bytes.
      cfg.notes.push_back(where +
                          "ignored 'cachesize' (an entry count; use dbconfig "
                          "set_cachesize or --cache-size for the engine cache)");
    } else if (key == "dbconfig" && in_database && w.size() >= 2 &&
               Lower(w[1]) == "set_cachesize") {
      // dbconfig set_cachesize GBYTES BYTES NCACHE
      if (w.size() < 4) return Status::ParseError(where + "set_cachesize needs GBYTES BYTES");
      Result<uint64_t> g = ParseByteSize(w[2]);
      Result<uint64_t> b = ParseByteSize(w[3]);
      if (!g.ok() || !b.ok()) return Status::ParseError(where + "bad set_cachesize numbers");
      cfg.cache_size = *g * (uint64_t{1} << 30) + *b;
    } else {
      cfg.notes.push_back(where + "ignored '" + l.substr(k) + "'");
    }
  }
  if (cfg.database.empty()) {
    return Status::ParseError(path + ": no 'database mdb' (or bdb/hdb) section");
  }
  return cfg;
}

Result<SlapdConfig> ReadSlapdConfig(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IoError(path + ": cannot open slapd.conf");
  std::stringstream ss;
  ss << in.rdbuf();
  return ParseSlapdConfig(ss.str(), path);
}

}  // namespace dirload
