#include "lib/search/planner.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "lib/index/index_keys.h"
#include "lib/schema/approx_match.h"
#include "lib/search/evaluate.h"
#include "lib/util/ascii.h"

namespace dirload {
namespace {

// The order in which AND reads its children: equality first (usually the
// shortest lists), objectClass and presence (usually the longest) last, and
// children that never read an index at the end.
int ReadOrder(const Filter& f) {
  switch (f.kind) {
    case FilterKind::kEquality:
    case FilterKind::kApprox:
      return EqualsIgnoreCase(f.attribute, "objectClass") || f.attribute == "2.5.4.0" ? 3 : 0;
    case FilterKind::kSubstrings:
      return 1;
    case FilterKind::kAnd:
    case FilterKind::kOr:
      return 2;
    case FilterKind::kPresent:
      return 3;
    default:
      return 4;
  }
}

void AppendPlan(const PlanNode& n, int depth, std::string* out) {
  out->append(static_cast<size_t>(depth) * 2, ' ');
  out->append(n.filter);
  if (!n.how.empty()) {
    out->push_back(' ');
    out->append(n.how);
  }
  if (!n.skipped) {
    out->append(" -> ");
    out->append(n.all ? std::string("all entries") : std::to_string(n.ids) + " IDs");
  }
  out->push_back('\n');
  for (const PlanNode& c : n.children) AppendPlan(c, depth + 1, out);
}

}  // namespace

std::string PlanNode::ToString() const {
  std::string out;
  AppendPlan(*this, 0, &out);
  return out;
}

Planner::Planner(const Schema& schema, const IndexConfig& indexes, IndexLookupFn lookup)
    : schema_(schema), indexes_(indexes), lookup_(std::move(lookup)) {}

Result<Candidates> Planner::Plan(const Filter& filter, PlanNode* plan) {
  PlanNode scratch;
  return PlanFilterTree(filter, plan != nullptr ? plan : &scratch,
                        [this](const Filter& f, PlanNode* p) { return PlanItem(f, p); });
}

Result<Candidates> Planner::PlanApprox(const Filter& f, const AttributeType* type,
                                       const IndexSpec& spec, PlanNode* plan) {
  const std::string table = spec.table();
  if (!spec.Has(kIndexApprox)) {
    plan->how = "not indexed: " + table + " has no approx";
    return Candidates::All();
  }
  if (!SubtypesShareRule(schema_, type, f.kind, spec.type->equality)) {
    plan->how = "not indexed: a subtype of " + std::string(type->name()) +
                " compares with another rule than " + table;
    return Candidates::All();
  }
  Result<std::vector<std::string>> keys = ApproxAssertionKeys(schema_, *spec.type, f.value);
  if (!keys.ok()) {
    plan->how = "not indexed: " + keys.status().message();
    return Candidates::All();
  }
  if (keys->empty()) {
    plan->how = "not indexed: no word of the assertion has a phonetic code";
    return Candidates::All();
  }
  // Each word of the assertion has its code among a matching value's keys.
  return ReadIntersection(table, *keys, plan);
}

Result<Candidates> Planner::ReadIntersection(const std::string& table,
                                             const std::vector<std::string>& keys, PlanNode* plan) {
  plan->how = table;
  bool first = true;
  return IntersectKeyLists(keys, [&](const std::string& key) {
    plan->how += (first ? " " : " & ") + DescribeKey(key);
    first = false;
    return Read(table, key, plan);
  });
}

Result<IdList> Planner::Read(const std::string& table, const std::string& key, PlanNode* plan) {
  ++plan->lookups;
  return lookup_(table, key);
}

Result<Candidates> PlanFilterTree(const Filter& f, PlanNode* plan, const PlanItemFn& item) {
  plan->filter = f.ToString();
  Result<Candidates> result = Candidates::All();
  switch (f.kind) {
    case FilterKind::kNot: {
      // Whatever the child's candidates, its complement may hold any entry,
      // so the child's lists are not even read.
      plan->how = "not: every entry";
      PlanNode& child = plan->children.emplace_back();
      child.filter = f.children.front().ToString();
      child.how = "not looked up";
      child.skipped = true;
      result = Candidates::All();
      break;
    }
    case FilterKind::kAnd: {
      // Children likely to give short lists are read first, and once the
      // intersection is down to a few IDs the rest is not read: checking a
      // few entries costs less than reading a long list to drop them.
      std::vector<size_t> order(f.children.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return ReadOrder(f.children[a]) < ReadOrder(f.children[b]);
      });
      plan->children.resize(f.children.size());
      std::optional<IdList> acc;
      size_t used = 0;
      for (size_t i : order) {
        const Filter& c = f.children[i];
        PlanNode& cp = plan->children[i];
        if (acc && acc->size() <= kFewCandidates) {
          cp.filter = c.ToString();
          cp.skipped = true;
          cp.how = acc->empty() ? "skipped: the intersection is already empty"
                                : "skipped: " + std::to_string(acc->size()) +
                                      " candidates are few enough to check";
          continue;
        }
        DIRLOAD_ASSIGN_OR_RETURN(Candidates cc, PlanFilterTree(c, &cp, item));
        if (cc.all) continue;
        acc = acc ? IdList::Intersect(*acc, cc.ids) : std::move(cc.ids);
        ++used;
      }
      if (!acc) {
        plan->how = f.children.empty() ? "and: absolute true" : "and: no child narrows";
        result = Candidates::All();
      } else {
        plan->how = "and: intersection of " + std::to_string(used);
        result = Candidates::Of(std::move(*acc));
      }
      break;
    }
    case FilterKind::kOr: {
      std::vector<IdList> lists;
      bool all = false;
      for (const Filter& c : f.children) {
        plan->children.emplace_back();
        if (all) {
          plan->children.back().filter = c.ToString();
          plan->children.back().skipped = true;
          plan->children.back().how = "skipped: the union is already every entry";
          continue;
        }
        DIRLOAD_ASSIGN_OR_RETURN(Candidates cc, PlanFilterTree(c, &plan->children.back(), item));
        if (cc.all) {
          all = true;
          continue;
        }
        lists.push_back(std::move(cc.ids));
      }
      if (all) {
        plan->how = "or: a child needs every entry";
        result = Candidates::All();
      } else {
        std::vector<const IdList*> ptrs;
        for (const IdList& l : lists) ptrs.push_back(&l);
        plan->how = f.children.empty() ? "or: absolute false"
                                       : "or: union of " + std::to_string(lists.size());
        result = Candidates::Of(IdList::UnionAll(std::move(ptrs)));
      }
      break;
    }
    default:
      result = item(f, plan);
      break;
  }
  if (!result.ok()) return result.status();
  plan->all = result->all;
  plan->ids = result->all ? 0 : result->ids.size();
  return result;
}

