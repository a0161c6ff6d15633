// slapd.conf text for the tests that run OpenLDAP's tools (slapadd, slapcat,
// slapindex, slaptest, slapdn, slapd) and dirload on one configuration.
//
// Each call adds one directive, and the lines come out in the order of the
// calls: slapd reads the file top to bottom (globals and modules before the
// first `database`, each database's lines after it), and a test that
// compares file names and line numbers, or slaptest's conversion, gets the
// exact text it asked for. A test keeps its own configuration (indexes,
// sizes, schema files) and spells it with these calls.
//
// Thread safety: a SlapdConf is a value; one thread at a time per object.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dirload::testing {

class TempDir;

// The suffix, rootdn and schema files (in the order slapd needs them) the
// oracle tests share.
inline constexpr char kExampleSuffix[] = "dc=example,dc=com";
inline constexpr char kExampleRootDn[] = "cn=admin,dc=example,dc=com";
inline const std::vector<std::string> kExampleSchemas = {"core", "cosine", "inetorgperson", "nis"};

class SlapdConf {
 public:
  // `include /etc/ldap/schema/NAME.schema` for each name, in order.
  SlapdConf& Include(const std::vector<std::string>& schemas);
  // `moduleload back_mdb` then `modulepath /usr/lib/ldap` (Debian's module
  // directory; slapd's built-in path is the same there, so the order works).
  SlapdConf& LoadBackMdb();
  SlapdConf& ModulePath(std::string_view dir);
  SlapdConf& ModuleLoad(std::string_view module);
  // `database BACKEND`: the lines after it belong to that database.
  SlapdConf& Database(std::string_view backend);
  // `suffix "DN"` and `rootdn "DN"`.
  SlapdConf& Suffix(std::string_view dn);
  SlapdConf& RootDn(std::string_view dn);
  SlapdConf& Directory(std::string_view dir);
  SlapdConf& MaxSize(uint64_t bytes);
  // `index SPEC`; Indexes writes one line per spec.
  SlapdConf& Index(std::string_view spec);
  SlapdConf& Indexes(const std::vector<std::string>& specs);
  // Any other directive, verbatim (without its newline).
  SlapdConf& Line(std::string_view line);
  SlapdConf& Lines(const std::vector<std::string>& lines);

  const std::string& Text() const { return text_; }
  // Writes the text to `name` in `dir` and returns the file's path.
  std::string Write(const TempDir& dir, std::string_view name) const;

 private:
  std::string text_;
};

}  // namespace dirload::testing
