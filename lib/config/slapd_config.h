// The parts of an OpenLDAP configuration that an offline loader needs, read
// from a slapd.conf file (here) or from a slapd.d directory (cn_config.h);
// both give the same SlapdConfig.
//
// Global settings: schema (`include` files, or definitions from cn=schema
// entries), `moduleload` names, `serverID` lines, `attributeoptions` and the
// index_* tuning lines. Every database
// section is kept, in order and numbered as slapadd's -n counts them: the
// config database is 0 (there is one even when slapd.conf has no `database
// config` line), the frontend -1 (likewise), and every other database 1, 2, ... in the
// order it appears. Sections of types dirload does not load (config, monitor,
// ldif, ...) are kept too so that the numbers stay right and -b can say who
// holds a DN. Everything else (access, limits, TLS, ...) is kept as a note,
// so that -v can say what was ignored.
//
// Thread safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lib/config/replication.h"
#include "lib/schema/attribute_options.h"
#include "lib/schema/schema_loader.h"
#include "lib/util/status.h"

namespace dirload {

// The global index_* settings. Defaults are slapd's (OpenLDAP 2.5).
struct IndexTuning {
  bool hash64 = false;            // index_hash64 / olcIndexHash64
  uint32_t substr_if_minlen = 2;  // index_substr_if_minlen / olcIndexSubstrIfMinLen
  uint32_t substr_if_maxlen = 4;  // index_substr_if_maxlen / olcIndexSubstrIfMaxLen
  uint32_t substr_any_len = 4;    // index_substr_any_len / olcIndexSubstrAnyLen
  uint32_t substr_any_step = 2;   // index_substr_any_step / olcIndexSubstrAnyStep
  uint32_t intlen = 4;            // index_intlen / olcIndexIntLen
  // back-mdb's idlexp / olcBkMdbIdlExp (16..30): a key lists at most
  // 2^idl_exponent - 1 IDs before it becomes a range. slapd keeps one value
  // for the whole process, whichever section sets it.
  uint32_t idl_exponent = 16;

  bool operator==(const IndexTuning&) const = default;
};

// One `index` line (slapd.conf) or olcDbIndex value (slapd.d).
struct ConfigIndexLine {
  std::string text;  // the arguments, without the word "index"
  int line = 0;      // where it is: line in `file`; 0 if unknown
  std::string file;  // slapd.conf, or the olcDatabase file; empty if not from a file

  // "slapd.conf:12", or the file alone when the line is unknown.
  std::string Where() const;
};

// back-mdb's `multival ATTRS HI,LO` line or olcDbMultival value: records of
// these descriptions with more than `hi` values keep them in id2v.
struct MultivalLine {
  std::vector<std::string> attributes;  // as written; "default": every other one
  uint32_t hi = 0;
  uint32_t lo = 0;    // slapd's modifications move values back below it
  std::string where;  // "slapd.conf:12", for messages
};

// `attrs` ("member,uniqueMember") and `thresholds` ("100,10") as back-mdb
// reads them: lo may not exceed hi.
Result<MultivalLine> ParseMultivalLine(std::string_view attrs, std::string_view thresholds);

struct SlapdDatabase {
  int number = 0;                     // as slapadd -n counts (see above)
  std::string type;                   // lower case; "hdb" reads as "bdb"
  std::string where;                  // "slapd.conf:12" or the olcDatabase file, for messages
  std::vector<std::string> suffixes;  // as written; `suffix ""` is the empty DN
  std::string directory;
  std::vector<ConfigIndexLine> index_lines;
  std::string rootdn;
  bool lastmod = true;                 // `lastmod off` / olcLastMod: FALSE
  std::optional<uint64_t> maxsize;     // mdb map size in bytes
  std::optional<uint64_t> cache_size;  // bdb cache in bytes (dbconfig set_cachesize)
  std::vector<std::string> envflags;   // mdb `envflags` words
  std::vector<std::string> overlays;   // `overlay` names, in order ("ppolicy")
  // `syncrepl` lines / olcSyncrepl values: this database's consumers, each
  // as SyncreplConsumer (replication.h) gives it.
  std::vector<std::string> consumers;
  bool multiprovider = false;  // `multiprovider on` / `mirrormode on`, olcMultiProvider TRUE
  // `subordinate [advertise]` / olcSubordinate TRUE or advertise: glued to
  // the database after it whose suffix holds its own (glue.h).
  bool subordinate = false;
  std::vector<MultivalLine> multival;  // mdb `multival` lines / olcDbMultival values

