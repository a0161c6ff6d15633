#include "bench/searchrate/value_source.h"

#include <numeric>

#include "lib/util/request_values.h"

namespace dirload::searchrate {

Result<ValueFile> ValueFile::Load(const std::string& path) {
  Result<std::vector<std::string>> values = ReadRequestValues(path);
  if (!values.ok()) return values.status().WithPrefix("--values ");
  ValueFile file;
  file.values_ = std::move(*values);
  return file;
}

ValueCursor::ValueCursor(const std::vector<std::string>* values, const Options& o, int client)
    : values_(values), rng_(o.seed + static_cast<uint64_t>(client)) {
  reverse_ = o.order == Order::kReverse || (o.order == Order::kAlternate && client % 2 == 0);
  random_ = o.order == Order::kRandom;
  position_ = (o.offset + static_cast<uint64_t>(client - 1) * o.client_offset) % values_->size();
  if (random_) Shuffle();
}

// Fisher-Yates with splitmix64: a shuffle per pass visits every value once,
// as a pattern file would, yet in an order no cache can anticipate.
void ValueCursor::Shuffle() {
  permutation_.resize(values_->size());
  std::iota(permutation_.begin(), permutation_.end(), 0u);
  for (size_t i = permutation_.size(); i > 1; --i) {
    uint64_t z = (rng_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    std::swap(permutation_[i - 1], permutation_[z % i]);
  }
}

const std::string& ValueCursor::Next() {
  const uint64_t n = values_->size();
  uint64_t at = reverse_ ? n - 1 - position_ : position_;
  if (random_) at = permutation_[position_];
  if (++position_ == n) {
    position_ = 0;
    if (random_) Shuffle();
  }
  return (*values_)[at];
}

std::string MakeFilter(const std::string& filter_template, const std::string& value, bool raw) {
  return FillFilterTemplate(filter_template, value, raw);
}

}  // namespace dirload::searchrate
