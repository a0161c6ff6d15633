#include "ldif/reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>

#include "ldif/base64.h"
#include "lib/util/ascii.h"

namespace dirload::ldif {
namespace {

constexpr bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// The characters of a description's name, OID or option parts (letters,
// digits, '-', '.', '_'), by byte: every line of the input is checked.
constexpr std::array<bool, 256> kDescriptionChars = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c) {
    t[c] = IsAlnum(static_cast<char>(c)) || c == '-' || c == '.' || c == '_';
  }
  return t;
}();

// RFC 2849 AttributeDescription: a name (letter first, then letters, digits,
// '-') or a numeric OID, followed by ";option" parts of the same characters.
bool ValidDescription(std::string_view d) {
  // RFC 2849: the type is a name (a letter first) or an OID (a digit first);
  // only options may start with '-'. A lone "-" is a modify record's
  // separator, never a description.
  if (d.empty() || !IsAlnum(d[0])) return false;
  // Most descriptions have no options: one pass over plain characters.
  size_t plain = 1;
  while (plain < d.size() && kDescriptionChars[static_cast<unsigned char>(d[plain])]) ++plain;
  if (plain == d.size()) return true;
  if (d[plain] != ';') return false;
  bool at_start = false;  // within a part: the type before the first ';' is not empty
  for (char c : d.substr(plain)) {
    if (c == ';') {
      if (at_start) return false;
      at_start = true;
      continue;
    }
    if (!kDescriptionChars[static_cast<unsigned char>(c)]) return false;
    at_start = false;
  }
  return !at_start;
}

std::string Printable(std::string_view s, size_t max = 40) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < max; ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      AppendHexByte(c, &out);
    } else {
      out += static_cast<char>(c);
    }
  }
  if (s.size() > max) out += "...";
  return out;
}

// file:///abs/path or file://localhost/abs/path, percent-decoded; a path
// without a leading '/' (file:rel or file://rel is not standard) resolves
// against `base`.
Result<std::string> FileUrlPath(std::string_view url, const std::string& base) {
  std::string_view scheme_end = url.substr(0, url.find(':'));
  if (scheme_end.size() == url.size() || !EqualsIgnoreCase(scheme_end, "file")) {
    std::string scheme =
        url.find(':') == std::string_view::npos ? std::string(url) : std::string(scheme_end);
    return Status::Unsupported("unsupported URL '" + Printable(url, 80) +
                               "' (only file:// URLs are read)");
  }
  std::string_view rest = url.substr(5);
  if (rest.substr(0, 2) == "//") {
    rest.remove_prefix(2);
    size_t slash = rest.find('/');
    std::string_view host = rest.substr(0, slash);
    if (!host.empty() && !EqualsIgnoreCase(host, "localhost")) {
      return Status::Unsupported("file URL '" + Printable(url, 80) +
                                 "' names a remote host; only local files are read");
    }
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash);
  }
  std::string path;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '%' && i + 2 < rest.size() + 0 && HexDigitValue(rest[i + 1]) >= 0 &&
        HexDigitValue(rest[i + 2]) >= 0) {
      path += static_cast<char>(HexDigitValue(rest[i + 1]) * 16 + HexDigitValue(rest[i + 2]));
      i += 2;
    } else {
      path += rest[i];
    }
  }
  if (path.empty())
    return Status::InvalidArgument("file URL '" + Printable(url, 80) + "' has no path");
  if (path[0] != '/' && !base.empty()) path = base + "/" + path;
  return path;
}

Status ReadWholeFile(const std::string& path, size_t max, std::string* out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::IoError("cannot read '" + path + "': " + std::strerror(errno));
  Status st;
  char buf[65536];
  for (;;) {
    ssize_t r = ::read(fd, buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      st = Status::IoError("cannot read '" + path + "': " + std::strerror(errno));
      break;
    }
    if (r == 0) break;
    if (out->size() + static_cast<size_t>(r) > max) {
      st = Status::ResourceExhausted("'" + path + "' is larger than the maximum record size");
      break;
    }
    out->append(buf, static_cast<size_t>(r));
  }
  ::close(fd);
  return st;
}

}  // namespace

