#include "ldif/writer.h"

#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "ldif/base64.h"
#include "ldif/reader.h"
#include "tests/support/temp_dir.h"

namespace dirload::ldif {
namespace {

namespace fs = std::filesystem;

using testing::TempDir;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Inflates a gzip file with zlib directly.
std::string Gunzip(const std::string& compressed) {
  z_stream zs{};
  REQUIRE(inflateInit2(&zs, 15 + 16) == Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  zs.avail_in = static_cast<uInt>(compressed.size());
  std::string out;
  char buf[65536];
  int rc;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof buf;
    rc = inflate(&zs, Z_NO_FLUSH);
    REQUIRE((rc == Z_OK || rc == Z_STREAM_END));
    out.append(buf, sizeof buf - zs.avail_out);
  } while (rc != Z_STREAM_END);
  CHECK(zs.avail_in == 0);  // nothing after the trailer
  inflateEnd(&zs);
  return out;
}

std::string Line(std::string_view description, std::string_view value, size_t wrap = 76) {
  std::string out;
  AppendAttributeLine(description, value, WriterOptions{wrap}, &out);
  return out;
}

// Undoes RFC 2849 folding: a newline followed by one space joins the lines.
std::string Unfold(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' && i + 1 < text.size() && text[i + 1] == ' ') {
      ++i;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::vector<std::string> PhysicalLines(std::string_view text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string_view::npos; start = nl + 1) {
    lines.emplace_back(text.substr(start, nl - start));
  }
  CHECK(start == text.size());  // every line ends with "\n"
  return lines;
}

// Collects everything written, and counts the writes.
class MemorySink : public ByteSink {
 public:
  Status Write(std::string_view bytes) override {
    if (fail) return Status::IoError("write <memory>: injected failure");
    data.append(bytes);
    ++writes;
    return Status::Ok();
  }
  Status Close() override { return Status::Ok(); }
  std::string data;
  int writes = 0;
  bool fail = false;
};

bool Reference(std::string_view v) {
  if (v.empty()) return false;
  if (v.front() == ' ' || v.front() == ':' || v.front() == '<' || v.back() == ' ') return true;
  for (unsigned char c : v) {
    if (c == 0 || c == '\n' || c == '\r' || c >= 0x80) return true;
  }
  return false;
}

TEST_CASE("NeedsBase64 follows the RFC 2849 SAFE-STRING rules") {
  CHECK_FALSE(NeedsBase64(""));
  CHECK_FALSE(NeedsBase64("John Doe"));
  CHECK_FALSE(NeedsBase64("a:b<c"));
  CHECK_FALSE(NeedsBase64("x"));
  CHECK_FALSE(NeedsBase64("\x7f\x01\t\x0b\x0c\x1f"));  // other controls are SAFE-CHARs
  CHECK(NeedsBase64(" lead"));
  CHECK(NeedsBase64(":lead"));
  CHECK(NeedsBase64("<lead"));
  CHECK(NeedsBase64("trail "));
  CHECK(NeedsBase64(" "));
  CHECK(NeedsBase64(std::string("a\0b", 3)));
  CHECK(NeedsBase64("a\rb"));
  CHECK(NeedsBase64("a\nb"));
  CHECK(NeedsBase64("caf\xc3\xa9"));
  CHECK(NeedsBase64("\x80"));
  CHECK(NeedsBase64("\xff"));
}

TEST_CASE("NeedsBase64 finds an unsafe byte at every position") {
  // Lengths and positions cover both the 8-byte blocks and the tail.
  for (size_t len = 1; len <= 19; ++len) {
    for (size_t pos = 0; pos < len; ++pos) {
      for (int b = 0; b < 256; ++b) {
        std::string v(len, 'a');
        v[pos] = static_cast<char>(b);
        CAPTURE(len);
        CAPTURE(pos);
        CAPTURE(b);
        REQUIRE(NeedsBase64(v) == Reference(v));
      }
    }
  }
}

TEST_CASE("AppendAttributeLine writes safe values plain and others base64") {
  CHECK(Line("cn", "John Doe") == "cn: John Doe\n");
  CHECK(Line("cn", "") == "cn:\n");
  CHECK(Line("cn", " foo") == "cn:: IGZvbw==\n");
  CHECK(Line("cn", "foo ") == "cn:: Zm9vIA==\n");
  CHECK(Line("cn", ":foo") == "cn:: OmZvbw==\n");
  CHECK(Line("cn", "<foo") == "cn:: PGZvbw==\n");
  CHECK(Line("sn;lang-de", "M\xc3\xbcller") == "sn;lang-de:: TcO8bGxlcg==\n");
  CHECK(Line("description", "a\nb") == "description:: YQpi\n");
}

TEST_CASE("AppendAttributeLine folds at 76 bytes") {
  std::string value;
  for (int i = 0; i < 200; ++i) value.push_back(static_cast<char>('a' + i % 26));
  std::string text = Line("description", value);
  std::vector<std::string> lines = PhysicalLines(text);
  // "description: " + 200 bytes = 213: 76, then 1 + 75, then 1 + 62.
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "description: " + value.substr(0, 63));
  CHECK(lines[1] == " " + value.substr(63, 75));
  CHECK(lines[2] == " " + value.substr(138));
  for (const std::string& l : lines) CHECK(l.size() <= 76);
  CHECK(Unfold(text) == "description: " + value + "\n");

