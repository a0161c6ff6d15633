#include "lib/format/mdb/mdb_entry_keys.h"

#include <algorithm>

#include "lib/schema/schema.h"

namespace dirload::mdb {

Result<MdbEntryKeys> MdbEntryKeys::Create(const Schema& schema, MdbEnv* env,
                                          std::vector<IndexSpec> indexes,
                                          const MdbKeyOptions& options) {
  MdbEntryKeys k(schema, std::move(indexes));
  for (const IndexSpec& spec : k.indexes_) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbKeyMaker keys, MdbKeyMaker::Create(schema, spec, options));
    DIRLOAD_ASSIGN_OR_RETURN(MdbDb db, env->Index(spec.name()));
    k.targets_.push_back(Target{std::move(keys), db});
  }
  return k;
}

const std::vector<uint32_t>& MdbEntryKeys::Route(uint32_t adx,
                                                 const std::vector<std::string>& ad2i_names) {
  if (routes_.size() <= adx) routes_.resize(adx + 1);
  if (!routes_[adx]) {
    std::vector<uint32_t> to;
    if (adx < ad2i_names.size()) {
      Result<AttributeDescription> d = schema_->ParseAttributeDescription(ad2i_names[adx]);
      if (d.ok()) {
        for (const IndexSpec* s : IndexTargets(indexes_, d->type)) {
          to.push_back(static_cast<uint32_t>(s - indexes_.data()));
        }
      }
    }
    routes_[adx] = std::move(to);
  }
  return *routes_[adx];
}

Status MdbEntryKeys::Keys(std::string_view encoded, const std::vector<std::string>& ad2i_names,
                          std::vector<std::pair<uint32_t, std::string_view>>* out) {
  out->clear();
  if (targets_.empty()) return Status::Ok();
  DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(encoded, &view_, MdbEntryChecks::kBounds));
  keys_.clear();
  tables_.clear();
  for (const MdbAttributeView& a : view_.attributes) {
    for (uint32_t t : Route(a.adx, ad2i_names)) {
      targets_[t].keys.AddKeys(view_.Normalized(a), &keys_);
      tables_.resize(keys_.size(), t);
    }
  }
  for (size_t i = 0; i < keys_.size(); ++i) out->emplace_back(tables_[i], keys_[i]);
  std::sort(out->begin(), out->end());
  out->erase(std::unique(out->begin(), out->end()), out->end());
  return Status::Ok();
}

}  // namespace dirload::mdb
