// CanonicalEntry: an entry reduced to what two copies of a directory must
// agree on, whatever format, engine or ID order holds them: its DN in
// normalized form (slapd's DN normalization), each attribute under its
// canonical description (the type's first NAME, options lower-cased and
// sorted: "CN;Lang-EN" and "cn;lang-en" are one attribute), and each
// attribute's values as stored, compared as a set of byte strings.
//
// EntryCanonicalizer makes one from a stored entry (a database's EntryView)
// or from an LDIF content record, leaving out the attributes the caller
// asked to ignore. EntryHash is the SHA-1 of the canonical form (its bytes
// are specified below), so that equal entries hash equal on any database.
//
// Thread safety: a canonicalizer is used by one thread at a time; it borrows
// the schema, which must outlive it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ldif/record.h"
#include "lib/entry/entry_codec.h"
#include "lib/schema/schema.h"
#include "lib/util/sha1.h"
#include "lib/util/status.h"

namespace dirload {

struct CanonicalAttribute {
  std::string description;          // canonical: "cn", "cn;lang-en", "entryCSN"
  std::vector<std::string> values;  // as stored, in stored order
  std::vector<std::string> sorted;  // the same values in byte order (the set)
};

struct CanonicalEntry {
  std::string dn;   // as stored or written
  std::string ndn;  // normalized
  // By description, in byte order of the descriptions.
  std::vector<CanonicalAttribute> attributes;

  // The attribute of that canonical description, or nullptr.
  const CanonicalAttribute* Find(std::string_view description) const;
  // Its first value, or empty (entryUUID, entryCSN).
  std::string_view First(std::string_view description) const;
};

// Which attributes take part.
struct CanonicalOptions {
  // Attribute types left out, by any of their names or OID (all options of
  // the type go with it).
  std::vector<std::string> ignore;
  // Leave out every operational attribute type (USAGE other than
  // userApplications): entryUUID, entryCSN, the timestamps, contextCSN.
  bool user_attributes_only = false;
};

class EntryCanonicalizer {
 public:
  // `schema` is borrowed. InvalidArgument (via status()) when an ignored
  // name is not an attribute type of the schema.
  EntryCanonicalizer(const Schema& schema, const CanonicalOptions& options);
  Status status() const { return status_; }

  // A stored entry, descriptions resolved through `dictionary`.
  Status FromView(const EntryView& entry, const AttributeDictionary& dictionary,
                  CanonicalEntry* out);
  // An LDIF content record (a change record is InvalidArgument).
  Status FromRecord(const ldif::Record& record, CanonicalEntry* out);

 private:
  struct Description {
    std::string canonical;
    bool skip = false;
  };
  const Description& Resolve(std::string_view description);
  Status Finish(std::string_view dn, CanonicalEntry* out);

  const Schema& schema_;
  CanonicalOptions options_;
  std::vector<const AttributeType*> ignored_;
  Status status_ = Status::Ok();
  std::unordered_map<std::string, Description> descriptions_;
  // (description, value) pairs of the entry being made, before grouping.
  std::vector<std::pair<const Description*, std::string_view>> pairs_;
};

// SHA-1 over the canonical form: "dirload-entry-1", then the normalized DN,
// then for each attribute in order its description, its value count and its
// values in byte order; every string as an 8-byte big-endian length and its
// bytes, every count as 8 bytes big-endian.
Sha1::Digest EntryHash(const CanonicalEntry& entry);

// The 64-bit name of a normalized DN for hash tables: the first 8 bytes of
// its SHA-1, big-endian.
uint64_t NameKey(std::string_view ndn);

// Sums of entry hashes, as 160-bit big-endian integers modulo 2^160: the
// same set of entries gives the same sum in any order.
class HashSum {
 public:
  void Add(const Sha1::Digest& digest);
  const Sha1::Digest& value() const { return sum_; }

 private:
  Sha1::Digest sum_{};
};

std::string HexDigest(const Sha1::Digest& digest);

}  // namespace dirload
