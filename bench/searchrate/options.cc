#include "bench/searchrate/options.h"

#include <ldap.h>

namespace dirload::searchrate {

Result<int> ParseScope(const std::string& text) {
  if (text == "base") return LDAP_SCOPE_BASE;
  if (text == "one") return LDAP_SCOPE_ONELEVEL;
  if (text == "sub") return LDAP_SCOPE_SUBTREE;
  return Status::InvalidArgument("scope '" + text + "': expected base, one or sub");
}

Result<Order> ParseOrder(const std::string& text) {
  if (text == "sequential") return Order::kSequential;
  if (text == "reverse") return Order::kReverse;
  if (text == "random") return Order::kRandom;
  if (text == "alternate") return Order::kAlternate;
  return Status::InvalidArgument("order '" + text +
                                 "': expected sequential, reverse, random or alternate");
}

Status Validate(const Options& o) {
  // Without %s every request would be the same search, which is not what a
  // value file asks for; say so rather than benchmark a cache of one entry.
  if (o.filter_template.find("%s") == std::string::npos) {
    return Status::InvalidArgument("--filter '" + o.filter_template +
                                   "' has no %s to put the values in");
  }
  if (o.values_path.empty()) return Status::InvalidArgument("--values FILE is required");
  if (o.clients < 1) return Status::InvalidArgument("--clients must be at least 1");
  if (o.async < 1) return Status::InvalidArgument("--async must be at least 1");
  if (o.requests == 0 && !(o.duration > 0)) {
    return Status::InvalidArgument("give --requests N or a positive --duration S");
  }
  if (o.warmup < 0 || o.interval < 0 || !(o.timeout > 0)) {
    return Status::InvalidArgument("--warmup, --interval and --timeout must not be negative");
  }
  if (!o.password.empty() && o.bind_dn.empty()) {
    return Status::InvalidArgument("--password needs --bind DN");
  }
  return Status::Ok();
}

}  // namespace dirload::searchrate
