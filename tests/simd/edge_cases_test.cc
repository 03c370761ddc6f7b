// Named edge cases of the contract, each run through the SIMD kernels on
// every Highway target and compared with the scalar reference and with the
// relation the contract promises.
#include <cmath>
#include <cstdint>
#include <vector>

#include "collision/core/kernels.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "test_support.h"

namespace collision {
namespace {

using testing_support::BitEq;
using testing_support::Columns;
using testing_support::kHalfPi;

// Runs one circle-rect pair through the kernel (as the only pair and as the
// last pair of a longer batch, to hit both the tail and the full-vector
// path) and returns its relation after checking it equals the scalar one.
template <class PutB, class Kernel, class Scalar, class B>
Relation KernelRelation(const Circle& a, const B& b, PutB put_b, size_t ncols,
                        Kernel kernel, Scalar scalar, Boundary boundary) {
  Columns c(ncols);
  for (int i = 0; i < 17; ++i) {
    c.Ball2(a);
    (c.*put_b)(b);
    c.EndRow();
  }
  const IntersectResult want = scalar(a, b, boundary);
  for (size_t n : {size_t{1}, size_t{17}}) {
    std::vector<Relation> rel(n);
    std::vector<float> sep(n);
    std::vector<uint8_t> hit(n);
    kernel(c, n, boundary,
           simd::IntersectOutputs{hit.data(), nullptr, rel.data(), sep.data()});
    EXPECT_EQ(rel[n - 1], want.relation);
    EXPECT_EQ(hit[n - 1] != 0, want.hit);
    EXPECT_TRUE(BitEq(sep[n - 1], want.separation))
        << sep[n - 1] << " vs " << want.separation;
  }
  return want.relation;
}

Relation CircleRect(const Circle& a, const Rect& b, Boundary boundary) {
  return KernelRelation(
      a, b, &Columns::RectShape, 7,
      [](const Columns& c, size_t n, Boundary bd,
         const simd::IntersectOutputs& o) {
        simd::IntersectCircleRectColumns(c.B2(0), c.R(3), n, bd, o);
      },
      IntersectCircleRect, boundary);
}

Relation CircleRotated(const Circle& a, const RotatedRect& b,
                       Boundary boundary) {
  return KernelRelation(
      a, b, &Columns::Rotated, 11,
      [](const Columns& c, size_t n, Boundary bd,
         const simd::IntersectOutputs& o) {
        simd::IntersectCircleRotatedRectColumns(c.B2(0), c.RR(3), n, bd, o);
      },
      IntersectCircleRotatedRect, boundary);
}

class SimdEdgeCaseTest : public hwy::TestWithParamTarget {};
HWY_TARGET_INSTANTIATE_TEST_SUITE_P(SimdEdgeCaseTest);

const Rect kSquare{{0, 0}, {2, 2}};

TEST_P(SimdEdgeCaseTest, CircleTouchingAnEdgeOnIntegersTouches) {
  const Circle c{{3, 1}, 1};
  EXPECT_EQ(CircleRect(c, kSquare, Boundary::kInclusive), Relation::kTouching);
  EXPECT_EQ(CircleRect(c, kSquare, Boundary::kExclusive), Relation::kTouching);
}

TEST_P(SimdEdgeCaseTest, CircleTouchingACornerOnIntegersTouches) {
  // (5, 6) is at distance exactly 5 from the corner (2, 2).
  EXPECT_EQ(CircleRect({{5, 6}, 5}, kSquare, Boundary::kInclusive),
            Relation::kTouching);
}

TEST_P(SimdEdgeCaseTest, PointStrictlyInsideOverlapsOnEdgeOrCornerTouches) {
  EXPECT_EQ(CircleRect({{1, 1}, 0}, kSquare, Boundary::kExclusive),
            Relation::kOverlapping);
  EXPECT_EQ(CircleRect({{0, 1}, 0}, kSquare, Boundary::kExclusive),
            Relation::kTouching);
  EXPECT_EQ(CircleRect({{2, 2}, 0}, kSquare, Boundary::kExclusive),
            Relation::kTouching);
}

// The ball-box kernels read "strictly inside" and "outside" from the sign of
// the penetration depth (c - lo, hi - c), which needs gradual underflow to
// tell a subnormal step from an edge; here d2 underflows to 0 outside too.
TEST_P(SimdEdgeCaseTest, PointsASubnormalFromAnEdgeKeepTheScalarRelation) {
  const float tiny = 1.4e-45f;  // the smallest subnormal float
  EXPECT_EQ(CircleRect({{tiny, 1}, 0}, kSquare, Boundary::kExclusive),
            Relation::kOverlapping);
  EXPECT_EQ(CircleRect({{2 - 1.2e-7f, tiny}, 0}, kSquare, Boundary::kExclusive),
            Relation::kOverlapping);
  EXPECT_EQ(CircleRect({{-tiny, 1}, 0}, kSquare, Boundary::kInclusive),
            Relation::kTouching);
  EXPECT_EQ(CircleRect({{-tiny, 1}, tiny}, kSquare, Boundary::kInclusive),
            Relation::kTouching);
  EXPECT_EQ(CircleRect({{-tiny, 1}, 1e-20f}, kSquare, Boundary::kInclusive),
            Relation::kOverlapping);
}

TEST_P(SimdEdgeCaseTest, ZeroSizeRectangleBehavesAsAPoint) {
  const Rect point{{1, 1}, {1, 1}};
  EXPECT_EQ(CircleRect({{1, 3}, 2}, point, Boundary::kInclusive),
            Relation::kTouching);
  EXPECT_EQ(CircleRect({{1, 1}, 0}, point, Boundary::kInclusive),
            Relation::kTouching);
}

TEST_P(SimdEdgeCaseTest, NegativeZeroCoordinatesGiveTheScalarSignedZeros) {
  EXPECT_EQ(CircleRect({{-0.0f, 1}, 0}, kSquare, Boundary::kInclusive),
            Relation::kTouching);
  EXPECT_EQ(CircleRect({{-0.0f, -0.0f}, 1}, {{0, 0}, {-0.0f, 0}},
                       Boundary::kInclusive),
            Relation::kOverlapping);
}

TEST_P(SimdEdgeCaseTest, CoordinatesNearTheMagnitudeBoundStayExact) {
  const Rect far{{kMaxMagnitude - 128, 0}, {kMaxMagnitude, 64}};
  EXPECT_EQ(
      CircleRect({{kMaxMagnitude - 192, 32}, 64}, far, Boundary::kInclusive),
      Relation::kTouching);
  EXPECT_EQ(CircleRect({{-kMaxMagnitude, -kMaxMagnitude}, kMaxMagnitude}, far,
                       Boundary::kInclusive),
            Relation::kDisjoint);
}

TEST_P(SimdEdgeCaseTest, QuarterTurnsTouchExactlyLikeTheAxisAlignedRect) {
  for (int k = -8; k <= 8; ++k) {
    RotatedRect r;
    r.size = {2, 2};
    r.pivot = {1, 1};
    r.position = {1, 1};
    r.rotation = RotationFromAngle(static_cast<float>(k) * kHalfPi);
    EXPECT_EQ(CircleRotated({{3, 1}, 1}, r, Boundary::kInclusive),
              Relation::kTouching)
        << "k = " << k;
  }
}

TEST_P(SimdEdgeCaseTest, TinyRotationsMatchScalar) {
  for (float angle : {1e-7f, -1e-7f, 1e-30f, 3e-4f}) {
    RotatedRect r;
    r.size = {2, 2};
    r.position = {0, 0};
    r.rotation = RotationFromAngle(angle);
    CircleRotated({{3, 1}, 1}, r, Boundary::kInclusive);
    CircleRotated({{2, 2}, 0}, r, Boundary::kExclusive);
  }
}

}  // namespace
}  // namespace collision
