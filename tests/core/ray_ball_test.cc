// RayCast against circles, spheres and points on exact cases by name:
// tangents and endpoints under both boundary rules, and integer rays whose
// hit/miss decision is checked in exact integer arithmetic.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>

#include "cast_testing.h"
#include "collision/core/cast.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

TEST(RayCastCircle, TangentIntegerRayHitsOnlyWhenInclusive) {
  const Circle c{{5, 0}, 1};
  const CastResult in = RayCast(Vec2{0, 1}, Vec2{1, 0}, 100, c, kIn);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.distance, 5.0f);
  ExpectVec(in.point, 5, 1);
  ExpectVec(in.normal, 0, 1);
  ExpectMiss(RayCast(Vec2{0, 1}, Vec2{1, 0}, 100, c, kEx));
  EXPECT_TRUE(RayCast(Vec2{0, 0.5f}, Vec2{1, 0}, 100, c, kEx).hit);
  ExpectMiss(RayCast(Vec2{0, 1.0001f}, Vec2{1, 0}, 100, c, kIn));

  const Sphere s{{5, 0, 0}, 1};
  const CastResult s_in = RayCast(Vec3{0, 0, -1}, Vec3{1, 0, 0}, 100, s, kIn);
  EXPECT_TRUE(s_in.hit);
  EXPECT_EQ(s_in.distance, 5.0f);
  ExpectVec(s_in.point, 5, 0, -1);
  ExpectVec(s_in.normal, 0, 0, -1);
  ExpectMiss(RayCast(Vec3{0, 0, -1}, Vec3{1, 0, 0}, 100, s, kEx));
}

TEST(RayCastCircle, EntersAtTheNearRootWithTheRadialNormal) {
  // 3-4-5: the ray y = 3 enters the circle of radius 5 at (-4, 3).
  const Circle c{{0, 0}, 5};
  for (Boundary b : {kIn, kEx}) {
    const CastResult r = RayCast(Vec2{-10, 3}, Vec2{1, 0}, 100, c, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 6.0f);
    ExpectVec(r.point, -4, 3);
    ExpectVec(r.normal, -0.8f, 0.6f);
  }
  ExpectMiss(RayCast(Vec2{10, 3}, Vec2{1, 0}, 100, c, kIn));
}

TEST(RayCastCircle, StartingOnTheCircle) {
  const Circle c{{5, 0}, 1};
  // Moving out: a touch at 0.
  const CastResult out = RayCast(Vec2{6, 0}, Vec2{1, 0}, 100, c, kIn);
  EXPECT_TRUE(out.hit);
  EXPECT_EQ(out.distance, 0.0f);
  ExpectVec(out.point, 6, 0);
  ExpectVec(out.normal, -1, 0);
  ExpectMiss(RayCast(Vec2{6, 0}, Vec2{1, 0}, 100, c, kEx));
  // Moving in: a hit at 0 under both rules.
  for (Boundary b : {kIn, kEx}) {
    const CastResult in = RayCast(Vec2{6, 0}, Vec2{-1, 0}, 100, c, b);
    EXPECT_TRUE(in.hit);
    EXPECT_EQ(in.distance, 0.0f);
    ExpectVec(in.normal, 1, 0);
  }
  // Starting inside.
  const CastResult inside = RayCast(Vec2{5, 0.5f}, Vec2{0, 1}, 100, c, kEx);
  EXPECT_TRUE(inside.hit);
  EXPECT_EQ(inside.distance, 0.0f);
  ExpectVec(inside.point, 5, 0.5f);
}

TEST(RayCastCircle, MaxDistanceEndingExactlyOnTheCircleHitsOnlyWhenInclusive) {
  const Circle c{{5, 0}, 1};
  EXPECT_TRUE(RayCast(Vec2{0, 0}, Vec2{1, 0}, 4, c, kIn).hit);
  ExpectMiss(RayCast(Vec2{0, 0}, Vec2{1, 0}, 4, c, kEx));
  EXPECT_EQ(RayCast(Vec2{0, 0}, Vec2{1, 0}, 4.5f, c, kEx).distance, 4.0f);
  ExpectMiss(RayCast(Vec2{0, 0}, Vec2{1, 0}, 0, c, kIn));
  const Sphere s{{0, 0, 5}, 1};
  EXPECT_TRUE(RayCast(Vec3{0, 0, 0}, Vec3{0, 0, 1}, 4, s, kIn).hit);
  ExpectMiss(RayCast(Vec3{0, 0, 0}, Vec3{0, 0, 1}, 4, s, kEx));
}

