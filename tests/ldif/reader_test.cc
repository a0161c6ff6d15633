#include "ldif/reader.h"

#include <doctest/doctest.h>
#include <zlib.h>

#include <string>
#include <vector>

#include "tests/support/temp_dir.h"

namespace dirload::ldif {
namespace {

struct Parsed {
  std::vector<Record> records;
  std::vector<ReadError> errors;
  bool saw_version = false;
};

Parsed ParseAll(std::string text, ReaderOptions options = {}) {
  Reader reader(MemoryByteSource(std::move(text), "t.ldif"), options);
  Parsed out;
  Record r;
  for (;;) {
    Result<bool> got = reader.Next(&r);
    if (!got.ok()) {
      out.errors.push_back(reader.last_error());
      if (reader.last_error().fatal) break;
      continue;
    }
    if (!*got) break;
    out.records.push_back(r);
  }
  out.saw_version = reader.saw_version();
  return out;
}

// Parses text expected to hold exactly one good record.
Record One(std::string text) {
  Parsed p = ParseAll(std::move(text));
  REQUIRE(p.errors.empty());
  REQUIRE(p.records.size() == 1);
  return p.records[0];
}

ReadError OneError(std::string text) {
  Parsed p = ParseAll(std::move(text));
  REQUIRE(p.errors.size() == 1);
  return p.errors[0];
}

std::string Gzip(const std::string& in) {
  z_stream zs{};
  REQUIRE(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&zs, in.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&zs, Z_FINISH) == Z_STREAM_END);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

TEST_CASE("a plain record keeps its DN, descriptions and values in order") {
  Record r = One("dn: cn=a,dc=x\nobjectClass: top\ncn: a\nsn: b\n");
  CHECK(r.dn() == "cn=a,dc=x");
  REQUIRE(r.size() == 3);
  CHECK(r.attribute(0).description == "objectClass");
  CHECK(r.attribute(1).value == "a");
  CHECK(r.attribute(2).description == "sn");
  CHECK(r.kind() == RecordKind::kContent);
  CHECK(r.line() == 1);
}

TEST_CASE("version: 1 is accepted at the top, alone or directly before a record") {
  Parsed p = ParseAll("version: 1\n\ndn: dc=x\ndc: x\n");
  CHECK(p.errors.empty());
  CHECK(p.saw_version);
  REQUIRE(p.records.size() == 1);
  CHECK(p.records[0].line() == 3);

  Parsed q = ParseAll("# header\n\nversion: 1\ndn: dc=x\ndc: x\n");
  CHECK(q.errors.empty());
  CHECK(q.saw_version);
  REQUIRE(q.records.size() == 1);
  CHECK(q.records[0].size() == 1);

  ReadError e = OneError("version: 2\n\ndn: dc=x\ndc: x\n");
  CHECK(e.line == 1);
  CHECK(e.what.find("version") != std::string::npos);

  // Not at the top, "version" is not a DN line.
  Parsed late = ParseAll("dn: dc=x\ndc: x\n\nversion: 1\n");
  CHECK(late.records.size() == 1);
  REQUIRE(late.errors.size() == 1);
  CHECK(late.errors[0].line == 4);
}

TEST_CASE("comments, folded comments and blank-line runs are skipped") {
  Parsed p = ParseAll(
      "# a comment\n # folded into the comment\n\n\n"
      "dn: dc=x\n# inside\n#  folded: not an attribute\n dc: nope\ndc: x\n\n\n\n"
      "dn: dc=y\ndc: y\n");
  REQUIRE(p.errors.empty());
  REQUIRE(p.records.size() == 2);
  REQUIRE(p.records[0].size() == 1);
  CHECK(p.records[0].attribute(0).value == "x");
  CHECK(p.records[0].line() == 5);
  CHECK(p.records[1].line() == 13);
}

TEST_CASE("folded values join exactly") {
  Record r = One("dn: cn=lo\n ng,dc=x\ncn: ab\n  c\ndescription:: w6\n lyZQ==\n");
  CHECK(r.dn() == "cn=long,dc=x");
  CHECK(r.attribute(0).value == "ab c");
  CHECK(r.attribute(1).value == "\xc3\xa9re");  // base64 split across the fold
  // A fold inside a UTF-8 sequence of a plain value.
  Record u = One("dn: dc=x\nsn: \xc3\n \xa9t\xc3\xa9\n");
  CHECK(u.attribute(0).value == "\xc3\xa9t\xc3\xa9");
}

TEST_CASE("a tab-started line is not a continuation") {
  ReadError e = OneError("dn: dc=x\ncn: a\n\tb\n");
  CHECK(e.line == 3);
  CHECK(e.record_line == 1);
}

TEST_CASE("base64 values decode exactly, including NUL and high bytes") {
  Record r = One("dn:: Y249w6ksZGM9eA==\nuserPassword:: AAEC/w==\ncn:: \n");
  CHECK(r.dn() == "cn=\xc3\xa9,dc=x");
  CHECK(r.attribute(0).value == std::string("\x00\x01\x02\xff", 4));
  CHECK(r.attribute(1).value.empty());
}

TEST_CASE("bad base64 is an error naming the line, never a truncated value") {
  const char* bad[] = {"Zm9v!", "Zm9", "Zg=", "Z===", "Zm9v=Zm9", "Zh=="};
  for (const char* b : bad) {
    CAPTURE(b);
    Parsed p = ParseAll(std::string("dn: dc=x\ndc: x\ncn:: ") + b + "\n\ndn: dc=y\ndc: y\n");
    REQUIRE(p.errors.size() == 1);
    CHECK(p.errors[0].line == 3);
    CHECK(p.errors[0].record_line == 1);
    CHECK(p.errors[0].what.find("base64") != std::string::npos);
    REQUIRE(p.records.size() == 1);  // the next record is still read
    CHECK(p.records[0].dn() == "dc=y");
  }
}

TEST_CASE("file: URLs are read from disk; other schemes are rejected") {
  testing::TempDir dir;
  std::string path = dir.Write("photo.bin", std::string("\x00\xff\x10jpeg", 7));
  Record r = One("dn: dc=x\njpegPhoto:< file://" + path + "\n");
  CHECK(r.attribute(0).value == std::string("\x00\xff\x10jpeg", 7));
  Record lh = One("dn: dc=x\njpegPhoto:<file://localhost" + path + "\n");
  CHECK(lh.attribute(0).value.size() == 7);

  ReadError http = OneError("dn: dc=x\njpegPhoto:< http://example.com/a.jpg\n");
  CHECK(http.line == 2);
  CHECK(http.what.find("only file:// URLs") != std::string::npos);
  ReadError missing = OneError("dn: dc=x\ncn: a\njpegPhoto:< file:///nonexistent/x.jpg\n");
  CHECK(missing.line == 3);
  CHECK(missing.what.find("/nonexistent/x.jpg") != std::string::npos);
  ReadError remote = OneError("dn: dc=x\njpegPhoto:< file://otherhost/x.jpg\n");
  CHECK(remote.what.find("remote host") != std::string::npos);
}

TEST_CASE("relative file: URLs resolve against the configured base directory") {
  testing::TempDir dir;
  dir.Write("v.txt", "hello");
  ReaderOptions o;
  o.url_base_dir = dir.path().string();
  Parsed p = ParseAll("dn: dc=x\ndescription:< file:v.txt\n", o);
  REQUIRE(p.errors.empty());
  CHECK(p.records[0].attribute(0).value == "hello");
}

TEST_CASE("include: lines read another LDIF file's records in their place") {
  testing::TempDir dir;
  dir.Write("inner.ldif", "# schema\ndn: cn=a,cn=schema\ncn: a\n\ndn: cn=b,cn=schema\ncn: b\n#\n");
  std::string deeper = dir.Write("deeper.ldif", "dn: cn=d\ncn: d\n");
  dir.Write("nested.ldif", "include: file://" + deeper + "\n\ndn: cn=n\ncn: n\n");
  std::string inner = (dir.path() / "inner.ldif").string();
  std::string nested = (dir.path() / "nested.ldif").string();
  // As in a cn=config LDIF: consecutive include lines, no blank line between,
  // a comment before the first, and a record right after the last.
  Parsed p = ParseAll("dn: cn=first\ncn: first\n\n# the schema\ninclude: file://" + inner +
                      "\nINCLUDE:file://" + nested + "\r\ndn: cn=last\ncn: last\n");
  REQUIRE(p.errors.empty());
  std::vector<std::string> dns;
  for (const Record& r : p.records) dns.emplace_back(r.dn());
  CHECK(dns == std::vector<std::string>{"cn=first", "cn=a,cn=schema", "cn=b,cn=schema", "cn=d",
                                        "cn=n", "cn=last"});
  CHECK(p.records.back().attribute(0).value == "last");
}

TEST_CASE("an include: line that cannot be read fails its record; reading goes on") {
  Parsed p = ParseAll("include: file:///nonexistent/schema.ldif\n\ndn: cn=x\ncn: x\n");
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].line == 1);
  CHECK(p.errors[0].what.find("/nonexistent/schema.ldif") != std::string::npos);
  REQUIRE(p.records.size() == 1);
  CHECK(p.records[0].dn() == "cn=x");
  // Inside a record an include line is an attribute line, as in slapadd.
  Record r = One("dn: cn=x\ninclude: file:///nonexistent\n");
  CHECK(r.attribute(0).description == "include");
}

