// bench/dirload-searchrate against slapd on 127.0.0.1 serving a database
// dirload loaded: the counts it reports equal slapd's own stats log, the value
// orders and offsets search what they say, --async keeps that many searches
// outstanding, and a run that cannot start exits 2 with a message.
//
// The oracle is slapd's stats log (loglevel 256, `-d 256` to a file) rather
// than cn=monitor: the log names every operation with its filter, result
// code and entry count, so one source checks totals, codes and the order of
// the values; cn=monitor would only give totals and needs back_monitor.
// --async is checked against a stand-in server on a socket that answers the
// bind and then holds back results, so the number of searches that arrive
// unanswered is exact (slapd's log cannot show it: slapd writes a RESULT line
// after sending the result, so even a one-at-a-time client seems to overlap).
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/dirload_process.h"
#include "tests/support/child_process.h"
#include "tests/support/mini_json.h"
#include "tests/support/slapd_conf.h"
#include "tests/support/temp_dir.h"

namespace dirload {
namespace {

using testing::FindProgram;
using testing::JsonValue;
using testing::ProcessResult;
using testing::ReadFile;
using testing::RunDirload;
using testing::RunProcess;
using testing::TempDir;

constexpr char kBase[] = "dc=example,dc=com";
constexpr int kUsers = 40;

std::string SearchratePath() { return DIRLOAD_SEARCHRATE_PATH; }

void SleepSeconds(double s) {
  timespec ts{static_cast<time_t>(s), static_cast<long>((s - static_cast<time_t>(s)) * 1e9)};
  ::nanosleep(&ts, nullptr);
}

// A loopback socket bound to a free port; listening when `listen` (the
// stand-in server), or closed right away to name a port no one serves.
int BindLoopback(int* port, bool listen) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  *port = ntohs(addr.sin_port);
  if (!listen) {
    ::close(fd);
    return -1;
  }
  REQUIRE(::listen(fd, 4) == 0);
  return fd;
}

int FreePort() {
  int port = 0;
  BindLoopback(&port, false);
  return port;
}

std::string Ldif() {
  std::string ldif = std::string("dn: ") + kBase +
                     "\nobjectClass: dcObject\nobjectClass: organization\ndc: example\n"
                     "o: Example\n\ndn: ou=People," +
                     kBase + "\nobjectClass: organizationalUnit\nou: People\n\n";
  for (int i = 0; i < kUsers; ++i) {
    const std::string u = "user" + std::to_string(i);
    ldif += "dn: uid=" + u + ",ou=People," + kBase + "\nobjectClass: inetOrgPerson\nuid: " + u +
            "\ncn: User " + std::to_string(i) + "\nsn: Family" + std::to_string(i % 4) +
            "\nmail: " + u + "@example.com\n\n";
  }
  return ldif;
}

// A database dirload loaded in slapd's format, and slapd serving it with the
// stats log on; stopped when the object goes, also after a failed check.
class Server {
 public:
  explicit Server(const TempDir& tmp) {
    const std::string dir = tmp.File("db");
    std::filesystem::create_directory(dir);
    conf_ = testing::SlapdConf()
                .Include({"core", "cosine", "inetorgperson"})
                .ModulePath("/usr/lib/ldap")
                .ModuleLoad("back_mdb")
                .Line("pidfile " + tmp.File("slapd.pid"))
                .Database("mdb")
                .Suffix(testing::kExampleSuffix)
                .Directory(dir)
                .MaxSize(104857600)
                .Index("objectClass,uid eq")
                .Write(tmp, "slapd.conf");
    ProcessResult add = RunDirload({"add", "--format", "mdb", "-f", conf_, "-l",
                                    tmp.Write("in.ldif", Ldif()), "--progress", "never"});
    REQUIRE_MESSAGE(add.exit_code == 0, add.Describe());
    log_ = tmp.File("slapd.log");
    // Another process may take the free port before slapd binds it: retry.
    for (int attempt = 0; attempt < 3; ++attempt) {
      url_ = "ldap://127.0.0.1:" + std::to_string(FreePort());
      child_ = std::make_unique<testing::ChildProcess>();
      std::string error;
      REQUIRE_MESSAGE(
          child_->Start({FindProgram("slapd"), "-h", url_ + "/", "-f", conf_, "-d", "256"},
                        tmp.File("slapd.out"), log_, &error),
          error);
      for (int i = 0; i < 100 && child_->Running(); ++i) {
        ProcessResult r = RunProcess({FindProgram("ldapsearch"), "-x", "-LLL", "-o", "nettimeout=2",
                                      "-H", url_, "-b", "", "-s", "base", "1.1"},
                                     10);
        if (r.exit_code == 0) return;
        SleepSeconds(0.1);
      }
      if (child_->Running()) break;
    }
    FAIL("slapd did not answer on " << url_ << ": " << ReadFile(log_));
  }
  ~Server() {
    if (child_ && child_->Running()) {
      child_->Kill(SIGTERM);
      ProcessResult r;
      child_->Wait(10, &r);
    }
  }

