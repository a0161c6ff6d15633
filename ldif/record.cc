#include "ldif/record.h"

namespace dirload::ldif {

void Record::Clear() {
  buf_.clear();
  attrs_.clear();
  dn_ = {};
  changetype_ = {};
  kind_ = RecordKind::kContent;
  line_ = 0;
  offset_ = 0;
  dn_line_delta_ = 0;
}

Record::Span Record::Append(std::string_view bytes) {
  Span s{static_cast<uint32_t>(buf_.size()), static_cast<uint32_t>(bytes.size())};
  buf_.append(bytes);
  return s;
}

void Record::SetDn(std::string_view dn) { dn_ = Append(dn); }

void Record::Add(std::string_view description, std::string_view value) {
  Span d = Append(description);
  Span v = Append(value);
  attrs_.push_back({d, v});
}

void Record::SetChangetype(std::string_view type) {
  changetype_ = Append(type);
  kind_ = RecordKind::kChange;
}

bool Record::operator==(const Record& other) const {
  if (kind_ != other.kind_ || dn() != other.dn() || changetype() != other.changetype() ||
      attrs_.size() != other.attrs_.size()) {
    return false;
  }
  for (size_t i = 0; i < attrs_.size(); ++i) {
    AttributeView a = attribute(i), b = other.attribute(i);
    if (a.description != b.description || a.value != b.value) return false;
  }
  return true;
}

}  // namespace dirload::ldif
