// slapd serving one back-mdb database on a loopback port, for oracle tests
// that compare what slapd answers on slapadd's database and on dirload's.
// Test-only.
//
// Thread safety: one thread at a time per object.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/support/child_process.h"

namespace dirload::testing {

// The records of an LDIF text (slapcat's or ldapsearch's output), split
// at blank lines, each with its blank line.
std::vector<std::string> SplitRecords(const std::string& ldif);

// The DNs of ldapsearch's records (Slapd::Answer::entries), lower-cased
// (ASCII): a set to compare with LowerCaseLines of `dirload search --dn`.
std::set<std::string> LowerCaseDns(const std::vector<std::string>& records);
// The non-empty lines of `text`, lower-cased (ASCII).
std::set<std::string> LowerCaseLines(const std::string& text);

class TempDir;

// A back-mdb database directory (created) in `tmp` and the slapd.conf (NAME.conf)
// that slapadd, slapd and dirload share for it: back_mdb, the example
// schemas and then `extra_schema` (a file; none when empty), `sizelimit
// unlimited`, the example suffix, rootdn and its password (RunLdapClient's),
// `max_size`, `indexes`.
struct OracleDb {
  std::string dir, conf;
};
OracleDb MakeOracleDb(const TempDir& tmp, const std::string& name, const std::string& extra_schema,
                      const std::vector<std::string>& indexes, uint64_t max_size);

// An OpenLDAP client (`tool`: ldapmodify, ldapdelete, ldapmodrdn) bound to
// slapd at `url` as the example rootdn, reading `ldif_file` when one is
// given, after the arguments `more`.
ProcessResult RunLdapClient(const std::string& tool, const std::string& url,
                            const std::string& ldif_file, std::vector<std::string> more = {});

void SleepSeconds(double s);

// A loopback TCP port no one listens on right now.
int FreePort();

// slapd in the foreground on the database `conf` configures; stopped (and
// reaped) when the object goes, also when a check failed. Its output goes to
// NAME.slapd.out / .err in `tmp`, which must outlive the object; the log
// (slapd -d `debug_level`, "0" for none) to NAME.slapd.err. `conf_option`
// is "-f" (conf is a slapd.conf) or "-F" (a slapd.d directory).
class Slapd {
 public:
  Slapd(const TempDir& tmp, const std::string& name, const std::string& conf,
        const std::string& debug_level = "0", const std::string& conf_option = "-f");
  ~Slapd();
  Slapd(const Slapd&) = delete;
  Slapd& operator=(const Slapd&) = delete;

  const std::string& url() const { return url_; }
  // Where slapd's log goes.
  const std::string& log() const { return log_; }

  // ldapsearch's exit status and its entries: each entry's text when
  // `attrs` asks for more than the DN, sorted (slapd returns them in ID
  // order, which the comparison should not depend on).
  struct Answer {
    int exit_code = -1;
    std::vector<std::string> entries;
    std::string err;
  };
  Answer Search(const std::string& base, const std::string& scope, const std::string& filter,
                const std::vector<std::string>& attrs = {"dn"}) const;

 private:
  std::string url_;
  std::string log_;
  std::unique_ptr<ChildProcess> child_;
};

}  // namespace dirload::testing
