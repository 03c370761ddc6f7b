// A fixed-memory log-linear latency histogram in the style of HdrHistogram:
// values below 2^(sub_bits+1) are counted exactly; above, each power-of-two
// range is split into 2^sub_bits equal buckets, so a reported percentile is
// within a relative 2^-sub_bits of the true one (0.8% at the default 7).
// Values are non-negative integers (the load tool records nanoseconds);
// anything above 2^kMaxLog2 is counted in the top bucket. Not thread-safe:
// one per thread, Merge() at the end.
#ifndef COLLISION_TOOLS_HISTOGRAM_H_
#define COLLISION_TOOLS_HISTOGRAM_H_

#include <cstdint>
#include <vector>

namespace collision::load {

class Histogram {
 public:
  static constexpr int kMaxLog2 = 44;  // ~4.9 hours in nanoseconds

  explicit Histogram(int sub_bits = 7);

  void Record(int64_t value);
  // Adds `other`'s counts; both must have the same sub_bits.
  void Merge(const Histogram& other);
  void Reset();

  int64_t count() const { return count_; }
  int64_t min() const { return count_ ? min_ : 0; }
  int64_t max() const { return count_ ? max_ : 0; }
  double mean() const { return count_ ? double(sum_) / double(count_) : 0; }

  // Nearest-rank percentile, q in [0, 100]: the smallest recorded value v
  // such that at least q% of the values are <= v, up to the bucket width
  // (reported as the bucket's highest value, clamped to [min, max]).
  // 0 when empty.
  int64_t Percentile(double q) const;

  // Non-empty buckets, for charts: [lowest, highest] value and count.
  struct Bucket {
    int64_t low;
    int64_t high;
    int64_t count;
  };
  std::vector<Bucket> Buckets() const;
  int sub_bits() const { return sub_bits_; }

  // Bucket index of a value, and the value range of a bucket (exposed for
  // tests).
  int IndexOf(int64_t value) const;
  int64_t LowOf(int index) const;
  int64_t HighOf(int index) const;

 private:
  int sub_bits_;
  std::vector<int64_t> counts_;
  int64_t count_ = 0;
  int64_t min_ = 0;
  int64_t max_ = 0;
  // __int128 would be exact; int64 nanoseconds overflow only past ~292
  // years of summed latency.
  int64_t sum_ = 0;
};

}  // namespace collision::load

#endif  // COLLISION_TOOLS_HISTOGRAM_H_
