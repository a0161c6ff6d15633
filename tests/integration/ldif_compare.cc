#include "tests/integration/ldif_compare.h"

#include <algorithm>
#include <memory>
#include <unordered_set>
#include <utility>

#include "ldif/byte_source.h"
#include "ldif/reader.h"
#include "lib/util/ascii.h"

namespace dirload::testing {
namespace {

LdifFile ReadAll(std::unique_ptr<ldif::ByteSource> source) {
  LdifFile out;
  ldif::Reader reader(std::move(source));
  ldif::Record record;
  for (;;) {
    Result<bool> got = reader.Next(&record);
    if (!got.ok()) {
      out.error = got.status().message();
      return out;
    }
    if (!*got) return out;
    out.records.push_back(record);
  }
}

// The attributes slapadd adds itself; the corpus's expected output omits them.
bool IsOperational(std::string_view description) {
  static constexpr std::string_view kOperational[] = {"entryuuid",
                                                      "entrycsn",
                                                      "createtimestamp",
                                                      "modifytimestamp",
                                                      "creatorsname",
                                                      "modifiersname",
                                                      "structuralobjectclass",
                                                      "contextcsn",
                                                      "hassubordinates",
                                                      "subschemasubentry",
                                                      "entrydn"};
  std::string type = AsciiLowerCopy(description.substr(0, description.find(';')));
  return std::find(std::begin(kOperational), std::end(kOperational), type) !=
         std::end(kOperational);
}

using Line = std::pair<std::string, std::string>;  // (description, value)

std::vector<Line> Lines(const ldif::Record& r, const CompareOptions& o) {
  std::vector<Line> out;
  for (size_t i = 0; i < r.size(); ++i) {
    ldif::AttributeView a = r.attribute(i);
    if (o.drop_operational && IsOperational(a.description)) continue;
    std::string d =
        o.ignore_description_case ? AsciiLowerCopy(a.description) : std::string(a.description);
    out.emplace_back(std::move(d), std::string(a.value));
  }
  return out;
}

// The lines with the values of each description brought together, in order of
// each description's first appearance: the order slapcat prints.
std::vector<Line> Grouped(const std::vector<Line>& lines) {
  std::vector<Line> out;
  std::vector<bool> taken(lines.size(), false);
  for (size_t i = 0; i < lines.size(); ++i) {
    if (taken[i]) continue;
    for (size_t j = i; j < lines.size(); ++j) {
      if (!taken[j] && AsciiLowerCopy(lines[j].first) == AsciiLowerCopy(lines[i].first)) {
        out.push_back(lines[j]);
        taken[j] = true;
      }
    }
  }
  return out;
}

// A description with its options sorted: "cn;lang-en;x" and "cn;x;lang-en"
// name the same attribute.
std::string SortedOptions(const std::string& description) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t semi = description.find(';', start);
    parts.push_back(AsciiLowerCopy(description.substr(start, semi - start)));
    if (semi == std::string::npos) break;
    start = semi + 1;
  }
  std::sort(parts.begin() + 1, parts.end());
  std::string out = parts[0];
  for (size_t i = 1; i < parts.size(); ++i) out += ";" + parts[i];
  return out;
}

std::string Quote(std::string_view s) {
  constexpr size_t kMax = 200;
  std::string out = "'";
  out += s.size() > kMax ? std::string(s.substr(0, kMax)) + "..." : std::string(s);
  return out + "'";
}

// Lower case with the spaces after commas, pluses and equals signs removed: a
// rough "same DN, spelt differently" test for diagnosis only.
std::string LooseDn(std::string_view dn) {
  std::string out;
  for (size_t i = 0; i < dn.size(); ++i) {
    if (dn[i] == ' ' && !out.empty() &&
        (out.back() == ',' || out.back() == '+' || out.back() == '=')) {
      continue;
    }
    out.push_back(dn[i]);
  }
  return AsciiLowerCopy(out);
}

std::string CompareEntry(size_t index, const ldif::Record& got, const ldif::Record& want,
                         const CompareOptions& o) {
  std::string where = "entry #" + std::to_string(index + 1) + " ";
  if (got.dn() != want.dn()) {
    std::string kind = LooseDn(got.dn()) == LooseDn(want.dn())
                           ? "DN spelt differently (case or spaces)"
                           : "different DN";
    return where + kind + ": dirload " + Quote(got.dn()) + ", expected " + Quote(want.dn());
  }
  std::vector<Line> g = Lines(got, o);
  std::vector<Line> w = Lines(want, o);
  if (g == w) return "";
  where += Quote(got.dn()) + ": ";
  if (Grouped(g) == w) {
    return where +
           "same attribute values, different order (expected groups the values of each "
           "attribute together)";
  }
  std::vector<Line> gs = g, ws = w;
  for (Line& l : gs) l.first = SortedOptions(l.first);
  for (Line& l : ws) l.first = SortedOptions(l.first);
  if (Grouped(gs) == Grouped(ws) || gs == ws) {
    return where + "same values, attribute options in a different order";
  }
  std::vector<Line> g_sorted = g, w_sorted = w;
  std::sort(g_sorted.begin(), g_sorted.end());
  std::sort(w_sorted.begin(), w_sorted.end());
  std::string kind = g_sorted == w_sorted ? "same lines in a different order; " : "";
  size_t i = 0;
  while (i < g.size() && i < w.size() && g[i] == w[i]) ++i;
  std::string got_line = i < g.size() ? Quote(g[i].first + ": " + g[i].second) : "(none)";
  std::string want_line = i < w.size() ? Quote(w[i].first + ": " + w[i].second) : "(none)";
  return where + kind + "attribute line " + std::to_string(i + 1) + ": dirload " + got_line +
         ", expected " + want_line + " (" + std::to_string(g.size()) + " vs " +
         std::to_string(w.size()) + " lines)";
}

