#include "lib/schema/x509_name.h"

#include <algorithm>
#include <cstdint>

#include "lib/util/ascii.h"

namespace dirload {
namespace {

// Identifier octets as one number, the way the first bytes of the element
// are written: 0x30 SEQUENCE, 0x31 SET, 0xA0 [0] constructed.
constexpr uint32_t kInteger = 0x02;
constexpr uint32_t kBitString = 0x03;
constexpr uint32_t kOid = 0x06;
constexpr uint32_t kUtf8String = 0x0c;
constexpr uint32_t kPrintableString = 0x13;
constexpr uint32_t kTeletexString = 0x14;
constexpr uint32_t kIa5String = 0x16;
constexpr uint32_t kUniversalString = 0x1c;
constexpr uint32_t kBmpString = 0x1e;
constexpr uint32_t kSequence = 0x30;
constexpr uint32_t kSet = 0x31;
constexpr uint32_t kExplicitVersion = 0xa0;

Status Malformed(std::string_view what) {
  return Status::InvalidArgument("not an X.509 certificate: " + std::string(what));
}

// Reads DER elements from a byte range. Each read checks every byte it
// touches against the end of the range.
class DerReader {
 public:
  explicit DerReader(std::string_view data) : data_(data) {}

  bool AtEnd() const { return pos_ >= data_.size(); }

  // The identifier of the next element without consuming it.
  Status PeekTag(uint32_t* tag) const {
    size_t p = pos_;
    return ReadTag(&p, tag);
  }

  // Reads an element's identifier and length. *length is the declared
  // length, not checked against the range.
  Status ReadHeader(uint32_t* tag, size_t* length) {
    size_t p = pos_;
    DIRLOAD_RETURN_IF_ERROR(ReadTag(&p, tag));
    if (p >= data_.size()) return Malformed("element without a length");
    const uint8_t first = Byte(p++);
    if (first < 0x80) {
      *length = first;
    } else {
      const size_t n = first & 0x7f;
      // 0x80 is BER's indefinite length, which DER has not; more than four
      // length bytes describe more than a value can hold.
      if (n == 0 || n > 4) return Malformed("unsupported length encoding");
      if (data_.size() - p < n) return Malformed("truncated length");
      size_t len = 0;
      for (size_t i = 0; i < n; ++i) len = len << 8 | Byte(p++);
      *length = len;
    }
    pos_ = p;
    return Status::Ok();
  }

  // Reads a whole element, which must lie within the range, and views its
  // content. `expected` 0 accepts any tag.
  Status ReadElement(uint32_t expected, std::string_view what, uint32_t* tag,
                     std::string_view* content) {
    size_t length = 0;
    DIRLOAD_RETURN_IF_ERROR(ReadHeader(tag, &length));
    if (expected != 0 && *tag != expected) return Malformed(std::string(what) + " has a wrong tag");
    if (length > data_.size() - pos_) return Malformed(std::string(what) + " is truncated");
    *content = data_.substr(pos_, length);
    pos_ += length;
    return Status::Ok();
  }

  Status ReadElement(uint32_t expected, std::string_view what, std::string_view* content) {
    uint32_t tag = 0;
    return ReadElement(expected, what, &tag, content);
  }

 private:
  uint8_t Byte(size_t p) const { return static_cast<uint8_t>(data_[p]); }

  // Identifier octets, high-tag-number form included (at most four bytes).
  Status ReadTag(size_t* p, uint32_t* tag) const {
    if (*p >= data_.size()) return Malformed("missing element");
    uint32_t t = Byte((*p)++);
    if ((t & 0x1f) == 0x1f) {
      for (int n = 1;; ++n) {
        if (n > 3) return Malformed("tag number too large");
        if (*p >= data_.size()) return Malformed("truncated tag");
        const uint8_t b = Byte((*p)++);
        t = t << 8 | b;
        if ((b & 0x80) == 0) break;
      }
    }
    *tag = t;
    return Status::Ok();
  }