  const std::string& url() const { return url_; }

  // The stats log once every connection opened so far is closed: slapd logs
  // an operation's RESULT after sending it, so the client may finish first.
  std::string Log() const {
    std::string log;
    for (int i = 0; i < 100; ++i) {
      log = ReadFile(log_).substr(mark_);
      if (Count(log, " ACCEPT from") == Count(log, " closed")) break;
      SleepSeconds(0.05);
    }
    return log;
  }
  // Log() starts here from now on. (Truncating would not do: slapd's
  // stderr is not in append mode, so it would go on writing at its offset.)
  void ClearLog() { mark_ = ReadFile(log_).size(); }

  static size_t Count(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) ++n;
    return n;
  }

 private:
  std::string conf_, log_, url_;
  size_t mark_ = 0;
  std::unique_ptr<testing::ChildProcess> child_;
};

ProcessResult Searchrate(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SearchratePath()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunProcess(argv, 60);
}

JsonValue ParseOut(const ProcessResult& r) {
  JsonValue v;
  std::string error;
  REQUIRE_MESSAGE(testing::ParseJson(r.out, &v, &error), error << "\n" << r.out);
  return v;
}

double Number(const JsonValue& v, std::initializer_list<std::string_view> path) {
  const JsonValue* n = v.Get(path);
  REQUIRE(n != nullptr);
  return n->number();
}

// What slapd's stats log says about the searches under kBase.
struct LogCounts {
  size_t searches = 0, results = 0, entries = 0;
  std::map<int, size_t> codes;
  std::vector<std::string> filters;  // in the order slapd received them
};

LogCounts ReadLog(const std::string& log) {
  LogCounts c;
  static const std::regex kSrch(R"re(SRCH base="([^"]*)".* filter="([^"]*)")re");
  static const std::regex kResult(R"re(SEARCH RESULT tag=101 err=(\d+) .*nentries=(\d+))re");
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, kSrch) && m[1] != "") {
      ++c.searches;
      c.filters.push_back(m[2]);
    } else if (std::regex_search(line, m, kResult)) {
      ++c.results;
      ++c.codes[std::stoi(m[1])];
      c.entries += std::stoul(m[2]);
    }
  }
  return c;
}

#define SKIP_WITHOUT_SLAPD() DIRLOAD_SKIP_WITHOUT_OPENLDAP("slapd", "ldapsearch")