Reader::Reader(std::unique_ptr<ByteSource> source, ReaderOptions options)
    : source_(std::move(source)), options_(std::move(options)) {
  if (options_.block_size < 16) options_.block_size = 16;  // tests use tiny blocks
  // Line offsets within a record are 32-bit.
  options_.max_record_size = std::min<size_t>(options_.max_record_size, UINT32_MAX - 1);
  cap_ = options_.block_size * 2;
  data_ = std::make_unique<char[]>(cap_);
  error_.file = source_->name();
}

Reader::~Reader() = default;

uint64_t Reader::input_offset() const { return source_->input_offset(); }
uint64_t Reader::input_size() const { return source_->input_size(); }
const std::string& Reader::name() const { return included_ ? included_->name() : source_->name(); }

Status Reader::Fill() {
  if (pos_ > 0) {
    std::memmove(data_.get(), data_.get() + pos_, len_ - pos_);
    len_ -= pos_;
    scan_ -= std::min(scan_, pos_);
    consumed_ += pos_;
    pos_ = 0;
  }
  if (cap_ - len_ < options_.block_size) {
    size_t cap = std::max(cap_ * 2, len_ + options_.block_size);
    auto bigger = std::make_unique<char[]>(cap);
    std::memcpy(bigger.get(), data_.get(), len_);
    data_ = std::move(bigger);
    cap_ = cap;
  }
  Result<size_t> r = source_->Read(data_.get() + len_, cap_ - len_);
  if (!r.ok()) return r.status();
  if (*r == 0) eof_ = true;
  len_ += *r;
  return Status::Ok();
}

size_t Reader::FindRecordEnd() {
  const char* d = data_.get();
  size_t i = std::max(scan_, pos_);
  while (i < len_) {
    const void* nl = std::memchr(d + i, '\n', len_ - i);
    if (nl == nullptr) break;
    size_t p = static_cast<const char*>(nl) - d;
    // Need up to two bytes after the newline to see whether a blank line follows.
    if (p + 1 >= len_ || (d[p + 1] == '\r' && p + 2 >= len_)) {
      if (eof_) {
        return len_;
      }
      scan_ = p;
      return 0;
    }
    if (d[p + 1] == '\n' || (d[p + 1] == '\r' && d[p + 2] == '\n')) return p + 1;
    i = p + 1;
  }
  scan_ = len_;
  return eof_ ? len_ : 0;
}

size_t Reader::ScanRecord() {
  line_ends_.clear();
  include_line_ = false;
  const char* d = data_.get();
  size_t i = pos_;
  // Only comments so far: an `include:` line may still open the record.
  bool only_comments = true, in_comment = false;
  auto opens_include = [&](size_t line_end) {
    if (!only_comments) return false;
    std::string_view line(d + i, line_end - i);
    if (!line.empty() && line[0] == '#') {
      in_comment = true;
      return false;
    }
    if (!line.empty() && line[0] == ' ' && in_comment) return false;
    only_comments = false;
    return line.size() >= 8 && EqualsIgnoreCase(line.substr(0, 8), "include:");
  };
  for (;;) {
    const void* nl = std::memchr(d + i, '\n', len_ - i);
    if (nl == nullptr) {
      if (!eof_) return 0;
      if (i < len_) {
        line_ends_.push_back(static_cast<uint32_t>(len_ - pos_));
        include_line_ = opens_include(len_);
      }
      return len_;
    }
    size_t p = static_cast<const char*>(nl) - d;
    if (p - pos_ > options_.max_record_size) return 0;  // the caller sees the size
    line_ends_.push_back(static_cast<uint32_t>(p - pos_));
    if (opens_include(p)) {
      include_line_ = true;
      return p + 1;
    }
    // Up to two bytes after the newline tell whether a blank line follows.
    if (p + 1 >= len_) return eof_ ? len_ : 0;
    if (d[p + 1] == '\r' && p + 2 >= len_) return eof_ ? p + 1 : 0;
    if (d[p + 1] == '\n' || (d[p + 1] == '\r' && d[p + 2] == '\n')) return p + 1;
    i = p + 1;
  }
}

Status Reader::RecordError(uint64_t line, std::string what) {
  error_.record_line = record_line_;
  error_.line = line;
  error_.what = std::move(what);
  error_.fatal = false;
  error_.text.clear();
  std::string msg = error_.file + ":" + std::to_string(line) + ": " + error_.what;
  if (record_line_ != line)
    msg += " (record starting at line " + std::to_string(record_line_) + ")";
  return Status::ParseError(std::move(msg)).WithOrigin(ErrorOrigin::kInput);
}

