// The log-linear histogram against a sorted-array reference.
#include "tools/histogram.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "gtest/gtest.h"

namespace collision::load {
namespace {

int64_t NearestRank(const std::vector<int64_t>& sorted, double q) {
  const auto rank = std::max<int64_t>(
      1, static_cast<int64_t>(std::ceil(q / 100.0 * double(sorted.size()))));
  return sorted[static_cast<std::size_t>(rank - 1)];
}

void ExpectMatchesReference(const std::vector<int64_t>& values, int sub_bits) {
  Histogram h(sub_bits);
  for (int64_t v : values) h.Record(v);
  std::vector<int64_t> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(h.count(), int64_t(values.size()));
  EXPECT_EQ(h.min(), sorted.front());
  EXPECT_EQ(h.max(), sorted.back());
  const double relative = 1.0 / double(1 << sub_bits);
  for (double q :
       {0.0, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const int64_t want = NearestRank(sorted, q);
    const int64_t got = h.Percentile(q);
    // Never below the true value, at most one bucket width above it.
    EXPECT_GE(got, want) << "q=" << q;
    EXPECT_LE(double(got - want), double(want) * relative + 1) << "q=" << q;
  }
}

TEST(Histogram, PercentilesMatchASortedArrayOnLogNormalLatencies) {
  std::mt19937_64 rng(42);
  std::lognormal_distribution<double> latency_ns(std::log(200e3), 1.0);
  std::vector<int64_t> values;
  for (int i = 0; i < 100000; ++i) values.push_back(int64_t(latency_ns(rng)));
  ExpectMatchesReference(values, 7);
  ExpectMatchesReference(values, 4);
}

TEST(Histogram, SmallValuesAreExact) {
  std::vector<int64_t> values;
  for (int64_t v = 0; v < 256; ++v) values.push_back(v);
  Histogram h;
  for (int64_t v : values) h.Record(v);
  for (double q = 1; q <= 100; q += 1) {
    EXPECT_EQ(h.Percentile(q), NearestRank(values, q)) << q;
  }
}

TEST(Histogram, BucketsTileTheRangeWithoutGaps) {
  Histogram h(5);
  for (int i = 0; i + 1 < h.IndexOf(int64_t{1} << 40); ++i) {
    ASSERT_EQ(h.HighOf(i) + 1, h.LowOf(i + 1)) << i;
    ASSERT_EQ(h.IndexOf(h.LowOf(i)), i);
    ASSERT_EQ(h.IndexOf(h.HighOf(i)), i);
  }
}

TEST(Histogram, HugeAndNegativeValuesAreClampedNotLost) {
  Histogram h;
  h.Record(-5);
  h.Record(int64_t{1} << 62);
  EXPECT_EQ(h.count(), 2);
  EXPECT_EQ(h.min(), 0);
  EXPECT_EQ(h.Percentile(100), int64_t{1} << 62);
}

TEST(Histogram, MergeEqualsRecordingEverythingInOne) {
  std::mt19937_64 rng(1);
  Histogram a, b, all;
  for (int i = 0; i < 10000; ++i) {
    const int64_t v = int64_t(rng() % 10000000);
    (i % 2 ? a : b).Record(v);
    all.Record(v);
  }
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  EXPECT_DOUBLE_EQ(a.mean(), all.mean());
  for (double q : {50.0, 99.0, 99.9})
    EXPECT_EQ(a.Percentile(q), all.Percentile(q));
  EXPECT_EQ(Histogram().Percentile(50), 0);
}

}  // namespace
}  // namespace collision::load
