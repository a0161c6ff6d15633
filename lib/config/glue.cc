#include "lib/config/glue.h"

#include <map>

#include "lib/config/database_config.h"

namespace dirload {
namespace {

std::string Name(const SlapdDatabase& db) {
  std::string suffix = db.suffixes.empty() ? std::string() : db.suffixes[0];
  return "database " + std::to_string(db.number) + " ('" + suffix + "', " + db.where + ")";
}

}  // namespace

Result<LoadRouting> PlanLoadRouting(const SlapdConfig& config, std::optional<int> number,
                                    const std::optional<std::string>& dn, bool use_glue) {
  const SuffixComparer compare;
  // slapd glues each subordinate to the first later database that is no
  // subordinate and whose suffix holds the subordinate's.
  std::map<int, std::vector<const SlapdDatabase*>> subordinates_of;
  if (use_glue) {
    for (size_t i = 0; i < config.databases.size(); ++i) {
      const SlapdDatabase& sub = config.databases[i];
      if (!sub.subordinate) continue;
      if (sub.suffixes.empty()) {
        return Status::InvalidArgument(Name(sub) + " is a subordinate without a suffix")
            .WithOrigin(ErrorOrigin::kConfiguration);
      }
      const SlapdDatabase* superior = nullptr;
      for (size_t j = i + 1; j < config.databases.size() && superior == nullptr; ++j) {
        const SlapdDatabase& up = config.databases[j];
        if (up.subordinate || up.suffixes.empty()) continue;
        if (compare.Holds(up.suffixes[0], sub.suffixes[0])) superior = &up;
      }
      if (superior == nullptr) {
        return Status::InvalidArgument(
                   Name(sub) +
                   " is a subordinate, but no database after it has a suffix holding its "
                   "own (slapd glues a subordinate to such a superior; -g loads it alone)")
            .WithOrigin(ErrorOrigin::kConfiguration);
      }
      subordinates_of[superior->number].push_back(&sub);
    }
  }

  // The selection, and whether the selected database stands for its glued
  // tree, so that select_backend passes over subordinates.
  DIRLOAD_ASSIGN_OR_RETURN(const SlapdDatabase* selected, SelectDatabase(config, number, dn));
  bool whole_tree = false;
  if (!number && dn) {
    whole_tree = subordinates_of.contains(selected->number);
  } else if (!number) {
    for (const SlapdDatabase& db : config.databases) {
      if (&db == selected) break;
      if (db.number > 0 && db.subordinate) whole_tree = true;
    }
  }

  LoadRouting plan;
  plan.selected = selected->number;
  plan.databases.push_back(selected->number);
  const std::string selected_suffix =
      selected->suffixes.empty() ? std::string() : selected->suffixes[0];
  for (const SlapdDatabase& db : config.databases) {
    if (whole_tree && db.subordinate) continue;
    for (const std::string& s : db.suffixes) {
      plan.holders.push_back({db.number, s});
      if (db.number != selected->number && compare.Holds(selected_suffix, s)) plan.nested = true;
    }
  }
  if (whole_tree) {
    auto it = subordinates_of.find(selected->number);
    if (it != subordinates_of.end()) {
      for (const SlapdDatabase* sub : it->second) {
        plan.glued.push_back({sub->number, sub->suffixes[0]});
        if (!sub->supported()) {
          plan.unloadable.emplace_back(sub->number, Name(*sub) + " is a " + sub->type +
                                                        " database, which dirload does not load");
          continue;
        }
        plan.databases.push_back(sub->number);
      }
    }
  }
  return plan;
}

}  // namespace dirload
