#include "tests/support/slapd_conf.h"

#include "tests/support/temp_dir.h"

namespace dirload::testing {

SlapdConf& SlapdConf::Include(const std::vector<std::string>& schemas) {
  for (const std::string& s : schemas) Line("include /etc/ldap/schema/" + s + ".schema");
  return *this;
}

SlapdConf& SlapdConf::LoadBackMdb() { return ModuleLoad("back_mdb").ModulePath("/usr/lib/ldap"); }

SlapdConf& SlapdConf::ModulePath(std::string_view dir) {
  return Line("modulepath " + std::string(dir));
}

SlapdConf& SlapdConf::ModuleLoad(std::string_view module) {
  return Line("moduleload " + std::string(module));
}

SlapdConf& SlapdConf::Database(std::string_view backend) {
  return Line("database " + std::string(backend));
}

SlapdConf& SlapdConf::Suffix(std::string_view dn) {
  return Line("suffix \"" + std::string(dn) + "\"");
}

SlapdConf& SlapdConf::RootDn(std::string_view dn) {
  return Line("rootdn \"" + std::string(dn) + "\"");
}

SlapdConf& SlapdConf::Directory(std::string_view dir) {
  return Line("directory " + std::string(dir));
}

SlapdConf& SlapdConf::MaxSize(uint64_t bytes) { return Line("maxsize " + std::to_string(bytes)); }

SlapdConf& SlapdConf::Index(std::string_view spec) { return Line("index " + std::string(spec)); }

SlapdConf& SlapdConf::Indexes(const std::vector<std::string>& specs) {
  for (const std::string& s : specs) Index(s);
  return *this;
}

SlapdConf& SlapdConf::Line(std::string_view line) {
  text_ += line;
  text_ += '\n';
  return *this;
}

SlapdConf& SlapdConf::Lines(const std::vector<std::string>& lines) {
  for (const std::string& l : lines) Line(l);
  return *this;
}

std::string SlapdConf::Write(const TempDir& dir, std::string_view name) const {
  return dir.Write(name, text_);
}

}  // namespace dirload::testing
