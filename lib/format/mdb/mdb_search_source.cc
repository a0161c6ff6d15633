#include "lib/format/mdb/mdb_search_source.h"

#include <algorithm>
#include <array>
#include <unordered_set>
#include <utility>

#include "lib/format/mdb/mdb_normalized.h"
#include "lib/schema/approx_match.h"
#include "lib/schema/dn.h"
#include "lib/schema/normalize.h"
#include "lib/search/evaluate.h"
#include "lib/util/ascii.h"

namespace dirload::mdb {
namespace {

constexpr std::string_view kObjectClassOid = "2.5.4.0";
constexpr std::string_view kCsnMatchOid = "1.3.6.1.4.1.4203.666.11.2.2";

// Candidates from back-mdb's index databases.
class MdbPlanner {
 public:
  MdbPlanner(MdbEnv& env, MdbTxn& txn, const Schema& schema, const IndexConfig& indexes,
             const MdbKeyOptions& keys)
      : env_(env), txn_(txn), schema_(schema), indexes_(indexes), keys_(keys) {}

  // The candidates of one filter item (search_source.h's ItemCandidates).
  Result<Candidates> PlanItem(const Filter& f, PlanNode* plan) {
    ItemIndex found = FindItemIndex(schema_, indexes_, f, plan);
    if (found.decided.has_value()) return std::move(*found.decided);
    const AttributeType* type = found.type;
    const IndexSpec* spec = found.spec;
    const std::string name(spec->name());
    switch (f.kind) {
      case FilterKind::kPresent: {
        if (!spec->Has(kIndexPresence)) {
          plan->how = "not indexed: " + name + " has no pres";
          return Candidates::All();
        }
        plan->how = "index " + name + " pres";
        DIRLOAD_ASSIGN_OR_RETURN(IdList ids, Read(*spec, MdbPresenceKey(), plan));
        return Candidates::Of(std::move(ids));
      }
      case FilterKind::kApprox:
        if (HasApproxRule(type->equality)) return PlanApprox(f, type, *spec, plan);
        [[fallthrough]];  // ~= is equality for the other types, as in back-mdb
      case FilterKind::kEquality: {
        if (!spec->Has(kIndexEquality)) {
          plan->how = "not indexed: " + name + " has no eq";
          return Candidates::All();
        }
        if (!SubtypesShareRule(schema_, type, f.kind, spec->type->equality)) {
          plan->how = "not indexed: a subtype of " + std::string(type->name()) +
                      " compares with another rule than index " + name;
          return Candidates::All();
        }
        std::string key;
        if (spec->type->oid == kObjectClassOid) {
          // Entries are keyed by their classes and every superclass, which is
          // what objectClass equality asks for.
          const ObjectClass* asserted = schema_.FindObjectClass(f.value);
          if (asserted == nullptr) {
            plan->how = "never true: undefined object class";
            return Candidates::Of(IdList());
          }
          std::vector<std::string> keys;
          const std::string class_name(asserted->name());
          MdbObjectClassKeys(keys_, std::span<const std::string>(&class_name, 1), &keys);
          key = keys.front();
          plan->how = "index " + name + " eq:" + class_name;
        } else {
          Result<std::string> k = EqualityKeyOf(*spec, f.value);
          if (!k.ok()) {
            plan->how = "not indexed: " + k.status().message();
            return Candidates::All();
          }
          key = std::move(*k);
          plan->how = "index " + name + " eq:" + HexEncode(key);
        }
        DIRLOAD_ASSIGN_OR_RETURN(IdList ids, Read(*spec, key, plan));
        return Candidates::Of(std::move(ids));
      }
      case FilterKind::kSubstrings: {
        if (!spec->Has(kIndexSubstr)) {
          plan->how = "not indexed: " + name + " has no sub";
          return Candidates::All();
        }
        if (!SubtypesShareRule(schema_, type, f.kind, spec->type->substr)) {
          plan->how = "not indexed: a subtype of " + std::string(type->name()) +
                      " compares with another rule than index " + name;
          return Candidates::All();
        }
        Result<std::vector<std::string>> keys = SubstringKeysOf(*spec, f);
        if (!keys.ok()) {
          plan->how = "not indexed: " + keys.status().message();
          return Candidates::All();
        }
        if (keys->empty()) {
          plan->how = "not indexed: no fragment long enough for index " + name;
          return Candidates::All();
        }
        plan->how = "index " + name + " sub, " + std::to_string(keys->size()) + " keys";
        return IntersectKeyLists(*keys,
                                 [&](const std::string& key) { return Read(*spec, key, plan); });
      }
      default:
        plan->how = "not indexed";
        return Candidates::All();
    }
  }

