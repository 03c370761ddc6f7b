// Behaviour of the scalar ClosestPoint reference: outside, inside, on an edge
// and a corner, tie-breaks, rotated targets, 3D, and invariants on random
// inputs.
#include <cmath>
#include <random>

#include "collision/core/scalar.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

constexpr Boundary kIn = Boundary::kInclusive;
constexpr Boundary kEx = Boundary::kExclusive;
constexpr float kHalfPi = 1.57079637f;

void ExpectVec(const Vec3& v, float x, float y, float z = 0) {
  EXPECT_FLOAT_EQ(v.x, x);
  EXPECT_FLOAT_EQ(v.y, y);
  EXPECT_FLOAT_EQ(v.z, z);
}

const Rect kSquare{{0, 0}, {10, 10}};

TEST(ClosestPointRect, OutsideClampsAndPointsAway) {
  const ClosestPointResult r = ClosestPointOnRect({13, 14}, 0, kSquare, kIn);
  ExpectVec(r.closest_point, 10, 10);
  ExpectVec(r.surface_point, 10, 10);
  ExpectVec(r.normal, 0.6f, 0.8f);
  EXPECT_FLOAT_EQ(r.signed_distance, 5);
  EXPECT_FALSE(r.inside);
}

TEST(ClosestPointRect, InsideReturnsTheCentreAndTheNearestFace) {
  const ClosestPointResult r = ClosestPointOnRect({3, 6}, 1, kSquare, kEx);
  ExpectVec(r.closest_point, 3, 6);
  ExpectVec(r.surface_point, 0, 6);
  ExpectVec(r.normal, -1, 0);
  EXPECT_EQ(r.signed_distance, -3);
  EXPECT_EQ(r.gap, -4);
  EXPECT_TRUE(r.inside);
}

TEST(ClosestPointRect, TiesBreakInTheOrderMinusXPlusXMinusYPlusY) {
  // The centre of the square is 5 from every face: -x wins.
  ExpectVec(ClosestPointOnRect({5, 5}, 0, kSquare, kIn).normal, -1, 0);
  // Equidistant from +x and +y: +x comes before +y.
  ExpectVec(ClosestPointOnRect({8, 8}, 0, kSquare, kIn).normal, 1, 0);
  // Equidistant from -y and +y only: -y.
  ExpectVec(ClosestPointOnRect({10, 5}, 0, Rect{{0, 0}, {20, 10}}, kIn).normal,
            0, -1);
}

TEST(ClosestPointRect, OnAnEdgeIsInsideOnlyWhenInclusive) {
  const ClosestPointResult in = ClosestPointOnRect({10, 4}, 0, kSquare, kIn);
  EXPECT_TRUE(in.inside);
  EXPECT_EQ(in.signed_distance, 0.0f);
  EXPECT_FALSE(std::signbit(in.signed_distance));
  ExpectVec(in.normal, 1, 0);
  ExpectVec(in.surface_point, 10, 4);
  EXPECT_FALSE(ClosestPointOnRect({10, 4}, 0, kSquare, kEx).inside);
}

TEST(ClosestPointRect, OnACornerTakesTheFirstFaceInTieOrder) {
  ExpectVec(ClosestPointOnRect({10, 10}, 0, kSquare, kIn).normal, 1, 0);
  ExpectVec(ClosestPointOnRect({0, 10}, 0, kSquare, kIn).normal, -1, 0);
}

TEST(ClosestPointCircle, OutsideInsideAndCentre) {
  const Circle c{{0, 0}, 2};
  const ClosestPointResult out = ClosestPointOnCircle({0, 5}, 1, c, kIn);
  ExpectVec(out.closest_point, 0, 2);
  ExpectVec(out.normal, 0, 1);
  EXPECT_EQ(out.signed_distance, 3);
  EXPECT_EQ(out.gap, 2);
  EXPECT_FALSE(out.inside);
  const ClosestPointResult in = ClosestPointOnCircle({1, 0}, 0, c, kEx);
  ExpectVec(in.closest_point, 1, 0);
  ExpectVec(in.surface_point, 2, 0);
  EXPECT_EQ(in.signed_distance, -1);
  EXPECT_TRUE(in.inside);
  const ClosestPointResult centre = ClosestPointOnCircle({0, 0}, 0, c, kEx);
  ExpectVec(centre.normal, 1, 0);
  ExpectVec(centre.surface_point, 2, 0);
  const ClosestPointResult on = ClosestPointOnCircle({0, -2}, 0, c, kIn);
  EXPECT_EQ(on.signed_distance, 0.0f);
  EXPECT_TRUE(on.inside);
  EXPECT_FALSE(ClosestPointOnCircle({0, -2}, 0, c, kEx).inside);
}