TEST_CASE("searchrate: its counts equal slapd's stats log") {
  SKIP_WITHOUT_SLAPD();
  TempDir tmp;
  Server slapd(tmp);
  // Values that match, and values that match nothing (0 entries, success).
  std::string values;
  for (int i = 0; i < kUsers; ++i) values += "user" + std::to_string(i) + "\n";
  for (int i = 0; i < 7; ++i) values += "nobody" + std::to_string(i) + "\n";
  const std::string file = tmp.Write("values.txt", values);

  SUBCASE("successful searches, several clients, asynchronous") {
    slapd.ClearLog();
    ProcessResult r = Searchrate({"-H", slapd.url(), "-b", kBase, "--filter", "(uid=%s)",
                                  "--values", file, "--order", "random", "--clients", "3",
                                  "--async", "2", "--requests", "50", "--json"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    JsonValue j = ParseOut(r);
    LogCounts log = ReadLog(slapd.Log());
    CHECK(Number(j, {"requests"}) == 150);
    CHECK(log.searches == 150);
    CHECK(log.results == 150);
    CHECK(Number(j, {"entries"}) == log.entries);
    CHECK(log.entries > 0);
    CHECK(log.entries < 150);  // the "nobody" values found nothing
    CHECK(Number(j, {"errors_total"}) == 0);
    CHECK(log.codes == std::map<int, size_t>{{0, 150}});
    const JsonValue* per = j.Find("per_client");
    REQUIRE(per != nullptr);
    REQUIRE(per->array().size() == 3);
    for (const JsonValue& c : per->array()) CHECK(Number(c, {"requests"}) == 50);
  }
  SUBCASE("failed searches are counted by result code") {
    slapd.ClearLog();
    // noSuchObject (32) from a base that does not exist.
    ProcessResult r =
        Searchrate({"-H", slapd.url(), "-b", std::string("ou=Nowhere,") + kBase, "--filter",
                    "(uid=%s)", "--values", file, "--clients", "2", "--requests", "20", "--json"});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    JsonValue j = ParseOut(r);
    LogCounts log = ReadLog(slapd.Log());
    CHECK(log.searches == 40);
    CHECK(log.codes == std::map<int, size_t>{{32, 40}});
    CHECK(Number(j, {"errors_total"}) == 40);
    CHECK(Number(j, {"errors", "32"}) == 40);
    CHECK(Number(j, {"requests"}) == 40);
  }
  SUBCASE("a duration run reports what slapd answered") {
    slapd.ClearLog();
    ProcessResult r = Searchrate({"-H", slapd.url(), "-b", kBase, "--filter", "(uid=%s)",
                                  "--values", file, "--clients", "2", "--async", "3", "--duration",
                                  "1", "--json", "--csv", tmp.File("out.csv")});
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    JsonValue j = ParseOut(r);
    LogCounts log = ReadLog(slapd.Log());
    CHECK(Number(j, {"requests"}) == log.results);
    CHECK(Number(j, {"requests"}) == log.searches);
    CHECK(Number(j, {"entries"}) == log.entries);
    CHECK(Number(j, {"requests_per_second"}) > 0);
    CHECK(Number(j, {"latency_ms", "p99"}) >= Number(j, {"latency_ms", "p50"}));
    const std::string csv = ReadFile(tmp.File("out.csv"));
    CHECK(csv.find("\ntotal," + std::to_string(log.results) + ",") != std::string::npos);
  }
}

TEST_CASE("searchrate: --order and --offset search the values they say") {
  SKIP_WITHOUT_SLAPD();
  TempDir tmp;
  Server slapd(tmp);
  std::vector<std::string> values;
  std::string text;
  for (int i = 0; i < 10; ++i) {
    values.push_back("user" + std::to_string(i));
    text += values.back() + "\n";
  }
  const std::string file = tmp.Write("values.txt", text);
  const size_t n = values.size();
  // The filters one client searched, in the order slapd received them.
  auto searched = [&](std::vector<std::string> extra) {
    slapd.ClearLog();
    std::vector<std::string> args = {"-H",         slapd.url(),      "-b",       kBase,
                                     "--filter",   "(uid=%s)",       "--values", file,
                                     "--requests", std::to_string(n)};
    args.insert(args.end(), extra.begin(), extra.end());
    ProcessResult r = Searchrate(args);
    REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
    std::vector<std::string> got;
    for (const std::string& f : ReadLog(slapd.Log()).filters)
      got.push_back(f.substr(5, f.size() - 6));
    return got;
  };
  auto rotate = [&](size_t start, bool reverse) {
    std::vector<std::string> want;
    for (size_t i = 0; i < n; ++i) {
      size_t p = (start + i) % n;
      want.push_back(values[reverse ? n - 1 - p : p]);
    }
    return want;
  };
  CHECK(searched({}) == values);
  CHECK(searched({"--order", "sequential", "--offset", "3"}) == rotate(3, false));
  CHECK(searched({"--order", "reverse"}) == rotate(0, true));
  CHECK(searched({"--order", "reverse", "--offset", "2"}) == rotate(2, true));
  // Offsets past the end wrap around.
  CHECK(searched({"--offset", "13"}) == rotate(3, false));

  std::vector<std::string> random = searched({"--order", "random", "--seed", "5"});
  CHECK(random != values);
  std::vector<std::string> sorted = random;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> all = values;
  std::sort(all.begin(), all.end());
  CHECK(sorted == all);  // one pass visits every value once
  CHECK(searched({"--order", "random", "--seed", "5"}) == random);
  CHECK(searched({"--order", "random", "--seed", "6"}) != random);

  // Two clients one after the other (one connection at a time, so the log
  // order is theirs): the second starts --client-offset further on.
  slapd.ClearLog();
  ProcessResult r = Searchrate({"-H", slapd.url(), "-b", kBase, "--filter", "(uid=%s)", "--values",
                                file, "--requests", "1", "--clients", "2", "--offset", "1",
                                "--client-offset", "4", "--json"});
  REQUIRE_MESSAGE(r.exit_code == 0, r.Describe());
  std::vector<std::string> got = ReadLog(slapd.Log()).filters;
  std::sort(got.begin(), got.end());
  CHECK(got == std::vector<std::string>{"(uid=user1)", "(uid=user5)"});
}

// A stand-in LDAP server on one connection: answers the bind, then counts
// the search requests that arrive while it answers none, then answers one.
class HoldingServer {
 public:
  HoldingServer() { listen_fd_ = BindLoopback(&port_, true); }
  ~HoldingServer() {
    Close();
    ::close(listen_fd_);
  }
  // Drops the connection, as a server that goes away would.
  void Close() {
    if (conn_fd_ >= 0) ::close(conn_fd_);
    conn_fd_ = -1;
  }
  std::string url() const { return "ldap://127.0.0.1:" + std::to_string(port_); }

  // Accepts the connection and answers its bind (message ID 1).
  void AcceptAndBind() {
    conn_fd_ = ::accept(listen_fd_, nullptr, nullptr);
    REQUIRE(conn_fd_ >= 0);
    REQUIRE(ReadMessages(1, 5) == 1);
    // BindResponse, msgid 1, success.
    const unsigned char bind_ok[] = {0x30, 0x0c, 0x02, 0x01, 0x01, 0x61, 0x07,
                                     0x0a, 0x01, 0x00, 0x04, 0x00, 0x04, 0x00};
    REQUIRE(::write(conn_fd_, bind_ok, sizeof bind_ok) == sizeof bind_ok);
  }
  // SearchResultDone, success, for message ID `msgid` (< 128).
  void AnswerSearch(int msgid) {
    const unsigned char done[] = {0x30, 0x0c, 0x02, 0x01, static_cast<unsigned char>(msgid),
                                  0x65, 0x07, 0x0a, 0x01, 0x00,
                                  0x04, 0x00, 0x04, 0x00};
    REQUIRE(::write(conn_fd_, done, sizeof done) == sizeof done);
  }
  // Reads whole LDAP messages until `want` have arrived or `quiet` seconds
  // pass without any; returns how many arrived.
  size_t ReadMessages(size_t want, double quiet) {
    size_t got = 0;
    while (got < want) {
      while (Complete()) ++got;
      if (got >= want) break;
      pollfd p{conn_fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(quiet * 1000)) <= 0) break;
      unsigned char buf[4096];
      ssize_t n = ::read(conn_fd_, buf, sizeof buf);
      if (n <= 0) break;
      pending_.insert(pending_.end(), buf, buf + n);
    }
    return got;
  }

 private:
  // Takes one whole BER SEQUENCE off the front of what was read, if there.
  bool Complete() {
    if (pending_.size() < 2) return false;
    size_t len = pending_[1], head = 2;
    if (len & 0x80) {
      const size_t bytes = len & 0x7f;
      if (pending_.size() < 2 + bytes) return false;
      len = 0;
      for (size_t i = 0; i < bytes; ++i) len = len << 8 | pending_[2 + i];
      head += bytes;
    }
    if (pending_.size() < head + len) return false;
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<long>(head + len));
    return true;
  }

  int listen_fd_ = -1, conn_fd_ = -1, port_ = 0;
  std::vector<unsigned char> pending_;
};

