#include "lib/compare/entry_diff.h"

#include <algorithm>
#include <iterator>

namespace dirload {

std::vector<AttributeDifference> DiffEntries(const CanonicalEntry& a, const CanonicalEntry& b) {
  std::vector<AttributeDifference> out;
  static const std::vector<std::string> kNone;
  auto ia = a.attributes.begin(), ib = b.attributes.begin();
  while (ia != a.attributes.end() || ib != b.attributes.end()) {
    const bool take_a = ib == b.attributes.end() ||
                        (ia != a.attributes.end() && ia->description <= ib->description);
    const bool take_b = ia == a.attributes.end() ||
                        (ib != b.attributes.end() && ib->description <= ia->description);
    const std::vector<std::string>& va = take_a ? ia->sorted : kNone;
    const std::vector<std::string>& vb = take_b ? ib->sorted : kNone;
    if (va != vb) {
      AttributeDifference d;
      d.description = take_a ? ia->description : ib->description;
      d.in_a = take_a;
      d.in_b = take_b;
      std::set_difference(va.begin(), va.end(), vb.begin(), vb.end(), std::back_inserter(d.only_a));
      std::set_difference(vb.begin(), vb.end(), va.begin(), va.end(), std::back_inserter(d.only_b));
      out.push_back(std::move(d));
    }
    if (take_a) ++ia;
    if (take_b) ++ib;
  }
  return out;
}

void DeleteRecord(const CanonicalEntry& a, ldif::Record* out) {
  out->Clear();
  out->SetDn(a.dn);
  out->SetChangetype("delete");
}

void AddRecord(const CanonicalEntry& b, ldif::Record* out) {
  out->Clear();
  out->SetDn(b.dn);
  out->SetChangetype("add");
  // objectClass first, as people and ldapadd expect to read it.
  for (int pass = 0; pass < 2; ++pass) {
    for (const CanonicalAttribute& attr : b.attributes) {
      if ((attr.description == "objectClass") != (pass == 0)) continue;
      for (const std::string& v : attr.values) out->Add(attr.description, v);
    }
  }
}

void ModifyRecord(const CanonicalEntry& a, const CanonicalEntry& b,
                  const std::vector<AttributeDifference>& differences, ldif::Record* out) {
  out->Clear();
  // A's spelling of the name: the record applies to A, and both normalize
  // alike.
  out->SetDn(a.dn);
  out->SetChangetype("modify");
  for (const AttributeDifference& d : differences) {
    const CanonicalAttribute* vb = b.Find(d.description);
    if (vb == nullptr) {
      out->Add("delete", d.description);
    } else {
      out->Add("replace", d.description);
      for (const std::string& v : vb->values) out->Add(d.description, v);
    }
    out->Add("-", "");
  }
}

}  // namespace dirload
