#include "bench/change_generator.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "bench/ldif_generator.h"
#include "ldif/byte_source.h"
#include "ldif/reader.h"
#include "ldif/record.h"
#include "ldif/writer.h"
#include "tests/support/temp_dir.h"

namespace dirload::bench {
namespace {

using testing::TempDir;

GeneratorOptions Directory(uint64_t entries, uint64_t seed) {
  GeneratorOptions options;
  options.entries = entries;
  options.seed = seed;
  return options;
}

ChangeCounts Counts(uint64_t modify, uint64_t modrdn, uint64_t del) {
  ChangeCounts counts;
  counts.modify = modify;
  counts.modrdn = modrdn;
  counts.del = del;
  return counts;
}

std::vector<ldif::Record> Changes(const GeneratorOptions& options, const ChangeCounts& counts) {
  Result<std::unique_ptr<ChangeGenerator>> generator = ChangeGenerator::Create(options, counts);
  REQUIRE_MESSAGE(generator.ok(), generator.status().ToString());
  std::vector<ldif::Record> records;
  ldif::Record record;
  while ((*generator)->Next(&record)) records.push_back(record);
  CHECK(record.empty());
  CHECK((*generator)->emitted() == counts.total());
  return records;
}

std::string Text(const std::vector<ldif::Record>& records) {
  std::string out;
  for (const ldif::Record& r : records) ldif::AppendRecord(r, ldif::WriterOptions{76}, &out);
  return out;
}

std::string ChangeText(uint64_t entries, uint64_t seed, const ChangeCounts& counts) {
  return Text(Changes(Directory(entries, seed), counts));
}

std::string_view Parent(std::string_view dn) {
  size_t comma = dn.find(',');
  return comma == std::string_view::npos ? std::string_view() : dn.substr(comma + 1);
}

std::string_view Rdn(std::string_view dn) { return dn.substr(0, dn.find(',')); }

// The directory as a server would hold it: DN -> attribute values in order.
using Entry = std::vector<std::pair<std::string, std::string>>;

std::map<std::string, Entry> DirectoryEntries(const GeneratorOptions& options) {
  Result<std::unique_ptr<LdifGenerator>> generator = LdifGenerator::Create(options);
  REQUIRE(generator.ok());
  std::map<std::string, Entry> entries;
  ldif::Record record;
  while ((*generator)->Next(&record)) {
    Entry& e = entries[std::string(record.dn())];
    for (size_t i = 0; i < record.size(); ++i) {
      e.emplace_back(record.attribute(i).description, record.attribute(i).value);
    }
  }
  return entries;
}

bool Holds(const Entry& e, std::string_view type, std::string_view value) {
  for (const auto& [t, v] : e) {
    if (t == type && v == value) return true;
  }
  return false;
}

std::vector<std::string> ValuesOf(const Entry& e, std::string_view type) {
  std::vector<std::string> out;
  for (const auto& [t, v] : e) {
    if (t == type) out.push_back(v);
  }
  return out;
}

TEST_CASE("the same seed and counts give the same bytes, another seed other bytes") {
  const ChangeCounts counts = Counts(300, 40, 30);
  const std::string a = ChangeText(2000, 7, counts);
  CHECK(a == ChangeText(2000, 7, counts));
  CHECK(a != ChangeText(2000, 8, counts));
  CHECK(a.find("version:") == std::string::npos);
}

TEST_CASE("the counts of each kind are exactly the ones asked for") {
  for (ChangeCounts counts : {Counts(0, 0, 0), Counts(1, 0, 0), Counts(0, 1, 0), Counts(0, 0, 1),
                              Counts(500, 50, 50), Counts(17, 230, 3)}) {
    CAPTURE(counts.modify);
    CAPTURE(counts.modrdn);
    CAPTURE(counts.del);
    // Read back from the text: what the tools that apply the file see.
    ldif::Reader reader(ldif::MemoryByteSource(ChangeText(3000, 1, counts), "changes.ldif"));
    ldif::Record record;
    std::unordered_map<std::string, uint64_t> kinds;
    while (true) {
      Result<bool> more = reader.Next(&record);
      REQUIRE_MESSAGE(more.ok(), more.status().ToString());
      if (!*more) break;
      REQUIRE(record.kind() == ldif::RecordKind::kChange);
      ++kinds[std::string(record.changetype())];
    }
    CHECK(kinds["modify"] == counts.modify);
    CHECK(kinds["modrdn"] == counts.modrdn);
    CHECK(kinds["delete"] == counts.del);
    CHECK(kinds.size() <= 3);
  }
}

TEST_CASE("the records name only generated entries, each once, and all apply in order") {
  const uint64_t seed = 3;
  CAPTURE(seed);
  const GeneratorOptions options = Directory(5000, seed);
  std::map<std::string, Entry> entries = DirectoryEntries(options);
  const std::map<std::string, Entry> generated = entries;
  const std::string people = "ou=People,dc=example,dc=com";
  // Moves only go under department ous, which are parents already.
  std::unordered_set<std::string> parents;
  for (const auto& [dn, unused] : generated) parents.insert(std::string(Parent(dn)));

  std::unordered_set<std::string> touched;
  uint64_t modified = 0, moved = 0, deleted = 0;
  for (const ldif::Record& r : Changes(options, Counts(1500, 300, 300))) {
    const std::string dn(r.dn());
    CAPTURE(dn);
    REQUIRE(generated.count(dn) == 1);
    CHECK(dn.starts_with("uid="));
    CHECK(touched.insert(dn).second);  // no entry is changed twice
    REQUIRE(entries.count(dn) == 1);
    Entry& e = entries[dn];
    if (r.changetype() == "modify") {
      ++modified;
      REQUIRE(r.size() == 9);
      CHECK(r.attribute(0).description == "replace");
      CHECK(r.attribute(0).value == "title");
      CHECK(r.attribute(1).description == "title");
      std::vector<std::string> titles = ValuesOf(e, "title");
      REQUIRE(titles.size() == 1);
      CHECK(r.attribute(1).value != titles[0]);
      CHECK(r.attribute(2).description == "-");
      CHECK(r.attribute(3).description == "add");
      CHECK(r.attribute(3).value == "mail");
      CHECK(r.attribute(4).description == "mail");
      CHECK(r.attribute(4).value.starts_with("alias-"));
      CHECK_FALSE(Holds(e, "mail", r.attribute(4).value));
      CHECK(r.attribute(5).description == "-");
      CHECK(r.attribute(6).description == "delete");
      CHECK(r.attribute(6).value == "telephoneNumber");
      CHECK(r.attribute(7).description == "telephoneNumber");
      CHECK(Holds(e, "telephoneNumber", r.attribute(7).value));
      CHECK(r.attribute(8).description == "-");
      e.emplace_back("mail", r.attribute(4).value);
    } else if (r.changetype() == "modrdn") {
      ++moved;
      REQUIRE(r.size() == 3);
      CHECK(r.attribute(0).description == "newrdn");
      CHECK(r.attribute(0).value == Rdn(dn));
      CHECK(r.attribute(1).description == "deleteoldrdn");
      CHECK(r.attribute(1).value == "1");
      CHECK(r.attribute(2).description == "newsuperior");
      const std::string superior(r.attribute(2).value);
      CHECK(generated.count(superior) == 1);
      CHECK(Parent(superior) == people);
      CHECK(superior != Parent(dn));
      const std::string to = std::string(Rdn(dn)) + "," + superior;
      CHECK(entries.count(to) == 0);
      CHECK(touched.insert(to).second);
      Entry kept = std::move(e);
      entries.erase(dn);
      entries[to] = std::move(kept);
    } else {
      ++deleted;
      REQUIRE(r.changetype() == "delete");
      CHECK(r.size() == 0);
      CHECK(parents.count(dn) == 0);  // a leaf
      entries.erase(dn);
    }
  }
  CHECK(modified == 1500);
  CHECK(moved == 300);
  CHECK(deleted == 300);
  CHECK(entries.size() == generated.size() - 300);
}

TEST_CASE("GenerateChangeFile writes the records to a file, or gzip-compressed") {
  TempDir dir;
  const ChangeCounts counts = Counts(100, 10, 10);
  for (bool gzip : {false, true}) {
    CAPTURE(gzip);
    const std::string path = dir.File(gzip ? "changes.ldif.gz" : "changes.ldif");
    Status written = GenerateChangeFile(Directory(1000, 5), counts, path, gzip);
    REQUIRE_MESSAGE(written.ok(), written.ToString());
    std::ifstream in(path, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    if (gzip) {
      CHECK(bytes.compare(0, 2, "\x1f\x8b") == 0);
    } else {
      CHECK(bytes == ChangeText(1000, 5, counts));
    }
  }
}

TEST_CASE("more changes than people is refused") {
  Result<std::unique_ptr<LdifGenerator>> directory = LdifGenerator::Create(Directory(200, 1));
  REQUIRE(directory.ok());
  const uint64_t people = (*directory)->people();
  CHECK(ChangeGenerator::Create(Directory(200, 1), Counts(people - 2, 1, 1)).ok());
  Result<std::unique_ptr<ChangeGenerator>> over =
      ChangeGenerator::Create(Directory(200, 1), Counts(people - 2, 1, 2));
  REQUIRE_FALSE(over.ok());
  CHECK(over.status().message().find("people") != std::string::npos);
}

TEST_CASE("ParseChangeCounts takes any of the three kinds, each once") {
  Result<ChangeCounts> all = ParseChangeCounts("modify=100000,modrdn=10000,delete=10000");
  REQUIRE(all.ok());
  CHECK(all->modify == 100000);
  CHECK(all->modrdn == 10000);
  CHECK(all->del == 10000);
  Result<ChangeCounts> some = ParseChangeCounts("delete=5,modify=7");
  REQUIRE(some.ok());
  CHECK(some->modify == 7);
  CHECK(some->modrdn == 0);
  CHECK(some->del == 5);
  for (std::string_view bad : {"", "modify", "modify=", "modify=x", "modify=1,modify=2", "add=3",
                               "modify=1,", "modify=-1", "modify=1 "}) {
    CAPTURE(bad);
    CHECK_FALSE(ParseChangeCounts(bad).ok());
  }
}

}  // namespace
}  // namespace dirload::bench
