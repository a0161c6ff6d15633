#include "lib/format/mdb/mdb_entry_keys.h"

#include <algorithm>

#include "lib/format/mdb/mdb_id2v.h"
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

Status MdbEntryKeys::ChangedAttributes(std::string_view old_record, std::string_view new_record,
                                       std::vector<uint8_t>* changed) {
  MdbEntryView a, b;
  DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(old_record, &a, MdbEntryChecks::kBounds));
  DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(new_record, &b, MdbEntryChecks::kBounds));
  changed->clear();
  auto mark = [&](uint32_t adx) {
    if (changed->size() <= adx) changed->resize(adx + 1, 0);
    (*changed)[adx] = 1;
  };
  // Records are few: the quadratic pairing costs less than a map.
  for (const MdbAttributeView& x : a.attributes) {
    const MdbAttributeView* y = nullptr;
    for (const MdbAttributeView& c : b.attributes) {
      if (c.adx == x.adx) y = &c;
    }
    if (y == nullptr || !std::ranges::equal(a.Normalized(x), b.Normalized(*y)) ||
        !std::ranges::equal(a.Values(x), b.Values(*y))) {
      mark(x.adx);
    }
  }
  for (const MdbAttributeView& y : b.attributes) {
    if (std::none_of(a.attributes.begin(), a.attributes.end(),
                     [&](const MdbAttributeView& x) { return x.adx == y.adx; })) {
      mark(y.adx);
    }
  }
  return Status::Ok();
}

Status MdbEntryKeys::Keys(std::string_view encoded, const std::vector<std::string>& ad2i_names,
                          std::vector<std::pair<uint32_t, std::string_view>>* out,
                          const std::vector<uint8_t>* only, const Id2vSource* id2v) {
  out->clear();
  if (targets_.empty()) return Status::Ok();
  DIRLOAD_RETURN_IF_ERROR(DecodeMdbEntryView(encoded, &view_, MdbEntryChecks::kBounds));
  if (id2v != nullptr) {
    DIRLOAD_RETURN_IF_ERROR(ResolveMdbMultival(*id2v->txn, id2v->db, id2v->id, &view_, "id2v"));
  }
  keys_.clear();
  tables_.clear();
  for (const MdbAttributeView& a : view_.attributes) {
    if (only != nullptr && (a.adx >= only->size() || (*only)[a.adx] == 0)) continue;
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
