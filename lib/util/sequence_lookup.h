// SequenceLookup: finds the record of each attribute description of an
// entry, one after another, mostly without hashing. The entries of a load
// mostly write their attributes in one order, so a description is most
// often the one before it (a repeated attribute) or the one that followed
// that one last time; only a description that is neither is looked up.
//
// V is a record that stays where it is (a StringMap value) with two members
// for this: `std::string written` (the description as written, its key) and
// `SequenceLookup<V>::Link next` (the description that last followed it).
// A copy of the records or of the lookup starts without links, so that a
// copied map (each checking thread copies the loader's checker) never
// points into the original.
//
// Thread safety: one thread.
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>

namespace dirload {

// Whether the first and last sizeof(Word) of n bytes at a and b are equal:
// all n of them when sizeof(Word) <= n <= 2 * sizeof(Word).
template <typename Word>
inline bool SameEnds(const char* a, const char* b, size_t n) {
  Word a0, a1, b0, b1;
  std::memcpy(&a0, a, sizeof(Word));
  std::memcpy(&a1, a + n - sizeof(Word), sizeof(Word));
  std::memcpy(&b0, b, sizeof(Word));
  std::memcpy(&b1, b + n - sizeof(Word), sizeof(Word));
  return ((a0 ^ b0) | (a1 ^ b1)) == 0;
}

// Whether `a` and `b` hold the same bytes; inline for the short strings
// descriptions are ("cn", "telephoneNumber"), where a call to memcmp costs
// more than the comparison: two overlapping loads from each end.
inline bool SameBytes(std::string_view a, std::string_view b) {
  const size_t n = a.size();
  if (n != b.size()) return false;
  if (n > 16) return std::memcmp(a.data(), b.data(), n) == 0;
  if (n >= 8) return SameEnds<uint64_t>(a.data(), b.data(), n);
  if (n >= 4) return SameEnds<uint32_t>(a.data(), b.data(), n);
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

template <typename V>
class SequenceLookup {
 public:
  class Link {
   public:
    Link() = default;
    Link(const Link&) {}
    Link& operator=(const Link&) {
      next_ = nullptr;
      return *this;
    }

   private:
    friend class SequenceLookup;
    V* next_ = nullptr;
  };

  SequenceLookup() = default;
  SequenceLookup(const SequenceLookup&) {}
  SequenceLookup& operator=(const SequenceLookup&) {
    first_ = prev_ = nullptr;
    return *this;
  }

  // The next entry starts.
  void Start() { prev_ = nullptr; }

  // The record of `key`, the entry's next description: a guess checked
  // byte for byte, else lookup(key), which must return the record.
  template <typename Lookup>
  V* Next(std::string_view key, Lookup&& lookup) {
    V* d = prev_ == nullptr ? first_ : prev_;
    if (d != nullptr && !SameBytes(d->written, key)) {
      d = d->next.next_;
      if (d != nullptr && !SameBytes(d->written, key)) d = nullptr;
    }
    if (d == nullptr) d = lookup(key);
    if (prev_ == nullptr) {
      first_ = d;
    } else if (d != prev_) {
      prev_->next.next_ = d;
    }
    prev_ = d;
    return d;
  }

 private:
  V* first_ = nullptr;  // the last entry's first description
  V* prev_ = nullptr;   // this entry's last, null at its start
};

}  // namespace dirload
