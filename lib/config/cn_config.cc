#include "lib/config/cn_config.h"

#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "ldif/byte_source.h"
#include "ldif/reader.h"
#include "ldif/record.h"
#include "lib/config/slapd_directives.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;

// One attribute value of a configuration entry and the line it starts on.
struct ConfigValue {
  std::string type;  // lower case, options removed
  std::string value;
  int line = 0;
  std::string spelling;  // the type as written, for messages
};

struct ConfigEntry {
  // olc attributes slapd 2.5 does not define, taken as a third-party
  // module's ("FILE:LINE: ..."); only when such a module is loaded.
  std::vector<std::string> unknown;
  std::string file;
  std::string dn;
  std::vector<ConfigValue> values;

  std::vector<const ConfigValue*> All(std::string_view type) const {
    std::vector<const ConfigValue*> out;
    for (const ConfigValue& v : values) {
      if (v.type == type) out.push_back(&v);
    }
    return out;
  }
  const ConfigValue* First(std::string_view type) const {
    for (const ConfigValue& v : values) {
      if (v.type == type) return &v;
    }
    return nullptr;
  }
  std::string Where(const ConfigValue& v) const {
    return v.line > 0 ? file + ":" + std::to_string(v.line) : file;
  }
};

// One note per configuration attribute of `e` that dirload does not read
// (of those `read`), for -v: the settings slapd has and a load does not
// need (olcAccess, olcLogLevel, ...).
void NoteIgnored(const ConfigEntry& e, std::initializer_list<std::string_view> read,
                 SlapdConfig* cfg) {
  std::set<std::string_view> noted;
  for (const ConfigValue& v : e.values) {
    if (!v.type.starts_with("olc")) continue;
    if (std::find(read.begin(), read.end(), v.type) != read.end()) continue;
    if (!noted.insert(v.type).second) continue;
    cfg->notes.push_back(e.Where(v) + ": ignored " + v.spelling +
                         " (slapd's; a load does not use it)");
  }
}

Status ConfigError(std::string message) {
  return Status::ParseError(std::move(message)).WithOrigin(ErrorOrigin::kConfiguration);
}

// The LDIF reader marks its errors as input errors; in a configuration file
// they are configuration errors.
Status AsConfigError(const Status& s) {
  return Status(s.code(), s.message()).WithOrigin(ErrorOrigin::kConfiguration);
}

// The line each attribute line of a one-entry LDIF file starts on, in order:
// the reader gives the entry's attributes in file order but not their lines.
std::vector<int> AttributeLines(const std::string& text) {
  std::vector<int> lines;
  std::istringstream in(text);
  std::string l;
  int n = 0;
  bool comment = false, seen_dn = false;
  while (std::getline(in, l)) {
    ++n;
    if (l.empty() || l == "\r") {
      comment = false;
      continue;
    }
    if (l[0] == ' ') continue;  // continues the previous line (or comment)
    comment = l[0] == '#';
    if (comment) continue;
    if (!seen_dn) {
      seen_dn = AsciiLowerCopy(l.substr(0, 3)) == "dn:";
      continue;
    }
    lines.push_back(n);
  }
  return lines;
}