TEST_CASE("searchrate: --async K keeps K searches outstanding") {
  TempDir tmp;
  const std::string file = tmp.Write("values.txt", "a\nb\nc\n");
  for (int k : {1, 3}) {
    CAPTURE(k);
    HoldingServer server;
    testing::ChildProcess child;
    std::string error;
    REQUIRE_MESSAGE(child.Start({SearchratePath(), "-H", server.url(), "-b", kBase, "--filter",
                                 "(uid=%s)", "--values", file, "--async", std::to_string(k),
                                 "--requests", "100", "--timeout", "20", "--json"},
                                tmp.File("out"), tmp.File("err"), &error),
                    error);
    server.AcceptAndBind();
    // Unanswered, the client sends K searches and then waits: no more come.
    CHECK(server.ReadMessages(k, 5) == static_cast<size_t>(k));
    CHECK(server.ReadMessages(1, 0.5) == 0);
    // One answer frees one slot: exactly one more search.
    server.AnswerSearch(2);
    CHECK(server.ReadMessages(1, 5) == 1);
    CHECK(server.ReadMessages(1, 0.5) == 0);
    server.Close();  // the client must notice, and count what was in flight
    ProcessResult r;
    child.Wait(30, &r);
    // A lost connection: the searches in flight count as failed, exit 1.
    CHECK(r.exit_code == 1);
    JsonValue j;
    REQUIRE(testing::ParseJson(ReadFile(tmp.File("out")), &j, &error));
    CHECK(Number(j, {"requests"}) == k + 1);
    CHECK(Number(j, {"errors_total"}) == k);
    CHECK(Number(j, {"max_outstanding"}) == k);
    CHECK(ReadFile(tmp.File("err")).find("stopped early") != std::string::npos);
  }
}

TEST_CASE("searchrate: a run that cannot start exits 2 with a message") {
  TempDir tmp;
  const std::string file = tmp.Write("values.txt", "a\n");
  const std::string nobody = "ldap://127.0.0.1:" + std::to_string(FreePort());
  auto expect = [&](std::vector<std::string> args, const std::string& message) {
    ProcessResult r = Searchrate(args);
    CAPTURE(r.Describe());
    CHECK(r.exit_code == 2);
    CHECK(r.err.find(message) != std::string::npos);
    CHECK(r.out.empty());
  };
  expect({"-H", nobody, "--filter", "(uid=%s)", "--values", file}, "Can't contact LDAP server");
  expect({"-H", nobody, "--filter", "(uid=x)", "--values", file}, "has no %s");
  expect({"-H", nobody, "--filter", "(uid=%s)", "--values", tmp.File("missing.txt")},
         "missing.txt: cannot open");
  expect({"-H", nobody, "--filter", "(uid=%s)", "--values", file, "-s", "deep"}, "scope 'deep'");
}

}  // namespace
}  // namespace dirload
