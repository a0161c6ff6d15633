#include "lib/format/mdb/mdb_search.h"

#include <algorithm>
#include <array>
#include <optional>
#include <unordered_map>
#include <utility>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_normalized.h"
#include "lib/idl/id_list.h"
#include "lib/schema/dn.h"
#include "lib/schema/normalize.h"
#include "lib/search/evaluate.h"
#include "lib/search/planner.h"
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

  Result<Candidates> Plan(const Filter& f, PlanNode* plan) {
    return PlanFilterTree(f, plan, [this](const Filter& x, PlanNode* p) { return PlanItem(x, p); });
  }

 private:
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

  Result<Candidates> PlanItem(const Filter& f, PlanNode* plan) {
    Result<AttributeDescription> ad = schema_.ParseAttributeDescription(f.attribute);
    if (!ad.ok()) {
      plan->how = "never true: " + ad.status().message();
      return Candidates::Of(IdList());
    }
    const AttributeType* type = ad->type;
    if (f.kind != FilterKind::kPresent && MatchingRuleFor(f.kind, type) == nullptr) {
      plan->how = "never true: " + std::string(type->name()) + " has no matching rule for " +
                  std::string(FilterKindName(f.kind));
      return Candidates::Of(IdList());
    }
    if (f.kind == FilterKind::kGreaterOrEqual || f.kind == FilterKind::kLessOrEqual) {
      plan->how = "not indexed: ordered keys are not read";
      return Candidates::All();
    }
    const IndexSpec* spec = indexes_.ForSearch(type);
    if (spec == nullptr) {
      plan->how = "not indexed: no index on " + std::string(type->name());
      return Candidates::All();
    }
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
      case FilterKind::kEquality:
      case FilterKind::kApprox: {
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
        std::vector<IdList> lists;
        for (const std::string& key : *keys) {
          DIRLOAD_ASSIGN_OR_RETURN(IdList ids, Read(*spec, key, plan));
          const bool none = ids.empty();
          lists.push_back(std::move(ids));
          if (none) break;  // the intersection is empty already
        }
        std::vector<const IdList*> ptrs;
        for (const IdList& l : lists) ptrs.push_back(&l);
        return Candidates::Of(IdList::IntersectAll(std::move(ptrs)));
      }
      default:
        plan->how = "not indexed";
        return Candidates::All();
    }
  }

  MdbEnv& env_;
  MdbTxn& txn_;
  const Schema& schema_;
  const IndexConfig& indexes_;
  const MdbKeyOptions& keys_;
};

// dn2i navigation.
class DnTree {
 public:
  DnTree(MdbEnv& env, MdbTxn& txn) : env_(env), txn_(txn) {}

  // The child nodes under `id` (key 0: the suffix entries).
  Result<std::vector<MdbDnNode>> Children(uint64_t id) {
    std::vector<MdbDnNode> out;
    DIRLOAD_RETURN_IF_ERROR(
        txn_.ForEachDup(env_.dn2i(), MdbIdKey(id), [&](std::string_view v) -> Status {
          Result<MdbDnNode> node = DecodeMdbDnNode(v);
          if (!node.ok()) {
            return node.status().WithPrefix(env_.path() + ": dn2i: id " + std::to_string(id) +
                                            ": ");
          }
          if (node->child) out.push_back(std::move(*node));
          return Status::Ok();
        }));
    return out;
  }

