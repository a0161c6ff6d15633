#include "lib/format/native/native_verify.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <unordered_set>

#include "lib/format/native/native_indexer.h"
#include "lib/idl/idl_format.h"
#include "lib/index/index_builder.h"
#include "lib/index/index_keys.h"
#include "lib/index/list_comparison.h"
#include "lib/schema/dn.h"
#include "lib/store/tables.h"
#include "lib/util/ascii.h"
#include "lib/util/coding.h"

namespace dirload {
namespace {

uint64_t Hash(std::string_view s) { return std::hash<std::string_view>()(s); }

// One index table read key by key: each index key with its whole list.
class StoredLists {
 public:
  StoredLists(Store* store, const std::string& table) : cursor_(store->NewCursor(table)) {
    cursor_->SeekToFirst();
  }
  // Reads the next key's list; false at the end. A record that does not
  // parse ends the table with Corruption.
  Result<bool> Next() {
    ids_.clear();
    if (!cursor_->valid()) {
      DIRLOAD_RETURN_IF_ERROR(cursor_->status());
      return false;
    }
    DIRLOAD_RETURN_IF_ERROR(ParseStoredKey(cursor_->key(), &current_, &chunk_));
    // The key's chunks in order, the tail last.
    for (;;) {
      const EntryId after = ids_.empty() ? 0 : ids_.back();
      if (chunk_ == kTailChunk) {
        TailHeader header;
        std::string_view body;
        DIRLOAD_RETURN_IF_ERROR(ParseTail(cursor_->value(), &header, &body));
        DIRLOAD_RETURN_IF_ERROR(DecodeChunkBody(body, after, &ids_));
        if (header.total_ids != ids_.size()) {
          return Status::Corruption("the list of a key counts " + std::to_string(header.total_ids) +
                                    " IDs and holds " + std::to_string(ids_.size()));
        }
      } else {
        DIRLOAD_RETURN_IF_ERROR(DecodeChunkBody(cursor_->value(), after, &ids_));
      }
      cursor_->Next();
      if (!cursor_->valid()) break;
      DIRLOAD_RETURN_IF_ERROR(ParseStoredKey(cursor_->key(), &next_key_, &chunk_));
      if (next_key_ != current_) break;
    }
    return true;
  }
  const std::string& key() const { return current_; }
  const std::vector<EntryId>& ids() const { return ids_; }

 private:
  std::unique_ptr<Cursor> cursor_;
  std::string current_, next_key_;
  uint32_t chunk_ = 0;
  std::vector<EntryId> ids_;
};

// The lists the builder hands out, merged with each table's.
class ListMerger {
 public:
  ListMerger(Store* store, const std::vector<IndexSpec>& specs, size_t examples)
      : store_(store),
        specs_(specs),
        tallies_(specs.size(), ListComparison(examples)),
        done_(specs.size(), false) {}

  Status Add(uint32_t spec, std::string_view key, std::span<const EntryId> ids) {
    if (current_ != spec) DIRLOAD_RETURN_IF_ERROR(Switch(spec));
    ListComparison& t = tallies_[spec];
    while (have_ && stored_->key() < key) {
      t.CompareExact(stored_->key(), {}, stored_->ids());
      DIRLOAD_RETURN_IF_ERROR(Advance());
    }
    if (have_ && stored_->key() == key) {
      t.CompareExact(key, ids, stored_->ids());
      return Advance();
    }
    t.CompareExact(key, ids, {});
    return Status::Ok();
  }
  // Every table the lists did not reach to its end.
  Status Finish() {
    DIRLOAD_RETURN_IF_ERROR(Drain());
    for (uint32_t i = 0; i < specs_.size(); ++i) {
      if (done_[i]) continue;
      DIRLOAD_RETURN_IF_ERROR(Switch(i));
      DIRLOAD_RETURN_IF_ERROR(Drain());
    }
    return Status::Ok();
  }
  const ListComparison& tally(size_t i) const { return tallies_[i]; }

 private:
  static constexpr uint32_t kNone = static_cast<uint32_t>(-1);

  Status Advance() {
    Result<bool> more = stored_->Next();
    if (!more.ok()) {
      if (more.status().code() != StatusCode::kCorruption) return more.status();
      // Damage in a table is a finding: what follows it is not compared.
      tallies_[current_].Extra("(unreadable list: " + more.status().message() + ")", 0);
      have_ = false;
      return Status::Ok();
    }
    have_ = *more;
    return Status::Ok();
  }
  Status Drain() {
    if (current_ == kNone) return Status::Ok();
    while (have_) {
      tallies_[current_].CompareExact(stored_->key(), {}, stored_->ids());
      DIRLOAD_RETURN_IF_ERROR(Advance());
    }
    done_[current_] = true;
    current_ = kNone;
    return Status::Ok();
  }
  Status Switch(uint32_t spec) {
    DIRLOAD_RETURN_IF_ERROR(Drain());
    current_ = spec;
    stored_ = std::make_unique<StoredLists>(store_, specs_[spec].table());
    return Advance();
  }

