// ChangeGenerator: deterministic RFC 2849 change records against the
// synthetic directory of LdifGenerator, for benchmarks of offline and online
// modification (slapmodify, ldapmodify through slapd, dirload modify).
//
// The records name entries of the directory that LdifGenerator writes for the
// same (entries, seed, suffix); the output is a function of those and of the
// three counts alone (randomness from a Prng seeded apart from the
// directory's own). Only people are changed, each at most once, so the
// records do not depend on one another: every record applies to the loaded
// directory whatever order they are applied in, and a file cut into parts at
// record boundaries applies part by part, in parallel too. Three kinds,
// interleaved at random with exactly the counts asked for:
//   modify: replace title (another of the workload's titles), add a mail
//           value "alias-UID@DOMAIN" (DOMAIN that of the person's first mail;
//           no generated mail starts with "alias-", so it is unique), and
//           delete the person's last telephoneNumber value (every person has
//           one to three, so the value exists; a person with one loses the
//           attribute, which person allows);
//   modrdn: the same RDN (newrdn uid=UID, deleteoldrdn 1) under another
//           department's ou (newsuperior); uids are unique across
//           departments, so the new DN is free;
//   delete: a person, always a leaf.
// The references that other entries hold to a moved or deleted person
// (manager, member, owner) are left as they are, as slapd without the
// refint overlay leaves them.
//
// Thread safety: one thread at a time; independent generators share nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/ldif_generator.h"
#include "ldif/record.h"
#include "ldif/writer.h"
#include "lib/util/status.h"

namespace dirload::bench {

struct ChangeCounts {
  uint64_t modify = 0;
  uint64_t modrdn = 0;
  uint64_t del = 0;  // delete records

  uint64_t total() const { return modify + modrdn + del; }
};

// Parses "modify=N,modrdn=N,delete=N": any of the three, each once, in any
// order. Fails on another name, a repeated name, a count that is not a
// decimal number, or no count at all.
Result<ChangeCounts> ParseChangeCounts(std::string_view spec);

// Writes the change records of `counts` against the directory of `options`
// to the file at `path` ("-": stdout), gzip-compressed when `gzip`; the file
// is closed even after a failed write.
[[nodiscard]] Status GenerateChangeFile(const GeneratorOptions& options, const ChangeCounts& counts,
                                        const std::string& path, bool gzip = false);

class ChangeGenerator {
 public:
  enum class Kind { kModify, kModrdn, kDelete };

  // Generates the directory of `options` once, in memory only, to learn the
  // entries to change. Fails as LdifGenerator::Create does, and when the
  // directory has fewer people than counts.total().
  static Result<std::unique_ptr<ChangeGenerator>> Create(const GeneratorOptions& options,
                                                         const ChangeCounts& counts);

  // Fills `*record` (cleared first) with the next change record. Returns
  // false, leaving the record empty, after counts.total() records.
  bool Next(ldif::Record* record);

  // Writes every remaining record to `sink` as LDIF (76-column folding, no
  // version line) in large blocks. Does not close the sink.
  Status Generate(ldif::ByteSink* sink);

  uint64_t emitted() const { return emitted_; }

 private:
  // What a change needs to know of the person it changes.
  struct Target {
    Kind kind = Kind::kModify;
    std::string dn;
    std::string uid;
    std::string title;
    std::string mail_domain;
    std::string last_phone;
    size_t department = 0;  // index into department_dns_
  };

  // `rng`: the change stream where Create left it.
  ChangeGenerator(Prng rng, std::vector<Target> targets, std::vector<std::string> department_dns);

  std::vector<Target> targets_;  // in output order
  std::vector<std::string> department_dns_;
  std::vector<std::string_view> titles_;
  Prng rng_;
  uint64_t emitted_ = 0;
};

}  // namespace dirload::bench