TEST_CASE("attribute options are kept in the description") {
  Record r = One("dn: dc=x\ncn;lang-en: a\nuserCertificate;binary:: AQ==\n1.2.3.4;x-opt: o\n");
  CHECK(r.attribute(0).description == "cn;lang-en");
  CHECK(r.attribute(1).description == "userCertificate;binary");
  CHECK(r.attribute(2).description == "1.2.3.4;x-opt");
  ReadError e = OneError("dn: dc=x\ncn;: a\n");
  CHECK(e.line == 2);
  ReadError e2 = OneError("dn: dc=x\nc n: a\n");
  CHECK(e2.what.find("invalid attribute description") != std::string::npos);
  // A description starts with a letter or a digit: "-" and "-x" are not
  // ones, in a modify record (where "-" alone separates changes) or not.
  for (const char* text : {"dn:\nchangetype:modify\n-:e\n", "dn: dc=x\n-x: a\n",
                           "dn: dc=x\nchangetype: modify\nadd: cn\ncn: a\n-: b\n"}) {
    CAPTURE(text);
    ReadError bad = OneError(text);
    CHECK(bad.what.find("invalid attribute description") != std::string::npos);
  }
  // Options: each part between ';' is one or more name characters.
  for (const char* good : {"c", "cn;x", "cn;lang-en;x-y", "cn;-x", "2.5.4.3;b_c"}) {
    CAPTURE(good);
    CHECK(One("dn: dc=x\n" + std::string(good) + ": a\n").attribute(0).description == good);
  }
  for (const char* bad : {"cn;", "cn;;x", "cn;x;", "cn!", "cn;x!", "cn;x;;y", "c;n ", "cn;x y"}) {
    CAPTURE(bad);
    CHECK(OneError("dn: dc=x\n" + std::string(bad) + ": a\n")
              .what.find("invalid attribute description") != std::string::npos);
  }
}

