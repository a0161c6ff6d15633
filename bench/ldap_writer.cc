// dirload-ldap-writer: a client writing through slapd while something else
// works on its database (dirload add/index --online, slapadd, slapindex):
// adds inetOrgPerson entries uid=PREFIX-N below --base one at a time, for at
// most --count adds and --seconds seconds, and reports how long each add
// took slapd to acknowledge. Every acknowledged DN is written to --acked as
// soon as slapd answers, so that a test or a benchmark can prove each one is
// there afterwards, also when this client is stopped. SIGTERM or SIGINT ends
// the loop after the add under way, and the report is printed as usual.
//
// Output (stdout, one line): adds=N acked=A failed=F median_ms=.. p99_ms=..
// max_ms=.. seconds=.. ; the first failure's message on stderr.
//
// Thread safety: one thread.
#include <ldap.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "CLI/CLI.hpp"
#include "bench/searchrate/ldap_connection.h"

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<bool> stop{false};
extern "C" void Stop(int) { stop = true; }

struct Args {
  std::string uri;
  std::string bind_dn;
  std::string password;
  std::string base;
  std::string prefix = "w";
  uint64_t count = 1000;
  double seconds = 60;
  double pause_ms = 0;
  std::string acked;
  // An extra attribute on every entry: DESCRIPTION=VALUE.
  std::string extra;
};

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

int Run(const Args& a) {
  dirload::Result<dirload::searchrate::LdapPtr> ld =
      dirload::searchrate::Connect(a.uri, a.bind_dn, a.password, 10);
  if (!ld.ok()) {
    std::fprintf(stderr, "dirload-ldap-writer: %s\n", ld.status().message().c_str());
    return 1;
  }
  std::FILE* acked = a.acked.empty() ? nullptr : std::fopen(a.acked.c_str(), "w");
  if (!a.acked.empty() && acked == nullptr) {
    std::fprintf(stderr, "dirload-ldap-writer: cannot create %s\n", a.acked.c_str());
    return 1;
  }
  std::string extra_type, extra_value;
  if (!a.extra.empty()) {
    const size_t eq = a.extra.find('=');
    extra_type = a.extra.substr(0, eq);
    extra_value = eq == std::string::npos ? "" : a.extra.substr(eq + 1);
  }
  std::vector<double> ms;
  uint64_t adds = 0, failed = 0;
  std::string first_error;
  const Clock::time_point start = Clock::now();
  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(a.seconds));
  std::signal(SIGTERM, Stop);
  std::signal(SIGINT, Stop);
  while (!stop && adds < a.count && Clock::now() < deadline) {
    const std::string uid = a.prefix + "-" + std::to_string(adds);
    const std::string dn = "uid=" + uid + "," + a.base;
    char* oc_values[] = {const_cast<char*>("inetOrgPerson"), nullptr};
    char* uid_values[] = {const_cast<char*>(uid.c_str()), nullptr};
    char* extra_values[] = {const_cast<char*>(extra_value.c_str()), nullptr};
    LDAPMod oc{LDAP_MOD_ADD, const_cast<char*>("objectClass"), {oc_values}};
    LDAPMod uid_mod{LDAP_MOD_ADD, const_cast<char*>("uid"), {uid_values}};
    LDAPMod cn{LDAP_MOD_ADD, const_cast<char*>("cn"), {uid_values}};
    LDAPMod sn{LDAP_MOD_ADD, const_cast<char*>("sn"), {uid_values}};
    LDAPMod extra{LDAP_MOD_ADD, const_cast<char*>(extra_type.c_str()), {extra_values}};
    LDAPMod* mods[] = {&oc, &uid_mod, &cn, &sn, extra_type.empty() ? nullptr : &extra, nullptr};
    const Clock::time_point t0 = Clock::now();
    const int rc = ldap_add_ext_s(ld->get(), dn.c_str(), mods, nullptr, nullptr);
    ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    ++adds;
    if (rc == LDAP_SUCCESS) {
      if (acked != nullptr) {
        std::fprintf(acked, "%s\n", dn.c_str());
        std::fflush(acked);
      }
    } else {
      ++failed;
      if (first_error.empty()) {
        first_error = dn + ": " + dirload::searchrate::ResultCodeText(rc);
      }
    }
    if (a.pause_ms > 0) {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(a.pause_ms));
    }
  }
  if (acked != nullptr) std::fclose(acked);
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::printf(
      "adds=%llu acked=%llu failed=%llu median_ms=%.2f p99_ms=%.2f max_ms=%.2f "
      "seconds=%.2f\n",
      static_cast<unsigned long long>(adds), static_cast<unsigned long long>(adds - failed),
      static_cast<unsigned long long>(failed), Percentile(ms, 0.5), Percentile(ms, 0.99),
      ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()), seconds);
  if (!first_error.empty()) std::fprintf(stderr, "dirload-ldap-writer: %s\n", first_error.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  CLI::App app("adds entries through slapd one at a time and times each acknowledgement");
  app.add_option("--uri", a.uri, "slapd's URI")->required();
  app.add_option("--bind-dn", a.bind_dn, "DN to bind as (the rootdn)");
  app.add_option("--password", a.password, "its password");
  app.add_option("--base", a.base, "the entries' parent DN")->required();
  app.add_option("--prefix", a.prefix, "uid prefix: uid=PREFIX-N (default w)");
  app.add_option("--count", a.count, "at most this many adds (default 1000)");
  app.add_option("--seconds", a.seconds, "for at most this long (default 60)");
  app.add_option("--pause-ms", a.pause_ms, "pause between adds (default 0)");
  app.add_option("--acked", a.acked, "write each acknowledged DN to this file");
  app.add_option("--extra", a.extra, "one more attribute on every entry: TYPE=VALUE");
  CLI11_PARSE(app, argc, argv);
  return Run(a);
}
