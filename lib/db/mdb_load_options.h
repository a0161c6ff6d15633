// How a load or an index build on slapd's format is set up from the
// configuration that selected the database: which format a load writes,
// and the writer's, the key maker's and the index builder's options.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lib/config/database_config.h"
#include "lib/config/slapd_config.h"
#include "lib/format/format_detect.h"
#include "lib/format/mdb/mdb_index_builder.h"
#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/format/mdb/mdb_staged_load.h"
#include "lib/index/index_builder.h"
#include "lib/index/index_spec.h"
#include "lib/util/status.h"

namespace dirload {

// The format `dirload add` writes into `dir`: the one there (a `requested`
// other than it is refused), else `requested` ("mdb", "native"), else mdb
// when the configuration's database is `database mdb`, else native. A
// directory holding both formats or unknown tables is refused.
Result<DatabaseFormat> ChooseLoadFormat(const std::string& dir, std::string_view requested,
                                        std::string_view config_database_type);

// slapd.conf's index_* settings as back-mdb's key options: the stored keys
// (add, index) and the searched ones (search) must be made with the same.
inline mdb::MdbKeyOptions MdbKeyOptionsFrom(const IndexTuning& t) {
  mdb::MdbKeyOptions k;
  k.hash64 = t.hash64;
  k.substr_if_minlen = t.substr_if_minlen;
  k.substr_if_maxlen = t.substr_if_maxlen;
  k.substr_any_len = t.substr_any_len;
  k.substr_any_step = t.substr_any_step;
  k.intlen = t.intlen;
  k.idl_exponent = t.idl_exponent;
  return k;
}

// The options of a load into the database `db` resolves to, building the
// indexes of `specs` (none: phase 1 only) with `run`'s method, memory and
// spill directory: slapd's maxsize (else room enough, mapped sparsely),
// slapadd -q's single sync, and the configuration's index_* key settings.
MdbStagedLoadOptions MdbStagedLoadOptionsFor(const ResolvedDatabase& db,
                                             const std::vector<IndexSpec>& specs,
                                             const IndexRunOptions& run);
// The configuration's sortvals and this database's multival lines, as the
// back-mdb writer applies them.
mdb::MdbValueRules MdbValueRulesFor(const ResolvedDatabase& db);

// The index options of `run` on slapd's format (also `dirload index`).
mdb::MdbIndexOptions MdbIndexOptionsFor(const ResolvedDatabase& db, const IndexRunOptions& run);

// An append into slapd's database in db.dir without an index configuration
// (`config` empty) would leave the new entries out of the indexes the
// database has, since slapd records none: the refusal (kUsage) naming them,
// with `way_out` appended (", or --no-index"), when it has any.
Status RequireIndexConfigurationFor(const ResolvedDatabase& db, const Schema& schema,
                                    const IndexConfig& config, std::string_view way_out);

}  // namespace dirload