 private:
  // ~= on a type with slapd's approximate rule: back-mdb's approx_candidates
  // reads the phonetic code of each word of the assertion (approxFilter) and
  // intersects their lists. It cannot read the empty code of a word without
  // letters ("123"), and stops there; leaving such words out reads a superset,
  // which the check of each candidate narrows to the same answer.
  Result<Candidates> PlanApprox(const Filter& f, const AttributeType* type, const IndexSpec& spec,
                                PlanNode* plan) {
    const std::string name(spec.name());
    if (!spec.Has(kIndexApprox)) {
      plan->how = "not indexed: " + name + " has no approx";
      return Candidates::All();
    }
    if (!SubtypesShareRule(schema_, type, f.kind, spec.type->equality)) {
      plan->how = "not indexed: a subtype of " + std::string(type->name()) +
                  " compares with another rule than index " + name;
      return Candidates::All();
    }
    std::string normalized;
    std::vector<std::string> keys;
    if (!NormalizeEquality(schema_, *spec.type, f.value, &normalized).ok() ||
        !ApproxLookupCodes(normalized, &keys).ok()) {
      plan->how = "not indexed: the assertion cannot be normalized";
      return Candidates::All();
    }
    if (keys.empty()) {
      plan->how = "not indexed: no word of the assertion has a phonetic code";
      return Candidates::All();
    }
    plan->how = "index " + name + " approx";
    bool first = true;
    return IntersectKeyLists(keys, [&](const std::string& key) {
      plan->how += (first ? " " : " & ") + key;
      first = false;
      return Read(spec, key, plan);
    });
  }

  // The IDs under `key` in the index database of `spec`; a range {0, lo, hi}
  // becomes every ID from lo to hi.
  Result<IdList> Read(const IndexSpec& spec, const std::string& key, PlanNode* plan) {
    ++plan->lookups;
    DIRLOAD_ASSIGN_OR_RETURN(MdbDb db, env_.Index(spec.name()));
    std::vector<EntryId> ids;
    DIRLOAD_RETURN_IF_ERROR(txn_.ForEachDup(db, key, [&](std::string_view v) -> Status {
      if (v.size() != 8) {
        return Status::Corruption(env_.path() + ": index " + std::string(spec.name()) +
                                  ": a duplicate of " + std::to_string(v.size()) +
                                  " bytes, not an 8-byte ID");
      }
      ids.push_back(MdbDecodeId(v));
      return Status::Ok();
    }));
    if (!ids.empty() && ids.front() == 0) {
      if (ids.size() != 3 || ids[1] > ids[2]) {
        return Status::Corruption(env_.path() + ": index " + std::string(spec.name()) +
                                  ": a key starting with ID 0 is not a range {0, lo, hi}");
      }
      const uint64_t lo = ids[1], hi = ids[2];
      ids.clear();
      ids.reserve(hi - lo + 1);
      for (uint64_t id = lo; id <= hi; ++id) ids.push_back(id);
      plan->how += " (range " + std::to_string(lo) + ".." + std::to_string(hi) + ")";
    }
    return IdList(std::move(ids));
  }

  // The equality key of `value` in `spec`'s database, or why there is none.
  Result<std::string> EqualityKeyOf(const IndexSpec& spec, std::string_view value) {
    const AttributeType& x = *spec.type;
    const MatchingRule* rule = x.equality;
    if (rule == nullptr) return Status::Unsupported("no EQUALITY rule");
    if (rule->normalizer == Normalizer::kInteger) {
      DIRLOAD_ASSIGN_OR_RETURN(std::string n, NormalizeEquality(schema_, x, value));
      return MdbIntegerKey(keys_, n);
    }
    if (rule->normalizer == Normalizer::kGeneralizedTime || rule->oid == kCsnMatchOid) {
      // Whole seconds only: the entries sharing the key are candidates.
      DIRLOAD_ASSIGN_OR_RETURN(std::string n, NormalizeEquality(schema_, x, value));
      std::optional<std::array<char, kMdbTimeKeySize>> key = MdbTimeKey(n);
      if (!key) return Status::Unsupported("no ordered key for '" + n + "'");
      return std::string(key->data(), key->size());
    }
    std::string normalized;
    if (MdbStoresNormalized(x)) {
      DIRLOAD_RETURN_IF_ERROR(MdbNormalizedValue(schema_, x, value, &normalized));
    } else if (rule->normalizer == Normalizer::kOctetString) {
      normalized.assign(value);
    } else {
      // slapd keys such values as written, which other spellings of the
      // same value do not share.
      return Status::Unsupported("slapd keys " + std::string(x.name()) + " values as written");
    }
    std::string_view keyed = normalized;
    // Keyed by the DN alone: values with another UID are candidates.
    if (rule->normalizer == Normalizer::kUniqueMember) keyed = MdbUniqueMemberKeyPart(keyed);
    return MdbKeyHasher(keys_, x.name(), 0, x.syntax->oid, rule->oid).Key(keyed);
  }

