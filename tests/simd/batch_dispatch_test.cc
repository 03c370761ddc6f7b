// The dispatcher (IntersectBatch, ClosestPointBatch) on shuffled mixed
// batches of every kind (the hitbox pairings, answered by the scalar
// functions in the batch, included), whole and in sub-spans, on every
// Highway target: out[i] must equal the scalar Intersect/ClosestPoint of
// item i, bit for bit.
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "collision/core/batch.h"
#include "collision/core/kernels.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "test_support.h"

namespace collision {
namespace {

using testing_support::BitEq;
using testing_support::Gen;
using testing_support::Mix;

Shape AnyShape(Gen& g, ShapeKind k) {
  switch (k) {
    case ShapeKind::kPoint2:
      return g.V2();
    case ShapeKind::kCircle:
      return g.Ball2();
    case ShapeKind::kRect:
      return g.RectShape();
    case ShapeKind::kRotatedRect:
      return g.Rotated();
    case ShapeKind::kPoint3:
      return g.V3();
    case ShapeKind::kSphere:
      return g.Ball3();
    case ShapeKind::kBox:
      return g.BoxShape();
    case ShapeKind::kCapsule3:
      return g.Capsule();
    case ShapeKind::kOrientedBox:
      return g.Obb();
  }
  return Vec2{};
}

std::vector<ShapePair> MixedPairs(size_t n, uint64_t seed, Mix mix) {
  Gen g(seed, mix);
  std::vector<ShapePair> pairs;
  while (pairs.size() < n) {
    const auto a = static_cast<ShapeKind>(g.Int(0, kShapeKinds - 1));
    const auto b = static_cast<ShapeKind>(g.Int(0, kShapeKinds - 1));
    if (!IsSupportedIntersectPair(a, b)) continue;
    pairs.push_back({AnyShape(g, a), AnyShape(g, b)});
  }
  return pairs;
}

std::vector<ClosestPointItem> MixedItems(size_t n, uint64_t seed, Mix mix) {
  Gen g(seed, mix);
  std::vector<ClosestPointItem> items;
  while (items.size() < n) {
    const auto q = static_cast<ShapeKind>(g.Int(0, kShapeKinds - 1));
    const auto t = static_cast<ShapeKind>(g.Int(0, kShapeKinds - 1));
    if (!IsSupportedClosestPointPair(q, t)) continue;
    items.push_back({AnyShape(g, q), AnyShape(g, t)});
  }
  return items;
}

bool Same(const IntersectResult& a, const IntersectResult& b) {
  return a.hit == b.hit && a.relation == b.relation &&
         BitEq(a.separation, b.separation);
}

bool Same(const Vec3& a, const Vec3& b) {
  return BitEq(a.x, b.x) && BitEq(a.y, b.y) && BitEq(a.z, b.z);
}

bool Same(const ClosestPointResult& a, const ClosestPointResult& b) {
  return Same(a.closest_point, b.closest_point) &&
         Same(a.surface_point, b.surface_point) && Same(a.normal, b.normal) &&
         BitEq(a.signed_distance, b.signed_distance) && BitEq(a.gap, b.gap) &&
         a.inside == b.inside && a.has_query_point == b.has_query_point &&
         Same(a.query_point, b.query_point);
}

// Compares out with the scalar answer of every pair; returns mismatches.
size_t CountIntersectMismatches(const std::vector<ShapePair>& pairs,
                                const std::vector<IntersectResult>& out,
                                Boundary boundary) {
  size_t bad = 0;
  for (size_t i = 0; i < pairs.size(); ++i) {
    if (!Same(out[i], Intersect(pairs[i].a, pairs[i].b, boundary))) {
      if (++bad <= 5) {
        ADD_FAILURE() << "pair " << i << " kinds "
                      << KindName(KindOf(pairs[i].a)) << "/"
                      << KindName(KindOf(pairs[i].b));
      }
    }
  }
  return bad;
}

size_t CountClosestMismatches(const std::vector<ClosestPointItem>& items,
                              const std::vector<ClosestPointResult>& out,
                              Boundary boundary) {
  size_t bad = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (!Same(out[i],
              ClosestPoint(items[i].query, items[i].target, boundary))) {
      if (++bad <= 5) {
        ADD_FAILURE() << "item " << i << " kinds "
                      << KindName(KindOf(items[i].query)) << "/"
                      << KindName(KindOf(items[i].target));
      }
    }
  }
  return bad;
}

class SimdBatchTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(SimdBatchTest);

TEST_P(SimdBatchTest, ReportsTheTargetUnderTest) {
  EXPECT_STREQ(SimdTargetName(), hwy::TargetName(GetParam()));
}

TEST_P(SimdBatchTest, ShuffledMixedIntersectBatchAnswersEveryPairInPlace) {
  for (Mix mix : {Mix::kRandom, Mix::kAdversarial}) {
    const std::vector<ShapePair> pairs =
        MixedPairs(100'003, mix == Mix::kRandom ? 1 : 2, mix);
    for (Boundary b : {Boundary::kInclusive, Boundary::kExclusive}) {
      std::vector<IntersectResult> out(pairs.size());
      IntersectBatch(pairs, b, absl::MakeSpan(out));
      EXPECT_EQ(CountIntersectMismatches(pairs, out, b), 0u);
    }
  }
}

TEST_P(SimdBatchTest, ShuffledMixedClosestPointBatchAnswersEveryItemInPlace) {
  for (Mix mix : {Mix::kRandom, Mix::kAdversarial}) {
    const std::vector<ClosestPointItem> items =
        MixedItems(100'003, mix == Mix::kRandom ? 3 : 4, mix);
    for (Boundary b : {Boundary::kInclusive, Boundary::kExclusive}) {
      std::vector<ClosestPointResult> out(items.size());
      ClosestPointBatch(items, b, absl::MakeSpan(out));
      EXPECT_EQ(CountClosestMismatches(items, out, b), 0u);
    }
  }
}

// Sub-spans of every size around the chunk boundaries, as the server's
// workers call it, each on its own slice of the output.
TEST_P(SimdBatchTest, SubSpanCallsAnswerTheirOwnSlice) {
  const std::vector<ShapePair> pairs = MixedPairs(20'000, 5, Mix::kAdversarial);
  const std::vector<ClosestPointItem> items =
      MixedItems(20'000, 6, Mix::kAdversarial);
  std::vector<IntersectResult> out(pairs.size());
  std::vector<ClosestPointResult> cout(items.size());
  const size_t cuts[] = {0, 1, 2, 17, 2047, 2048, 2049, 4097, 9000, 20'000};
  for (size_t k = 0; k + 1 < std::size(cuts); ++k) {
    const size_t begin = cuts[k], n = cuts[k + 1] - cuts[k];
    IntersectBatch(absl::MakeConstSpan(pairs).subspan(begin, n),
                   Boundary::kInclusive, absl::MakeSpan(out).subspan(begin, n));
    ClosestPointBatch(absl::MakeConstSpan(items).subspan(begin, n),
                      Boundary::kInclusive,
                      absl::MakeSpan(cout).subspan(begin, n));
  }
  EXPECT_EQ(CountIntersectMismatches(pairs, out, Boundary::kInclusive), 0u);
  EXPECT_EQ(CountClosestMismatches(items, cout, Boundary::kInclusive), 0u);
}

// An empty batch writes nothing: outputs given as empty views of real
// buffers keep every value they held.
TEST(SimdBatch, EmptyBatchesAreANoOp) {
  std::vector<IntersectResult> out(4);
  std::vector<ClosestPointResult> closest(4);
  for (IntersectResult& r : out) r.separation = 42.0f;
  for (ClosestPointResult& r : closest) r.gap = 42.0f;
  const std::vector<ShapePair> pairs = MixedPairs(4, 1, Mix::kRandom);
  const std::vector<ClosestPointItem> items = MixedItems(4, 2, Mix::kRandom);
  IntersectBatch(absl::MakeConstSpan(pairs).subspan(0, 0),
                 Boundary::kInclusive, absl::MakeSpan(out).subspan(0, 0));
  ClosestPointBatch(absl::MakeConstSpan(items).subspan(0, 0),
                    Boundary::kExclusive,
                    absl::MakeSpan(closest).subspan(0, 0));
  for (const IntersectResult& r : out) EXPECT_EQ(r.separation, 42.0f);
  for (const ClosestPointResult& r : closest) EXPECT_EQ(r.gap, 42.0f);
}

TEST_P(SimdBatchTest, ConcurrentCallsOnSplitBatchesAreIndependent) {
  const std::vector<ShapePair> pairs = MixedPairs(60'000, 9, Mix::kRandom);
  const std::vector<ClosestPointItem> items =
      MixedItems(60'000, 10, Mix::kRandom);
  std::vector<IntersectResult> out(pairs.size());
  std::vector<ClosestPointResult> cout(items.size());
  std::vector<std::thread> threads;
  const size_t parts = 4, step = pairs.size() / parts;
  for (size_t p = 0; p < parts; ++p) {
    threads.emplace_back([&, p] {
      for (int rep = 0; rep < 3; ++rep) {
        IntersectBatch(absl::MakeConstSpan(pairs).subspan(p * step, step),
                       Boundary::kExclusive,
                       absl::MakeSpan(out).subspan(p * step, step));
        ClosestPointBatch(absl::MakeConstSpan(items).subspan(p * step, step),
                          Boundary::kExclusive,
                          absl::MakeSpan(cout).subspan(p * step, step));
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(CountIntersectMismatches(pairs, out, Boundary::kExclusive), 0u);
  EXPECT_EQ(CountClosestMismatches(items, cout, Boundary::kExclusive), 0u);
}

}  // namespace
}  // namespace collision