// Reads the one entry of a configuration file, `text` being its contents
// and `file` its name in messages.
Result<ConfigEntry> ReadEntry(const std::string& file, const std::string& text,
                              const std::string& third_party) {
  std::vector<int> lines = AttributeLines(text);

  // A configuration file is a few KB: a block its size, not the reader's
  // default megabyte (twice over) per file.
  ldif::ReaderOptions options;
  options.block_size = std::min(options.block_size, text.size() + 1);
  ldif::Reader reader(ldif::MemoryByteSource(text, file), options);
  ldif::Record record;
  Result<bool> got = reader.Next(&record);
  if (!got.ok()) return AsConfigError(got.status());
  if (!*got) return ConfigError(file + ": no entry in the file");
  if (record.kind() != ldif::RecordKind::kContent) {
    return ConfigError(file + ":" + std::to_string(record.line()) +
                       ": a change record, not an entry");
  }
  ConfigEntry entry;
  entry.file = file;
  entry.dn = std::string(record.dn());
  for (size_t i = 0; i < record.size(); ++i) {
    ldif::AttributeView a = record.attribute(i);
    std::string_view type = a.description.substr(0, a.description.find(';'));
    int line = i < lines.size() ? lines[i] : 0;
    // slapd refuses a configuration attribute it does not define
    // ("str2ad(olcFrobnicate): attribute type undefined").
    if (AsciiLowerCopy(type).starts_with("olc") && !SlapdKnowsConfigAttribute(type)) {
      if (!third_party.empty()) {
        entry.unknown.push_back(file + ":" + std::to_string(line) + ": attribute type '" +
                                std::string(type) +
                                "' is not slapd 2.5's: taken as one of module " + third_party +
                                ", which dirload does not know, and ignored");
        continue;
      }
      return ConfigError(file + ":" + std::to_string(line) + ": attribute type '" +
                         std::string(type) +
                         "' is undefined: slapd 2.5 has no such configuration attribute, and "
                         "slapadd refuses it too");
    }
    entry.values.push_back({AsciiLowerCopy(type), std::string(a.value), line, std::string(type)});
  }
  ldif::Record more;
  Result<bool> again = reader.Next(&more);
  if (!again.ok()) return AsConfigError(again.status());
  if (*again) {
    return ConfigError(file + ":" + std::to_string(more.line()) +
                       ": a second entry (a configuration file holds one)");
  }
  return entry;
}

// Splits "{N}rest" into N and rest. Without a prefix, *number is unchanged.
bool StripOrdering(std::string_view* text, int* number) {
  if (text->empty() || text->front() != '{') return false;
  size_t close = text->find('}');
  if (close == std::string_view::npos) return false;
  int v = 0;
  auto [end, ec] = std::from_chars(text->data() + 1, text->data() + close, v);
  if (ec != std::errc() || end != text->data() + close) return false;
  *number = v;
  text->remove_prefix(close + 1);
  return true;
}

std::string Stripped(std::string_view text) {
  int ignored = 0;
  StripOrdering(&text, &ignored);
  return std::string(text);
}

// The number in a file name such as "olcDatabase={2}mdb.ldif" or
// "cn=module{0}.ldif", or nullopt.
std::optional<int> NameNumber(const std::string& name) {
  size_t open = name.find('{');
  if (open == std::string::npos) return std::nullopt;
  std::string_view rest = std::string_view(name).substr(open);
  int n = 0;
  if (!StripOrdering(&rest, &n)) return std::nullopt;
  return n;
}

// Values sorted by their {N} prefixes (values without one keep their place
// after the numbered ones), prefixes removed.
std::vector<std::pair<std::string, const ConfigValue*>> Ordered(
    const std::vector<const ConfigValue*>& values) {
  std::vector<std::tuple<int, size_t, std::string, const ConfigValue*>> keyed;
  for (size_t i = 0; i < values.size(); ++i) {
    std::string_view text = values[i]->value;
    int n = 0;
    if (!StripOrdering(&text, &n)) n = static_cast<int>(1 << 30);
    keyed.emplace_back(n, i, std::string(text), values[i]);
  }
  std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
    return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
  });
  std::vector<std::pair<std::string, const ConfigValue*>> out;
  for (auto& k : keyed) out.emplace_back(std::move(std::get<2>(k)), std::get<3>(k));
  return out;
}

Result<bool> ParseBoolean(const ConfigEntry& e, const ConfigValue& v) {
  std::string t = AsciiLowerCopy(v.value);
  if (t == "true") return true;
  if (t == "false") return false;
  return ConfigError(e.Where(v) + ": " + v.type + ": '" + v.value + "' is not TRUE or FALSE");
}

Result<uint32_t> ParseCount(const ConfigEntry& e, const ConfigValue& v) {
  uint32_t n = 0;
  auto [end, ec] = std::from_chars(v.value.data(), v.value.data() + v.value.size(), n);
  if (ec != std::errc() || end != v.value.data() + v.value.size() || n == 0) {
    return ConfigError(e.Where(v) + ": " + v.type + ": '" + v.value + "' is not a positive number");
  }
  return n;
}

