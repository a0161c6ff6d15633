// The settings of one dirload-searchrate run and their validation. The
// command line (searchrate_main.cc) fills an Options; Validate() rejects what
// would make the run meaningless before any connection is opened, so a bad
// invocation fails at once with a message instead of after the warm-up.
//
// Thread safety: a value; the client threads read one shared const Options.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lib/util/status.h"

namespace dirload::searchrate {

// How each client walks the value file.
enum class Order {
  kSequential,  // first to last, then again
  kReverse,     // last to first, then again
  kRandom,      // a fresh shuffle of the whole file on every pass
  kAlternate,   // odd-numbered clients (1, 3, ...) sequential, even-numbered reverse
};

struct Options {
  std::string uri = "ldap://127.0.0.1/";
  std::string base;
  int scope = 2;  // LDAP_SCOPE_SUBTREE; kept as the libldap value, set from -s
  std::string filter_template;
  std::string values_path;
  Order order = Order::kSequential;
  uint64_t offset = 0;         // where client 1 starts in its order
  uint64_t client_offset = 0;  // how much further on each next client starts
  uint64_t seed = 1;           // for --order random; client c uses seed + c
  bool raw_values = false;     // substitute values without RFC 4515 escaping
  std::vector<std::string> attrs;
  int clients = 1;
  int async = 1;          // searches outstanding per connection
  uint64_t requests = 0;  // per client; 0: run for `duration`
  double duration = 10;   // seconds, after the warm-up
  double warmup = 0;      // seconds whose results are left out of the statistics
  double interval = 0;    // seconds between progress lines; 0: none
  double timeout = 60;    // seconds to wait for any one response
  std::string bind_dn;
  std::string password;
  bool json = false;
  std::string csv_path;
};

// Parses "base", "one" or "sub" into the libldap scope value.
[[nodiscard]] Result<int> ParseScope(const std::string& text);
// Parses "sequential", "reverse", "random" or "alternate".
[[nodiscard]] Result<Order> ParseOrder(const std::string& text);

// OK when the options describe a run that can start: a template with %s,
// positive counts, a finite stopping rule.
[[nodiscard]] Status Validate(const Options& options);

}  // namespace dirload::searchrate