  Store* store_;
  const std::vector<IndexSpec>& specs_;
  std::vector<ListComparison> tallies_;
  std::vector<bool> done_;
  uint32_t current_ = kNone;
  std::unique_ptr<StoredLists> stored_;
  bool have_ = false;
};

std::string ReadableKey(std::string_view key) {
  if (key.empty()) return "empty key";
  const std::string rest(key.substr(1));
  switch (key[0]) {
    case kPresenceKeyTag:
      return "presence key";
    case kEqualityKeyTag:
      return "eq key '" + rest + "'";
    case kApproxKeyTag:
      return "approx key '" + rest + "'";
    case kSubInitialKeyTag:
      return "sub initial key '" + rest + "'";
    case kSubAnyKeyTag:
      return "sub any key '" + rest + "'";
    case kSubFinalKeyTag:
      return "sub final key '" + rest + "'";
    default:
      return "key " + HexEncode(key);
  }
}

std::string DnOf(Store* store, EntryId id) {
  std::string value;
  Result<bool> found = store->Get(kId2EntryTable, BigEndian64(id), &value);
  if (!found.ok()) return "no DN: " + found.status().message();
  if (!*found) return "no such entry";
  EntryView e;
  Status st = DecodeEntry(value, &e);
  if (!st.ok()) return "no DN: " + st.message();
  return std::string(e.dn);
}

}  // namespace

Status VerifyNativeDatabase(Store* store, const Schema& schema,
                            const AttributeDictionary& dictionary, const std::string& suffix,
                            const IndexConfig& config, const VerifyOptions& options,
                            VerifyReport* report) {
  report->format = std::string("native (") + std::string(BackendName(store->backend())) + ")";
  report->dir = store->path();
  report->entry_problems = ProblemList(options.examples);
  report->tree_problems = ProblemList(options.examples);

  std::vector<IndexSpec> specs;
  if (options.attributes.empty()) specs = config.specs();
  for (const std::string& name : options.attributes) {
    const IndexSpec* spec = config.Find(schema, name);
    if (spec == nullptr) {
      return Status::InvalidArgument("'" + name + "' is not indexed in the configuration")
          .WithOrigin(ErrorOrigin::kUsage);
    }
    specs.push_back(*spec);
  }
  if (config.empty()) report->index_note = "no index is configured or recorded";
  DIRLOAD_ASSIGN_OR_RETURN(report->unconfigured, UnconfiguredIndexTables(store, config));
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<std::string> tables, store->ListTables());

  ListMerger merger(store, specs, options.examples);
  std::unique_ptr<IndexBuilder> builder;
  if (!specs.empty()) {
    BuilderOptions bo;
    bo.sort_memory = options.memory;
    bo.tmpdir = options.tmpdir;
    bo.drop_existing = false;
    bo.commit_bytes = 0;
    bo.threads = options.jobs;
    bo.lists = [&](uint32_t spec, std::string_view key, std::span<const EntryId> ids) {
      return merger.Add(spec, key, ids);
    };
    DIRLOAD_ASSIGN_OR_RETURN(builder,
                             IndexBuilder::Create(IndexMethod::kSort, specs, schema, store, bo));
  }

