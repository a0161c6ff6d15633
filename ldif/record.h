// ldif::Record: one LDIF record as read from input or about to be written.
//
// A record owns one contiguous byte buffer holding the DN and every attribute
// description and value, with small (offset, length) spans pointing into it.
// The reader puts the record's text there as read and points into it; what
// it decodes or unfolds follows.
// Clear() keeps the capacity, so a reader that reuses one Record allocates
// nothing per record in the steady state.
//
// Thread safety: a value type; no internal synchronisation.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dirload::ldif {

enum class RecordKind {
  kContent,  // dn + attribute values (what a bulk loader takes)
  kChange,   // has a changetype: line (add, delete, modify, moddn, modrdn)
};

struct AttributeView {
  std::string_view description;  // type plus options, as written ("cn;lang-en")
  std::string_view value;        // decoded bytes (base64 and file: URLs resolved)
};

class Record {
 public:
  void Clear();

  void SetDn(std::string_view dn);
  void Add(std::string_view description, std::string_view value);

  std::string_view dn() const { return View(dn_); }
  size_t size() const { return attrs_.size(); }
  bool empty() const { return attrs_.empty(); }
  AttributeView attribute(size_t i) const {
    return {View(attrs_[i].description), View(attrs_[i].value)};
  }

  RecordKind kind() const { return kind_; }
  // For change records: the changetype value as written ("modify"); for a
  // change record the attribute list holds the remaining lines in order,
  // with "-" separators kept as description "-" and an empty value.
  std::string_view changetype() const { return View(changetype_); }
  void SetChangetype(std::string_view type);

  // Where the record starts in its input: 1-based line number and byte offset
  // (of the uncompressed stream). Zero for records built in memory.
  uint64_t line() const { return line_; }
  // The line of the DN and of attribute i's first physical line (comments and
  // folding make them differ from line() plus an index). line() when unknown.
  uint64_t dn_line() const { return line_ + dn_line_delta_; }
  uint64_t line_of(size_t i) const { return line_ + attrs_[i].line_delta; }
  uint64_t offset() const { return offset_; }
  void SetPosition(uint64_t line, uint64_t offset) {
    line_ = line;
    offset_ = offset;
  }

  // Bytes the buffer holds: DN, descriptions and values, and for a record
  // the reader made, its text as read.
  size_t byte_size() const { return buf_.size(); }

  // Content equality: DN, kind, changetype and the attribute list in order.
  // Positions are not compared.
  bool operator==(const Record& other) const;

  // Low-level building used by the reader: reserve bytes in the buffer and
  // return their offset, then attach spans. Keeps values contiguous without
  // an intermediate copy.
  struct Span {
    uint32_t offset = 0;
    uint32_t length = 0;
  };
  Span Append(std::string_view bytes);
  // `line`: where the value's line starts in the input, 0 when unknown.
  // REQUIRES: SetPosition was called first when `line` is given.
  void AddSpans(Span description, Span value, uint64_t line = 0) {
    attrs_.push_back({description, value, LineDelta(line)});
  }
  void SetDnSpan(Span dn, uint64_t line = 0) {
    dn_ = dn;
    dn_line_delta_ = LineDelta(line);
  }
  std::string& buffer() { return buf_; }

 private:
  struct Attr {
    Span description;
    Span value;
    uint32_t line_delta = 0;  // line_of() - line()
  };
  uint32_t LineDelta(uint64_t line) const {
    return line > line_ ? static_cast<uint32_t>(line - line_) : 0;
  }
  std::string_view View(Span s) const { return std::string_view(buf_.data() + s.offset, s.length); }

  std::string buf_;
  Span dn_;
  Span changetype_;
  std::vector<Attr> attrs_;
  RecordKind kind_ = RecordKind::kContent;
  uint64_t line_ = 0;
  uint64_t offset_ = 0;
  uint32_t dn_line_delta_ = 0;
};

}  // namespace dirload::ldif