  std::string_view data_;
  size_t pos_ = 0;
};

// Dotted decimal of an OBJECT IDENTIFIER's content bytes.
Status DecodeOid(std::string_view content, std::string* out) {
  out->clear();
  if (content.empty()) return Malformed("empty attribute type OID");
  uint64_t value = 0;
  bool first = true;
  for (size_t i = 0; i < content.size(); ++i) {
    const uint8_t b = static_cast<uint8_t>(content[i]);
    if (value > (UINT64_MAX >> 7)) return Malformed("attribute type OID arc too large");
    value = value << 7 | (b & 0x7f);
    if (b & 0x80) {
      if (i + 1 == content.size()) return Malformed("truncated attribute type OID");
      continue;
    }
    if (first) {
      // The first subidentifier holds two arcs: 40 * X + Y, X at most 2.
      const uint64_t x = value < 80 ? value / 40 : 2;
      out->append(std::to_string(x)).push_back('.');
      out->append(std::to_string(value - 40 * x));
      first = false;
    } else {
      out->push_back('.');
      out->append(std::to_string(value));
    }
    value = 0;
  }
  return Status::Ok();
}

Status AppendUtf8(uint32_t cp, std::string* out) {
  if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
    return Malformed("string value with an invalid character");
  }
  if (cp < 0x80) {
    out->push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out->push_back(static_cast<char>(0xc0 | cp >> 6));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else if (cp < 0x10000) {
    out->push_back(static_cast<char>(0xe0 | cp >> 12));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  } else {
    out->push_back(static_cast<char>(0xf0 | cp >> 18));
    out->push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
    out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
  }
  return Status::Ok();
}

// Fixed-width big-endian UCS (1: ISO 8859-1, 2: UCS-2, 4: UCS-4) to UTF-8.
Status UcsToUtf8(std::string_view v, size_t width, std::string* out) {
  if (v.size() % width != 0) return Malformed("string value of an odd length");
  out->clear();
  for (size_t i = 0; i < v.size(); i += width) {
    uint32_t cp = 0;
    for (size_t k = 0; k < width; ++k) cp = cp << 8 | static_cast<uint8_t>(v[i + k]);
    DIRLOAD_RETURN_IF_ERROR(AppendUtf8(cp, out));
  }
  return Status::Ok();
}

// A BIT STRING's content as an RFC 4517 bit string, '0101'B. A count of
// unused bits above 7, or above the bits there are, is repaired the way
// slapd repairs it rather than refused.
void BitStringToText(std::string_view v, std::string* out) {
  size_t padding = 0, bytes = v.size();
  const char* p = v.data();
  if (bytes > 0) {
    padding = static_cast<uint8_t>(*p++);
    --bytes;
  }
  if (padding >= 8) {
    if (bytes * 8 > padding) {
      bytes -= padding / 8;
      padding %= 8;
    } else {
      bytes = 0;
      padding = 0;
    }
  }
  if (bytes * 8 < padding) bytes = padding = 0;
  out->clear();
  out->push_back('\'');
  for (size_t i = 0; i < bytes; ++i) {
    const size_t bits = i + 1 == bytes ? 8 - padding : 8;
    const uint8_t b = static_cast<uint8_t>(p[i]);
    for (size_t k = 0; k < bits; ++k) out->push_back((b << k & 0x80) ? '1' : '0');
  }
  out->append("'B");
}

Status ValueToString(uint32_t tag, std::string_view v, std::string* out) {
  switch (tag) {
    case kUtf8String:
    case kPrintableString:
    case kIa5String:
      out->assign(v);
      return Status::Ok();
    case kTeletexString:
      return UcsToUtf8(v, 1, out);
    case kBmpString:
      return UcsToUtf8(v, 2, out);
    case kUniversalString:
      return UcsToUtf8(v, 4, out);
    case kBitString:
      BitStringToText(v, out);
      return Status::Ok();
    default:
      // Not a string type: slapd takes the content bytes as the value.
      out->assign(v);
      return Status::Ok();
  }
}

}  // namespace

Status ParseCertificateFields(std::string_view der, CertificateFields* out) {
  DerReader r(der);
  uint32_t tag = 0;
  size_t length = 0;
  // Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signature }.
  // Only the headers: slapd reads no further than the issuer, so neither do
  // these lengths have to cover the whole value.
  DIRLOAD_RETURN_IF_ERROR(r.ReadHeader(&tag, &length));
  if (tag != kSequence) return Malformed("not a SEQUENCE");
  DIRLOAD_RETURN_IF_ERROR(r.ReadHeader(&tag, &length));
  if (tag != kSequence) return Malformed("TBSCertificate is not a SEQUENCE");
  DIRLOAD_RETURN_IF_ERROR(r.PeekTag(&tag));
  std::string_view content;
  if (tag == kExplicitVersion) {
    DIRLOAD_RETURN_IF_ERROR(r.ReadElement(kExplicitVersion, "version", &content));
    DerReader version(content);
    std::string_view number;
    DIRLOAD_RETURN_IF_ERROR(version.ReadElement(kInteger, "version", &number));
  }
  DIRLOAD_RETURN_IF_ERROR(r.ReadElement(kInteger, "serialNumber", &out->serial));
  DIRLOAD_RETURN_IF_ERROR(r.ReadElement(kSequence, "signature algorithm", &content));
  DIRLOAD_RETURN_IF_ERROR(r.ReadElement(kSequence, "issuer", &out->issuer));
  return Status::Ok();
}

Status FormatCertificateSerial(std::string_view v, std::string* out) {
  auto byte = [&v](size_t i) { return static_cast<uint8_t>(v[i]); };
  if (v.size() > 1) {
    // DER integers are minimal: nine leading one or zero bits are one too many.
    if ((byte(0) == 0xff && (byte(1) & 0x80)) || (byte(0) == 0 && !(byte(1) & 0x80))) {
      return Malformed("serialNumber is not minimally encoded");
    }
    if (byte(0) == 0) v.remove_prefix(1);
  }
  out->clear();
  out->push_back('\'');
  if (v.empty()) {
    out->push_back('0');
  } else {
    if (byte(0) >= 0x10) out->push_back(kUpperHexDigits[byte(0) >> 4]);
    out->push_back(kUpperHexDigits[byte(0) & 0xf]);
    for (size_t i = 1; i < v.size(); ++i) {
      AppendHexByte(byte(i), out, kUpperHexDigits);
    }
  }
  out->append("'H");
  return Status::Ok();
}

Result<Dn> X509NameToDn(std::string_view name_content) {
  Dn dn;
  DerReader names(name_content);
  while (!names.AtEnd()) {
    std::string_view set;
    DIRLOAD_RETURN_IF_ERROR(names.ReadElement(kSet, "issuer RDN", &set));
    Rdn rdn;
    DerReader avas(set);
    while (!avas.AtEnd()) {
      std::string_view seq, oid, value;
      uint32_t tag = 0;
      DIRLOAD_RETURN_IF_ERROR(avas.ReadElement(kSequence, "issuer AVA", &seq));
      DerReader ava(seq);
      DIRLOAD_RETURN_IF_ERROR(ava.ReadElement(kOid, "issuer attribute type", &oid));
      DIRLOAD_RETURN_IF_ERROR(ava.ReadElement(0, "issuer attribute value", &tag, &value));
      Ava a;
      DIRLOAD_RETURN_IF_ERROR(DecodeOid(oid, &a.type));
      DIRLOAD_RETURN_IF_ERROR(ValueToString(tag, value, &a.value));
      rdn.push_back(std::move(a));
    }
    if (!rdn.empty()) dn.rdns.push_back(std::move(rdn));
  }
  if (dn.rdns.empty() && !name_content.empty()) return Malformed("issuer of empty RDNs");
  // X.509 lists the most significant RDN first, LDAP last.
  std::reverse(dn.rdns.begin(), dn.rdns.end());
  return dn;
}

Status NormalizeCertificateExact(const Schema& schema, std::string_view der, std::string* out) {
  CertificateFields fields;
  DIRLOAD_RETURN_IF_ERROR(ParseCertificateFields(der, &fields));
  std::string serial;
  DIRLOAD_RETURN_IF_ERROR(FormatCertificateSerial(fields.serial, &serial));
  DIRLOAD_ASSIGN_OR_RETURN(Dn issuer, X509NameToDn(fields.issuer));
  std::string dn;
  Status st = NormalizeDn(schema, issuer, &dn);
  if (!st.ok()) return st.WithPrefix("certificate issuer: ");
  out->assign("{ serialNumber ");
  out->append(serial);
  out->append(", issuer rdnSequence:\"");
  // slapd writes the issuer without LDAP_DN_PRETTY: the bytes of multi-byte
  // characters are escaped too. Every other escape NormalizeDn already made.
  for (char c : dn) {
    const auto b = static_cast<uint8_t>(c);
    if (b >= 0x80) {
      out->push_back('\\');
      AppendHexByte(b, out, kUpperHexDigits);
    } else {
      out->push_back(c);
    }
  }
  out->append("\" }");
  return Status::Ok();
}

}  // namespace dirload
