// The shared world of the search oracle tests: one generated LDIF, the filters
// to run over it (built from values picked out of that LDIF), OpenLDAP's
// answers for them (slapadd -q into back-mdb, then slapcat -H per query), and
// dirload databases loaded from the same LDIF on demand, one per format and
// index method. Building it costs a few minutes in a sanitizer build, so the
// test cases share one instance. Test-only.
//
// Thread safety: none; doctest runs test cases one at a time.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/temp_dir.h"

namespace dirload::testing {

inline constexpr char kOracleSuffix[] = "dc=example,dc=com";

// Whether dirload must answer a query from its indexes, or by a scan, or may
// do either (the planner's choice, e.g. a fragment at the edge of key length).
enum class Plan { kIndexed, kScan, kEither };

struct Query {
  std::string what;    // what the query covers, for messages
  std::string base;    // search base, as given to both tools
  std::string scope;   // base, one or sub
  std::string filter;  // RFC 4515
  Plan plan = Plan::kEither;
};

using DnSet = std::set<std::string>;

// A DN in the form both tools' output is compared in: ASCII lower case, no
// spaces after commas. Enough for the generated data (ASCII DNs, no escapes).
std::string NormalizeDn(std::string_view dn);

// How dirload loads a database.
struct LoadConfig {
  // lmdb or bdb (dirload's native format on that engine), or mdb (slapd's
  // back-mdb format, configured by a slapd.conf beside the database).
  std::string backend = "lmdb";
  std::string method = "sort";  // sort or cache
  // Cache method: lists kept in memory; small, so lists are evicted and
  // flushed many times during the build.
  uint64_t idl_cache_size = 1000;
  bool no_index = false;

  std::string Name() const;  // "lmdb-sort", "bdb-cache-noindex", ...
};

// The result of one `dirload search --dn --explain`.
struct SearchOutcome {
  ProcessResult run;
  DnSet dns;
  // The plan's summary line from --explain ("indexed: ..." or "scan: ...").
  std::string summary;
  bool ok() const { return run.exit_code == 0; }
};

class OracleWorld {
 public:
  // Builds the world on first use (generation, value picking, slapadd and
  // slapcat when OpenLDAP is installed). Test assertions inside fail the
  // calling test case; a later call tries again.
  static OracleWorld& Get();

  uint64_t entries() const { return entries_; }
  const std::string& ldif() const { return ldif_; }
  const std::vector<Query>& queries() const { return queries_; }
  // Why OpenLDAP's answers are unavailable (slapadd or slapcat missing);
  // empty when expected() holds them.
  const std::string& openldap_missing() const { return openldap_missing_; }
  // slapcat's DN set for queries()[i].
  const std::vector<DnSet>& expected() const { return expected_; }
  // The filters on which OpenLDAP's simple Unicode case folding and RFC 4518's
  // full folding (B.2 of RFC 3454: ß -> ss, final sigma -> sigma) disagree,
  // built from the generated values; slapcat's answers in folding_expected().
  const std::vector<Query>& folding_queries() const { return folding_queries_; }
  const std::vector<DnSet>& folding_expected() const { return folding_expected_; }

  // Values picked from the generated data that tests build more filters
  // from: "title" and "l" of the person most filters are about.
  const std::map<std::string, std::string>& picks() const { return picks_; }
  // slapcat's DN set for any query. REQUIRES: openldap_missing() is empty.
  DnSet Expected(const Query& q) { return SlapcatDns({q})[0]; }

  // The directory of a database loaded by `dirload add` with `config` and the
  // workload index configuration (recorded but not built with no_index),
  // loading it on first use. Its `--stats` JSON is StatsPath(directory).
  std::string Database(const LoadConfig& config);
  static std::string StatsPath(const std::string& db) { return db + "-stats.json"; }
  // The slapd.conf of a database in slapd's format.
  static std::string ConfPath(const std::string& db) { return db + ".conf"; }
  // How a command names the database: `-f ConfPath(db)` in slapd's format,
  // `--db db` in dirload's.
  static std::vector<std::string> DatabaseArgs(const std::string& db);

  // A fresh directory for a test's own files.
  std::string ScratchDir(const std::string& name);

  // Runs `dirload search --db DB -b BASE -s SCOPE --dn --explain FILTER` plus
  // `extra`.
  static SearchOutcome Search(const std::string& db, const Query& q,
                              const std::vector<std::string>& extra = {});
  // Search() for every query, several at a time ($DIRLOAD_ORACLE_JOBS
  // children, 2 by default); results in the order of `queries`.
  static std::vector<SearchOutcome> SearchAll(const std::string& db,
                                              const std::vector<Query>& queries,
                                              const std::vector<std::string>& extra = {});

  // `dirload ARGS...`.
  static ProcessResult Dirload(const std::vector<std::string>& args, double timeout = 600);

 private:
  OracleWorld() = default;
  void Build();
  void PickQueries();
  void LoadOpenLdap();
  std::vector<DnSet> SlapcatDns(const std::vector<Query>& queries);

  TempDir dir_;
  uint64_t entries_ = 0;
  std::string ldif_;
  std::vector<Query> queries_;
  std::vector<Query> folding_queries_;
  std::map<std::string, std::string> picks_;
  std::string openldap_missing_;
  std::string slapcat_;
  std::string slapd_conf_;
  std::vector<DnSet> expected_;
  std::vector<DnSet> folding_expected_;
  std::map<std::string, std::string> databases_;  // config name -> directory
};

}  // namespace dirload::testing