TEST_CASE("CRLF and LF input give the same records") {
  std::string lf = "dn: cn=a,dc=x\ncn: a\n b\nsn:: w6k=\n\ndn: dc=y\ndc: y\n";
  std::string crlf;
  for (char c : lf) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  Parsed a = ParseAll(lf), b = ParseAll(crlf);
  REQUIRE(a.errors.empty());
  REQUIRE(b.errors.empty());
  REQUIRE(a.records.size() == 2);
  REQUIRE(b.records.size() == 2);
  CHECK(a.records[0] == b.records[0]);
  CHECK(a.records[1] == b.records[1]);
  CHECK(b.records[1].line() == 6);
}

TEST_CASE("empty values, and values keep inner and trailing spaces") {
  Record r = One("dn: dc=x\ndescription:\nl: a  b \n");
  CHECK(r.attribute(0).value.empty());
  CHECK(r.attribute(1).value == "a  b ");
}

TEST_CASE("change records are parsed and reported as such") {
  Parsed p = ParseAll(
      "dn: cn=a,dc=x\nchangetype: modify\nadd: mail\nmail: a@x\n-\ndelete: sn\n-\n\n"
      "dn: cn=b,dc=x\ncontrol: 1.2.840.113556.1.4.805 true\nchangetype: delete\n\n"
      "dn: cn=c,dc=x\nchangetype: modrdn\nnewrdn: cn=d\ndeleteoldrdn: 1\n\n"
      "dn: cn=e,dc=x\nchangetype: bogus\n");
  REQUIRE(p.records.size() == 3);
  CHECK(p.records[0].kind() == RecordKind::kChange);
  CHECK(p.records[0].changetype() == "modify");
  REQUIRE(p.records[0].size() == 5);
  CHECK(p.records[0].attribute(2).description == "-");
  CHECK(p.records[1].changetype() == "delete");
  CHECK(p.records[1].attribute(0).description == "control");
  CHECK(p.records[2].changetype() == "modrdn");
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].line == 19);
  CHECK(p.errors[0].what.find("changetype") != std::string::npos);
}