// Integer rays along an axis against integer circles and spheres: the
// hit/miss decision, in exact integer arithmetic, must match exactly (the
// entry is along - sqrt(disc); comparing it with max needs no square root).
TEST(RayCastCircle, IntegerAxisAlignedRaysDecideHitsExactly) {
  std::mt19937 rng(105);
  std::uniform_int_distribution<int> coord(-8, 8), rad(0, 6), axis(0, 2);
  for (int i = 0; i < 40000; ++i) {
    const int dims = 2 + (i % 2);
    const int k = axis(rng) % dims;
    const int sign = coord(rng) > 0 ? 1 : -1;
    std::array<int64_t, 3> m{};  // origin - centre
    std::array<float, 3> o{}, c{}, d{};
    for (int j = 0; j < dims; ++j) {
      o[j] = float(coord(rng));
      c[j] = float(coord(rng));
      m[j] = int64_t(o[j]) - int64_t(c[j]);
    }
    d[k] = float(sign);
    const int64_t r = rad(rng), max = rad(rng) * 3;
    int64_t m2 = 0;
    for (int j = 0; j < dims; ++j) m2 += m[j] * m[j];
    const int64_t along = -sign * m[k];  // t of the closest approach
    const int64_t disc = r * r - (m2 - m[k] * m[k]);
    const int64_t gap = along - max;  // entry <= max: gap <= sqrt(disc)
    const bool in = m2 <= r * r ||
                    (along > 0 && disc >= 0 && (gap <= 0 || gap * gap <= disc));
    const bool ex =
        r > 0 && (m2 < r * r || (m2 == r * r && along > 0 && max > 0) ||
                  (along > 0 && disc > 0 && (gap < 0 || gap * gap < disc)));
    for (Boundary b : {kIn, kEx}) {
      CastResult got;
      if (dims == 2) {
        got = RayCast(Vec2{o[0], o[1]}, Vec2{d[0], d[1]}, float(max),
                      Circle{{c[0], c[1]}, float(r)}, b);
      } else {
        got = RayCast(Vec3{o[0], o[1], o[2]}, Vec3{d[0], d[1], d[2]},
                      float(max), Sphere{{c[0], c[1], c[2]}, float(r)}, b);
      }
      ASSERT_EQ(got.hit, b == kIn ? in : ex) << i;
      if (!got.hit || m2 <= r * r) continue;
      const double entry = double(along) - std::sqrt(double(disc));
      ASSERT_NEAR(got.distance, entry, 1e-6 * (1 + entry)) << i;
    }
  }
}

TEST(RayCastPoint, HitsOnlyWhenInclusiveAndExactlyOnTheSegment) {
  const Vec2 d = NormalizeDirection(Vec2{1, 1});
  for (const Shape& target : {Shape{Vec2{5, 0}}, Shape{Circle{{5, 0}, 0}}}) {
    const CastResult r = RayCast(Vec2{0, 0}, Vec2{1, 0}, 10, target, kIn);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 5.0f);
    ExpectVec(r.point, 5, 0);
    ExpectVec(r.normal, -1, 0);
    ExpectMiss(RayCast(Vec2{0, 0}, Vec2{1, 0}, 10, target, kEx));
    // Ending exactly on the point, short of it, behind it, beside it.
    EXPECT_TRUE(RayCast(Vec2{0, 0}, Vec2{1, 0}, 5, target, kIn).hit);
    ExpectMiss(RayCast(Vec2{0, 0}, Vec2{1, 0}, 4.5f, target, kIn));
    ExpectMiss(RayCast(Vec2{6, 0}, Vec2{1, 0}, 10, target, kIn));
    ExpectMiss(RayCast(Vec2{0, 1e-30f}, Vec2{1, 0}, 10, target, kIn));
    // Starting on it.
    const CastResult on = RayCast(Vec2{5, 0}, d, 10, target, kIn);
    EXPECT_TRUE(on.hit);
    EXPECT_EQ(on.distance, 0.0f);
    ExpectVec(on.normal, -d.x, -d.y);
  }
  // On a diagonal: the float cross product is exactly zero.
  const CastResult diag = RayCast(Vec2{-1, -1}, d, 10, Vec2{3, 3}, kIn);
  EXPECT_TRUE(diag.hit);
  EXPECT_FLOAT_EQ(diag.distance, 4 * std::sqrt(2.0f));
  ExpectVec(diag.point, 3, 3);
  ExpectVec(diag.normal, -d.x, -d.y);
  ExpectMiss(RayCast(Vec2{-1, -1}, d, 10, Vec2{3, 3}, kEx));
}

TEST(RayCastPoint, ThreeDPointsAndZeroRadiusSpheres) {
  for (const Shape& target :
       {Shape{Vec3{1, 2, 7}}, Shape{Sphere{{1, 2, 7}, 0}}}) {
    const CastResult r = RayCast(Vec3{1, 2, 0}, Vec3{0, 0, 1}, 10, target, kIn);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 7.0f);
    ExpectVec(r.point, 1, 2, 7);
    ExpectVec(r.normal, 0, 0, -1);
    ExpectMiss(RayCast(Vec3{1, 2, 0}, Vec3{0, 0, 1}, 10, target, kEx));
    ExpectMiss(RayCast(Vec3{1, 3, 0}, Vec3{0, 0, 1}, 10, target, kIn));
  }
}

}  // namespace
}  // namespace collision