Result<bool> Reader::Next(Record* record) {
  if (!fatal_.ok()) return fatal_;
  record->Clear();
  auto fatal = [&](Status s) -> Result<bool> {
    fatal_ = s;
    error_.record_line = line_;
    error_.line = line_;
    error_.what = s.message();
    error_.fatal = true;
    return s;
  };
  for (;;) {
    if (included_) {
      Result<bool> got = included_->Next(record);
      if (!got.ok()) {
        error_ = included_->last_error();
        return got;
      }
      if (*got) return true;
      included_.reset();
      continue;
    }
    // Blank lines between records.
    while (true) {
      if (pos_ >= len_ || (data_[pos_] == '\r' && pos_ + 1 >= len_)) {
        if (eof_) {
          if (pos_ < len_) {  // a lone CR at the very end
            record_line_ = line_;
            pos_ = len_;
            return RecordError(line_, "stray carriage return at end of input");
          }
          return false;
        }
        Status st = Fill();
        if (!st.ok()) return fatal(st);
        continue;
      }
      if (data_[pos_] == '\n') {
        ++pos_;
        ++line_;
      } else if (data_[pos_] == '\r' && data_[pos_ + 1] == '\n') {
        pos_ += 2;
        ++line_;
      } else {
        break;
      }
    }
    size_t end = ScanRecord();
    while (end == 0) {
      if (len_ - pos_ > options_.max_record_size) return SkipOversizedRecord();
      Status st = Fill();
      if (!st.ok()) return fatal(st);
      end = ScanRecord();
    }
    if (end - pos_ > options_.max_record_size) return SkipOversizedRecord();

    std::string_view text(data_.get() + pos_, end - pos_);
    record_line_ = line_;
    if (include_line_) {
      Status st = OpenInclude(text);
      pos_ = end;
      scan_ = end;
      line_ += line_ends_.size();
      first_record_ = false;
      if (!st.ok()) return st;
      continue;
    }
    record->SetPosition(line_, consumed_ + pos_);
    Status st = ParseRecord(text, record);
    pos_ = end;
    scan_ = end;
    line_ += line_ends_.size();
    // Comments may precede the version line; anything else ends the chance.
    if (expect_ != Expect::kVersionOrDn) first_record_ = false;
    if (!st.ok()) {
      error_.text.assign(text);
      record->Clear();
      return st;
    }
    // A block of comments alone, or the version line alone, is not a record.
    if (expect_ == Expect::kVersionOrDn || expect_ == Expect::kDn) continue;
    return true;
  }
}

Status Reader::OpenInclude(std::string_view text) {
  size_t n = line_ends_.size();
  size_t begin = n >= 2 ? line_ends_[n - 2] + 1 : 0;
  std::string_view line = text.substr(begin, line_ends_[n - 1] - begin);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::string_view url = line.substr(8);
  while (!url.empty() && (url.front() == ' ' || url.front() == '\t')) url.remove_prefix(1);
  while (!url.empty() && (url.back() == ' ' || url.back() == '\t')) url.remove_suffix(1);
  uint64_t line_no = record_line_ + n - 1;
  Result<std::string> path = FileUrlPath(url, options_.url_base_dir);
  if (!path.ok()) return RecordError(line_no, "include: " + path.status().message());
  Result<std::unique_ptr<ByteSource>> source = OpenByteSource(*path);
  if (!source.ok()) return RecordError(line_no, "include: " + source.status().message());
  included_ = std::make_unique<Reader>(std::move(*source), options_);
  return Status::Ok();
}

Result<bool> Reader::SkipOversizedRecord() {
  record_line_ = line_;
  uint64_t start_line = line_;
  // Discard input up to the next blank line, counting lines as we go.
  for (;;) {
    size_t end = FindRecordEnd();
    if (end != 0) {
      for (size_t i = pos_; i < end; ++i) line_ += data_[i] == '\n';
      pos_ = end;
      scan_ = end;
      break;
    }
    // Keep the last two bytes: a blank line may straddle the refill.
    size_t keep_from = len_ > pos_ + 2 ? len_ - 2 : pos_;
    for (size_t i = pos_; i < keep_from; ++i) line_ += data_[i] == '\n';
    pos_ = keep_from;
    Status st = Fill();
    if (!st.ok()) {
      fatal_ = st;
      error_.fatal = true;
      return st;
    }
  }
  first_record_ = false;
  return RecordError(start_line, "record is larger than the maximum record size of " +
                                     std::to_string(options_.max_record_size) + " bytes");
}