Status ReadGlobal(const ConfigEntry& e, SlapdConfig* cfg) {
  for (const ConfigValue* v : e.All("olcsortvals")) {
    std::istringstream words(v->value);
    for (std::string w; words >> w;) cfg->sortvals.push_back(w);
  }
  IndexTuning& t = cfg->index_tuning;
  if (const ConfigValue* v = e.First("olcindexhash64")) {
    DIRLOAD_ASSIGN_OR_RETURN(t.hash64, ParseBoolean(e, *v));
  }
  const std::pair<const char*, uint32_t*> counts[] = {
      {"olcindexsubstrifminlen", &t.substr_if_minlen},
      {"olcindexsubstrifmaxlen", &t.substr_if_maxlen},
      {"olcindexsubstranylen", &t.substr_any_len},
      {"olcindexsubstranystep", &t.substr_any_step},
      {"olcindexintlen", &t.intlen},
  };
  for (const auto& [type, field] : counts) {
    if (const ConfigValue* v = e.First(type)) {
      DIRLOAD_ASSIGN_OR_RETURN(*field, ParseCount(e, *v));
    }
  }
  for (const ConfigValue* v : e.All("olcserverid")) {
    // "N [URL]"
    const std::string text = Stripped(v->value);
    const size_t space = text.find(' ');
    std::string url;
    if (space != std::string::npos) {
      url = text.substr(space + 1);
      url.erase(0, url.find_first_not_of(' '));
    }
    DIRLOAD_ASSIGN_OR_RETURN(ServerId id, ParseServerId(text.substr(0, space), url, e.Where(*v)));
    DIRLOAD_RETURN_IF_ERROR(AddServerId(std::move(id), &cfg->server_ids));
  }
  // slapd reads each value as the words of an `attributeoptions` line
  // (slaptest writes one name per value).
  for (const ConfigValue* v : e.All("olcattributeoptions")) {
    cfg->attribute_options.Declare();
    std::istringstream words(v->value);
    std::string name;
    while (words >> name) {
      Status s = cfg->attribute_options.Define(name);
      if (!s.ok()) {
        return ConfigError(e.Where(*v) + ": olcAttributeOptions: " + std::string(s.message()));
      }
    }
  }
  return Status::Ok();
}

Status ReadSchemaEntry(const ConfigEntry& e, SlapdConfig* cfg) {
  const ConfigValue* cn = e.First("cn");
  std::string name = cn != nullptr ? Stripped(cn->value) : fs::path(e.file).stem().string();
  cfg->schema_names.push_back(name);
  // The order slapd applies a schema entry's attributes in: OID macros
  // first, as the definitions may use them.
  const std::pair<const char*, const char*> kinds[] = {
      {"olcobjectidentifier", "objectidentifier"}, {"olcldapsyntaxes", "ldapsyntax"},
      {"olcattributetypes", "attributetype"},      {"olcobjectclasses", "objectclass"},
      {"olcditcontentrules", "ditcontentrule"},
  };
  for (const auto& [type, keyword] : kinds) {
    for (auto& [text, v] : Ordered(e.All(type))) {
      cfg->schema_definitions.push_back({keyword, text, e.Where(*v)});
    }
  }
  return Status::Ok();
}