  // Binary: base64 is folded the same way.
  std::string binary;
  for (int i = 0; i < 200; ++i) binary.push_back(static_cast<char>(i * 7 + 128));
  text = Line("jpegPhoto", binary);
  for (const std::string& l : PhysicalLines(text)) CHECK(l.size() <= 76);
  std::string unfolded = Unfold(text);
  REQUIRE(unfolded.starts_with("jpegPhoto:: "));
  std::string decoded;
  REQUIRE(Base64Decode(unfolded.substr(12, unfolded.size() - 13), &decoded).ok());
  CHECK(decoded == binary);
}

TEST_CASE("AppendAttributeLine folds exactly at the boundary") {
  // 76 bytes fit on one line; 77 need a continuation with one byte.
  std::string v72(72, 'x');  // "cn: " + 72 = 76
  CHECK(Line("cn", v72) == "cn: " + v72 + "\n");
  CHECK(Line("cn", v72 + "y") == "cn: " + v72 + "\n y\n");
  // 76 + 75 bytes: exactly one full continuation line.
  std::string v147(147, 'z');
  CHECK(Line("cn", v147) == "cn: " + v147.substr(0, 72) + "\n " + v147.substr(72) + "\n");
  // A long description folds too (RFC 2849 lets any line fold).
  std::string desc(80, 'd');
  // slapcat never splits a description from its colon: the head stays whole.
  CHECK(Line(desc, "v") == desc + ": \n v\n");
  CHECK(Line(desc, "vw") == desc + ": \n vw\n");
}

TEST_CASE("AppendAttributeLine with other widths") {
  std::string value(300, 'q');
  SUBCASE("wrap 0 never folds") { CHECK(Line("cn", value, 0) == "cn: " + value + "\n"); }
  SUBCASE("narrow widths keep every line within the width") {
    for (size_t wrap : {1, 2, 3, 10, 77, 200}) {
      CAPTURE(wrap);
      std::string text = Line("cn", value, wrap);
      // The head "cn: " is never split, so it may pass a narrower width.
      for (const std::string& l : PhysicalLines(text)) CHECK(l.size() <= std::max<size_t>(wrap, 4));
      CHECK(Unfold(text) == "cn: " + value + "\n");
    }
  }
  SUBCASE("wrap 2 puts one byte on each continuation line") {
    CHECK(Line("cn", "ab", 2) == "cn: \n a\n b\n");
  }
  SUBCASE("a head longer than the width stands alone, as slapcat -o ldif_wrap=10 writes") {
    // Recorded from slapcat 2.5.13: "description: " then 9 bytes a line.
    CHECK(Line("description", "aaaaaaaaaabbbbbbbbbb", 10) ==
          "description: \n aaaaaaaaa\n abbbbbbbb\n bb\n");
    CHECK(Line("objectClass", "dcObject", 10) == "objectClass: \n dcObject\n");
    // Width 14 leaves one byte of the value on the first line.
    CHECK(Line("description", "aaaaaaaaaabbbb", 14) == "description: a\n aaaaaaaaabbbb\n");
  }
}

TEST_CASE("AppendAttributeLine appends after existing output and the fold is in place") {
  std::string out = "dn: x\n";
  AppendAttributeLine("cn", std::string(100, 'c'), WriterOptions{}, &out);
  CHECK(out == "dn: x\ncn: " + std::string(72, 'c') + "\n " + std::string(28, 'c') + "\n");
}

TEST_CASE("AppendRecord writes a content record byte for byte") {
  Record r;
  r.SetDn("uid=j\xc3\xb6rg,dc=example,dc=com");
  r.Add("objectClass", "inetOrgPerson");
  r.Add("cn", "J\xc3\xb6rg");
  r.Add("sn", " leading");
  r.Add("title", "trailing ");
  r.Add("description", ":colon");
  r.Add("l", "<angle");
  r.Add("description", "");
  r.Add("mail", "jorg@example.com");
  std::string out;
  AppendRecord(r, WriterOptions{}, &out);
  CHECK(out ==
        "dn:: dWlkPWrDtnJnLGRjPWV4YW1wbGUsZGM9Y29t\n"
        "objectClass: inetOrgPerson\n"
        "cn:: SsO2cmc=\n"
        "sn:: IGxlYWRpbmc=\n"
        "title:: dHJhaWxpbmcg\n"
        "description:: OmNvbG9u\n"
        "l:: PGFuZ2xl\n"
        "description:\n"
        "mail: jorg@example.com\n"
        "\n");

  Record plain;
  plain.SetDn("dc=example,dc=com");
  plain.Add("dc", "example");
  out.clear();
  AppendRecord(plain, WriterOptions{}, &out);
  CHECK(out == "dn: dc=example,dc=com\ndc: example\n\n");
}

TEST_CASE("AppendRecord folds a long dn") {
  std::string dn = "cn=" + std::string(100, 'n') + ",dc=example,dc=com";
  Record r;
  r.SetDn(dn);
  std::string out;
  AppendRecord(r, WriterOptions{}, &out);
  for (const std::string& l : PhysicalLines(out)) CHECK(l.size() <= 76);
  CHECK(Unfold(out) == "dn: " + dn + "\n\n");
}

TEST_CASE("AppendRecord writes change records") {
  Record r;
  r.SetDn("uid=jdoe,dc=example,dc=com");
  r.SetChangetype("modify");
  r.Add("replace", "mail");
  r.Add("mail", "jdoe@example.com");
  r.Add("-", "");
  r.Add("add", "description");
  r.Add("description", " spaced");
  r.Add("-", "");
  std::string out;
  AppendRecord(r, WriterOptions{}, &out);
  CHECK(out ==
        "dn: uid=jdoe,dc=example,dc=com\n"
        "changetype: modify\n"
        "replace: mail\n"
        "mail: jdoe@example.com\n"
        "-\n"
        "add: description\n"
        "description:: IHNwYWNlZA==\n"
        "-\n"
        "\n");

  Record del;
  del.SetDn("cn=gone,dc=example,dc=com");
  del.SetChangetype("delete");
  out.clear();
  AppendRecord(del, WriterOptions{}, &out);
  CHECK(out == "dn: cn=gone,dc=example,dc=com\nchangetype: delete\n\n");
}

TEST_CASE("Writer buffers records and writes large blocks") {
  MemorySink sink;
  Writer w(&sink);
  Record r;
  r.SetDn("dc=example,dc=com");
  r.Add("description", std::string(1000, 'd'));
  std::string one;
  AppendRecord(r, WriterOptions{}, &one);

  REQUIRE(w.Write(r).ok());
  CHECK(sink.writes == 0);  // held until the block fills
  CHECK(w.records_written() == 1);

  const int n = 3000;  // about 3 MB: the block fills several times
  for (int i = 1; i < n; ++i) REQUIRE(w.Write(r).ok());
  CHECK(sink.writes >= 2);
  CHECK(sink.writes <= 3);
  REQUIRE(w.Flush().ok());
  CHECK(w.records_written() == n);
  std::string expected;
  for (int i = 0; i < n; ++i) expected += one;
  CHECK(sink.data == expected);
  int writes = sink.writes;
  REQUIRE(w.Flush().ok());  // nothing buffered: no empty write
  CHECK(sink.writes == writes);
}

TEST_CASE("Writer passes a sink failure on and does not write the block twice") {
  MemorySink sink;
  Writer w(&sink, WriterOptions{0});
  Record r;
  r.SetDn("dc=example");
  REQUIRE(w.Write(r).ok());
  sink.fail = true;
  Status st = w.Flush();
  CHECK(st.code() == StatusCode::kIoError);
  CHECK(st.message() == "write <memory>: injected failure");
  sink.fail = false;
  REQUIRE(w.Flush().ok());
  CHECK(sink.data.empty());
}

TEST_CASE("file sink writes the bytes, truncating an existing file") {
  TempDir dir;
  std::string path = dir.File("out.ldif");
  {
    std::ofstream old(path);
    old << "old content that is longer than the new content\n";
  }
  auto sink = OpenByteSink(path);
  REQUIRE(sink.ok());
  REQUIRE((*sink)->Write("dn: dc=example\n").ok());
  REQUIRE((*sink)->Write("\n").ok());
  REQUIRE((*sink)->Close().ok());
  CHECK((*sink)->Close().ok());  // twice is harmless
  CHECK((*sink)->Write("late").code() == StatusCode::kInternal);
  CHECK(ReadFile(path) == "dn: dc=example\n\n");
}

TEST_CASE("Writer over a file sink") {
  TempDir dir;
  std::string path = dir.File("out.ldif");
  auto sink = OpenByteSink(path);
  REQUIRE(sink.ok());
  Writer w(sink->get());
  Record r;
  r.SetDn("cn=a,dc=example");
  r.Add("cn", "a");
  REQUIRE(w.Write(r).ok());
  REQUIRE(w.Write(r).ok());
  REQUIRE(w.Flush().ok());
  REQUIRE((*sink)->Close().ok());
  CHECK(ReadFile(path) == "dn: cn=a,dc=example\ncn: a\n\ndn: cn=a,dc=example\ncn: a\n\n");
}

TEST_CASE("gzip sink output inflates back to the same bytes") {
  TempDir dir;
  std::string path = dir.File("out.ldif.gz");
  // Several MB of mixed text, so deflate fills its output block many times.
  std::mt19937_64 rng(7);
  std::string data;
  while (data.size() < (size_t{5} << 20)) {
    data += "dn: uid=u" + std::to_string(rng() % 1000000) + ",dc=example\n";
    for (int i = 0; i < 8; ++i) data.push_back(static_cast<char>(rng() & 0xff));
    data += "\n\n";
  }
  for (int level : {1, 6, 9, -1}) {
    CAPTURE(level);
    auto sink = OpenByteSink(path, /*gzip=*/true, level);
    REQUIRE(sink.ok());
    // Uneven pieces, including an empty one.
    size_t pos = 0;
    for (size_t piece : {size_t{0}, size_t{1}, size_t{4095}, size_t{3} << 20}) {
      REQUIRE((*sink)->Write(std::string_view(data).substr(pos, piece)).ok());
      pos += piece;
    }
    REQUIRE((*sink)->Write(std::string_view(data).substr(pos)).ok());
    REQUIRE((*sink)->Close().ok());
    std::string compressed = ReadFile(path);
    REQUIRE(compressed.size() > 2);
    CHECK(static_cast<unsigned char>(compressed[0]) == 0x1f);  // gzip magic
    CHECK(static_cast<unsigned char>(compressed[1]) == 0x8b);
    CHECK(Gunzip(compressed) == data);
  }
}

TEST_CASE("gzip sink of nothing is a valid empty stream") {
  TempDir dir;
  std::string path = dir.File("empty.gz");
  auto sink = OpenByteSink(path, true);
  REQUIRE(sink.ok());
  REQUIRE((*sink)->Close().ok());
  CHECK(Gunzip(ReadFile(path)).empty());
}

TEST_CASE("OpenByteSink rejects a bad level and reports open errors with the path") {
  auto bad = OpenByteSink("/dev/null", true, 10);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.status().code() == StatusCode::kInvalidArgument);
  CHECK(bad.status().message() == "gzip level 10 is outside -1..9");

