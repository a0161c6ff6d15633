#include "lib/load/record_router.h"

#include "lib/load/entry_checker.h"
#include "lib/util/ascii.h"

namespace dirload {

RecordRouter::RecordRouter(std::vector<Owner> holders, int selected, std::vector<Owner> glued,
                           int loading, std::vector<std::pair<int, std::string>> unloadable)
    : unloadable_(std::move(unloadable)), selected_(selected), loading_(loading) {
  for (Owner& h : holders) {
    if (h.database == selected && selected_suffix_.empty()) selected_suffix_ = h.suffix;
    holders_.push_back({h.database, std::move(h.suffix), {}});
  }
  for (Owner& g : glued) glued_.push_back({g.database, std::move(g.suffix), {}});
}

Status RecordRouter::Prepare(const EntryChecker& checker) {
  for (std::vector<Normalized>* list : {&holders_, &glued_}) {
    for (Normalized& n : *list) {
      Result<std::string> ns = checker.NormalizeDn(n.suffix);
      if (ns.ok()) {
        n.nsuffix = std::move(*ns);
      } else if (n.database == selected_ || list == &glued_) {
        return Status::InvalidArgument("suffix '" + n.suffix + "' of database " +
                                       std::to_string(n.database) + ": " + ns.status().message());
      } else {
        // A database this load does not write, with a suffix the schema
        // cannot normalize: compared as slapd would compare it in the
        // common case, with case folded.
        n.nsuffix = AsciiLowerCopy(n.suffix);
      }
    }
  }
  return Status::Ok();
}

RecordRouter::Verdict RecordRouter::Route(std::string_view ndn, std::string* why) const {
  const Normalized* holder = nullptr;
  for (const Normalized& h : holders_) {
    if (EntryChecker::IsUnder(ndn, h.nsuffix)) {
      holder = &h;
      break;
    }
  }
  if (holder == nullptr || holder->database != selected_) {
    if (!selected_pass()) return Verdict::kElsewhere;
    if (holder == nullptr) {
      *why = "not under the suffix '" + selected_suffix_ + "'";
    } else {
      *why = "held by database " + std::to_string(holder->database) + " (suffix '" +
             holder->suffix + "'), not by database " + std::to_string(selected_) + " (suffix '" +
             selected_suffix_ + "') that this load writes; did you mean -n " +
             std::to_string(holder->database) + "?";
    }
    return Verdict::kRefused;
  }
  int target = selected_;
  size_t closest = 0;
  for (const Normalized& g : glued_) {
    if (g.nsuffix.size() >= closest && EntryChecker::IsUnder(ndn, g.nsuffix)) {
      target = g.database;
      closest = g.nsuffix.size();
    }
  }
  for (const auto& [database, reason] : unloadable_) {
    if (database != target) continue;
    if (!selected_pass()) return Verdict::kElsewhere;
    *why = "goes to " + reason;
    return Verdict::kRefused;
  }
  return target == loading_ ? Verdict::kHere : Verdict::kElsewhere;
}

}  // namespace dirload