Result<SlapdDatabase> ReadDatabase(const ConfigEntry& e) {
  SlapdDatabase db;
  db.where = e.file;
  const ConfigValue* olc_database = e.First("olcdatabase");
  if (olc_database == nullptr) return ConfigError(e.file + ": no olcDatabase attribute");
  std::string_view type = olc_database->value;
  if (!StripOrdering(&type, &db.number)) {
    return ConfigError(e.Where(*olc_database) + ": olcDatabase '" + olc_database->value +
                       "' has no {N} number");
  }
  db.type = AsciiLowerCopy(type);
  if (db.type == "hdb") db.type = "bdb";
  for (const ConfigValue* v : e.All("olcsuffix")) db.suffixes.push_back(v->value);
  if (const ConfigValue* v = e.First("olcdbdirectory")) {
    db.directory = PathAsSlapdOpensIt(v->value);
  }
  for (const ConfigValue* v : e.All("olcdbindex")) {
    db.index_lines.push_back({v->value, v->line, e.file});
  }
  for (const ConfigValue* v : e.All("olcdbmultival")) {
    std::istringstream words(v->value);
    std::string attrs, thresholds;
    words >> attrs >> thresholds;
    Result<MultivalLine> m = ParseMultivalLine(attrs, thresholds);
    if (!m.ok()) return ConfigError(e.Where(*v) + ": olcDbMultival: " + m.status().message());
    m->where = e.Where(*v);
    db.multival.push_back(std::move(*m));
  }
  if (const ConfigValue* v = e.First("olcrootdn")) db.rootdn = v->value;
  for (auto& [text, v] : Ordered(e.All("olcsyncrepl"))) {
    db.consumers.push_back(SyncreplConsumer(text));
  }
  for (const char* type : {"olcmultiprovider", "olcmirrormode"}) {
    if (const ConfigValue* v = e.First(type)) {
      DIRLOAD_ASSIGN_OR_RETURN(db.multiprovider, ParseBoolean(e, *v));
    }
  }
  if (const ConfigValue* v = e.First("olclastmod")) {
    DIRLOAD_ASSIGN_OR_RETURN(db.lastmod, ParseBoolean(e, *v));
  }
  if (const ConfigValue* v = e.First("olcsubordinate")) {
    const std::string word = AsciiLowerCopy(Stripped(v->value));
    if (word != "true" && word != "advertise") {
      return ConfigError(e.Where(*v) + ": olcSubordinate: '" + v->value +
                         "' (slapd takes TRUE or advertise)");
    }
    db.subordinate = true;
  }
  if (const ConfigValue* v = e.First("olcdbmaxsize")) {
    Result<uint64_t> size = ParseByteSize(v->value);
    if (!size.ok()) return size.status().WithPrefix(e.Where(*v) + ": olcDbMaxSize: ");
    db.maxsize = *size;
  }
  for (const ConfigValue* v : e.All("olcdbenvflags")) {
    std::istringstream words(Stripped(v->value));
    std::string w;
    while (words >> w) db.envflags.push_back(AsciiLowerCopy(w));
  }
  for (auto& [text, v] : Ordered(e.All("olcdbconfig"))) {
    // set_cachesize GBYTES BYTES NCACHE (Berkeley DB's DB_CONFIG syntax)
    std::istringstream words(text);
    std::string key, g, b;
    words >> key >> g >> b;
    if (AsciiLowerCopy(key) != "set_cachesize") continue;
    Result<uint64_t> gb = ParseByteSize(g);
    Result<uint64_t> bytes = ParseByteSize(b);
    if (!gb.ok() || !bytes.ok()) {
      return ConfigError(e.Where(*v) + ": olcDbConfig: bad set_cachesize numbers");
    }
    db.cache_size = *gb * (uint64_t{1} << 30) + *bytes;
  }
  return db;
}

// A slapd.d tree in memory, with the names its messages give its files.
class Tree {
 public:
  explicit Tree(const CnConfigTree& t) : t_(t) {}

  // The third-party modules loaded ("'x', 'y'"): entries are read taking
  // the olc attributes slapd 2.5 does not define as theirs.
  void SetThirdPartyModules(std::string names) { third_party_ = std::move(names); }
  // What Entry() took as a third-party module's, for warnings.
  const std::vector<std::string>& unknown() const { return unknown_; }

  std::string Name(const std::string& rel) const { return (fs::path(t_.dir) / rel).string(); }
  bool HasFile(const std::string& rel) const { return t_.files.count(rel) != 0; }
  bool HasDirectory(const std::string& rel) const { return t_.directories.count(rel) != 0; }

  Result<ConfigEntry> Entry(const std::string& rel) const {
    auto it = t_.files.find(rel);
    if (it == t_.files.end()) return ConfigError(Name(rel) + ": missing");
    Result<ConfigEntry> e = ReadEntry(Name(rel), it->second, third_party_);
    if (e.ok()) unknown_.insert(unknown_.end(), e->unknown.begin(), e->unknown.end());
    return e;
  }