  TempDir dir;
  std::string path = dir.File("no/such/dir/out.ldif");
  auto missing = OpenByteSink(path);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.status().code() == StatusCode::kIoError);
  CHECK(missing.status().message() == "open " + path + ": " + std::strerror(ENOENT));
}

TEST_CASE("writing to a full device fails with the path and the reason") {
  if (::access("/dev/full", W_OK) != 0) return;
  const std::string enospc = std::strerror(ENOSPC);
  SUBCASE("plain") {
    auto sink = OpenByteSink("/dev/full");
    REQUIRE(sink.ok());
    Status st = (*sink)->Write("dn: dc=example\n\n");
    CHECK(st.code() == StatusCode::kIoError);
    CHECK(st.message() == "write /dev/full: " + enospc);
    CHECK((*sink)->Close().ok());
  }
  SUBCASE("gzip: the failure surfaces at Write or at Close") {
    auto sink = OpenByteSink("/dev/full", true);
    REQUIRE(sink.ok());
    Status st = (*sink)->Write("dn: dc=example\n\n");
    if (st.ok()) st = (*sink)->Close();
    CHECK(st.code() == StatusCode::kIoError);
    CHECK(st.message() == "write /dev/full: " + enospc);
  }
  SUBCASE("through the Writer") {
    auto sink = OpenByteSink("/dev/full");
    REQUIRE(sink.ok());
    Writer w(sink->get());
    Record r;
    r.SetDn("dc=example");
    REQUIRE(w.Write(r).ok());  // still buffered
    CHECK(w.Flush().message() == "write /dev/full: " + enospc);
  }
}

