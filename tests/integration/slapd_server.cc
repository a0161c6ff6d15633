#include "tests/integration/slapd_server.h"

#include <doctest/doctest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload::testing {

std::vector<std::string> SplitRecords(const std::string& ldif) {
  std::vector<std::string> out;
  size_t p = 0;
  while (p < ldif.size()) {
    size_t e = ldif.find("\n\n", p);
    if (e == std::string::npos) e = ldif.size();
    if (e > p) out.push_back(ldif.substr(p, e - p) + "\n\n");
    p = e + 2;
  }
  return out;
}

namespace {

std::string AsciiLower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

}  // namespace

std::set<std::string> LowerCaseDns(const std::vector<std::string>& records) {
  std::set<std::string> out;
  for (const std::string& r : records) {
    std::string dn = r.substr(0, r.find('\n'));
    if (dn.rfind("dn: ", 0) == 0) dn = dn.substr(4);
    out.insert(AsciiLower(std::move(dn)));
  }
  return out;
}

std::set<std::string> LowerCaseLines(const std::string& text) {
  std::set<std::string> out;
  size_t p = 0;
  while (p < text.size()) {
    size_t e = text.find('\n', p);
    if (e == std::string::npos) e = text.size();
    if (e > p) out.insert(AsciiLower(text.substr(p, e - p)));
    p = e + 1;
  }
  return out;
}

OracleDb MakeOracleDb(const TempDir& tmp, const std::string& name, const std::string& extra_schema,
                      const std::vector<std::string>& indexes, uint64_t max_size) {
  OracleDb db{tmp.File(name), ""};
  std::filesystem::create_directory(db.dir);
  SlapdConf conf;
  conf.LoadBackMdb().Include(kExampleSchemas);
  if (!extra_schema.empty()) conf.Line("include " + extra_schema);
  db.conf = conf.Line("sizelimit unlimited")
                .Database("mdb")
                .Suffix(kExampleSuffix)
                .RootDn(kExampleRootDn)
                .Line("rootpw secret")
                .Directory(db.dir)
                .MaxSize(max_size)
                .Indexes(indexes)
                .Write(tmp, name + ".conf");
  return db;
}

ProcessResult RunLdapClient(const std::string& tool, const std::string& url,
                            const std::string& ldif_file, std::vector<std::string> more) {
  std::vector<std::string> argv = {FindProgram(tool), "-x", "-H",    url, "-D",
                                   kExampleRootDn,    "-w", "secret"};
  argv.insert(argv.end(), more.begin(), more.end());
  if (!ldif_file.empty()) argv.insert(argv.end(), {"-f", ldif_file});
  return RunProcess(argv, 60);
}

void SleepSeconds(double s) {
  timespec ts{static_cast<time_t>(s), static_cast<long>((s - static_cast<time_t>(s)) * 1e9)};
  ::nanosleep(&ts, nullptr);
}

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
            ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
  ::close(fd);
  REQUIRE(ok);
  return ntohs(addr.sin_port);
}

Slapd::Slapd(const TempDir& tmp, const std::string& name, const std::string& conf,
             const std::string& debug_level, const std::string& conf_option)
    : log_(tmp.File(name + ".slapd.err")) {
  const std::string& err = log_;
  // Another process may take the free port before slapd binds it: retry.
  for (int attempt = 0; attempt < 3; ++attempt) {
    url_ = "ldap://127.0.0.1:" + std::to_string(FreePort());
    child_ = std::make_unique<ChildProcess>();
    std::string error;
    REQUIRE_MESSAGE(child_->Start({FindProgram("slapd"), "-h", url_ + "/", conf_option, conf, "-d",
                                   debug_level},
                                  tmp.File(name + ".slapd.out"), err, &error),
                    error);
    // Bounded: about 10 s for slapd to answer the root DSE.
    for (int i = 0; i < 100 && child_->Running(); ++i) {
      ProcessResult r = RunProcess({FindProgram("ldapsearch"), "-x", "-LLL", "-o", "nettimeout=2",
                                    "-H", url_, "-b", "", "-s", "base", "1.1"},
                                   10);
      if (r.exit_code == 0) return;
      SleepSeconds(0.1);
    }
    if (child_->Running()) break;  // running but not answering: give up
  }
  FAIL("slapd did not answer on " << url_ << ": " << ReadFile(err));
}

Slapd::~Slapd() {
  if (child_ && child_->Running()) {
    child_->Kill(SIGTERM);
    ProcessResult r;
    child_->Wait(10, &r);
  }
}

Slapd::Answer Slapd::Search(const std::string& base, const std::string& scope,
                            const std::string& filter,
                            const std::vector<std::string>& attrs) const {
  std::vector<std::string> argv = {FindProgram("ldapsearch"),
                                   "-x",
                                   "-LLL",
                                   "-o",
                                   "ldif-wrap=no",
                                   "-o",
                                   "nettimeout=10",
                                   "-H",
                                   url_,
                                   "-b",
                                   base,
                                   "-s",
                                   scope,
                                   filter};
  argv.insert(argv.end(), attrs.begin(), attrs.end());
  ProcessResult r = RunProcess(argv, 120);
  Answer a;
  a.exit_code = r.exit_code;
  a.err = r.err;
  for (std::string& e : SplitRecords(r.out)) a.entries.push_back(std::move(e));
  std::sort(a.entries.begin(), a.entries.end());
  return a;
}

}  // namespace dirload::testing