  // The parent of `id` (0 for a suffix entry), from its self node; cached.
  Result<uint64_t> Parent(uint64_t id) {
    if (auto it = parents_.find(id); it != parents_.end()) return it->second;
    Result<std::string_view> bytes = txn_.Get(env_.dn2i(), MdbIdKey(id));
    if (!bytes.ok()) {
      if (bytes.status().code() == StatusCode::kNotFound) {
        return Status::Corruption(env_.path() + ": dn2i: id " + std::to_string(id) +
                                  " has no DN node");
      }
      return bytes.status();
    }
    DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode node, DecodeMdbDnNode(*bytes));
    if (node.child) {
      return Status::Corruption(env_.path() + ": dn2i: id " + std::to_string(id) +
                                ": first node is a child node, not the entry's own");
    }
    parents_.emplace(id, node.id);
    return node.id;
  }

  // The ID of the entry with normalized DN `ndn`; nullopt when none.
  Result<std::optional<uint64_t>> Find(std::string_view ndn) {
    DIRLOAD_ASSIGN_OR_RETURN(std::vector<MdbDnNode> suffixes, Children(0));
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
        if (!encoded.ok()) return std::optional<uint64_t>();
        Result<std::string_view> hit = txn_.GetDup(env_.dn2i(), MdbIdKey(id), *encoded);
        if (!hit.ok()) {
          if (hit.status().code() != StatusCode::kNotFound) return hit.status();
          found = false;
          break;
        }
        DIRLOAD_ASSIGN_OR_RETURN(MdbDnNode node, DecodeMdbDnNode(*hit));
        id = node.id;
      }
      if (found) return std::optional<uint64_t>(id);
    }
    return std::optional<uint64_t>();
  }

 private:
  MdbEnv& env_;
  MdbTxn& txn_;
  std::unordered_map<uint64_t, uint64_t> parents_;
};

}  // namespace