Status Reader::ParseRecord(std::string_view text, Record* record) {
  expect_ = first_record_ ? Expect::kVersionOrDn : Expect::kDn;
  scratch_.clear();
  auto line_of_offset = [&](size_t at) {
    return record_line_ +
           (std::lower_bound(line_ends_.begin(), line_ends_.end(), at) - line_ends_.begin());
  };
  if (const void* nul = std::memchr(text.data(), '\0', text.size())) {
    return RecordError(line_of_offset(static_cast<const char*>(nul) - text.data()),
                       "NUL byte in input (LDIF cannot hold raw NUL bytes; use base64)");
  }
  // Most files have no CR at all; only those that do pay for the per-line check.
  const bool has_cr = std::memchr(text.data(), '\r', text.size()) != nullptr;
  // Keep() answers from `text` only while it is parsed.
  struct Forget {
    std::string_view* text;
    ~Forget() { *text = {}; }
  } forget{&kept_text_};
  if (text.size() <= kKeptTextBytes) {
    // Larger records are mostly one big value, often base64: a copy of the
    // text would double what they hold.
    kept_at_ = static_cast<uint32_t>(record->buffer().size());
    record->buffer().append(text);
    kept_text_ = text;
  }

  uint64_t ln = record_line_;
  std::string_view current;  // the logical line being assembled
  uint64_t current_line = 0;
  bool have_current = false, current_is_comment = false, current_folded = false;

  auto flush = [&]() -> Status {
    if (!have_current || current_is_comment) return Status::Ok();
    std::string_view l = current_folded ? std::string_view(scratch_) : current;
    return ParseLogicalLine(l, current_line, record);
  };

  size_t start = 0;
  for (uint32_t e : line_ends_) {
    std::string_view line = text.substr(start, e - start);
    start = e + 1;
    if (has_cr) {
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find('\r') != std::string_view::npos) {
        return RecordError(ln, "carriage return inside a line");
      }
    }
    if (!line.empty() && line[0] == ' ') {
      if (!have_current) return RecordError(ln, "continuation line with no line before it");
      if (!current_is_comment) {
        if (!current_folded) {
          scratch_.assign(current);
          current_folded = true;
        }
        scratch_.append(line.substr(1));
      }
    } else {
      DIRLOAD_RETURN_IF_ERROR(flush());
      have_current = true;
      current_is_comment = !line.empty() && line[0] == '#';
      current_folded = false;
      current = line;
      current_line = ln;
    }
    ++ln;
  }
  DIRLOAD_RETURN_IF_ERROR(flush());
  if (expect_ == Expect::kControlOrChangetype) {
    if (record->size() > 0) return RecordError(record_line_, "control without a changetype");
    return RecordError(record_line_, "record has a dn but no attributes");
  }
  return Status::Ok();
}

Status Reader::ParseValue(std::string_view rest, std::string_view description, uint64_t line_no,
                          Record* record, Record::Span* value) {
  std::string& buf = record->buffer();
  if (!rest.empty() && rest[0] == ':') {
    rest.remove_prefix(1);
    while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    size_t at = buf.size();
    Status st = Base64Decode(rest, &buf);
    if (!st.ok()) {
      return RecordError(
          line_no, "bad base64 value for '" + std::string(description) + "': " + st.message());
    }
    *value = {static_cast<uint32_t>(at), static_cast<uint32_t>(buf.size() - at)};
    return Status::Ok();
  }
  if (!rest.empty() && rest[0] == '<') {
    rest.remove_prefix(1);
    while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
    Result<std::string> path = FileUrlPath(rest, options_.url_base_dir);
    if (!path.ok()) {
      return RecordError(line_no,
                         "value of '" + std::string(description) + "': " + path.status().message());
    }
    size_t at = buf.size();
    Status st = ReadWholeFile(*path, options_.max_record_size, &buf);
    if (!st.ok()) {
      buf.resize(at);
      return RecordError(line_no, "value of '" + std::string(description) + "': " + st.message());
    }
    *value = {static_cast<uint32_t>(at), static_cast<uint32_t>(buf.size() - at)};
    return Status::Ok();
  }
  while (!rest.empty() && rest[0] == ' ') rest.remove_prefix(1);
  *value = Keep(rest, record);
  return Status::Ok();
}