TEST(ClosestPointPoint, PointTargetIsAZeroRadiusCircle) {
  const ClosestPointResult r = ClosestPoint(Vec2{3, 4}, Vec2{0, 0}, kIn);
  ExpectVec(r.closest_point, 0, 0);
  EXPECT_EQ(r.signed_distance, 5);
  EXPECT_TRUE(ClosestPoint(Vec2{1, 1}, Vec2{1, 1}, kIn).inside);
  EXPECT_FALSE(ClosestPoint(Vec2{1, 1}, Vec2{1, 1}, kEx).inside);
}

TEST(ClosestPointRotatedRect, QuarterTurnMapsFacesAndNormals) {
  // 4x2 about its min corner, turned a quarter: x in [-2, 0], y in [0, 4].
  const RotatedRect r{{4, 2}, {0, 0}, {0, 0}, RotationFromAngle(kHalfPi)};
  const ClosestPointResult out = ClosestPointOnRotatedRect({3, 2}, 0, r, kIn);
  ExpectVec(out.closest_point, 0, 2);
  ExpectVec(out.normal, 1, 0);
  EXPECT_EQ(out.signed_distance, 3);
  const ClosestPointResult in =
      ClosestPointOnRotatedRect({-1, 3.5f}, 0, r, kIn);
  ExpectVec(in.closest_point, -1, 3.5f);  // the centre itself, exactly
  ExpectVec(in.surface_point, -1, 4);
  ExpectVec(in.normal, 0, 1);
  EXPECT_EQ(in.signed_distance, -0.5f);
  EXPECT_TRUE(in.inside);
}

TEST(ClosestPointRotatedRect, InsideReturnsTheExactCentreAtAnyAngle) {
  const RotatedRect r{{10, 6}, {5, 3}, {100, 50}, RotationFromAngle(0.7f)};
  const ClosestPointResult in =
      ClosestPointOnRotatedRect({100.3f, 50.1f}, 0, r, kIn);
  EXPECT_EQ(in.closest_point.x, 100.3f);
  EXPECT_EQ(in.closest_point.y, 50.1f);
}

TEST(ClosestPointBox, ThreeDFacesAndTieOrder) {
  const Box b{{0, 0, 0}, {4, 4, 4}};
  const ClosestPointResult out = ClosestPointOnBox({2, 2, 7}, 1, b, kIn);
  ExpectVec(out.closest_point, 2, 2, 4);
  ExpectVec(out.normal, 0, 0, 1);
  EXPECT_EQ(out.signed_distance, 3);
  EXPECT_EQ(out.gap, 2);
  const ClosestPointResult in = ClosestPointOnBox({2, 2, 1}, 0, b, kIn);
  ExpectVec(in.normal, 0, 0, -1);
  ExpectVec(in.surface_point, 2, 2, 0);
  ExpectVec(ClosestPointOnBox({2, 2, 2}, 0, b, kIn).normal, -1, 0, 0);
  const ClosestPointResult s =
      ClosestPointOnSphere({0, 0, 0}, 0, {{0, 0, 0}, 1}, kIn);
  ExpectVec(s.normal, 1, 0, 0);
  EXPECT_EQ(s.signed_distance, -1);
}

TEST(ClosestPoint, InvariantsHoldOnRandomInputs) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<float> pos(-20, 20), len(0, 10), ang(-7, 7);
  for (int i = 0; i < 100000; ++i) {
    const Vec2 p{pos(rng), pos(rng)};
    const float x0 = pos(rng), y0 = pos(rng);
    const Rect rect{{x0, y0}, {x0 + len(rng), y0 + len(rng)}};
    const RotatedRect rr{{len(rng), len(rng)},
                         {len(rng), len(rng)},
                         {pos(rng), pos(rng)},
                         RotationFromAngle(ang(rng))};
    for (const ClosestPointResult& r :
         {ClosestPointOnRect(p, 0, rect, kIn),
          ClosestPointOnRotatedRect(p, 0, rr, kIn),
          ClosestPointOnCircle(p, 0, Circle{{x0, y0}, len(rng)}, kIn)}) {
      // The normal is a unit vector.
      ASSERT_NEAR(std::hypot(r.normal.x, r.normal.y), 1.0f, 1e-5f) << i;
      // |signed distance| is the distance from the centre to surface_point.
      ASSERT_NEAR(std::fabs(r.signed_distance),
                  std::hypot(p.x - r.surface_point.x, p.y - r.surface_point.y),
                  1e-4f)
          << i;
      // Inside agrees with the sign of the signed distance (the exact
      // decision is made on squares; sqrt may round a hair across 0).
      if (r.signed_distance < -1e-5f) {
        ASSERT_TRUE(r.inside) << i;
      }
      if (r.signed_distance > 1e-5f) {
        ASSERT_FALSE(r.inside) << i;
      }
    }
    // The rectangle answer agrees with Intersect for a point query.
    const ClosestPointResult r = ClosestPointOnRect(p, 0, rect, kEx);
    ASSERT_EQ(r.inside, Intersect(p, rect, kEx).hit) << i;
  }
}

}  // namespace
}  // namespace collision
