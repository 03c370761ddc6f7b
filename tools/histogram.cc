#include "tools/histogram.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace collision::load {
namespace {

int FloorLog2(uint64_t v) { return 63 - __builtin_clzll(v); }

}  // namespace

Histogram::Histogram(int sub_bits)
    : sub_bits_(sub_bits),
      counts_(static_cast<std::size_t>(kMaxLog2 - sub_bits + 2) << sub_bits) {
  assert(sub_bits >= 1 && sub_bits <= 16);
}

// Index layout: values < 2S (S = 2^sub_bits) map to themselves; a value
// with floor(log2 v) = L >= sub_bits + 1 has exponent e = L - sub_bits and
// mantissa v >> e in [S, 2S), and lands at (e + 1) * S + (mantissa - S).
int Histogram::IndexOf(int64_t value) const {
  const int64_t s = int64_t{1} << sub_bits_;
  if (value < 2 * s) return static_cast<int>(std::max<int64_t>(value, 0));
  const int log2 = std::min(FloorLog2(static_cast<uint64_t>(value)), kMaxLog2);
  const int e = log2 - sub_bits_;
  const int64_t mantissa =
      log2 == FloorLog2(static_cast<uint64_t>(value)) ? value >> e : 2 * s - 1;
  return static_cast<int>((e + 1) * s + (mantissa - s));
}

int64_t Histogram::LowOf(int index) const {
  const int64_t s = int64_t{1} << sub_bits_;
  if (index < 2 * s) return index;
  const int e = static_cast<int>(index / s) - 1;
  const int64_t mantissa = index % s + s;
  return mantissa << e;
}

int64_t Histogram::HighOf(int index) const {
  const int64_t s = int64_t{1} << sub_bits_;
  if (index < 2 * s) return index;
  const int e = static_cast<int>(index / s) - 1;
  return LowOf(index) + (int64_t{1} << e) - 1;
}

void Histogram::Record(int64_t value) {
  value = std::max<int64_t>(value, 0);
  ++counts_[static_cast<std::size_t>(IndexOf(value))];
  if (count_ == 0 || value < min_) min_ = value;
  if (count_ == 0 || value > max_) max_ = value;
  ++count_;
  sum_ += value;
}

void Histogram::Merge(const Histogram& other) {
  assert(other.sub_bits_ == sub_bits_);
  if (other.count_ == 0) return;
  for (std::size_t i = 0; i < counts_.size(); ++i)
    counts_[i] += other.counts_[i];
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  max_ = count_ ? std::max(max_, other.max_) : other.max_;
  count_ += other.count_;
  sum_ += other.sum_;
}

void Histogram::Reset() {
  std::fill(counts_.begin(), counts_.end(), 0);
  count_ = sum_ = min_ = max_ = 0;
}

int64_t Histogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 100.0);
  const int64_t rank = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(q / 100.0 * double(count_))));
  if (rank >= count_) return max_;  // exact, even past the top bucket
  int64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      return std::clamp(HighOf(static_cast<int>(i)), min_, max_);
    }
  }
  return max_;
}

std::vector<Histogram::Bucket> Histogram::Buckets() const {
  std::vector<Bucket> out;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] == 0) continue;
    const int index = static_cast<int>(i);
    out.push_back({LowOf(index), HighOf(index), counts_[i]});
  }
  return out;
}

}  // namespace collision::load