Result<SearchResult> MdbSearch(MdbReader* reader, const Schema& schema,
                               const MdbSearchRequest& request, const MdbSearchCallback& callback) {
  SearchResult result;
  MdbEnv& env = *reader->env();
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env.Begin(false));
  DnTree tree(env, txn);

  // The base entry (0: the root above the database).
  uint64_t base_id = 0;
  if (!request.base.empty()) {
    Result<std::string> nbase = NormalizeDn(schema, request.base);
    if (!nbase.ok()) {
      return Status::InvalidArgument("search base '" + request.base +
                                     "': " + nbase.status().message())
          .WithOrigin(ErrorOrigin::kUsage);
    }
    DIRLOAD_ASSIGN_OR_RETURN(std::optional<uint64_t> found, tree.Find(*nbase));
    if (!found.has_value()) {
      return Status::NotFound("search base '" + request.base + "' does not exist");
    }
    base_id = *found;
  }

  Candidates candidates = Candidates::All();
  if (request.use_indexes && request.indexes != nullptr && !request.indexes->empty()) {
    MdbPlanner planner(env, txn, schema, *request.indexes, request.keys);
    PlanNode scratch;
    DIRLOAD_ASSIGN_OR_RETURN(
        candidates, planner.Plan(request.filter, request.explain ? &result.plan : &scratch));
  } else if (request.explain) {
    result.plan.filter = request.filter.ToString();
    result.plan.how = request.use_indexes ? "no indexes configured" : "indexes not used";
  }
  result.scanned = candidates.all;
  result.candidates = candidates.all ? 0 : candidates.ids.size();

  // The scope: every entry, a set of IDs, or a check of each candidate.
  DIRLOAD_ASSIGN_OR_RETURN(std::vector<MdbDnNode> suffixes, tree.Children(0));
  bool scope_all = false;
  bool check_each = false;
  IdList scope_ids;
  if (request.scope == SearchScope::kSub) {
    scope_all = base_id == 0 || (suffixes.size() == 1 && suffixes.front().id == base_id);
  }
  if (!scope_all) {
    if (request.scope == SearchScope::kBase) {
      if (base_id != 0) scope_ids.Append(base_id);
    } else if (!candidates.all && candidates.ids.size() <= kCheckScopePerEntry) {
      check_each = true;
    } else {
      std::vector<EntryId> ids;
      std::vector<uint64_t> level = {base_id};
      if (request.scope == SearchScope::kSub) ids.push_back(base_id);
      while (!level.empty()) {
        std::vector<uint64_t> next;
        for (uint64_t id : level) {
          DIRLOAD_ASSIGN_OR_RETURN(std::vector<MdbDnNode> children, tree.Children(id));
          for (const MdbDnNode& c : children) {
            ids.push_back(c.id);
            next.push_back(c.id);
          }
        }
        if (request.scope == SearchScope::kOne) break;
        level = std::move(next);
      }
      scope_ids = IdList::FromUnsorted(std::move(ids));
    }
  }
  // Whether candidate `id` is in scope, walking up its self nodes.
  auto in_scope = [&](uint64_t id) -> Result<bool> {
    DIRLOAD_ASSIGN_OR_RETURN(uint64_t parent, tree.Parent(id));
    if (request.scope == SearchScope::kOne) return parent == base_id;
    for (size_t depth = 0; parent != 0; ++depth) {
      if (parent == base_id) return true;
      if (depth > (uint64_t{1} << 20)) {
        return Status::Corruption(env.path() + ": dn2i: the parents of id " + std::to_string(id) +
                                  " do not reach the suffix");
      }
      DIRLOAD_ASSIGN_OR_RETURN(parent, tree.Parent(parent));
    }
    return id == base_id;
  };

  const DescriptionTable descriptions(reader->dictionary(), schema);
  const FilterMatcher matcher(request.filter, schema);
  // The filter needs the values only: a scan tests each entry before the
  // reader builds its DN, and only the entries taken get one.
  auto test = [&](const MdbReadEntry& e) -> Result<bool> {
    ++result.examined;
    Result<bool> hit = matcher.Matches(e.view, descriptions);
    if (!hit.ok()) return hit.status().WithPrefix("id2e: id " + std::to_string(e.id) + ": ");
    return hit;
  };
  auto take = [&](const MdbReadEntry& e) -> Status {
    ++result.matched;
    return callback(e.id, e.view);
  };

  const bool read_all = candidates.all && scope_all;
  IdList ids;
  if (read_all) {
  } else if (candidates.all) {
    ids = std::move(scope_ids);
  } else if (scope_all) {
    ids = std::move(candidates.ids);
  } else if (check_each) {
    for (EntryId id : candidates.ids) {
      DIRLOAD_ASSIGN_OR_RETURN(bool in, in_scope(id));
      if (in) ids.Append(id);
    }
  } else {
    ids = IdList::Intersect(candidates.ids, scope_ids);
  }
  // The reader reads in transactions of its own, and LMDB allows one read
  // transaction per thread.
  txn.Abort();

  if (read_all) {
    DIRLOAD_RETURN_IF_ERROR(reader->ForEach(take, test));
    return result;
  }
  MdbReadEntry entry;
  for (EntryId id : ids) {
    Status st = reader->Get(id, &entry);
    // A placeholder of a missing ancestor (or an ID id2e lacks): no entry.
    if (st.code() == StatusCode::kNotFound) continue;
    DIRLOAD_RETURN_IF_ERROR(st);
    DIRLOAD_ASSIGN_OR_RETURN(bool hit, test(entry));
    if (hit) DIRLOAD_RETURN_IF_ERROR(take(entry));
  }
  return result;
}

Result<IndexConfig> MdbUsableIndexes(MdbEnv& env, const Schema& schema,
                                     const IndexConfig& configured,
                                     std::vector<std::string>* unusable) {
  DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env.Begin(false));
  uint64_t entry_keys = 0, entry_pairs = 0;
  DIRLOAD_RETURN_IF_ERROR(txn.Count(env.id2e(), &entry_keys, &entry_pairs));
  std::vector<IndexConfig::Line> lines;
  for (const IndexSpec& spec : configured.specs()) {
    Result<MdbDb> db = env.Index(spec.name());
    if (!db.ok()) {
      unusable->push_back(std::string(spec.name()) + ": no index database");
      continue;
    }
    uint64_t keys = 0, pairs = 0;
    DIRLOAD_RETURN_IF_ERROR(txn.Count(*db, &keys, &pairs));
    if (pairs == 0 && entry_keys != 0) {
      unusable->push_back(std::string(spec.name()) + ": index database is empty");
      continue;
    }
    lines.push_back({IndexConfig::CanonicalLine(spec), spec.where});
  }
  return IndexConfig::Parse(schema, lines);
}

}  // namespace dirload::mdb
