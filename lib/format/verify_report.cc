#include "lib/format/verify_report.h"

#include "lib/util/json.h"

namespace dirload {
namespace {

std::string U64(uint64_t v) { return std::to_string(v); }

std::string Verdict(const IndexVerifyResult& r) {
  if (r.clean()) return "complete and clean";
  std::string v;
  if (r.missing != 0) v = "incomplete (" + U64(r.missing) + " missing)";
  if (r.extra != 0) {
    if (!v.empty()) v += ", ";
    v += "unclean (" + U64(r.extra) + " extra)";
  }
  return v;
}

std::string PairText(const IndexPairProblem& p) {
  return p.attribute + " " + p.key + ", entry " + U64(p.id) + " (" + p.dn + ")";
}

std::string StringsJson(const std::vector<std::string>& v) {
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + JsonString(v[i]);
  return out + "]";
}

std::string ProblemsJson(const ProblemList& p) {
  return "{\"count\": " + U64(p.count()) + ", \"first\": " + StringsJson(p.named()) + "}";
}

std::string PairsJson(const std::vector<IndexPairProblem>& pairs) {
  std::string out = "[";
  for (size_t i = 0; i < pairs.size(); ++i) {
    const IndexPairProblem& p = pairs[i];
    out += std::string(i ? ", " : "") + "{\"attribute\": " + JsonString(p.attribute) +
           ", \"key\": " + JsonString(p.key) + ", \"id\": " + U64(p.id) +
           ", \"dn\": " + JsonString(p.dn) + "}";
  }
  return out + "]";
}

}  // namespace

std::vector<std::string> VerifyReport::WrongIndexes() const {
  std::vector<std::string> wrong;
  for (const IndexVerifyResult& r : indexes) {
    if (!r.clean()) wrong.push_back(r.name);
  }
  return wrong;
}

bool VerifyReport::clean() const {
  return entry_problems.count() == 0 && tree_problems.count() == 0 && WrongIndexes().empty();
}

std::string VerifyReportText(const VerifyReport& r) {
  std::string out;
  out += "database " + r.dir + " (" + r.format + ")\n";
  out +=
      "entries: " + U64(r.entries) + " checked, " + U64(r.entry_problems.count()) + " problems\n";
  for (const std::string& p : r.entry_problems.named()) out += "  " + p + "\n";
  out += "DN tree: " + U64(r.tree_nodes) + " nodes checked, " + U64(r.tree_problems.count()) +
         " problems\n";
  for (const std::string& p : r.tree_problems.named()) out += "  " + p + "\n";
  if (!r.index_note.empty()) out += "indexes: " + r.index_note + "\n";
  for (const IndexVerifyResult& x : r.indexes) {
    out += "index " + x.name + " (" + x.kinds + "): " + U64(x.keys) + " keys, " + U64(x.ids) +
           " IDs checked";
    if (x.ranges != 0) out += ", " + U64(x.ranges) + " ranges";
    if (!x.present) out += ", no index table";
    out += ": " + Verdict(x) + "\n";
    for (const IndexPairProblem& p : x.first_missing) out += "  missing: " + PairText(p) + "\n";
    for (const IndexPairProblem& p : x.first_extra) out += "  extra: " + PairText(p) + "\n";
  }
  if (!r.unconfigured.empty()) {
    out += "index tables no longer configured:";
    for (const std::string& u : r.unconfigured) out += " " + u;
    out += "\n";
  }
  for (const std::string& f : r.fixed) out += "fixed: " + f + "\n";
  const std::vector<std::string> wrong = r.WrongIndexes();
  if (r.clean()) {
    out +=
        "verdict: clean (" + U64(r.entries) + " entries, " + U64(r.indexes.size()) + " indexes)\n";
  } else {
    out += "verdict: problems found: " + U64(r.entry_problems.count()) + " in entries, " +
           U64(r.tree_problems.count()) + " in the DN tree, " + U64(wrong.size()) +
           " indexes wrong";
    for (size_t i = 0; i < wrong.size(); ++i) out += (i ? ", " : " (") + wrong[i];
    out += wrong.empty() ? "\n" : ")\n";
  }
  return out;
}

std::string VerifyReportJson(const VerifyReport& r) {
  std::string out = "{\"database\": " + JsonString(r.dir) +
                    ", \"format\": " + JsonString(r.format) +
                    ", \"clean\": " + (r.clean() ? "true" : "false");
  out += ", \"entries\": {\"checked\": " + U64(r.entries) +
         ", \"problems\": " + ProblemsJson(r.entry_problems) + "}";
  out += ", \"dn_tree\": {\"checked\": " + U64(r.tree_nodes) +
         ", \"problems\": " + ProblemsJson(r.tree_problems) + "}";
  out += ", \"index_note\": " + JsonString(r.index_note) + ", \"indexes\": [";
  for (size_t i = 0; i < r.indexes.size(); ++i) {
    const IndexVerifyResult& x = r.indexes[i];
    out += std::string(i ? ", " : "") + "{\"attribute\": " + JsonString(x.name) +
           ", \"kinds\": " + JsonString(x.kinds) +
           ", \"present\": " + (x.present ? "true" : "false") + ", \"keys\": " + U64(x.keys) +
           ", \"ids\": " + U64(x.ids) + ", \"ranges\": " + U64(x.ranges) +
           ", \"missing\": " + U64(x.missing) + ", \"extra\": " + U64(x.extra) +
           ", \"first_missing\": " + PairsJson(x.first_missing) +
           ", \"first_extra\": " + PairsJson(x.first_extra) +
           ", \"verdict\": " + JsonString(Verdict(x)) + "}";
  }
  out += "], \"unconfigured\": " + StringsJson(r.unconfigured) +
         ", \"fixed\": " + StringsJson(r.fixed) + "}\n";
  return out;
}

}  // namespace dirload