Status Reader::ParseLogicalLine(std::string_view line, uint64_t line_no, Record* record) {
  if (expect_ == Expect::kChange && line == "-") {
    record->Add("-", "");
    return Status::Ok();
  }
  size_t colon = line.find(':');
  if (colon == std::string_view::npos) {
    return RecordError(line_no, "missing ':' in line '" + Printable(line) + "'");
  }
  std::string_view desc = line.substr(0, colon);
  std::string_view rest = line.substr(colon + 1);

  switch (expect_) {
    case Expect::kVersionOrDn:
      if (EqualsIgnoreCase(desc, "version")) {
        std::string_view v = rest;
        while (!v.empty() && v[0] == ' ') v.remove_prefix(1);
        if (v != "1") {
          return RecordError(
              line_no, "unsupported LDIF version '" + Printable(v) + "' (only version 1 exists)");
        }
        saw_version_ = true;
        expect_ = Expect::kDn;
        return Status::Ok();
      }
      [[fallthrough]];
    case Expect::kDn: {
      if (!EqualsIgnoreCase(desc, "dn")) {
        // A byte order mark is no part of LDIF; slapadd refuses the file too
        // ("could not parse entry (line=1)"), so it is named, not skipped.
        if (line.starts_with("\xEF\xBB\xBF")) {
          return RecordError(line_no,
                             "the line starts with a UTF-8 byte order mark (bytes EF BB BF), "
                             "which LDIF does not allow and slapadd refuses too; remove it "
                             "(e.g. sed -i '1s/^\\xEF\\xBB\\xBF//' FILE)");
        }
        return RecordError(
            line_no, "expected 'dn:' at the start of a record, found '" + Printable(line) + "'");
      }
      if (!rest.empty() && rest[0] == '<')
        return RecordError(line_no, "a DN cannot be given as a URL");
      Record::Span dn;
      DIRLOAD_RETURN_IF_ERROR(ParseValue(rest, "dn", line_no, record, &dn));
      record->SetDnSpan(dn, line_no);
      expect_ = Expect::kControlOrChangetype;
      return Status::Ok();
    }
    case Expect::kControlOrChangetype:
      if (EqualsIgnoreCase(desc, "control")) {
        Record::Span v;
        DIRLOAD_RETURN_IF_ERROR(ParseValue(rest, desc, line_no, record, &v));
        record->AddSpans(record->Append("control"), v);
        return Status::Ok();
      }
      if (EqualsIgnoreCase(desc, "changetype")) {
        std::string_view t = rest;
        while (!t.empty() && t[0] == ' ') t.remove_prefix(1);
        if (!EqualsIgnoreCase(t, "add") && !EqualsIgnoreCase(t, "delete") &&
            !EqualsIgnoreCase(t, "modify") && !EqualsIgnoreCase(t, "modrdn") &&
            !EqualsIgnoreCase(t, "moddn")) {
          return RecordError(line_no, "unknown changetype '" + Printable(t) + "'");
        }
        record->SetChangetype(t);
        expect_ = Expect::kChange;
        return Status::Ok();
      }
      if (record->size() > 0) return RecordError(line_no, "control without a changetype");
      expect_ = Expect::kContent;
      [[fallthrough]];
    case Expect::kContent:
    case Expect::kChange: {
      if (!ValidDescription(desc)) {
        return RecordError(line_no, "invalid attribute description '" + Printable(desc) + "'");
      }
      Record::Span v;
      DIRLOAD_RETURN_IF_ERROR(ParseValue(rest, desc, line_no, record, &v));
      record->AddSpans(Keep(desc, record), v, line_no);
      return Status::Ok();
    }
  }
  return Status::Internal("unreachable parser state");
}

Record::Span Reader::Keep(std::string_view bytes, Record* record) const {
  // A view of a folded line (scratch_) or of anything else is copied.
  const auto at = reinterpret_cast<uintptr_t>(bytes.data());
  const auto begin = reinterpret_cast<uintptr_t>(kept_text_.data());
  if (kept_text_.empty() || at < begin || at + bytes.size() > begin + kept_text_.size()) {
    return record->Append(bytes);
  }
  return {static_cast<uint32_t>(kept_at_ + (at - begin)), static_cast<uint32_t>(bytes.size())};
}

}  // namespace dirload::ldif
