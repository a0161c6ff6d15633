// Oracle test: NormalizeDn against OpenLDAP's own normaliser (`slapdn -N`)
// for every DN in the conformance corpus, with the same four schema files
// dirload builds in. Needs slapd installed; outside CI it reports and skips
// when slapdn is missing.
#include <doctest/doctest.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

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

extern char** environ;

namespace dirload {
namespace {

namespace fs = std::filesystem;

constexpr const char* kSlapdn = "/usr/sbin/slapdn";

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "dn_oracle.XXXXXX").string();
    REQUIRE(mkdtemp(tmpl.data()) != nullptr);
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Runs argv, returns its exit status and standard output (stderr discarded).
int Run(const std::vector<std::string>& argv, std::string* out) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid;
  const int rc = posix_spawn(&pid, argv[0].c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  REQUIRE(rc == 0);
  out->clear();
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof(buf))) > 0) out->append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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
  if (!fs::exists(kSlapdn) || corpus == nullptr || !fs::is_directory(corpus)) {
    if (ci) FAIL("slapdn or the corpus is missing in CI");
    MESSAGE("SKIPPED: needs /usr/sbin/slapdn and DIRLOAD_CORPUS_DIR");
    return;
  }
  std::set<std::string> dn_set;
  for (const auto& entry : fs::recursive_directory_iterator(corpus)) {
    if (entry.path().extension() == ".ldif") CollectDns(entry.path(), &dn_set);
  }
  const std::vector<std::string> dns(dn_set.begin(), dn_set.end());
  REQUIRE(dns.size() > 100);

  TempDir dir;
  const fs::path conf = dir.path() / "slapd.conf";
  fs::create_directory(dir.path() / "db");
  {
    std::ofstream c(conf);
    for (const char* s : {"core", "cosine", "inetorgperson", "nis"}) {
      c << "include /etc/ldap/schema/" << s << ".schema\n";
    }
    c << "modulepath /usr/lib/ldap\nmoduleload back_mdb\ndatabase mdb\n"
      << "suffix \"dc=example,dc=com\"\ndirectory " << (dir.path() / "db").string() << "\n";
  }

  // slapdn prints one line per DN but stops at the first it rejects, so
  // batches that fail are redone one DN at a time.
  std::vector<std::string> theirs(dns.size());
  std::vector<bool> accepted(dns.size(), false);
  const size_t kBatch = 200;
  for (size_t start = 0; start < dns.size(); start += kBatch) {
    const size_t end = std::min(dns.size(), start + kBatch);
    std::vector<std::string> argv = {kSlapdn, "-f", conf.string(), "-N"};
    argv.insert(argv.end(), dns.begin() + start, dns.begin() + end);
    std::string out;
    std::vector<std::string> lines;
    if (Run(argv, &out) == 0 && (lines = Lines(out)).size() == end - start) {
      for (size_t i = start; i < end; ++i) {
        theirs[i] = lines[i - start];
        accepted[i] = true;
      }
      continue;
    }
    for (size_t i = start; i < end; ++i) {
      if (Run({kSlapdn, "-f", conf.string(), "-N", dns[i]}, &out) == 0) {
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