  // Substring keys of the assertion, as far as `spec`'s kinds allow.
  Result<std::vector<std::string>> SubstringKeysOf(const IndexSpec& spec, const Filter& f) {
    const AttributeType& x = *spec.type;
    if (x.substr == nullptr || x.equality == nullptr) {
      return Status::Unsupported("no SUBSTR rule");
    }
    // Stored keys are cut from the values id2e holds, normalized with the
    // EQUALITY rule: fragments normalized with the SUBSTR rule only meet them
    // when both rules normalize alike.
    if (x.substr->normalizer != x.equality->normalizer || !MdbStoresNormalized(x)) {
      return Status::Unsupported("the SUBSTR and EQUALITY rules of " + std::string(x.name()) +
                                 " normalize differently");
    }
    const MdbKeyHasher initial(keys_, x.name(), kMdbSubstrInitialPrefix, x.syntax->oid,
                               x.substr->oid);
    const MdbKeyHasher any(keys_, x.name(), kMdbSubstrAnyPrefix, x.syntax->oid, x.substr->oid);
    const MdbKeyHasher final_(keys_, x.name(), kMdbSubstrFinalPrefix, x.syntax->oid, x.substr->oid);
    const size_t minlen = keys_.substr_if_minlen, maxlen = keys_.substr_if_maxlen;
    const size_t any_len = keys_.substr_any_len;
    const size_t step = std::max<uint32_t>(1, keys_.substr_any_step);
    std::vector<std::string> out;
    // Every any_len-byte window of a fragment is an any key of a value that
    // holds the fragment (the writer stores every window).
    auto windows = [&](std::string_view s) {
      if (!spec.Has(kIndexSubAny) || any_len == 0 || s.size() < any_len) return;
      size_t j = 0;
      for (; j + any_len <= s.size(); j += step) out.push_back(any.Key(s.substr(j, any_len)));
      if (j - step + any_len != s.size()) out.push_back(any.Key(s.substr(s.size() - any_len)));
    };
    std::string n;
    if (f.initial) {
      DIRLOAD_RETURN_IF_ERROR(
          NormalizeSubstring(schema_, x, *f.initial, SubstringPosition::kInitial, &n));
      if (spec.Has(kIndexSubInitial) && n.size() >= minlen) {
        out.push_back(initial.Key(std::string_view(n).substr(0, std::min(maxlen, n.size()))));
      }
      windows(n);
    }
    for (const std::string& a : f.any) {
      DIRLOAD_RETURN_IF_ERROR(NormalizeSubstring(schema_, x, a, SubstringPosition::kAny, &n));
      windows(n);
    }
    if (f.final) {
      DIRLOAD_RETURN_IF_ERROR(
          NormalizeSubstring(schema_, x, *f.final, SubstringPosition::kFinal, &n));
      if (spec.Has(kIndexSubFinal) && n.size() >= minlen) {
        out.push_back(
            final_.Key(std::string_view(n).substr(n.size() - std::min(maxlen, n.size()))));
      }
      windows(n);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  MdbEnv& env_;
  MdbTxn& txn_;
  const Schema& schema_;
  const IndexConfig& indexes_;
  const MdbKeyOptions& keys_;
};

}  // namespace

std::string MdbSearchSource::EntryName(EntryId id) const {
  return "id2e: id " + std::to_string(id);
}

Result<MdbTxn*> MdbSearchSource::Txn() {
  if (!txn_.has_value()) {
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, reader_->env()->Begin(false));
    txn_.emplace(std::move(txn));
  }
  return &*txn_;
}

Result<std::vector<MdbDnNode>> MdbSearchSource::Children(uint64_t id) {
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn * txn, Txn());
  MdbEnv& env = *reader_->env();
  std::vector<MdbDnNode> out;
  DIRLOAD_RETURN_IF_ERROR(
      txn->ForEachDup(env.dn2i(), MdbIdKey(id), [&](std::string_view v) -> Status {
        Result<MdbDnNode> node = DecodeMdbDnNode(v);
        if (!node.ok()) {
          return node.status().WithPrefix(env.path() + ": dn2i: id " + std::to_string(id) + ": ");
        }
        if (node->child) out.push_back(std::move(*node));
        return Status::Ok();
      }));
  return out;
}

Result<uint64_t> MdbSearchSource::Parent(uint64_t id) {
  if (auto it = parents_.find(id); it != parents_.end()) return it->second;
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn * txn, Txn());
  MdbEnv& env = *reader_->env();
  Result<std::string_view> bytes = txn->Get(env.dn2i(), MdbIdKey(id));
  if (!bytes.ok()) {
    if (bytes.status().code() == StatusCode::kNotFound) {
      return Status::Corruption(env.path() + ": dn2i: id " + std::to_string(id) +
                                " has no DN node");
    }
    return bytes.status();
  }
  DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode node, DecodeMdbDnNode(*bytes));
  if (node.child) {
    return Status::Corruption(env.path() + ": dn2i: id " + std::to_string(id) +
                              ": first node is a child node, not the entry's own");
  }
  parents_.emplace(id, node.id);
  return node.id;
}