TEST_CASE("\"-\" writes to standard output and leaves it open") {
  TempDir dir;
  std::string path = dir.File("stdout.txt");
  std::fflush(stdout);
  int saved = ::dup(STDOUT_FILENO);
  REQUIRE(saved >= 0);
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  REQUIRE(fd >= 0);
  REQUIRE(::dup2(fd, STDOUT_FILENO) == STDOUT_FILENO);
  ::close(fd);

  auto sink = OpenByteSink("-");
  Status write = sink.ok() ? (*sink)->Write("to stdout\n") : sink.status();
  Status close = sink.ok() ? (*sink)->Close() : sink.status();
  // Standard output must still be usable after Close.
  bool still_open = ::write(STDOUT_FILENO, "after\n", 6) == 6;

  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  CHECK(write.ok());
  CHECK(close.ok());
  CHECK(still_open);
  CHECK(ReadFile(path) == "to stdout\nafter\n");
}

uint64_t TestSeed() {
  const char* env = std::getenv("DIRLOAD_TEST_SEED");
  return env ? std::strtoull(env, nullptr, 10) : 20240611;
}

// Random bytes biased towards the ones the SAFE-STRING rules care about.
std::string RandomValue(std::mt19937_64& rng, size_t max_len) {
  static const char kSpecial[] = {' ', ':', '<', '\0', '\r', '\n', '\x80', '\xff', '-', '='};
  std::string v(rng() % (max_len + 1), '\0');
  for (char& c : v) {
    uint64_t r = rng() % 8;
    c = r == 0 ? kSpecial[rng() % sizeof kSpecial] : static_cast<char>('a' + rng() % 26);
  }
  return v;
}