Result<Candidates> IntersectKeyLists(const std::vector<std::string>& keys, const KeyReadFn& read) {
  std::vector<IdList> lists;
  for (const std::string& key : keys) {
    DIRLOAD_ASSIGN_OR_RETURN(IdList ids, read(key));
    const bool none = ids.empty();
    lists.push_back(std::move(ids));
    if (none) break;
  }
  std::vector<const IdList*> ptrs;
  for (const IdList& l : lists) ptrs.push_back(&l);
  return Candidates::Of(IdList::IntersectAll(std::move(ptrs)));
}

bool SubtypesShareRule(const Schema& schema, const AttributeType* type, FilterKind kind,
                       const MatchingRule* rule) {
  for (const AttributeType* t : schema.attribute_types()) {
    if (!Schema::IsSubtypeOf(t, type)) continue;
    const MatchingRule* r = MatchingRuleFor(kind, t);
    if (r != nullptr && r != rule) return false;
  }
  return true;
}

ItemIndex FindItemIndex(const Schema& schema, const IndexConfig& indexes, const Filter& f,
                        PlanNode* plan) {
  ItemIndex out;
  Result<AttributeDescription> ad = schema.ParseAttributeDescription(f.attribute);
  if (!ad.ok()) {
    // Undefined for every entry (evaluate.h), so never TRUE.
    plan->how = "never true: " + ad.status().message();
    out.decided = Candidates::Of(IdList());
    return out;
  }
  out.type = ad->type;
  if (f.kind != FilterKind::kPresent && MatchingRuleFor(f.kind, out.type) == nullptr) {
    plan->how = "never true: " + std::string(out.type->name()) + " has no matching rule for " +
                std::string(FilterKindName(f.kind));
    out.decided = Candidates::Of(IdList());
    return out;
  }
  if (f.kind == FilterKind::kGreaterOrEqual || f.kind == FilterKind::kLessOrEqual) {
    plan->how = "not indexed: no ordering keys";
    out.decided = Candidates::All();
    return out;
  }
  out.spec = indexes.ForSearch(out.type);
  if (out.spec == nullptr) {
    plan->how = "not indexed: no index on " + std::string(out.type->name());
    out.decided = Candidates::All();
  }
  return out;
}