  // mdb, or bdb (hdb): what dirload loads.
  bool supported() const { return type == "mdb" || type == "bdb"; }
};

struct SlapdConfig {
  std::string path;             // the slapd.conf file or the slapd.d directory
  bool from_directory = false;  // read from slapd.d (cn=config)
  // slapd.conf `include` lines, in order (files to load with LoadSchemaFile).
  std::vector<std::string> schema_files;
  // slapd.d: the definitions of the cn={N}NAME schema entries, in the order
  // slapd applies them.
  std::vector<SchemaDefinition> schema_definitions;
  // The schema's names in order, from either form: the file name without
  // directory and ".schema" ("core"), or the entry name without "{N}".
  std::vector<std::string> schema_names;
  std::vector<std::string> modules;  // moduleload names, without path or suffix
  std::vector<ServerId> server_ids;  // `serverID` lines / olcServerID values, in order
  IndexTuning index_tuning;
  // `sortvals` / olcSortVals: attribute types (as written) whose values slapd
  // keeps sorted; global, wherever the line stands.
  std::vector<std::string> sortvals;
  // `attributeoptions` lines / olcAttributeOptions values, all applied to one
  // set (a line inside a database section is still global, as in slapd);
  // slapd's default (lang- tags) without any.
  AttributeOptions attribute_options;
  std::vector<SlapdDatabase> databases;  // by number: frontend -1, config 0, then 1, 2, ...
  std::vector<std::string> notes;        // "slapd.conf:12: ignored 'access to *'"
  // What an operator should see without -v: directives or attributes taken
  // as a third-party module's.
  std::vector<std::string> warnings;

  // The database numbered `number`, or nullptr.
  const SlapdDatabase* FindDatabase(int number) const;
};

// The loaded modules OpenLDAP 2.5 does not build ("'x', 'y'"), or "".
std::string ThirdPartyModules(const std::vector<std::string>& modules);

// Parses `path`. Errors name the file and line and are marked
// ErrorOrigin::kConfiguration, as are a missing file and a directory (with a
// hint to use -F).
Result<SlapdConfig> ReadSlapdConfig(const std::string& path);
// Parses text (for tests); `path` is used in messages.
Result<SlapdConfig> ParseSlapdConfig(const std::string& text, const std::string& path);

// "512M", "1.5G", "64k", "1048576" -> bytes. Suffixes are powers of 1024.
Result<uint64_t> ParseByteSize(std::string_view text);

// back-mdb's idlexp argument: 16 to 30.
Result<uint32_t> ParseIdlExponent(std::string_view text);

// A file or directory named in slapd's configuration (include, directory,
// olcDbDirectory), as slapd opens it: by the path as written, so a relative
// one is relative to the current directory, not to the configuration
// file's (OpenLDAP's test scripts rely on it: `-f ./testrun/slapd.1.conf`
// naming `./testdata/...` and `./testrun/db.1.a`). Made absolute, so that
// messages name the file read.
std::string PathAsSlapdOpensIt(const std::string& written);

// The module a `moduleload` argument names: "/usr/lib/ldap/ppolicy.la",
// "ppolicy.so.2" and "ppolicy" all give "ppolicy".
std::string ModuleName(std::string_view moduleload_argument);

}  // namespace dirload