  // The files directly in `dir` whose names start with `prefix` and end in
  // ".ldif", ordered by their {N} numbers.
  Result<std::vector<std::string>> NumberedFiles(const std::string& dir,
                                                 std::string_view prefix) const {
    std::vector<std::pair<int, std::string>> found;
    const std::string under = dir + "/";
    for (auto it = t_.files.lower_bound(under); it != t_.files.end(); ++it) {
      const std::string& rel = it->first;
      if (!rel.starts_with(under)) break;
      std::string name = rel.substr(under.size());
      if (name.find('/') != std::string::npos) continue;
      if (!name.starts_with(prefix) || !name.ends_with(".ldif")) continue;
      std::optional<int> n = NameNumber(name);
      if (!n) return ConfigError(Name(rel) + ": no {N} number in the file name");
      found.emplace_back(*n, rel);
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (auto& f : found) out.push_back(std::move(f.second));
    return out;
  }

  // The sub-directories directly in `dir`.
  std::vector<std::string> Directories(const std::string& dir) const {
    std::vector<std::string> out;
    const std::string under = dir + "/";
    for (const std::string& d : t_.directories) {
      if (d.starts_with(under) && d.find('/', under.size()) == std::string::npos) {
        out.push_back(d);
      }
    }
    return out;
  }

 private:
  const CnConfigTree& t_;
  std::string third_party_;
  mutable std::vector<std::string> unknown_;
};

Result<SlapdConfig> Parse(const CnConfigTree& t) {
  Tree tree(t);
  SlapdConfig cfg;
  cfg.path = t.dir;
  cfg.from_directory = true;
  const std::string global_file = "cn=config.ldif";
  const std::string config_dir = "cn=config";
  if (!tree.HasFile(global_file)) {
    return ConfigError(tree.Name(global_file) +
                       ": missing (not a slapd configuration directory; slaptest -f slapd.conf "
                       "-F DIR writes one)");
  }
  if (!tree.HasDirectory(config_dir)) {
    return ConfigError(tree.Name(config_dir) + ": missing configuration directory");
  }
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> modules,
                           tree.NumberedFiles(config_dir, "cn=module"));
  for (const std::string& f : modules) {
    DIRLOAD_ASSIGN_OR_RETURN(ConfigEntry e, tree.Entry(f));
    for (auto& [text, v] : Ordered(e.All("olcmoduleload"))) {
      std::string first = text.substr(0, text.find(' '));
      cfg.modules.push_back(ModuleName(first));
    }
    NoteIgnored(e, {"olcmoduleload"}, &cfg);
  }
  tree.SetThirdPartyModules(ThirdPartyModules(cfg.modules));

  DIRLOAD_ASSIGN_OR_RETURN(ConfigEntry global, tree.Entry(global_file));
  DIRLOAD_RETURN_IF_ERROR(ReadGlobal(global, &cfg));
  NoteIgnored(global,
              {"olcindexhash64", "olcindexsubstrifminlen", "olcindexsubstrifmaxlen",
               "olcindexsubstranylen", "olcindexsubstranystep", "olcindexintlen",
               "olcattributeoptions", "olcserverid", "olcsortvals"},
              &cfg);

