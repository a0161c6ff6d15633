// MdbEntryKeys: the index keys one stored entry puts into each configured
// index database, made from its id2e record as slapd makes them (from the
// stored normalized copies, by the key makers a rebuild uses,
// mdb_key_maker.h). For the writers that touch entries one at a time: the
// online load and `dirload modify`'s editor.
//
// Thread safety: one thread; the Schema must outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lib/format/mdb/mdb_entry_codec.h"
#include "lib/format/mdb/mdb_env.h"
#include "lib/format/mdb/mdb_key_maker.h"
#include "lib/index/index_spec.h"
#include "lib/util/status.h"

namespace dirload {
class Schema;
}

namespace dirload::mdb {

class MdbEntryKeys {
 public:
  // The index databases of `indexes` in `env` (created when missing).
  static Result<MdbEntryKeys> Create(const Schema& schema, MdbEnv* env,
                                     std::vector<IndexSpec> indexes, const MdbKeyOptions& options);

  bool empty() const { return targets_.empty(); }
  MdbDb db(uint32_t index) const { return targets_[index].db; }

  // The (index, key) pairs of the entry whose id2e record is `encoded`, each
  // once, sorted; `ad2i_names` names the record's description numbers. With
  // `only`, of the attributes whose ad2i number it marks. The views stay
  // valid until the next call.
  // With `id2v`, the values of the record's multival attributes are read
  // from there (mdb_id2v.h); without, such an attribute gives no keys.
  struct Id2vSource {
    MdbTxn* txn = nullptr;
    MdbDb db;
    uint64_t id = 0;  // the entry's stored ID
  };
  Status Keys(std::string_view encoded, const std::vector<std::string>& ad2i_names,
              std::vector<std::pair<uint32_t, std::string_view>>* out,
              const std::vector<uint8_t>* only = nullptr, const Id2vSource* id2v = nullptr);
  // Marks in *changed (by ad2i number) the attributes whose values or
  // normalized copies differ between two records of one entry: the only
  // ones whose keys can differ.
  static Status ChangedAttributes(std::string_view old_record, std::string_view new_record,
                                  std::vector<uint8_t>* changed);

 private:
  MdbEntryKeys(const Schema& schema, std::vector<IndexSpec> indexes)
      : schema_(&schema), indexes_(std::move(indexes)) {}
  // The indexes the values of ad2i number `adx` go into (computed on first
  // use).
  const std::vector<uint32_t>& Route(uint32_t adx, const std::vector<std::string>& ad2i_names);

  const Schema* schema_;
  std::vector<IndexSpec> indexes_;
  struct Target {
    MdbKeyMaker keys;
    MdbDb db;
  };
  std::vector<Target> targets_;
  std::vector<std::optional<std::vector<uint32_t>>> routes_;
  MdbEntryView view_;
  MdbKeyList keys_;
  std::vector<uint32_t> tables_;
};

}  // namespace dirload::mdb
