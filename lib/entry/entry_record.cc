#include "lib/entry/entry_record.h"

#include <string>

namespace dirload {

Status EntryToRecord(const EntryView& entry, const AttributeDictionary& dictionary,
                     ldif::Record* record) {
  record->Clear();
  record->SetDn(entry.dn);
  for (const ValueRef& v : entry.values) {
    if (v.description >= dictionary.size()) {
      return Status::Corruption("id2entry: entry '" + std::string(entry.dn) +
                                "' names an unknown attribute description id");
    }
    record->Add(dictionary.Name(v.description), v.value);
  }
  return Status::Ok();
}

}  // namespace dirload