  const std::string builtin_schema = config_dir + "/cn=schema.ldif";
  if (tree.HasFile(builtin_schema)) {
    cfg.notes.push_back(tree.Name(builtin_schema) +
                        ": slapd's built-in schema, not read (dirload has the same built in)");
  }
  const std::string schema_dir = config_dir + "/cn=schema";
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> schemas, tree.NumberedFiles(schema_dir, "cn="));
  for (const std::string& f : schemas) {
    DIRLOAD_ASSIGN_OR_RETURN(ConfigEntry e, tree.Entry(f));
    DIRLOAD_RETURN_IF_ERROR(ReadSchemaEntry(e, &cfg));
  }

  // back-mdb's backend entry: olcBkMdbIdlExp, slapd's idlexp.
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> backends,
                           tree.NumberedFiles(config_dir, "olcBackend="));
  for (const std::string& f : backends) {
    DIRLOAD_ASSIGN_OR_RETURN(ConfigEntry e, tree.Entry(f));
    if (const ConfigValue* v = e.First("olcbkmdbidlexp")) {
      Result<uint32_t> n = ParseIdlExponent(Stripped(v->value));
      if (!n.ok()) return ConfigError(e.Where(*v) + ": olcBkMdbIdlExp: " + n.status().message());
      cfg.index_tuning.idl_exponent = *n;
    }
    NoteIgnored(e, {"olcbackend", "olcbkmdbidlexp"}, &cfg);
  }

  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> databases,
                           tree.NumberedFiles(config_dir, "olcDatabase="));
  for (const std::string& f : databases) {
    DIRLOAD_ASSIGN_OR_RETURN(ConfigEntry e, tree.Entry(f));
    DIRLOAD_ASSIGN_OR_RETURN(SlapdDatabase db, ReadDatabase(e));
    NoteIgnored(e,
                {"olcdatabase", "olcsuffix", "olcdbdirectory", "olcdbindex", "olcrootdn",
                 "olclastmod", "olcdbmaxsize", "olcdbenvflags", "olcdbconfig", "olcsyncrepl",
                 "olcmultiprovider", "olcmirrormode", "olcsubordinate", "olcdbmultival"},
                &cfg);
    if (cfg.FindDatabase(db.number) != nullptr) {
      return ConfigError(tree.Name(f) + ": a second database numbered " +
                         std::to_string(db.number));
    }
    const std::string overlay_dir = f.substr(0, f.size() - std::string_view(".ldif").size());
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> overlays,
                             tree.NumberedFiles(overlay_dir, "olcOverlay="));
    for (const std::string& o : overlays) {
      DIRLOAD_ASSIGN_OR_RETURN(ConfigEntry oe, tree.Entry(o));
      const ConfigValue* v = oe.First("olcoverlay");
      if (v == nullptr) return ConfigError(tree.Name(o) + ": no olcOverlay attribute");
      db.overlays.push_back(ModuleName(Stripped(v->value)));
      NoteIgnored(oe, {"olcoverlay"}, &cfg);
    }
    cfg.databases.push_back(std::move(db));
  }
  // A database's subordinate directory (overlays) without the database's own
  // file means the directory was damaged or copied in part: slapd would
  // refuse it.
  for (const std::string& d : tree.Directories(config_dir)) {
    if (!d.substr(config_dir.size() + 1).starts_with("olcDatabase=")) continue;
    if (!tree.HasFile(d + ".ldif")) {
      return ConfigError(tree.Name(d + ".ldif") + ": missing (the directory " + tree.Name(d) +
                         " refers to it)");
    }
  }
  if (cfg.FindDatabase(0) == nullptr) {
    return ConfigError(tree.Name(config_dir + "/olcDatabase={0}config.ldif") + ": missing");
  }
  std::stable_sort(
      cfg.databases.begin(), cfg.databases.end(),
      [](const SlapdDatabase& a, const SlapdDatabase& b) { return a.number < b.number; });
  cfg.warnings = tree.unknown();
  return cfg;
}

Status ReadFileInto(const fs::path& path, std::string* text) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return ConfigError(path.string() + ": cannot open: " + std::strerror(errno));
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) return ConfigError(path.string() + ": read failed");
  *text = buf.str();
  return Status::Ok();
}

}  // namespace

Result<CnConfigTree> ReadCnConfigTree(const std::string& dir) {
  std::error_code ec;
  if (!fs::exists(dir, ec)) return ConfigError(dir + ": no such configuration directory");
  if (!fs::is_directory(dir, ec)) {
    return ConfigError(dir +
                       " is not a directory (use -f for a slapd.conf file, -F for a slapd.d "
                       "directory)");
  }
  CnConfigTree tree;
  tree.dir = dir;
  // slapd's tree is three levels deep (cn=config/olcDatabase={N}TYPE/
  // olcOverlay=...); nothing deeper is configuration.
  constexpr int kDepth = 3;
  fs::recursive_directory_iterator it(dir, ec), end;
  for (; !ec && it != end; it.increment(ec)) {
    const fs::directory_entry& d = *it;
    const std::string rel = fs::relative(d.path(), dir).generic_string();
    if (d.is_directory(ec)) {
      tree.directories.insert(rel);
      if (it.depth() + 1 >= kDepth) it.disable_recursion_pending();
    } else if (d.path().extension() == ".ldif" && d.is_regular_file(ec)) {
      DIRLOAD_RETURN_IF_ERROR(ReadFileInto(d.path(), &tree.files[rel]));
    }
  }
  if (ec) return ConfigError(dir + ": cannot list: " + ec.message());
  return tree;
}

Result<SlapdConfig> ParseCnConfig(const CnConfigTree& tree) {
  Result<SlapdConfig> cfg = Parse(tree);
  if (!cfg.ok()) return cfg.status().WithOrigin(ErrorOrigin::kConfiguration);
  return cfg;
}

Result<SlapdConfig> ReadCnConfig(const std::string& dir) {
  DIRLOAD_ASSIGN_OR_RETURN(CnConfigTree tree, ReadCnConfigTree(dir));
  return ParseCnConfig(tree);
}

}  // namespace dirload
