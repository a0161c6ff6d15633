#include "bench/searchrate/client_loop.h"

#include <sys/time.h>

#include <algorithm>
#include <unordered_map>

#include "bench/searchrate/ldap_connection.h"
#include "bench/searchrate/value_source.h"

namespace dirload::searchrate {
namespace {

// A search sent and not yet answered.
struct Pending {
  Clock::time_point sent;
  uint64_t entries = 0;
  uint64_t references = 0;
  bool measured = false;  // sent after the warm-up
};

class Client {
 public:
  Client(LDAP* ld, const Options& o, const std::vector<std::string>& values, int client,
         const RunClock& clock, IntervalBuffer* interval)
      : ld_(ld), o_(o), cursor_(&values, o, client), clock_(clock), interval_(interval) {
    for (const std::string& a : o.attrs) attrs_.push_back(const_cast<char*>(a.c_str()));
    attrs_.push_back(nullptr);
    last_done_ = clock.measure_from;
  }

  ClientStats Run() {
    while (true) {
      SendUpTo();
      if (pending_.empty()) break;
      if (!ReceiveOne()) break;
    }
    stats_.seconds = std::chrono::duration<double>(last_done_ - clock_.measure_from).count();
    return std::move(stats_);
  }

 private:
  bool MoreToSend(Clock::time_point now) const {
    if (!stats_.stopped.empty()) return false;
    if (o_.requests > 0) return now < clock_.measure_from || measured_sent_ < o_.requests;
    return now < clock_.stop;
  }

  void SendUpTo() {
    for (Clock::time_point now = Clock::now();
         pending_.size() < static_cast<size_t>(o_.async) && MoreToSend(now); now = Clock::now()) {
      const std::string filter = MakeFilter(o_.filter_template, cursor_.Next(), o_.raw_values);
      Pending p{now, 0, 0, now >= clock_.measure_from};
      measured_sent_ += p.measured;
      int msgid = -1;
      int rc = ldap_search_ext(ld_, o_.base.c_str(), o_.scope, filter.c_str(),
                               o_.attrs.empty() ? nullptr : attrs_.data(), 0, nullptr, nullptr,
                               nullptr, LDAP_NO_LIMIT, &msgid);
      if (rc == LDAP_SUCCESS) {
        pending_.emplace(msgid, p);
        stats_.max_outstanding =
            std::max(stats_.max_outstanding, static_cast<int>(pending_.size()));
        continue;
      }
      // Refused before it left (a filter libldap cannot encode): counted
      // under libldap's code like any answer, and the run goes on.
      Complete(p, rc, Clock::now());
      if (rc != LDAP_FILTER_ERROR && rc != LDAP_ENCODING_ERROR && rc != LDAP_PARAM_ERROR) {
        FailAll(rc, "sending a search: " + ResultCodeText(rc));
      }
    }
  }

  // Waits for the next message of any outstanding search. False when the
  // connection is gone (every outstanding search then failed with its code).
  bool ReceiveOne() {
    timeval tv{static_cast<time_t>(o_.timeout),
               static_cast<suseconds_t>((o_.timeout - static_cast<time_t>(o_.timeout)) * 1e6)};
    LDAPMessage* raw = nullptr;
    const int type = ldap_result(ld_, LDAP_RES_ANY, LDAP_MSG_ONE, &tv, &raw);
    MessagePtr msg(raw);
    const Clock::time_point now = Clock::now();
    if (type <= 0) {
      int code = LDAP_TIMEOUT;
      if (type < 0) ldap_get_option(ld_, LDAP_OPT_RESULT_CODE, &code);
      FailAll(code, "waiting for results: " + ResultCodeText(code));
      return false;
    }
    auto it = pending_.find(ldap_msgid(msg.get()));
    if (it == pending_.end()) {
      // Message ID 0 is an unsolicited notification: the server is closing
      // the connection (RFC 4511 4.4.1). Nothing else can be unmatched.
      FailAll(LDAP_SERVER_DOWN, "unsolicited message from the server (it closed the connection)");
      return false;
    }
    switch (type) {
      case LDAP_RES_SEARCH_ENTRY:
        ++it->second.entries;
        break;
      case LDAP_RES_SEARCH_REFERENCE:
        ++it->second.references;
        break;
      default: {  // LDAP_RES_SEARCH_RESULT
        int err = LDAP_SUCCESS;
        int rc = ldap_parse_result(ld_, msg.get(), &err, nullptr, nullptr, nullptr, nullptr, 0);
        Complete(it->second, rc == LDAP_SUCCESS ? err : rc, now);
        pending_.erase(it);
      }
    }
    return true;
  }

  void Complete(const Pending& p, int code, Clock::time_point now) {
    if (!p.measured) {
      ++stats_.warmup_requests;
      return;
    }
    const auto us = std::chrono::duration_cast<std::chrono::microseconds>(now - p.sent).count();
    const uint32_t latency = static_cast<uint32_t>(std::clamp<int64_t>(us, 0, UINT32_MAX));
    ++stats_.requests;
    ++stats_.codes[code];
    stats_.entries += p.entries;
    stats_.references += p.references;
    stats_.latency_us.push_back(latency);
    interval_->Add(latency, code != LDAP_SUCCESS);
    last_done_ = std::max(last_done_, now);
  }

  // The connection failed: every outstanding search ends with `code`.
  void FailAll(int code, const std::string& why) {
    const Clock::time_point now = Clock::now();
    for (const auto& [id, p] : pending_) Complete(p, code, now);
    pending_.clear();
    stats_.stopped = why;
  }

  LDAP* ld_;
  const Options& o_;
  ValueCursor cursor_;
  const RunClock& clock_;
  IntervalBuffer* interval_;
  std::vector<char*> attrs_;  // NULL-terminated, pointing into o_.attrs
  std::unordered_map<int, Pending> pending_;
  uint64_t measured_sent_ = 0;
  Clock::time_point last_done_;
  ClientStats stats_;
};

}  // namespace

ClientStats RunClient(LDAP* ld, const Options& options, const std::vector<std::string>& values,
                      int client, const RunClock& clock, IntervalBuffer* interval) {
  return Client(ld, options, values, client, clock, interval).Run();
}

}  // namespace dirload::searchrate