Result<std::optional<EntryId>> MdbSearchSource::FindEntry(std::string_view ndn) {
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<MdbDnNode> suffixes, Children(0));
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn * txn, Txn());
  MdbEnv& env = *reader_->env();
  for (const MdbDnNode& s : suffixes) {
    if (ndn != s.nrdn && !(s.nrdn.empty() && !ndn.empty()) &&
        !(ndn.size() > s.nrdn.size() && ndn.ends_with(s.nrdn) &&
          ndn[ndn.size() - s.nrdn.size() - 1] == ',')) {
      continue;
    }
    // The DNs from just below the suffix down to `ndn`.
    std::vector<std::string_view> chain;
    for (std::string_view cur = ndn; cur.size() > s.nrdn.size(); cur = ParentDn(cur)) {
      chain.push_back(cur);
    }
    uint64_t id = s.id;
    bool found = true;
    for (size_t i = chain.size(); i-- > 0 && found;) {
      std::string_view dn = chain[i];
      std::string_view parent = ParentDn(dn);
      std::string_view nrdn =
          dn.substr(0, parent.empty() ? dn.size() : dn.size() - parent.size() - 1);
      MdbDnNode probe;
      probe.child = true;
      probe.nrdn.assign(nrdn);
      Result<std::string> encoded = EncodeMdbDnNode(probe);
      if (!encoded.ok()) return std::optional<EntryId>();
      Result<std::string_view> hit = txn->GetDup(env.dn2i(), MdbIdKey(id), *encoded);
      if (!hit.ok()) {
        if (hit.status().code() != StatusCode::kNotFound) return hit.status();
        found = false;
        break;
      }
      DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode node, DecodeMdbDnNode(*hit));
      id = node.id;
    }
    if (found) return std::optional<EntryId>(id);
  }
  return std::optional<EntryId>();
}

Result<bool> MdbSearchSource::SubtreeHoldsEverything(const SearchBase& base) {
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<MdbDnNode> suffixes, Children(0));
  return suffixes.size() == 1 && suffixes.front().id == base.id;
}

Result<IdList> MdbSearchSource::ScopeIds(const SearchBase& base, SearchScope scope) {
  std::vector<EntryId> ids;
  if (scope == SearchScope::kBase) {
    if (!base.root()) ids.push_back(base.id);
    return IdList(std::move(ids));
  }
  // Level by level down the child nodes; the root's are key 0's.
  std::vector<uint64_t> level = {base.id};
  if (scope == SearchScope::kSub && !base.root()) ids.push_back(base.id);
  while (!level.empty()) {
    std::vector<uint64_t> next;
    for (uint64_t id : level) {
      DIRLOAD_ASSIGN_OR_RETURN(std::vector<MdbDnNode> children, Children(id));
      for (const MdbDnNode& c : children) {
        ids.push_back(c.id);
        next.push_back(c.id);
      }
    }
    if (scope == SearchScope::kOne) break;
    level = std::move(next);
  }
  return IdList::FromUnsorted(std::move(ids));
}

