// Oracle test: NormalizeDn against OpenLDAP's own normaliser (`slapdn -N`)
// for every DN in the conformance corpus, with the same four schema files
// dirload builds in. Needs slapd installed; outside CI it reports and skips
// when slapdn is missing.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lib/schema/dn.h"
#include "lib/schema/schema.h"
#include "tests/support/child_process.h"
#include "tests/support/openldap.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

namespace fs = std::filesystem;

// Runs slapdn on `args`, returns its exit status and standard output. A
// slapdn that cannot start or hangs fails the test.
int Slapdn(const std::vector<std::string>& args, std::string* out) {
  const testing::ProcessResult r = testing::RunOpenLdapTool("slapdn", args);
  REQUIRE_MESSAGE(!r.timed_out, r.Describe());
  REQUIRE_MESSAGE((r.exit_code >= 0 || r.signal != 0), r.Describe());
  *out = r.out;
  return r.exit_code;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

// The "dn: " values of an LDIF file, continuation lines unfolded (base64
// "dn:: " values are left out: they are the LDIF reader's business).
void CollectDns(const fs::path& ldif, std::set<std::string>* dns) {
  std::ifstream in(ldif, std::ios::binary);
  std::string logical, line;
  auto flush = [&]() {
    if (logical.rfind("dn: ", 0) == 0) dns->insert(logical.substr(4));
    logical.clear();
  };
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty() && line[0] == ' ') {
      logical += line.substr(1);
    } else {
      flush();
      logical = line;
    }
  }
  flush();
}

TEST_CASE("NormalizeDn agrees with slapdn -N on every corpus DN") {
  const char* corpus = std::getenv("DIRLOAD_CORPUS_DIR");
  const bool ci = std::getenv("CI") != nullptr;
  if (testing::FindProgram("slapdn").empty() || corpus == nullptr || !fs::is_directory(corpus)) {
    if (ci) FAIL("slapdn or the corpus is missing in CI");
    MESSAGE("SKIPPED: needs slapdn and DIRLOAD_CORPUS_DIR");
    return;
  }
  std::set<std::string> dn_set;
  for (const auto& entry : fs::recursive_directory_iterator(corpus)) {
    if (entry.path().extension() == ".ldif") CollectDns(entry.path(), &dn_set);
  }
  const std::vector<std::string> dns(dn_set.begin(), dn_set.end());
  REQUIRE(dns.size() > 100);

  testing::TempDir dir;
  fs::create_directory(dir.path() / "db");
  const std::string conf = testing::SlapdConf()
                               .Include(testing::kExampleSchemas)
                               .ModulePath("/usr/lib/ldap")
                               .ModuleLoad("back_mdb")
                               .Database("mdb")
                               .Suffix(testing::kExampleSuffix)
                               .Directory((dir.path() / "db").string())
                               .Write(dir, "slapd.conf");

  // slapdn prints one line per DN but stops at the first it rejects, so
  // batches that fail are redone one DN at a time.
  std::vector<std::string> theirs(dns.size());
  std::vector<bool> accepted(dns.size(), false);
  const size_t kBatch = 200;
  for (size_t start = 0; start < dns.size(); start += kBatch) {
    const size_t end = std::min(dns.size(), start + kBatch);
    std::vector<std::string> argv = {"-f", conf, "-N"};
    argv.insert(argv.end(), dns.begin() + start, dns.begin() + end);
    std::string out;
    std::vector<std::string> lines;
    if (Slapdn(argv, &out) == 0 && (lines = Lines(out)).size() == end - start) {
      for (size_t i = start; i < end; ++i) {
        theirs[i] = lines[i - start];
        accepted[i] = true;
      }
      continue;
    }
    for (size_t i = start; i < end; ++i) {
      if (Slapdn({"-f", conf, "-N", dns[i]}, &out) == 0) {
        lines = Lines(out);
        accepted[i] = lines.size() == 1;
        if (accepted[i]) theirs[i] = lines[0];
      }
    }
  }

  const Schema schema = Schema::Builtin().value();
  size_t compared = 0;
  for (size_t i = 0; i < dns.size(); ++i) {
    Result<std::string> mine = NormalizeDn(schema, dns[i]);
    INFO("DN: ", dns[i]);
    if (accepted[i]) {
      ++compared;
      REQUIRE_MESSAGE(mine.ok(), mine.status().ToString());
      CHECK(*mine == theirs[i]);
    } else {
      CHECK_FALSE(mine.ok());
    }
  }
  MESSAGE("compared ", compared, " DNs with slapdn");
}

}  // namespace
}  // namespace dirload