  // id2entry: each record in full, its DN's dn2id key remembered by ID.
  std::unordered_map<EntryId, uint64_t> dn_key_hash;
  std::unique_ptr<Cursor> cursor = store->NewCursor(kId2EntryTable);
  EntryView entry;
  EntryId previous = 0;
  std::string ndn, sort_key;
  auto bad = [&](EntryId id, const std::string& why) {
    report->entry_problems.Add(report->entry_problems.wants_more()
                                   ? "entry " + std::to_string(id) + ": " + why
                                   : std::string());
  };
  for (cursor->SeekToFirst(); cursor->valid(); cursor->Next()) {
    ++report->entries;
    if (cursor->key().size() != 8) {
      report->entry_problems.Add("id2entry: a key of " + std::to_string(cursor->key().size()) +
                                 " bytes, not an ID");
      continue;
    }
    const EntryId id = GetBigEndian64(cursor->key());
    if (id == 0 || id <= previous) {
      report->entry_problems.Add("id2entry: ID " + std::to_string(id) + " after " +
                                 std::to_string(previous) + " (IDs ascend from 1)");
      continue;
    }
    previous = id;
    Status st = DecodeEntry(cursor->value(), &entry);
    if (!st.ok()) {
      bad(id, "its record does not decode: " + st.message());
      continue;
    }
    const bool described =
        std::all_of(entry.values.begin(), entry.values.end(),
                    [&](const ValueRef& v) { return v.description < dictionary.size(); });
    if (!described) {
      bad(id, "a value's description is not in the attribute dictionary");
      continue;
    }
    st = NormalizeDn(schema, entry.dn, &ndn);
    if (!st.ok()) {
      bad(id, "its DN '" + std::string(entry.dn) + "' does not normalize: " + st.message());
    } else {
      DnSortKey(ndn, &sort_key);
      dn_key_hash[id] = Hash(sort_key);
    }
    if (builder) DIRLOAD_RETURN_IF_ERROR(builder->Add(id, entry, dictionary));
  }
  DIRLOAD_RETURN_IF_ERROR(cursor->status());
  if (builder) DIRLOAD_RETURN_IF_ERROR(builder->Finish());

  // dn2id: one record per entry, under its own DN, each DN's parent there.
  std::string normalized_suffix;
  DIRLOAD_RETURN_IF_ERROR(NormalizeDn(schema, suffix, &normalized_suffix));
  const uint64_t suffix_hash = Hash(DnSortKey(normalized_suffix));
  std::unordered_set<uint64_t> keys;
  std::vector<std::pair<uint64_t, EntryId>> parents;  // (parent key hash, child)
  std::unordered_map<EntryId, uint32_t> records;
  std::unique_ptr<Cursor> dn = store->NewCursor(kDn2IdTable);
  for (dn->SeekToFirst(); dn->valid(); dn->Next()) {
    ++report->tree_nodes;
    Dn2IdRecord r;
    if (!DecodeDn2IdRecord(dn->key(), dn->value(), &r)) {
      report->tree_problems.Add("dn2id: a record of a key of " + std::to_string(dn->key().size()) +
                                " bytes does not decode");
      continue;
    }
    const uint64_t h = Hash(r.sort_key);
    keys.insert(h);
    auto it = dn_key_hash.find(r.id);
    if (it == dn_key_hash.end()) {
      report->tree_problems.Add("dn2id: a DN maps to ID " + std::to_string(r.id) +
                                ", which has no entry");
      continue;
    }
    if (it->second != h) {
      report->tree_problems.Add("dn2id: a DN other than its own maps to entry " +
                                std::to_string(r.id) + " (" + DnOf(store, r.id) + ")");
      continue;
    }
    ++records[r.id];
    if (h != suffix_hash) parents.emplace_back(Hash(DnSortKeyParent(r.sort_key)), r.id);
  }
  DIRLOAD_RETURN_IF_ERROR(dn->status());
  for (const auto& [id, hash] : dn_key_hash) {
    auto it = records.find(id);
    if (it == records.end()) {
      report->tree_problems.Add("entry " + std::to_string(id) + " (" + DnOf(store, id) +
                                "): its DN is not in dn2id");
    }
  }
  for (const auto& [parent, child] : parents) {
    if (keys.count(parent) == 0) {
      report->tree_problems.Add("entry " + std::to_string(child) + " (" + DnOf(store, child) +
                                "): its parent's DN is not in dn2id");
    }
  }
  if (!keys.count(suffix_hash) && report->entries != 0) {
    report->tree_problems.Add("dn2id: the suffix " + suffix + " is not there");
  }

  if (!specs.empty()) DIRLOAD_RETURN_IF_ERROR(merger.Finish());
  for (size_t i = 0; i < specs.size(); ++i) {
    const ListComparison& t = merger.tally(i);
    IndexVerifyResult r;
    r.name = std::string(specs[i].name());
    r.kinds = IndexMaskToString(specs[i].mask & kIndexKindsMask);
    r.present = std::find(tables.begin(), tables.end(), specs[i].table()) != tables.end();
    r.keys = t.keys;
    r.ids = t.ids;
    r.missing = t.missing;
    r.extra = t.extra;
    auto name = [&](const KeyIdPair& p) {
      return IndexPairProblem{r.name, ReadableKey(p.key), p.id, DnOf(store, p.id)};
    };
    for (const KeyIdPair& p : t.first_missing) r.first_missing.push_back(name(p));
    for (const KeyIdPair& p : t.first_extra) r.first_extra.push_back(name(p));
    report->indexes.push_back(std::move(r));
  }
  return Status::Ok();
}

}  // namespace dirload