Result<std::optional<IdList>> MdbSearchSource::FilterByAncestry(const IdList& candidates,
                                                                const SearchBase& base,
                                                                SearchScope scope) {
  // Whether `id` is in scope, walking up its self nodes.
  auto in_scope = [&](uint64_t id) -> Result<bool> {
    DIRLOAD_ASSIGN_OR_RETURN(uint64_t parent, Parent(id));
    if (scope == SearchScope::kOne) return parent == base.id;
    for (size_t depth = 0; parent != 0; ++depth) {
      if (parent == base.id) return true;
      if (depth > (uint64_t{1} << 20)) {
        return Status::Corruption(reader_->path() + ": dn2i: the parents of id " +
                                  std::to_string(id) + " do not reach the suffix");
      }
      DIRLOAD_ASSIGN_OR_RETURN(parent, Parent(parent));
    }
    return id == base.id;
  };
  IdList in;
  for (EntryId id : candidates) {
    DIRLOAD_ASSIGN_OR_RETURN(bool yes, in_scope(id));
    if (yes) in.Append(id);
  }
  return std::optional<IdList>(std::move(in));
}

Result<Candidates> MdbSearchSource::ItemCandidates(const IndexConfig& indexes, const Filter& item,
                                                   PlanNode* plan) {
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn * txn, Txn());
  return MdbPlanner(*reader_->env(), *txn, schema_, indexes, keys_).PlanItem(item, plan);
}

Result<const EntryView*> MdbSearchSource::Read(EntryId id) {
  txn_.reset();  // the reader reads in transactions of its own
  Status st = reader_->Get(id, &entry_);
  // A placeholder of a missing ancestor (or an ID id2e lacks): no entry.
  if (st.code() == StatusCode::kNotFound) return nullptr;
  DIRLOAD_RETURN_IF_ERROR(st);
  return &entry_.view;
}

Status MdbSearchSource::Scan(const ScanTest& test, const ScanTake& take) {
  txn_.reset();  // the reader reads in a transaction of its own
  return reader_->ForEach([&](const MdbReadEntry& e) { return take(e.id, e.view); },
                          [&](const MdbReadEntry& e) { return test(e.id, e.view); });
}
Result<IndexConfig> MdbUsableIndexes(MdbEnv& env, const Schema& schema,
                                     const IndexConfig& configured,
                                     std::vector<std::string>* unusable) {
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env.Begin(false));
  uint64_t entry_keys = 0, entry_pairs = 0;
  DIRLOAD_RETURN_IF_ERROR(txn.Count(env.id2e(), &entry_keys, &entry_pairs));
  // The attribute types the entries hold: ad2i gains a description when an
  // entry with it is stored. slapd indexes a type's values under its own
  // index and under each supertype's.
  std::unordered_set<const AttributeType*> held;
  DIRLOAD_RETURN_IF_ERROR(txn.Scan(env.ad2i(), [&](std::string_view, std::string_view d) {
    const AttributeType* t = schema.FindAttribute(d.substr(0, d.find(';')));
    for (size_t depth = 0; t != nullptr && depth < 64; t = t->sup, ++depth) held.insert(t);
    return Status::Ok();
  }));
  std::vector<IndexConfig::Line> lines;
  for (const IndexSpec& spec : configured.specs()) {
    Result<MdbDb> db = env.Index(spec.name());
    if (!db.ok()) {
      unusable->push_back(std::string(spec.name()) + ": no index database");
      continue;
    }
    uint64_t keys = 0, pairs = 0;
    DIRLOAD_RETURN_IF_ERROR(txn.Count(*db, &keys, &pairs));
    // Empty because no entry holds the attribute is right, not stale.
    if (pairs == 0 && entry_keys != 0 && held.contains(spec.type)) {
      unusable->push_back(std::string(spec.name()) + ": index database is empty");
      continue;
    }
    lines.push_back({IndexConfig::CanonicalLine(spec), spec.where});
  }
  return IndexConfig::Parse(schema, lines);
}

}  // namespace dirload::mdb
