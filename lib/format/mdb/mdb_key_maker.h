// MdbKeyMaker: the keys one back-mdb index database gets from an attribute
// record's values (mdb_index_keys.h has the key formats). It decides once,
// per configured index, which kinds of keys the index holds and feeds the
// hash prefixes (type name, syntax and rule OIDs) once, so that keying an
// entry is one pass over each value's bytes.
//
// Keys go into an MdbKeyList: one flat buffer, no allocation per key once
// it has grown to an entry's size; 4-byte keys as words, ready to sort.
//
// Thread safety: an MdbKeyMaker keeps a small cache (the last objectClass
// expansion), so each thread uses its own; the Schema is only read.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lib/format/mdb/mdb_index_keys.h"
#include "lib/index/index_spec.h"
#include "lib/util/coding.h"
#include "lib/util/status.h"

namespace dirload::mdb {

class MdbKeyList {
 public:
  void clear() {
    words_.clear();
    narrow_ = true;
    bytes_.clear();
    ends_.clear();
  }
  size_t size() const { return narrow_ ? words_.size() : ends_.size(); }
  std::string_view operator[](size_t i) const {
    if (narrow_) Widen();
    size_t begin = i == 0 ? 0 : ends_[i - 1];
    return std::string_view(bytes_).substr(begin, ends_[i] - begin);
  }
  // While every key has 4 bytes (the usual case: 32-bit hashes, presence),
  // the keys are held as words, each key's bytes read big-endian, so that
  // they sort as the keys do; Words() gives them without a copy. The first
  // operator[] writes them out as bytes: a list is one thread's, const or
  // not.
  bool narrow() const { return narrow_; }
  std::span<const uint32_t> Words() const { return words_; }
  void Add(std::string_view key) {
    if (narrow_ && key.size() == 4) {
      words_.push_back(GetBigEndian32(key));
      return;
    }
    if (narrow_) Widen();
    bytes_.append(key);
    ends_.push_back(static_cast<uint32_t>(bytes_.size()));
  }
  // A hash key: the low `size` bytes of `hash`, little-endian.
  void AddHash(uint64_t hash, size_t size) {
    if (narrow_ && size == 4) {
      words_.push_back(__builtin_bswap32(static_cast<uint32_t>(hash)));
      return;
    }
    if (narrow_) Widen();
    for (size_t i = 0; i < size; ++i) bytes_.push_back(static_cast<char>(hash >> (8 * i)));
    ends_.push_back(static_cast<uint32_t>(bytes_.size()));
  }

 private:
  // The words written out as keys, for a key of another size or a caller
  // that reads keys as bytes.
  void Widen() const {
    narrow_ = false;
    for (uint32_t w : words_) {
      PutBigEndian32(w, &bytes_);
      ends_.push_back(static_cast<uint32_t>(bytes_.size()));
    }
    words_.clear();
  }

  mutable std::vector<uint32_t> words_;
  mutable bool narrow_ = true;
  mutable std::string bytes_;
  mutable std::vector<uint32_t> ends_;
};

class MdbKeyMaker {
 public:
  // Unsupported (origin kConfiguration) for kinds of keys dirload does not
  // make for back-mdb: partial substring kinds, equality on a type without
  // an EQUALITY rule, approx on a type without an approximate rule.
  static Result<MdbKeyMaker> Create(const Schema& schema, const IndexSpec& spec,
                                    const MdbKeyOptions& options);

  // Appends the keys of one attribute record: `values` are its normalized
  // copies (the values themselves for rules without a normalizer). Keys an
  // entry gives twice are not removed.
  void AddKeys(std::span<const std::string_view> values, MdbKeyList* out);

  const IndexSpec& spec() const { return *spec_; }

 private:
  enum class Equality {
    kNone,
    kHashed,        // hash of the normalized value
    kObjectClass,   // hashes of the classes and their superclasses
    kInteger,       // MdbIntegerKey
    kTime,          // MdbTimeKey: generalizedTimeMatch, CSNMatch
    kUniqueMember,  // hash of MdbUniqueMemberKeyPart
  };

  MdbKeyMaker(const Schema& schema, const IndexSpec& spec, const MdbKeyOptions& options);
  void AddObjectClassKeys(std::span<const std::string_view> values, MdbKeyList* out);

  const Schema* schema_;
  const IndexSpec* spec_;
  MdbKeyOptions options_;
  bool presence_ = false;
  bool substrings_ = false;
  bool approx_ = false;  // phonetic codes, approx_match.h
  Equality equality_ = Equality::kNone;
  MdbKeyHasher equality_hash_;
  MdbKeyHasher initial_hash_;
  MdbKeyHasher any_hash_;
  MdbKeyHasher final_hash_;
  // objectClass: most entries list the same classes as the one before.
  std::vector<std::string> last_classes_;
  MdbKeyList last_class_keys_;
  std::vector<std::string> approx_codes_;  // scratch
};

}  // namespace dirload::mdb
