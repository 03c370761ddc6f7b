// SweepCircle and SweepSphere on exact cases by name: faces, edges and
// corners at their analytic distances, grazing contacts under both boundary
// rules, starting in contact. cast_reference_test.cc holds them to an
// independent double-precision reference on random sweeps.
#include <cmath>

#include "cast_testing.h"
#include "collision/core/cast.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

TEST(SweepCircle, AgainstAFaceStopsOneRadiusOut) {
  for (Boundary b : {kIn, kEx}) {
    const CastResult r =
        SweepCircle(Vec2{-10, 5}, 2, Vec2{1, 0}, 100, kSquare, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 8.0f);
    ExpectVec(r.point, 0, 5);
    ExpectVec(r.normal, -1, 0);
  }
}

TEST(SweepCircle, IntoARectCornerHitsTheCornerCircleAtTheAnalyticDistance) {
  // The centre moves up x = -3 and first comes 5 from the corner (0, 0) at
  // (-3, -4): distance 6 from (-3, -10).
  for (Boundary b : {kIn, kEx}) {
    const CastResult r =
        SweepCircle(Vec2{-3, -10}, 5, Vec2{0, 1}, 100, kSquare, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 6.0f);
    ExpectVec(r.point, 0, 0);
    ExpectVec(r.normal, -0.6f, -0.8f);
  }
}

TEST(SweepCircle, GrazingAFaceHitsOnlyWhenInclusive) {
  // The circle slides along the top face, touching it from x = 0 on.
  const CastResult in =
      SweepCircle(Vec2{-10, 11}, 1, Vec2{1, 0}, 100, kSquare, kIn);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.distance, 10.0f);
  ExpectVec(in.point, 0, 10);
  ExpectVec(in.normal, 0, 1);
  ExpectMiss(SweepCircle(Vec2{-10, 11}, 1, Vec2{1, 0}, 100, kSquare, kEx));
  EXPECT_TRUE(
      SweepCircle(Vec2{-10, 10.5f}, 1, Vec2{1, 0}, 100, kSquare, kEx).hit);
}

TEST(SweepCircle, AgainstACircleStopsAtTheSumOfTheRadii) {
  const Circle c{{10, 0}, 2};
  const CastResult r = SweepCircle(Vec2{0, 0}, 1, Vec2{1, 0}, 100, c, kEx);
  EXPECT_TRUE(r.hit);
  EXPECT_EQ(r.distance, 7.0f);
  ExpectVec(r.point, 8, 0);
  ExpectVec(r.normal, -1, 0);
  // Tangent: the centre passes 3 = 2 + 1 from the target's centre.
  const CastResult t = SweepCircle(Vec2{0, 3}, 1, Vec2{1, 0}, 100, c, kIn);
  EXPECT_TRUE(t.hit);
  EXPECT_EQ(t.distance, 10.0f);
  ExpectVec(t.point, 10, 2);
  ExpectVec(t.normal, 0, 1);
  ExpectMiss(SweepCircle(Vec2{0, 3}, 1, Vec2{1, 0}, 100, c, kEx));
}

TEST(SweepCircle, AgainstAPointOrAZeroSizeRectIsARayAgainstTheSweptCircle) {
  for (const Shape& target : {Shape{Vec2{10, 0}}, Shape{Circle{{10, 0}, 0}},
                              Shape{Rect{{10, 0}, {10, 0}}}}) {
    for (Boundary b : {kIn, kEx}) {
      const CastResult r =
          SweepCircle(Vec2{0, 0}, 2, Vec2{1, 0}, 100, target, b);
      EXPECT_TRUE(r.hit);
      EXPECT_EQ(r.distance, 8.0f);
      ExpectVec(r.point, 10, 0);
      ExpectVec(r.normal, -1, 0);
    }
  }
}

TEST(SweepCircle, StartingOverlappingHitsAtZeroAtTheClosestPoint) {
  for (Vec2 d : {Vec2{1, 0}, Vec2{-1, 0}, Vec2{0, 1}}) {
    for (Boundary b : {kIn, kEx}) {
      const CastResult r = SweepCircle(Vec2{-2, 5}, 3, d, 100, kSquare, b);
      EXPECT_TRUE(r.hit);
      EXPECT_EQ(r.distance, 0.0f);
      ExpectVec(r.point, 0, 5);
      ExpectVec(r.normal, -d.x, -d.y);
    }
  }
  // The centre inside the target: the closest point is the centre.
  const CastResult c =
      SweepCircle(Vec2{4, 5}, 3, Vec2{1, 0}, 100, kSquare, kEx);
  ExpectVec(c.point, 4, 5);
}