TEST_CASE("a raw NUL byte fails its record only; the next record is read correctly") {
  std::string text = "dn: cn=a,dc=x\ncn: a\nsn: b";
  text += '\0';
  text += "c\n\ndn: cn=b,dc=x\ncn: b\n";
  Parsed p = ParseAll(text);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].line == 3);
  CHECK(p.errors[0].record_line == 1);
  CHECK(p.errors[0].what.find("NUL") != std::string::npos);
  REQUIRE(p.records.size() == 1);
  CHECK(p.records[0].dn() == "cn=b,dc=x");
  CHECK(p.records[0].size() == 1);
  CHECK(p.records[0].line() == 5);
}

TEST_CASE("structural errors name the offending line and the record's first line") {
  ReadError no_colon = OneError("dn: dc=x\ndc: x\nthis line has no colon\n");
  CHECK(no_colon.line == 3);
  CHECK(no_colon.record_line == 1);
  ReadError no_dn = OneError("cn: a\nsn: b\n");
  CHECK(no_dn.line == 1);
  CHECK(no_dn.what.find("expected 'dn:'") != std::string::npos);
  ReadError lead = OneError(" dn: dc=x\n");
  CHECK(lead.what.find("continuation") != std::string::npos);
  ReadError only_dn = OneError("dn: dc=x\n");
  CHECK(only_dn.what.find("no attributes") != std::string::npos);
  ReadError cr = OneError("dn: dc=x\ncn: a\rb\n");
  CHECK(cr.line == 2);
  ReadError url_dn = OneError("dn:< file:///etc/hostname\ncn: a\n");
  CHECK(url_dn.line == 1);
}

TEST_CASE("messages carry file, line and the record's first line") {
  Reader reader(MemoryByteSource("dn: dc=a\ndc: a\n\ndn: dc=x\ndc: x\ncn:: !!!!\n", "in.ldif"));
  Record r;
  REQUIRE(*reader.Next(&r));
  Result<bool> got = reader.Next(&r);
  REQUIRE_FALSE(got.ok());
  CHECK(got.status().message().rfind("in.ldif:6: ", 0) == 0);
  CHECK(got.status().message().find("(record starting at line 4)") != std::string::npos);
}

TEST_CASE("records larger than max_record_size fail alone") {
  ReaderOptions o;
  o.max_record_size = 100;
  o.block_size = 4096;
  std::string big = "dn: cn=big,dc=x\n";
  for (int i = 0; i < 2000; ++i) big += "description: " + std::to_string(i) + "\n";
  Parsed p = ParseAll("dn: dc=x\ndc: x\n\n" + big + "\ndn: dc=y\ndc: y\n", o);
  REQUIRE(p.errors.size() == 1);
  CHECK(p.errors[0].line == 4);
  CHECK(p.errors[0].what.find("maximum record size") != std::string::npos);
  REQUIRE(p.records.size() == 2);
  CHECK(p.records[1].dn() == "dc=y");
  CHECK(p.records[1].line() == 4 + 2001 + 1);
}

TEST_CASE("gzip input is detected by magic bytes and inflated") {
  std::string text;
  for (int i = 0; i < 5000; ++i) {
    text += "dn: uid=u" + std::to_string(i) + ",dc=x\nuid: u" + std::to_string(i) + "\n\n";
  }
  testing::TempDir dir;
  std::string path = dir.Write("data.ldif.txt", Gzip(text));  // name says nothing of gzip
  Result<std::unique_ptr<ByteSource>> src = OpenByteSource(path);
  REQUIRE(src.ok());
  CHECK((*src)->compressed());
  Reader reader(std::move(*src), ReaderOptions{.block_size = 4096});
  Record r;
  int n = 0;
  while (true) {
    Result<bool> got = reader.Next(&r);
    REQUIRE(got.ok());
    if (!*got) break;
    CHECK(r.attribute(0).value == "u" + std::to_string(n));
    ++n;
  }
  CHECK(n == 5000);

  // Concatenated gzip members read as one stream.
  Parsed two = ParseAll(Gzip("dn: dc=a\ndc: a\n\n") + Gzip("dn: dc=b\ndc: b\n"));
  CHECK(two.errors.empty());
  CHECK(two.records.size() == 2);
}

