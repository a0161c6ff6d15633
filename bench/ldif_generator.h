// LdifGenerator: a deterministic synthetic directory for benchmarks and tests.
//
// The output is a function of (entries, seed, suffix) alone: randomness comes
// from a private xoshiro256** generator seeded through splitmix64 and reduced
// to ranges with integer arithmetic only, so every platform and standard
// library produces the same bytes (std:: distributions are
// implementation-defined and are deliberately not used). A run with fewer
// entries is a byte prefix of a longer run with the same seed and suffix.
//
// Shape, in output order (parents always precede their children):
//   1. the suffix entry (dcObject+organization, organization or
//      organizationalUnit, after the suffix's first RDN type);
//   2. ou=People, ou=Groups, and one ou per department under ou=People;
//   3. people (inetOrgPerson + posixAccount) under their department's ou,
//      with a groupOfNames under ou=Groups after every 50 people, whose
//      members are distinct people emitted earlier.
// Roughly 7% of people have a UTF-8 given name or surname (written base64),
// about a third carry a long description that folds, and a person's manager
// is always someone earlier in the file. The mean record is ~1,260 bytes of
// LDIF, so 285,000 entries come to ~360 MB.
//
// Every attribute is valid under OpenLDAP's core, cosine, inetorgperson and
// nis schemas, so slapadd accepts the output.
//
// Thread safety: one thread at a time; independent generators share nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ldif/record.h"
#include "ldif/writer.h"
#include "lib/util/status.h"

namespace dirload::bench {

struct GeneratorOptions {
  uint64_t entries = 1000;  // total records, suffix, ous and groups included
  uint64_t seed = 1;
  std::string suffix = "dc=example,dc=com";
};

// Small fast PRNG with a fully specified output sequence (xoshiro256**).
class Prng {
 public:
  explicit Prng(uint64_t seed);
  uint64_t Next();
  // Uniform-enough integer in [0, n) by multiply-shift; n > 0.
  uint64_t Below(uint64_t n);
  // Integer in [lo, hi]; lo <= hi.
  uint64_t Between(uint64_t lo, uint64_t hi) { return lo + Below(hi - lo + 1); }
  // True with probability percent/100.
  bool Percent(unsigned percent) { return Below(100) < percent; }

 private:
  uint64_t s_[4];
};

class LdifGenerator;

// The 15 indexes of the workload (DESIGN.md), as slapd.conf index lines
// without the word "index". bench/workload_indexes.sh lists the same for the
// benchmark scripts.
extern const std::vector<std::string> kWorkloadIndexLines;

// The job titles people are given (each person's title is one of them), in
// the generator's order; change records draw new titles from them.
std::vector<std::string_view> WorkloadTitles();

// Writes the whole workload of `options` to the file at `path` ("-": stdout),
// gzip-compressed when `gzip`; the file is closed even after a failed write.
[[nodiscard]] Status GenerateLdifFile(const GeneratorOptions& options, const std::string& path,
                                      bool gzip = false);

class LdifGenerator {
 public:
  // Fails when the suffix's first RDN is not dc=, o= or ou= with a plain value.
  static Result<std::unique_ptr<LdifGenerator>> Create(GeneratorOptions options);

  // Fills `*record` (cleared first) with the next entry. Returns false, leaving
  // the record empty, once options.entries records have been produced.
  bool Next(ldif::Record* record);

  // Writes every remaining record to `sink` as LDIF (76-column folding, no
  // version line) in large blocks. Does not close the sink.
  Status Generate(ldif::ByteSink* sink);

  uint64_t emitted() const { return emitted_; }
  uint64_t people() const { return people_total_; }
  uint64_t groups() const { return groups_total_; }

  // The number of structural entries (suffix and ous) that precede people.
  static uint64_t StructuralCount();

 private:
  LdifGenerator(GeneratorOptions options, std::string suffix_type, std::string suffix_value);

  void StructuralEntry(uint64_t index, ldif::Record* record);
  void PersonEntry(ldif::Record* record);
  void GroupEntry(ldif::Record* record);

  // Appends `words` random words (sentence-cased, with full stops) to `out`.
  void AppendProse(size_t words, std::string* out);
  std::string_view PersonDn(uint64_t person) const;
  // Returns `base` made unique among earlier calls with the same `table`:
  // base, base2, base3, ...
  std::string Unique(std::unordered_map<std::string, uint32_t>* table, const std::string& base);

  GeneratorOptions options_;
  std::string suffix_type_;   // "dc", "o" or "ou", lower case
  std::string suffix_value_;  // the first RDN's value
  std::string mail_domain_;
  Prng rng_;

  uint64_t emitted_ = 0;
  uint64_t people_total_ = 0;
  uint64_t groups_total_ = 0;
  uint64_t people_emitted_ = 0;
  uint64_t groups_emitted_ = 0;

  // Only the first this many people are remembered as possible managers and
  // group members, so that memory stops growing there (about 150 MB) however
  // many entries are asked for; up to it, the output is what it always was.
  static constexpr uint64_t kRememberedPeople = uint64_t{1} << 20;

  // DNs of the first kRememberedPeople people, back to back: person i is
  // person_dns_[person_dn_end_[i-1] .. person_dn_end_[i]).
  std::string person_dns_;
  std::vector<uint64_t> person_dn_end_;
  std::vector<uint32_t> managers_;  // people who may be named as a manager
  std::unordered_map<std::string, uint32_t> uid_seen_;
  std::unordered_map<std::string, uint32_t> mail_seen_;

  // Scratch reused across records.
  std::string scratch_;
  std::vector<uint32_t> members_;
};

}  // namespace dirload::bench