TEST(SweepCircle, StartingTouchingHitsAtZeroOnlyWhenInclusiveOrMovingIn) {
  // The circle of radius 3 at (-3, 5) touches the face x = 0.
  for (Vec2 d : {Vec2{1, 0}, Vec2{-1, 0}, Vec2{0, 1}}) {
    const CastResult in = SweepCircle(Vec2{-3, 5}, 3, d, 100, kSquare, kIn);
    EXPECT_TRUE(in.hit);
    EXPECT_EQ(in.distance, 0.0f);
    ExpectVec(in.point, 0, 5);
  }
  EXPECT_TRUE(SweepCircle(Vec2{-3, 5}, 3, Vec2{1, 0}, 100, kSquare, kEx).hit);
  ExpectMiss(SweepCircle(Vec2{-3, 5}, 3, Vec2{-1, 0}, 100, kSquare, kEx));
  ExpectMiss(SweepCircle(Vec2{-3, 5}, 3, Vec2{0, 1}, 100, kSquare, kEx));
}

TEST(SweepCircle, MaxDistanceEndingInContactHitsOnlyWhenInclusive) {
  EXPECT_TRUE(SweepCircle(Vec2{-10, 5}, 2, Vec2{1, 0}, 8, kSquare, kIn).hit);
  ExpectMiss(SweepCircle(Vec2{-10, 5}, 2, Vec2{1, 0}, 8, kSquare, kEx));
  ExpectMiss(SweepCircle(Vec2{-3, -10}, 5, Vec2{0, 1}, 5.9f, kSquare, kIn));
}

TEST(SweepSphere, IntoABoxEdgeHitsTheEdgeCylinder) {
  // The edge x = y = 0; the centre comes 5 from it at (-3, -4, 5).
  for (Boundary b : {kIn, kEx}) {
    const CastResult r =
        SweepSphere(Vec3{-3, -10, 5}, 5, Vec3{0, 1, 0}, 100, kCube, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 6.0f);
    ExpectVec(r.point, 0, 0, 5);
    ExpectVec(r.normal, -0.6f, -0.8f, 0);
  }
}

TEST(SweepSphere, IntoABoxCornerHitsTheCornerSphere) {
  // 2-3-6-7: the centre (-2, -3, -6) is 7 from the corner (0, 0, 0).
  for (Boundary b : {kIn, kEx}) {
    const CastResult r =
        SweepSphere(Vec3{-2, -10, -6}, 7, Vec3{0, 1, 0}, 100, kCube, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 7.0f);
    ExpectVec(r.point, 0, 0, 0);
    ExpectVec(r.normal, -2.0f / 7, -3.0f / 7, -6.0f / 7);
  }
}

TEST(SweepSphere, GrazingAnEdgeHitsOnlyWhenInclusive) {
  // The centre runs parallel to the edge y = z = 0 at distance 5.
  const CastResult in =
      SweepSphere(Vec3{-10, -3, -4}, 5, Vec3{1, 0, 0}, 100, kCube, kIn);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.distance, 10.0f);
  ExpectVec(in.point, 0, 0, 0);
  ExpectVec(in.normal, 0, -0.6f, -0.8f);
  ExpectMiss(SweepSphere(Vec3{-10, -3, -4}, 5, Vec3{1, 0, 0}, 100, kCube, kEx));
}

TEST(SweepSphere, AgainstFacesSpheresAndPoints) {
  const CastResult face =
      SweepSphere(Vec3{5, 5, 20}, 3, Vec3{0, 0, -1}, 100, kCube, kEx);
  EXPECT_EQ(face.distance, 7.0f);
  ExpectVec(face.point, 5, 5, 10);
  ExpectVec(face.normal, 0, 0, 1);
  const CastResult ball = SweepSphere(Vec3{0, 0, 0}, 1, Vec3{0, 0, 1}, 100,
                                      Sphere{{0, 0, 10}, 2}, kEx);
  EXPECT_EQ(ball.distance, 7.0f);
  ExpectVec(ball.point, 0, 0, 8);
  ExpectVec(ball.normal, 0, 0, -1);
  const CastResult point =
      SweepSphere(Vec3{0, 0, 0}, 1, Vec3{0, 0, 1}, 100, Vec3{0, 0, 10}, kEx);
  EXPECT_EQ(point.distance, 9.0f);
  ExpectVec(point.point, 0, 0, 10);
  // Starting overlapping: the box's closest point to the centre.
  const CastResult start =
      SweepSphere(Vec3{12, 5, 5}, 3, Vec3{1, 0, 0}, 100, kCube, kEx);
  EXPECT_EQ(start.distance, 0.0f);
  ExpectVec(start.point, 10, 5, 5);
  ExpectVec(start.normal, -1, 0, 0);
}

}  // namespace
}  // namespace collision
