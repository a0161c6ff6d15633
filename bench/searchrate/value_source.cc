#include "bench/searchrate/value_source.h"

#include <fstream>
#include <numeric>

namespace dirload::searchrate {

Result<ValueFile> ValueFile::Load(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::NotFound("--values " + path + ": cannot open the file");
  ValueFile file;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) file.values_.push_back(line);
  }
  if (in.bad()) return Status::IoError("--values " + path + ": read error");
  if (file.values_.empty()) return Status::InvalidArgument("--values " + path + ": no values");
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
  std::string escaped;
  if (raw) {
    escaped = value;
  } else {
    static const char kHex[] = "0123456789abcdef";
    for (unsigned char c : value) {
      if (c == '*' || c == '(' || c == ')' || c == '\\' || c == 0) {
        escaped += '\\';
        escaped += kHex[c >> 4];
        escaped += kHex[c & 15];
      } else {
        escaped += static_cast<char>(c);
      }
    }
  }
  std::string out;
  size_t p = 0;
  for (size_t at; (at = filter_template.find("%s", p)) != std::string::npos; p = at + 2) {
    out.append(filter_template, p, at - p);
    out += escaped;
  }
  out.append(filter_template, p, std::string::npos);
  return out;
}

}  // namespace dirload::searchrate