TEST_CASE("a truncated or corrupt gzip stream is a fatal error naming the byte offset") {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "dn: uid=u" + std::to_string(i) + ",dc=x\nuid: x\n\n";
  std::string gz = Gzip(text);
  Parsed cut = ParseAll(gz.substr(0, gz.size() / 2));
  REQUIRE_FALSE(cut.errors.empty());
  CHECK(cut.errors.back().fatal);
  CHECK(cut.errors.back().what.find("truncated at byte offset") != std::string::npos);

  std::string bad = gz;
  for (size_t i = 100; i < 140; ++i) bad[i] = static_cast<char>(bad[i] ^ 0x5a);
  Parsed corrupt = ParseAll(bad);
  REQUIRE_FALSE(corrupt.errors.empty());
  CHECK(corrupt.errors.back().fatal);
  CHECK(corrupt.errors.back().what.find("byte offset") != std::string::npos);
}

TEST_CASE("records straddling block boundaries parse the same at any block size") {
  std::string text = "version: 1\n";
  for (int i = 0; i < 300; ++i) {
    text += "\r\ndn: cn=user" + std::to_string(i) + ",dc=x\r\ncn: u\r\n  " + std::to_string(i) +
            "\r\ndescription:: " + (i % 2 ? "w6k=" : "YWJj") + "\r\n";
  }
  Parsed ref = ParseAll(text, ReaderOptions{.block_size = 1 << 20});
  REQUIRE(ref.errors.empty());
  REQUIRE(ref.records.size() == 300);
  for (size_t bs : {16, 17, 64, 333, 4096}) {
    ReaderOptions o;
    o.block_size = bs;
    Parsed p = ParseAll(text, o);
    REQUIRE(p.errors.empty());
    REQUIRE(p.records.size() == 300);
    for (size_t i = 0; i < 300; ++i) {
      CHECK(p.records[i] == ref.records[i]);
      CHECK(p.records[i].line() == ref.records[i].line());
    }
  }
  CHECK(ref.records[299].line() == 2 + 299 * 5 + 1);
}

TEST_CASE("a missing file is an I/O error naming the path") {
  Result<std::unique_ptr<ByteSource>> src = OpenByteSource("/nonexistent/dir/x.ldif");
  REQUIRE_FALSE(src.ok());
  CHECK(src.status().code() == StatusCode::kIoError);
  CHECK(src.status().message().find("/nonexistent/dir/x.ldif") != std::string::npos);
}

TEST_CASE("plain, folded and base64 lines of one record, small or past the text kept whole") {
  // Plain values point into the record's copy of its text; folded and
  // decoded ones are appended after it. A record larger than the copy's
  // limit holds copies of every value instead. Both must read the same.
  for (size_t big : {size_t{10}, size_t{70000}}) {
    CAPTURE(big);
    const std::string large(big, 'x');
    Parsed p = ParseAll("dn: cn=a,dc=x\ncn: a\ndescription: fol\n ded\nsn:: w6k=\nl: " + large +
                        "\nou;x: \n\ndn: cn=b,dc=x\ncn: b\n");
    REQUIRE(p.errors.empty());
    REQUIRE(p.records.size() == 2);
    const Record& r = p.records[0];
    CHECK(r.dn() == "cn=a,dc=x");
    REQUIRE(r.size() == 5);
    CHECK(r.attribute(0).description == "cn");
    CHECK(r.attribute(0).value == "a");
    CHECK(r.attribute(1).description == "description");
    CHECK(r.attribute(1).value == "folded");
    CHECK(r.attribute(2).value == "\xc3\xa9");
    CHECK(r.attribute(3).value == large);
    CHECK(r.attribute(4).description == "ou;x");
    CHECK(r.attribute(4).value.empty());
    CHECK(p.records[1].attribute(0).value == "b");
  }
}

}  // namespace
}  // namespace dirload::ldif