// The DN after its first RDN (empty for a one-RDN DN), honouring backslash
// escapes: the parent of "cn=a\, b,dc=x" is "dc=x".
std::string_view ParentDn(std::string_view dn) {
  for (size_t i = 0; i < dn.size(); ++i) {
    if (dn[i] == '\\') {
      ++i;
    } else if (dn[i] == ',' || dn[i] == ';') {
      size_t start = i + 1;
      while (start < dn.size() && dn[start] == ' ') ++start;
      return dn.substr(start);
    }
  }
  return {};
}

}  // namespace

std::vector<ldif::Record> WithoutOrphans(const std::vector<ldif::Record>& records,
                                         std::string_view suffix) {
  std::vector<ldif::Record> out;
  std::unordered_set<std::string> kept;
  std::string root = LooseDn(suffix);
  for (const ldif::Record& r : records) {
    std::string dn = LooseDn(r.dn());
    std::string parent = LooseDn(ParentDn(r.dn()));
    // Under the empty suffix (the root DSE) a top-level entry has no parent
    // to wait for.
    bool top = root.empty() && parent.empty();
    if (dn == root || top || kept.count(parent) != 0) {
      kept.insert(std::move(dn));
      out.push_back(r);
    }
  }
  return out;
}

LdifFile ReadLdifFile(const std::string& path) {
  Result<std::unique_ptr<ldif::ByteSource>> source = ldif::OpenByteSource(path);
  if (!source.ok()) {
    LdifFile out;
    out.error = source.status().message();
    return out;
  }
  return ReadAll(std::move(*source));
}

LdifFile ReadLdifText(std::string text, std::string name) {
  return ReadAll(ldif::MemoryByteSource(std::move(text), std::move(name)));
}

std::vector<std::string> Dns(const std::vector<ldif::Record>& records) {
  std::vector<std::string> out;
  for (const ldif::Record& r : records) out.emplace_back(r.dn());
  return out;
}

std::string CompareRecords(const std::vector<ldif::Record>& got,
                           const std::vector<ldif::Record>& want, const CompareOptions& o) {
  // Entries are matched by a loose DN first so that a DN spelt differently is
  // reported as such (by CompareEntry) rather than as one missing entry and
  // one extra.
  std::vector<std::string> gd, wd;
  for (const ldif::Record& r : got) gd.push_back(LooseDn(r.dn()));
  for (const ldif::Record& r : want) wd.push_back(LooseDn(r.dn()));
  std::vector<std::string> gs = gd, ws = wd;
  std::sort(gs.begin(), gs.end());
  std::sort(ws.begin(), ws.end());
  if (gs != ws) {
    std::vector<std::string> missing, extra;
    std::set_difference(ws.begin(), ws.end(), gs.begin(), gs.end(), std::back_inserter(missing));
    std::set_difference(gs.begin(), gs.end(), ws.begin(), ws.end(), std::back_inserter(extra));
    std::string s = "dirload has " + std::to_string(got.size()) + " entries, expected " +
                    std::to_string(want.size());
    auto list = [](const std::vector<std::string>& v) {
      std::string out;
      for (size_t i = 0; i < v.size() && i < 4; ++i) out += (i ? ", " : "") + Quote(v[i]);
      if (v.size() > 4) out += ", ...";
      return out;
    };
    if (!missing.empty()) s += "; missing " + list(missing);
    if (!extra.empty()) s += "; not expected " + list(extra);
    return s;
  }
  if (gd != wd) {
    size_t i = 0;
    while (gd[i] == wd[i]) ++i;
    return "same entries in a different order: at entry #" + std::to_string(i + 1) +
           " dirload has " + Quote(got[i].dn()) + ", expected " + Quote(want[i].dn());
  }
  if (o.entries_only) return "";
  for (size_t i = 0; i < got.size(); ++i) {
    std::string d = CompareEntry(i, got[i], want[i], o);
    if (!d.empty()) return d;
  }
  return "";
}

}  // namespace dirload::testing
