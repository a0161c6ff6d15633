#include "lib/db/glued_tree.h"

#include "lib/config/glue.h"

namespace dirload {

Result<std::vector<OpenOptions>> GluedTreeDatabases(const OpenOptions& open, bool use_glue) {
  const DatabaseOptions& d = open.database;
  DIRLOAD_ASSIGN_OR_RETURN(std::optional<SlapdConfig> config, ReadConfiguration(d));
  if (!config || !use_glue || (d.database_number && d.suffix)) return std::vector{open};
  const std::optional<std::string>& dn = d.suffix ? d.suffix : d.select_dn;
  DIRLOAD_ASSIGN_OR_RETURN(LoadRouting plan,
                           PlanLoadRouting(*config, d.database_number, dn, use_glue));
  if (plan.databases.size() == 1) return std::vector{open};
  std::vector<OpenOptions> out;
  for (int number : plan.databases) {
    OpenOptions o = open;
    o.database.database_number = number;
    o.database.suffix.reset();
    o.database.select_dn.reset();
    out.push_back(std::move(o));
  }
  return out;
}

}  // namespace dirload
