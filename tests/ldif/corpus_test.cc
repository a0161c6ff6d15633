// Every LDIF file of the shared conformance corpus parses; content records
// survive parse -> write -> parse unchanged; change records are recognised.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "ldif/reader.h"
#include "ldif/writer.h"
#include "tests/support/temp_dir.h"

namespace dirload::ldif {
namespace {

namespace fs = std::filesystem;

std::vector<fs::path> Cases(const char* group) {
  fs::path root = testing::CorpusDir();
  std::vector<fs::path> out;
  REQUIRE_MESSAGE(
      fs::is_directory(root / group),
      "corpus not found at " << root.string() << " (set DIRLOAD_CORPUS_DIR to shared/corpus)");
  for (const auto& e : fs::directory_iterator(root / group)) {
    if (fs::exists(e.path() / "input.ldif")) out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  REQUIRE(out.size() > 5);
  return out;
}

struct Loaded {
  std::vector<Record> records;
  std::vector<ReadError> errors;
};

Loaded Load(const std::string& path) {
  Loaded out;
  Result<std::unique_ptr<ByteSource>> src = OpenByteSource(path);
  REQUIRE(src.ok());
  ReaderOptions options;
  options.url_base_dir = fs::path(path).parent_path().string();
  Reader reader(std::move(*src), options);
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
  return out;
}

// Records of the corpus that are not valid LDIF, or that cannot be read on
// this machine, and the error dirload must report for each.
struct KnownError {
  const char* case_name;
  uint64_t line;
  const char* fragment;
  const char* why;
};
constexpr KnownError kKnownErrors[] = {
    {"rfc2849-ex3-asprinted", 12, "missing ':'",
     "as printed, the base64 continuation lines lack their leading space"},
    {"rfc2849-ex4-asprinted", 43, "missing ':'",
     "as printed, a comment's second line lacks its '#'"},
    {"rfc2849-ex5-asprinted", 8, "expected 'dn:'",
     "as printed, a blank line splits the entry and the second part has no dn"},
    {"rfc2849-ex5", 11, "/usr/local/directory/photos/hjensen.jpg",
     "the RFC's example photo does not exist here"},
    {"rfc2849-ex5-noversion", 10, "/usr/local/directory/photos/hjensen.jpg",
     "the RFC's example photo does not exist here"},
    {"rfc2849-ex6", 12, "/usr/local/directory/photos/fiona.jpg",
     "the RFC's example photo does not exist here"},
    {"rfc2849-ex6", 41, "expected 'dn:'",
     "as printed, a blank line splits the first modify record"},
};

// Checks that `errors` are exactly the known errors of `case_name`.
void CheckErrors(const std::string& case_name, const std::vector<ReadError>& errors) {
  size_t expected = 0;
  for (const KnownError& k : kKnownErrors) {
    if (case_name != k.case_name) continue;
    ++expected;
    std::string why = k.why;
    CAPTURE(why);
    bool found = false;
    for (const ReadError& e : errors) {
      found |= e.line == k.line && e.what.find(k.fragment) != std::string::npos;
    }
    CHECK_MESSAGE(found, "expected an error at line " << k.line << " containing '"
                                                      << std::string(k.fragment) << "'");
  }
  std::string all;
  for (const ReadError& e : errors) all += std::to_string(e.line) + ": " + e.what + "\n";
  CAPTURE(all);
  CHECK(errors.size() == expected);
}

TEST_CASE("corpus content cases parse and survive a write/parse round trip") {
  for (const fs::path& dir : Cases("content")) {
    CAPTURE(dir.filename().string());
    Loaded in = Load((dir / "input.ldif").string());
    CheckErrors(dir.filename().string(), in.errors);
    if (in.errors.empty()) CHECK_FALSE(in.records.empty());
    std::string text;
    for (const Record& r : in.records) {
      CHECK(r.kind() == RecordKind::kContent);
      AppendRecord(r, WriterOptions{}, &text);
    }
    Reader again(MemoryByteSource(text, "rewritten"));
    Record r;
    for (const Record& want : in.records) {
      Result<bool> got = again.Next(&r);
      REQUIRE(got.ok());
      REQUIRE(*got);
      CHECK(r == want);
    }
    Result<bool> end = again.Next(&r);
    REQUIRE(end.ok());
    CHECK_FALSE(*end);

    // slapcat's recorded output parses too.
    if (fs::exists(dir / "expected.ldif")) {
      Loaded expected = Load((dir / "expected.ldif").string());
      CHECK(expected.errors.empty());
    }
  }
}

TEST_CASE("corpus change-record cases are recognised as change records") {
  for (const fs::path& dir : Cases("changerecords")) {
    CAPTURE(dir.filename().string());
    Loaded in = Load((dir / "input.ldif").string());
    CheckErrors(dir.filename().string(), in.errors);
    size_t changes = 0;
    for (const Record& r : in.records) changes += r.kind() == RecordKind::kChange;
    CHECK(changes > 0);
  }
}

}  // namespace
}  // namespace dirload::ldif