Result<Candidates> Planner::PlanItem(const Filter& f, PlanNode* plan) {
  ItemIndex found = FindItemIndex(schema_, indexes_, f, plan);
  if (found.decided.has_value()) return std::move(*found.decided);
  const AttributeType* type = found.type;
  const IndexSpec* spec = found.spec;
  const std::string table = spec->table();

  switch (f.kind) {
    case FilterKind::kPresent: {
      if (!spec->Has(kIndexPresence)) {
        plan->how = "not indexed: " + table + " has no pres";
        return Candidates::All();
      }
      plan->how = table + " pres";
      DIRLOAD_ASSIGN_OR_RETURN(IdList ids, Read(table, PresenceKey(), plan));
      return Candidates::Of(std::move(ids));
    }
    case FilterKind::kApprox:
      if (HasApproxRule(type->equality)) return PlanApprox(f, type, *spec, plan);
      [[fallthrough]];  // ~= is equality for the other types
    case FilterKind::kEquality: {
      const MatchingRule* rule = spec->type->equality;
      if (!spec->Has(kIndexEquality)) {
        plan->how = "not indexed: " + table + " has no eq";
        return Candidates::All();
      }
      if (!SubtypesShareRule(schema_, type, f.kind, rule)) {
        plan->how = "not indexed: a subtype of " + std::string(type->name()) +
                    " compares with another rule than " + table;
        return Candidates::All();
      }
      if (type == schema_.FindAttribute("objectClass")) {
        const ObjectClass* asserted = schema_.FindObjectClass(f.value);
        if (asserted == nullptr) {
          plan->how = "never true: undefined object class";
          return Candidates::Of(IdList());
        }
        std::vector<IdList> lists;
        for (const ObjectClass* oc : schema_.object_classes()) {
          if (!oc->IsSubclassOf(asserted)) continue;
          Result<std::string> key = EqualityKey(schema_, *spec->type, oc->oid);
          if (!key.ok()) {
            plan->how = "not indexed: " + key.status().message();
            return Candidates::All();
          }
          DIRLOAD_ASSIGN_OR_RETURN(IdList ids, Read(table, *key, plan));
          lists.push_back(std::move(ids));
        }
        std::vector<const IdList*> ptrs;
        for (const IdList& l : lists) ptrs.push_back(&l);
        plan->how = table + " eq, " + std::to_string(lists.size()) + " classes (" +
                    std::string(asserted->name()) + " and its subclasses)";
        return Candidates::Of(IdList::UnionAll(std::move(ptrs)));
      }
      Result<std::string> key = EqualityKey(schema_, *spec->type, f.value);
      if (!key.ok()) {
        plan->how = "not indexed: " + key.status().message();
        return Candidates::All();
      }
      plan->how = table + " " + DescribeKey(*key);
      DIRLOAD_ASSIGN_OR_RETURN(IdList ids, Read(table, *key, plan));
      return Candidates::Of(std::move(ids));
    }
    case FilterKind::kSubstrings: {
      if (!spec->Has(kIndexSubstr)) {
        plan->how = "not indexed: " + table + " has no sub";
        return Candidates::All();
      }
      if (!SubtypesShareRule(schema_, type, f.kind, spec->type->substr)) {
        plan->how = "not indexed: a subtype of " + std::string(type->name()) +
                    " compares with another rule than " + table;
        return Candidates::All();
      }
      SubstringAssertion sa;
      sa.has_initial = f.initial.has_value();
      if (f.initial) sa.initial = *f.initial;
      sa.any = f.any;
      sa.has_final = f.final.has_value();
      if (f.final) sa.final = *f.final;
      Result<std::vector<std::string>> keys =
          SubstringAssertionKeys(schema_, *spec->type, sa, spec->mask);
      if (!keys.ok()) {
        plan->how = "not indexed: " + keys.status().message();
        return Candidates::All();
      }
      if (keys->empty()) {
        plan->how = "not indexed: no fragment long enough for " + table;
        return Candidates::All();
      }
      return ReadIntersection(table, *keys, plan);
    }
    default:
      plan->how = "not indexed";
      return Candidates::All();
  }
}

}  // namespace dirload