TEST_CASE("records written by the Writer read back equal") {
  const uint64_t seed = TestSeed();
  INFO("seed " << seed << " (set DIRLOAD_TEST_SEED to replay)");
  std::mt19937_64 rng(seed);
  for (size_t wrap : {0, 2, 3, 76, 78}) {
    CAPTURE(wrap);
    std::vector<Record> records(200);
    MemorySink sink;
    Writer w(&sink, WriterOptions{wrap});
    for (size_t i = 0; i < records.size(); ++i) {
      Record& r = records[i];
      r.SetDn("cn=" + std::to_string(i) + RandomValue(rng, 20) + ",dc=example");
      size_t n = 1 + rng() % 12;
      for (size_t k = 0; k < n; ++k) {
        std::string desc = "attr" + std::to_string(rng() % 5);
        if (rng() % 4 == 0) desc += ";lang-de";
        r.Add(desc, RandomValue(rng, rng() % 8 == 0 ? 400 : 40));
      }
      REQUIRE(w.Write(r).ok());
    }
    REQUIRE(w.Flush().ok());
    Reader reader(MemoryByteSource(sink.data, "written.ldif"));
    Record got;
    for (size_t i = 0; i < records.size(); ++i) {
      CAPTURE(i);
      Result<bool> next = reader.Next(&got);
      REQUIRE_MESSAGE(next.ok(), next.status().message());
      REQUIRE(*next);
      CHECK(got == records[i]);
    }
    Result<bool> end = reader.Next(&got);
    REQUIRE(end.ok());
    CHECK_FALSE(*end);
  }
}

TEST_CASE("a change record and a gzip file read back equal") {
  TempDir dir;
  std::string path = dir.File("out.ldif.gz");
  Record change;
  change.SetDn("uid=jdoe,dc=example,dc=com");
  change.SetChangetype("modify");
  change.Add("replace", "description");
  change.Add("description", " spaced and caf\xc3\xa9 ");
  change.Add("-", "");
  Record content;
  content.SetDn("dc=example,dc=com");
  content.Add("description", std::string(500, 'w'));
  {
    auto sink = OpenByteSink(path, true);
    REQUIRE(sink.ok());
    Writer w(sink->get());
    REQUIRE(w.Write(content).ok());
    REQUIRE(w.Write(change).ok());
    REQUIRE(w.Flush().ok());
    REQUIRE((*sink)->Close().ok());
  }
  auto source = OpenByteSource(path);
  REQUIRE(source.ok());
  Reader reader(std::move(*source));
  Record got;
  Result<bool> next = reader.Next(&got);
  REQUIRE_MESSAGE(next.ok(), next.status().message());
  REQUIRE(*next);
  CHECK(got == content);
  next = reader.Next(&got);
  REQUIRE_MESSAGE(next.ok(), next.status().message());
  REQUIRE(*next);
  CHECK(got == change);
}

}  // namespace
}  // namespace dirload::ldif
