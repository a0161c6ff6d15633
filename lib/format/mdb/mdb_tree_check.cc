#include "lib/format/mdb/mdb_tree_check.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <string_view>

#include "lib/format/mdb/mdb_dn_node.h"
#include "lib/format/mdb/mdb_reader.h"

namespace dirload::mdb {
namespace {

constexpr uint64_t kNoParent = std::numeric_limits<uint64_t>::max();

struct ChildLink {
  uint64_t parent = 0;
  uint64_t id = 0;
  uint64_t nsubs = 0;
  uint64_t nrdn_hash = 0;
};

uint64_t HashRdn(std::string_view nrdn) { return std::hash<std::string_view>()(nrdn); }

}  // namespace

Status CheckMdbDnTree(MdbEnv& env, const std::vector<bool>& has_record,
                      const std::function<std::string(uint64_t)>& describe, ProblemList* problems,
                      uint64_t* nodes) {
  const size_t n = has_record.size();
  // Per ID below n: its self node's parent (kNoParent: none) and RDN hash.
  std::vector<uint64_t> parent(n, kNoParent), rdn_hash(n, 0);
  std::vector<ChildLink> links;
  bool dummy_root = false;
  auto name = [&](uint64_t id) { return problems->wants_more() ? describe(id) : std::string(); };
  {
    DIRLOAD_ASSIGN_OR_RETURN(MdbTxn txn, env.Begin(false));
    DIRLOAD_RETURN_IF_ERROR(txn.Scan(env.dn2i(), [&](std::string_view k, std::string_view v) {
      ++*nodes;
      if (k.size() != 8) {
        problems->Add("dn2i: a key of " + std::to_string(k.size()) + " bytes, not an ID");
        return Status::Ok();
      }
      const uint64_t key = MdbDecodeId(k);
      if (key == 0 && v == MdbDummyRootNode()) {
        dummy_root = true;
        return Status::Ok();
      }
      Result<MdbDnNode> node = DecodeMdbDnNode(v);
      if (!node.ok()) {
        problems->Add("dn2i: a node under ID " + std::to_string(key) +
                      " does not decode: " + node.status().message());
        return Status::Ok();
      }
      if (node->child) {
        links.push_back({key, node->id, node->nsubs, HashRdn(node->nrdn)});
        return Status::Ok();
      }
      if (key == 0) {
        problems->Add("dn2i: a self node under key 0");
      } else if (key >= n || !has_record[key]) {
        problems->Add("dn2i: a node for ID " + std::to_string(key) + ", which id2e does not hold");
      } else if (parent[key] != kNoParent) {
        // Named by ID only: naming reads dn2i, and this thread's read
        // transaction is the scan's until it ends.
        problems->Add("dn2i: two self nodes for ID " + std::to_string(key));
      } else {
        parent[key] = node->id;
        rdn_hash[key] = HashRdn(node->nrdn);
      }
      return Status::Ok();
    }));
  }
  if (!dummy_root) problems->Add("dn2i: key 0 lacks slapd's dummy root node");
  for (uint64_t id = 1; id < n; ++id) {
    if (has_record[id] && parent[id] == kNoParent) {
      problems->Add(name(id) + ": no self node in dn2i (its DN is lost)");
    }
  }

  // Each child node against the self node it names; the valid ones make
  // the tree.
  std::sort(links.begin(), links.end(), [](const ChildLink& a, const ChildLink& b) {
    return a.parent != b.parent ? a.parent < b.parent : a.id < b.id;
  });
  std::vector<uint32_t> listed(n, 0);  // child nodes naming each ID
  std::vector<ChildLink> tree;
  for (const ChildLink& l : links) {
    if (l.id >= n || parent[l.id] == kNoParent) {
      problems->Add("dn2i: a child node under ID " + std::to_string(l.parent) + " names ID " +
                    std::to_string(l.id) + ", which has no entry or no self node");
      continue;
    }
    if (parent[l.id] != l.parent) {
      problems->Add("dn2i: " + name(l.id) + " is listed under ID " + std::to_string(l.parent) +
                    " but its self node names parent " + std::to_string(parent[l.id]));
      continue;
    }
    if (rdn_hash[l.id] != l.nrdn_hash) {
      problems->Add("dn2i: " + name(l.id) + ": its child node and self node differ in RDN");
    }
    if (++listed[l.id] == 1) tree.push_back(l);
  }
  for (uint64_t id = 1; id < n; ++id) {
    if (parent[id] == kNoParent || listed[id] == 1) continue;
    problems->Add("dn2i: " + name(id) + " has " + std::to_string(listed[id]) +
                  " child nodes under its parent, not 1");
  }
  const auto roots =
      std::count_if(tree.begin(), tree.end(), [](const ChildLink& l) { return l.parent == 0; });
  if (roots != 1) {
    problems->Add("dn2i: key 0 holds " + std::to_string(roots) + " suffix entries, not 1");
  }

  // Reachability from key 0, breadth first; then subtree counts from the
  // leaves up, in the reverse of that order.
  auto children = [&](uint64_t p) {
    auto lo = std::lower_bound(tree.begin(), tree.end(), p,
                               [](const ChildLink& l, uint64_t v) { return l.parent < v; });
    auto hi = std::upper_bound(tree.begin(), tree.end(), p,
                               [](uint64_t v, const ChildLink& l) { return v < l.parent; });
    return std::pair(lo, hi);
  };
  std::vector<const ChildLink*> order;
  std::vector<bool> reached(n, false);
  {
    auto [lo, hi] = children(0);
    for (auto it = lo; it != hi; ++it) order.push_back(&*it);
    for (size_t i = 0; i < order.size(); ++i) {
      const uint64_t id = order[i]->id;
      reached[id] = true;
      auto [clo, chi] = children(id);
      for (auto it = clo; it != chi; ++it) {
        if (!reached[it->id]) order.push_back(&*it);
      }
    }
  }
  std::vector<uint64_t> subtree(n, 1);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const ChildLink& l = **it;
    if (l.parent != 0) subtree[l.parent] += subtree[l.id];
  }
  for (const ChildLink* l : order) {
    if (l->nsubs != subtree[l->id]) {
      problems->Add("dn2i: " + name(l->id) + ": nsubs " + std::to_string(l->nsubs) +
                    ", but its subtree holds " + std::to_string(subtree[l->id]) + " entries");
    }
  }
  for (uint64_t id = 1; id < n; ++id) {
    if (parent[id] != kNoParent && !reached[id]) {
      problems->Add(name(id) + ": not reachable from the suffix through dn2i");
    }
  }
  return Status::Ok();
}

}  // namespace dirload::mdb
