// RayCast against rectangles and boxes (and SweepCircle on rotated frames)
// on exact cases by name: the boundary rules on integer inputs, degenerate
// and huge targets, and rotated frames; RayCast and SweepSphere against
// capsules and oriented boxes on cases worked by hand, and quarter-turned
// oriented boxes against the axis-aligned box. cast_reference_test.cc holds
// them to an independent double-precision reference on random casts.
#include "collision/core/cast.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>

#include "cast_reference.h"
#include "cast_testing.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

// ---- Rays against rectangles and boxes -------------------------------------

TEST(RayCastRect, HitsTheFaceItEntersWithThatFacesNormal) {
  for (Boundary b : {kIn, kEx}) {
    const CastResult r = RayCast(Vec2{-5, 4}, Vec2{1, 0}, 100, kSquare, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 5.0f);
    ExpectVec(r.point, 0, 4);
    ExpectVec(r.normal, -1, 0);
    const CastResult down = RayCast(Vec2{4, 15}, Vec2{0, -1}, 100, kSquare, b);
    EXPECT_EQ(down.distance, 5.0f);
    ExpectVec(down.point, 4, 10);
    ExpectVec(down.normal, 0, 1);
  }
}

TEST(RayCastRect, PointingAwayOrFallingShortMisses) {
  ExpectMiss(RayCast(Vec2{15, 5}, Vec2{1, 0}, 100, kSquare, kIn));
  ExpectMiss(RayCast(Vec2{-5, 5}, Vec2{1, 0}, 4.5f, kSquare, kIn));
  ExpectMiss(RayCast(Vec2{-5, 11}, Vec2{1, 0}, 100, kSquare, kIn));
}

TEST(RayCastRect, GrazingEdgeHitsOnlyWhenInclusive) {
  // Along the bottom edge y = 0 and the top edge y = 10.
  for (float y : {0.0f, 10.0f}) {
    const CastResult in = RayCast(Vec2{-5, y}, Vec2{1, 0}, 100, kSquare, kIn);
    EXPECT_TRUE(in.hit);
    EXPECT_EQ(in.distance, 5.0f);
    ExpectVec(in.point, 0, y);
    ExpectVec(in.normal, -1, 0);
    ExpectMiss(RayCast(Vec2{-5, y}, Vec2{1, 0}, 100, kSquare, kEx));
  }
}

TEST(RayCastRect, DiagonalThroughACornerEntersThereWithTheXFaceNormal) {
  const Vec2 d = NormalizeDirection(Vec2{1, -1});
  for (Boundary b : {kIn, kEx}) {
    // Enters at the corner (0, 10) and crosses the square.
    const CastResult r = RayCast(Vec2{-2, 12}, d, 100, kSquare, b);
    EXPECT_TRUE(r.hit);
    // Both slabs are entered at the same t: the tie goes to x.
    EXPECT_EQ(r.distance, 2.0f / d.x);
    ExpectVec(r.normal, -1, 0);
    EXPECT_EQ(r.point.x, 0.0f);
    EXPECT_FLOAT_EQ(r.point.y, 10.0f);
  }
}

TEST(RayCastRect, DiagonalTouchingOnlyACornerHitsOnlyWhenInclusive) {
  const Vec2 d = NormalizeDirection(Vec2{1, -1});
  const CastResult in = RayCast(Vec2{-2, 2}, d, 100, kSquare, kIn);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.distance, 2.0f / d.x);
  EXPECT_EQ(in.point.x, 0.0f);
  EXPECT_NEAR(in.point.y, 0.0f, 1e-6f);
  ExpectVec(in.normal, -1, 0);
  ExpectMiss(RayCast(Vec2{-2, 2}, d, 100, kSquare, kEx));
}

TEST(RayCastRect, StartingOnTheBoundaryMovingInHitsAtZero) {
  for (Boundary b : {kIn, kEx}) {
    const CastResult r = RayCast(Vec2{0, 5}, Vec2{1, 0}, 100, kSquare, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 0.0f);
    ExpectVec(r.point, 0, 5);
    ExpectVec(r.normal, -1, 0);
    // Obliquely in: still distance 0, and the normal is -direction.
    const Vec2 d = NormalizeDirection(Vec2{3, 4});
    const CastResult o = RayCast(Vec2{0, 5}, d, 100, kSquare, b);
    EXPECT_TRUE(o.hit);
    EXPECT_EQ(o.distance, 0.0f);
    ExpectVec(o.point, 0, 5);
    ExpectVec(o.normal, -d.x, -d.y);
  }
}

TEST(RayCastRect, StartingOnTheBoundaryMovingOutHitsOnlyWhenInclusive) {
  const CastResult in = RayCast(Vec2{0, 5}, Vec2{-1, 0}, 100, kSquare, kIn);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.distance, 0.0f);
  ExpectVec(in.point, 0, 5);
  ExpectVec(in.normal, 1, 0);
  ExpectMiss(RayCast(Vec2{0, 5}, Vec2{-1, 0}, 100, kSquare, kEx));
  // Sliding along the boundary never enters the interior.
  EXPECT_TRUE(RayCast(Vec2{0, 5}, Vec2{0, 1}, 100, kSquare, kIn).hit);
  ExpectMiss(RayCast(Vec2{0, 5}, Vec2{0, 1}, 100, kSquare, kEx));
  // Leaving through a corner.
  const Vec2 d = NormalizeDirection(Vec2{1, 1});
  EXPECT_TRUE(RayCast(Vec2{10, 10}, d, 100, kSquare, kIn).hit);
  ExpectMiss(RayCast(Vec2{10, 10}, d, 100, kSquare, kEx));
}

TEST(RayCastRect, StartingInsideHitsAtZeroAtTheOriginWithMinusDirection) {
  const Vec2 d = NormalizeDirection(Vec2{-2, 7});
  for (Boundary b : {kIn, kEx}) {
    const CastResult r = RayCast(Vec2{3, 4}, d, 100, kSquare, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 0.0f);
    ExpectVec(r.point, 3, 4);
    ExpectVec(r.normal, -d.x, -d.y);
  }
}

TEST(RayCastRect, MaxDistanceEndingExactlyOnTheSurfaceHitsOnlyWhenInclusive) {
  const CastResult in = RayCast(Vec2{-5, 5}, Vec2{1, 0}, 5, kSquare, kIn);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.distance, 5.0f);
  ExpectVec(in.point, 0, 5);
  ExpectMiss(RayCast(Vec2{-5, 5}, Vec2{1, 0}, 5, kSquare, kEx));
  EXPECT_TRUE(RayCast(Vec2{-5, 5}, Vec2{1, 0}, 5.5f, kSquare, kEx).hit);
}

TEST(RayCastRect, ZeroMaxDistanceHitsOnlyWhereTheOriginIs) {
  ExpectMiss(RayCast(Vec2{-1, 5}, Vec2{1, 0}, 0, kSquare, kIn));
  for (Boundary b : {kIn, kEx}) {
    const CastResult r = RayCast(Vec2{5, 5}, Vec2{1, 0}, 0, kSquare, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 0.0f);
  }
  // On the boundary: a touch, whichever way it points.
  EXPECT_TRUE(RayCast(Vec2{0, 5}, Vec2{1, 0}, 0, kSquare, kIn).hit);
  ExpectMiss(RayCast(Vec2{0, 5}, Vec2{1, 0}, 0, kSquare, kEx));
}

TEST(RayCastRect, ZeroSizeRectanglesAreHitOnlyWhenInclusive) {
  const Rect dot{{3, 3}, {3, 3}};
  const CastResult p = RayCast(Vec2{0, 3}, Vec2{1, 0}, 10, dot, kIn);
  EXPECT_TRUE(p.hit);
  EXPECT_EQ(p.distance, 3.0f);
  ExpectVec(p.point, 3, 3);
  ExpectVec(p.normal, -1, 0);
  ExpectMiss(RayCast(Vec2{0, 3}, Vec2{1, 0}, 10, dot, kEx));
  ExpectMiss(RayCast(Vec2{0, 4}, Vec2{1, 0}, 10, dot, kIn));

  const Rect wall{{3, 0}, {3, 10}};  // zero width: a segment
  const CastResult across = RayCast(Vec2{0, 5}, Vec2{1, 0}, 10, wall, kIn);
  EXPECT_TRUE(across.hit);
  EXPECT_EQ(across.distance, 3.0f);
  ExpectVec(across.point, 3, 5);
  ExpectMiss(RayCast(Vec2{0, 5}, Vec2{1, 0}, 10, wall, kEx));
  const CastResult along = RayCast(Vec2{3, -5}, Vec2{0, 1}, 10, wall, kIn);
  EXPECT_TRUE(along.hit);
  EXPECT_EQ(along.distance, 5.0f);
  ExpectVec(along.normal, 0, -1);
  ExpectMiss(RayCast(Vec2{3, -5}, Vec2{0, 1}, 10, wall, kEx));
}

TEST(RayCastBox, FaceEdgeAndCornerContacts) {
  const CastResult face =
      RayCast(Vec3{5, 5, 20}, Vec3{0, 0, -1}, 100, kCube, kEx);
  EXPECT_EQ(face.distance, 10.0f);
  ExpectVec(face.point, 5, 5, 10);
  ExpectVec(face.normal, 0, 0, 1);
  // Along an edge and along a face: touches only.
  for (Vec3 o : {Vec3{-5, 0, 0}, Vec3{-5, 10, 5}}) {
    const CastResult in = RayCast(o, Vec3{1, 0, 0}, 100, kCube, kIn);
    EXPECT_TRUE(in.hit);
    EXPECT_EQ(in.distance, 5.0f);
    ExpectVec(in.point, 0, o.y, o.z);
    ExpectVec(in.normal, -1, 0, 0);
    ExpectMiss(RayCast(o, Vec3{1, 0, 0}, 100, kCube, kEx));
  }
  // The space diagonal through the corner (0, 0, 0): all three slabs tie.
  const Vec3 d = NormalizeDirection(Vec3{1, 1, 1});
  const CastResult corner = RayCast(Vec3{-1, -1, -1}, d, 100, kCube, kEx);
  EXPECT_TRUE(corner.hit);
  EXPECT_EQ(corner.distance, 1.0f / d.x);
  ExpectVec(corner.normal, -1, 0, 0);
  EXPECT_EQ(corner.point.x, 0.0f);
  // Touching the corner (10, 0, 0) only: before it y < 0, after it x > 10.
  const Vec3 e = NormalizeDirection(Vec3{1, 1, -1});
  const CastResult touch = RayCast(Vec3{9, -1, 1}, e, 100, kCube, kIn);
  EXPECT_TRUE(touch.hit);
  EXPECT_EQ(touch.distance, 1.0f / e.x);
  ExpectVec(touch.normal, 0, -1, 0);
  ExpectMiss(RayCast(Vec3{9, -1, 1}, e, 100, kCube, kEx));
  EXPECT_TRUE(
      RayCast(Vec3{11, 1, -1}, Vec3{-e.x, -e.y, -e.z}, 100, kCube, kIn).hit);
  ExpectMiss(RayCast(Vec3{11, 1, -1}, Vec3{-e.x, -e.y, -e.z}, 100, kCube, kEx));
}

TEST(RayCastBox, StartingInsideOrOnTheBoundary) {
  const Vec3 d{0, 1, 0};
  const CastResult in = RayCast(Vec3{1, 2, 3}, d, 100, kCube, kEx);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.distance, 0.0f);
  ExpectVec(in.point, 1, 2, 3);
  ExpectVec(in.normal, 0, -1, 0);
  EXPECT_TRUE(RayCast(Vec3{1, 10, 3}, d, 100, kCube, kIn).hit);
  ExpectMiss(RayCast(Vec3{1, 10, 3}, d, 100, kCube, kEx));
  EXPECT_TRUE(RayCast(Vec3{1, 0, 3}, d, 0, kCube, kIn).hit);
  ExpectMiss(RayCast(Vec3{1, 0, 3}, d, 0, kCube, kEx));
  EXPECT_TRUE(RayCast(Vec3{1, 0, 3}, d, 1, kCube, kEx).hit);
}

// ---- Rotated rectangles ----------------------------------------------------

// The exact answer for a ray along an axis (d = +-e_k) against an integer
// box, written per axis in double (independently of the slab code).
struct AxisAnswer {
  bool inclusive = false;
  bool exclusive = false;
  double distance = 0;
  std::array<double, 3> point{};
  std::array<double, 3> normal{};
};

AxisAnswer AxisRay(int dims, const std::array<double, 3>& o, int k, int sign,
                   double max, const std::array<double, 3>& lo,
                   const std::array<double, 3>& hi) {
  bool closed = true, open = true;
  for (int j = 0; j < dims; ++j) {
    if (j == k) continue;
    closed = closed && lo[j] <= o[j] && o[j] <= hi[j];
    open = open && lo[j] < o[j] && o[j] < hi[j];
  }
  const double enter = sign > 0 ? lo[k] - o[k] : o[k] - hi[k];
  const double exit = sign > 0 ? hi[k] - o[k] : o[k] - lo[k];
  AxisAnswer a;
  a.inclusive = closed && enter <= exit && enter <= max && exit >= 0;
  a.exclusive = open && enter < exit && enter < max && exit > 0;
  a.distance = std::max(enter, 0.0);
  a.point = o;
  a.normal[k] = -sign;
  if (enter > 0) a.point[k] = sign > 0 ? lo[k] : hi[k];
  return a;
}

TEST(RayCastRect, IntegerAxisAlignedRaysAreExact) {
  std::mt19937 rng(101);
  std::uniform_int_distribution<int> coord(-8, 8), len(0, 6), axis(0, 2);
  for (int i = 0; i < 20000; ++i) {
    const int dims = 2 + (i % 2);
    const int k = axis(rng) % dims;
    const int sign = (coord(rng) > 0) ? 1 : -1;
    std::array<double, 3> lo{}, hi{}, o{};
    for (int j = 0; j < dims; ++j) {
      lo[j] = coord(rng);
      hi[j] = lo[j] + len(rng);
      o[j] = coord(rng);
    }
    const float max = static_cast<float>(len(rng) * 3);
    const AxisAnswer want = AxisRay(dims, o, k, sign, max, lo, hi);
    for (Boundary b : {kIn, kEx}) {
      CastResult got;
      if (dims == 2) {
        Vec2 d{0, 0};
        (k == 0 ? d.x : d.y) = static_cast<float>(sign);
        const Rect r{{float(lo[0]), float(lo[1])},
                     {float(hi[0]), float(hi[1])}};
        got = RayCast(Vec2{float(o[0]), float(o[1])}, d, max, r, b);
      } else {
        Vec3 d{0, 0, 0};
        (k == 0 ? d.x : k == 1 ? d.y : d.z) = static_cast<float>(sign);
        const Box box{{float(lo[0]), float(lo[1]), float(lo[2])},
                      {float(hi[0]), float(hi[1]), float(hi[2])}};
        got = RayCast(Vec3{float(o[0]), float(o[1]), float(o[2])}, d, max, box,
                      b);
      }
      ASSERT_EQ(got.hit, b == kIn ? want.inclusive : want.exclusive) << i;
      if (!got.hit) continue;
      ASSERT_EQ(got.distance, want.distance) << i;
      ASSERT_EQ(got.point.x, want.point[0]) << i;
      ASSERT_EQ(got.point.y, want.point[1]) << i;
      ASSERT_EQ(got.point.z, want.point[2]) << i;
      ASSERT_EQ(got.normal.x, want.normal[0]) << i;
      ASSERT_EQ(got.normal.y, want.normal[1]) << i;
      ASSERT_EQ(got.normal.z, want.normal[2]) << i;
    }
  }
}

// A rotated rectangle turned by a multiple of pi/2 and the axis-aligned
// rectangle it covers, from integer inputs.
struct QuarterTurned {
  RotatedRect rotated;
  Rect aligned;
};

QuarterTurned RandomQuarterTurn(std::mt19937& rng) {
  std::uniform_int_distribution<int> pos(-10, 10), len(0, 6), quarter(-4, 4);
  const RotatedRect rr{{float(len(rng)), float(len(rng))},
                       {float(pos(rng) / 2), float(pos(rng) / 2)},
                       {float(pos(rng)), float(pos(rng))},
                       RotationFromAngle(quarter(rng) * kHalfPi)};
  const Rect local = LocalBounds(rr);
  const Vec2 a = ToWorldPoint(rr, local.min);
  const Vec2 b = ToWorldPoint(rr, local.max);
  return {rr, Rect{{std::min(a.x, b.x), std::min(a.y, b.y)},
                   {std::max(a.x, b.x), std::max(a.y, b.y)}}};
}

Vec2 RandomCastDirection(std::mt19937& rng) {
  static const Vec2 kFixed[] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
  std::uniform_int_distribution<int> pick(0, 7);
  std::uniform_int_distribution<int> comp(-5, 5);
  const int p = pick(rng);
  if (p < 4) return kFixed[p];
  Vec2 d{float(comp(rng)), float(comp(rng))};
  if (d.x == 0 && d.y == 0) d.x = 1;
  return NormalizeDirection(d);
}

TEST(RayCastRotatedRect, QuarterTurnsAnswerExactlyLikeTheAxisAlignedRect) {
  std::mt19937 rng(102);
  std::uniform_int_distribution<int> pos(-12, 12), len(0, 30);
  for (int i = 0; i < 20000; ++i) {
    const QuarterTurned q = RandomQuarterTurn(rng);
    const Vec2 o{float(pos(rng)), float(pos(rng))};
    const Vec2 d = RandomCastDirection(rng);
    const float max = float(len(rng));
    const bool axis_aligned = d.x == 0 || d.y == 0;
    for (Boundary b : {kIn, kEx}) {
      const CastResult got = RayCast(o, d, max, q.rotated, b);
      const CastResult want = RayCast(o, d, max, q.aligned, b);
      ASSERT_EQ(got.hit, want.hit) << i;
      ASSERT_EQ(got.distance, want.distance) << i;
      ASSERT_EQ(got.normal.x, want.normal.x) << i;
      ASSERT_EQ(got.normal.y, want.normal.y) << i;
      if (axis_aligned) {
        ASSERT_EQ(got.point.x, want.point.x) << i;
        ASSERT_EQ(got.point.y, want.point.y) << i;
      } else {
        ASSERT_NEAR(got.point.x, want.point.x, 1e-5f) << i;
        ASSERT_NEAR(got.point.y, want.point.y, 1e-5f) << i;
      }
    }
  }
}

TEST(SweepCircleRotatedRect, QuarterTurnsAnswerExactlyLikeTheAxisAlignedRect) {
  std::mt19937 rng(103);
  std::uniform_int_distribution<int> pos(-12, 12), len(0, 30), rad(1, 4);
  for (int i = 0; i < 20000; ++i) {
    const QuarterTurned q = RandomQuarterTurn(rng);
    const Vec2 o{float(pos(rng)), float(pos(rng))};
    const Vec2 d = RandomCastDirection(rng);
    const float max = float(len(rng));
    const float r = float(rad(rng));
    for (Boundary b : {kIn, kEx}) {
      const CastResult got = SweepCircle(o, r, d, max, q.rotated, b);
      const CastResult want = SweepCircle(o, r, d, max, q.aligned, b);
      ASSERT_EQ(got.hit, want.hit) << i;
      ASSERT_EQ(got.distance, want.distance) << i;
      // The centre at the contact is rounded in a different frame, so a
      // corner's normal and the contact point can differ in the last bits.
      ASSERT_NEAR(got.normal.x, want.normal.x, 1e-6f) << i;
      ASSERT_NEAR(got.normal.y, want.normal.y, 1e-6f) << i;
      ASSERT_NEAR(got.point.x, want.point.x, 1e-5f) << i;
      ASSERT_NEAR(got.point.y, want.point.y, 1e-5f) << i;
    }
  }
}

TEST(RayCastRotatedRect, UsesTheRectangleFrameAndReturnsWorldResults) {
  // 4x2 about its min corner, turned a quarter counter-clockwise (y up):
  // x in [-2, 0], y in [0, 4]. Its local -y face is the world +x face.
  const RotatedRect r{{4, 2}, {0, 0}, {0, 0}, RotationFromAngle(kHalfPi)};
  const CastResult hit = RayCast(Vec2{5, 1}, Vec2{-1, 0}, 100, r, kEx);
  EXPECT_TRUE(hit.hit);
  EXPECT_EQ(hit.distance, 5.0f);
  ExpectVec(hit.point, 0, 1);
  ExpectVec(hit.normal, 1, 0);
  // A turn of 45 degrees about the centre: a diamond with vertices sqrt(2)
  // from the centre, so a ray along x meets the left vertex.
  const RotatedRect diamond{
      {2, 2}, {1, 1}, {0, 0}, RotationFromAngle(0.785398163f)};
  const CastResult v = RayCast(Vec2{-5, 0}, Vec2{1, 0}, 100, diamond, kIn);
  EXPECT_TRUE(v.hit);
  EXPECT_NEAR(v.distance, 5 - std::sqrt(2.0f), 1e-5f);
  EXPECT_NEAR(v.point.x, -std::sqrt(2.0f), 1e-5f);
  EXPECT_NEAR(v.point.y, 0.0f, 1e-5f);
}

// ---- Capsules and oriented boxes (hitbox kinds) ---------------------------

// A capsule along x from (0, 0, 0) to (10, 0, 0), radius 2.
const Capsule3 kRod{{0, 0, 0}, {10, 0, 0}, 2};

TEST(RayCastCapsule, AlongXIntoTheRoundedEnd) {
  for (Boundary b : {kIn, kEx}) {
    // On the axis: the end sphere's pole at x = -2.
    const CastResult pole =
        RayCast(Vec3{-10, 0, 0}, Vec3{1, 0, 0}, 100, kRod, b);
    EXPECT_TRUE(pole.hit);
    EXPECT_EQ(pole.distance, 8.0f);
    ExpectVec(pole.point, -2, 0, 0);
    ExpectVec(pole.normal, -1, 0, 0);
    // One off the axis: x^2 + 1^2 = 2^2 on the end sphere, so x = -sqrt(3)
    // and the normal is (x, 1, 0) / 2.
    const CastResult off =
        RayCast(Vec3{-10, 1, 0}, Vec3{1, 0, 0}, 100, kRod, b);
    const double s3 = std::sqrt(3.0);
    EXPECT_TRUE(off.hit);
    EXPECT_NEAR(off.distance, 10 - s3, 2e-6);
    EXPECT_NEAR(off.point.x, -s3, 2e-6);
    EXPECT_EQ(off.point.y, 1.0f);
    EXPECT_NEAR(off.normal.x, -s3 / 2, 1e-6);
    EXPECT_NEAR(off.normal.y, 0.5, 1e-6);
    EXPECT_EQ(off.normal.z, 0.0f);
  }
  // Along the side at y = 2: touches the whole length, first at the top
  // of the end sphere.
  const CastResult graze =
      RayCast(Vec3{-10, 2, 0}, Vec3{1, 0, 0}, 100, kRod, kIn);
  EXPECT_TRUE(graze.hit);
  EXPECT_EQ(graze.distance, 10.0f);
  ExpectVec(graze.point, 0, 2, 0);
  ExpectVec(graze.normal, 0, 1, 0);
  ExpectMiss(RayCast(Vec3{-10, 2, 0}, Vec3{1, 0, 0}, 100, kRod, kEx));
}

TEST(RayCastCapsule, AcrossTheSideHitsWithTheRadialNormal) {
  // Down onto the cylinder at x = 4 along the diagonal of y and z: enters
  // where y = z = sqrt(2), after sqrt(2) * (5 - sqrt(2)).
  const Vec3 d = NormalizeDirection(Vec3{0, -1, -1});
  const CastResult r = RayCast(Vec3{4, 5, 5}, d, 100, kRod, kEx);
  const double s2 = std::sqrt(2.0);
  EXPECT_TRUE(r.hit);
  EXPECT_NEAR(r.distance, s2 * (5 - s2), 4e-6);
  EXPECT_EQ(r.point.x, 4.0f);
  EXPECT_NEAR(r.point.y, s2, 2e-6);
  EXPECT_NEAR(r.point.z, s2, 2e-6);
  EXPECT_EQ(r.normal.x, 0.0f);
  EXPECT_NEAR(r.normal.y, std::sqrt(0.5), 1e-7);
  EXPECT_NEAR(r.normal.z, std::sqrt(0.5), 1e-7);
}

TEST(SweepSphereCapsule, BallOntoABareSegmentStopsOneRadiusShort) {
  const Capsule3 segment{{0, -4, 0}, {0, 4, 0}, 0};
  for (Boundary b : {kIn, kEx}) {
    const CastResult r =
        SweepSphere(Vec3{-4, 0, 0}, 1, Vec3{1, 0, 0}, 100, segment, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 3.0f);
    ExpectVec(r.point, 0, 0, 0);
    ExpectVec(r.normal, -1, 0, 0);
  }
  // A ray meets a bare segment only where it crosses it exactly, and only
  // when inclusive; the normal is then -direction.
  const CastResult ray =
      RayCast(Vec3{-4, 1, 0}, Vec3{1, 0, 0}, 8, segment, kIn);
  EXPECT_TRUE(ray.hit);
  EXPECT_EQ(ray.distance, 4.0f);
  ExpectVec(ray.point, 0, 1, 0);
  ExpectVec(ray.normal, -1, 0, 0);
  ExpectMiss(RayCast(Vec3{-4, 1, 0}, Vec3{1, 0, 0}, 8, segment, kEx));
  ExpectMiss(RayCast(Vec3{-4, 1, 1}, Vec3{1, 0, 0}, 8, segment, kIn));
}

TEST(RayCastCapsule, BareSegmentMetAtTheCastsEndIsWithinMaxDistance) {
  // Found by the random test: the cast ends on the segment in float, and
  // the distance to the meeting point rounded 4 past max_distance.
  const Capsule3 segment{
      {-62542828, 109640584, 19184122}, {122394768, -16591842, 76470752}, 0};
  const float max = 62194568;
  const CastResult r = RayCast(Vec3{21886220, 52012044, 45337028},
                               Vec3{-0.80016619f, 0.546167552f, -0.247861028f},
                               max, segment, kIn);
  EXPECT_TRUE(r.hit);
  EXPECT_LE(r.distance, max);
}

TEST(SweepSphereCapsule, OntoTheSideStopsWithTheCentreRadiiAway) {
  // Radius 2 + 1 = 3 from the axis: the centre stops at y = 3, touching
  // the capsule at (5, 2, 0).
  for (Boundary b : {kIn, kEx}) {
    const CastResult r =
        SweepSphere(Vec3{5, 10, 0}, 1, Vec3{0, -1, 0}, 100, kRod, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 7.0f);
    ExpectVec(r.point, 5, 2, 0);
    ExpectVec(r.normal, 0, 1, 0);
  }
}

TEST(SweepSphereCapsule,
     StartingInsideReportsTheClosestPointAndMinusDirection) {
  // The ball's centre is 2.5 from the axis: inside the grown capsule (3),
  // outside the capsule (2). The closest point of the capsule is (5, 2, 0).
  const Vec3 d = NormalizeDirection(Vec3{1, 1, 0});
  for (Boundary b : {kIn, kEx}) {
    const CastResult r = SweepSphere(Vec3{5, 2.5f, 0}, 1, d, 100, kRod, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 0.0f);
    ExpectVec(r.point, 5, 2, 0);
    ExpectVec(r.normal, -d.x, -d.y, 0);
  }
  // A ray from inside: the origin itself.
  const CastResult ray = RayCast(Vec3{5, 1, 0}, d, 100, kRod, kEx);
  EXPECT_TRUE(ray.hit);
  EXPECT_EQ(ray.distance, 0.0f);
  ExpectVec(ray.point, 5, 1, 0);
  ExpectVec(ray.normal, -d.x, -d.y, 0);
}

TEST(RayCastCapsule, ZeroLengthCapsuleIsTheSphereBitForBit) {
  std::mt19937 rng(105);
  std::uniform_real_distribution<float> u(-10, 10), rad(0, 4);
  for (int i = 0; i < 5000; ++i) {
    const Vec3 c{u(rng), u(rng), u(rng)};
    const float radius = i % 10 == 0 ? 0.0f : rad(rng);
    const Vec3 o{u(rng), u(rng), u(rng)};
    const Vec3 d =
        NormalizeDirection(Vec3{c.x - o.x + u(rng) / 4, c.y - o.y + u(rng) / 4,
                                c.z - o.z + u(rng) / 4});
    const float r = i % 2 == 0 ? 0.0f : rad(rng);
    for (Boundary b : {kIn, kEx}) {
      ASSERT_TRUE(BitEqual(SweepSphere(o, r, d, 30, Capsule3{c, c, radius}, b),
                           SweepSphere(o, r, d, 30, Sphere{c, radius}, b)))
          << i;
    }
  }
}

// A unit cube (half-extents 1) turned 45 degrees about z: in the xy plane
// a square with corners at (+-sqrt(2), 0) and (0, +-sqrt(2)), so its edge
// along z through (sqrt(2), 0) faces +x.
const OrientedBox kTurnedCube{
    {0, 0, 0}, {1, 1, 1}, {0.923879533f, 0, 0, 0.382683432f}};

TEST(SweepSphereOrientedBox, OntoAnEdgeAt45Degrees) {
  const double s2 = std::sqrt(2.0);
  for (Boundary b : {kIn, kEx}) {
    // Head on: the ball's centre stops 0.5 from the edge, at x = sqrt(2) +
    // 0.5, after 5 - sqrt(2) - 0.5.
    const CastResult head =
        SweepSphere(Vec3{5, 0, 0}, 0.5f, Vec3{-1, 0, 0}, 100, kTurnedCube, b);
    EXPECT_TRUE(head.hit);
    EXPECT_NEAR(head.distance, 4.5 - s2, 2e-6);
    EXPECT_NEAR(head.point.x, s2, 2e-6);
    EXPECT_NEAR(head.point.y, 0, 2e-6);
    EXPECT_EQ(head.point.z, 0.0f);
    EXPECT_NEAR(head.normal.x, 1, 1e-6);
    EXPECT_NEAR(head.normal.y, 0, 1e-6);
    // 0.3 off the edge: the centre stops where (x - sqrt(2))^2 + 0.3^2 =
    // 0.5^2, x = sqrt(2) + 0.4, still on the edge (its normal (0.8, 0.6) is
    // within 45 degrees of +x), after 5 - sqrt(2) - 0.4.
    const CastResult off = SweepSphere(Vec3{5, 0.3f, 0}, 0.5f, Vec3{-1, 0, 0},
                                       100, kTurnedCube, b);
    EXPECT_TRUE(off.hit);
    EXPECT_NEAR(off.distance, 4.6 - s2, 2e-6);
    EXPECT_NEAR(off.point.x, s2, 2e-6);
    EXPECT_NEAR(off.point.y, 0, 2e-6);
    EXPECT_NEAR(off.normal.x, 0.8, 1e-6);
    EXPECT_NEAR(off.normal.y, 0.6, 1e-6);
    EXPECT_EQ(off.normal.z, 0.0f);
  }
}

TEST(RayCastOrientedBox, FaceOfATurnedCubeHasTheTurnedNormal) {
  // Along the diagonal onto the face whose outward normal is
  // (sqrt(1/2), sqrt(1/2), 0), 1 from the centre: after 5 sqrt(2) - 1.
  const Vec3 d = NormalizeDirection(Vec3{-1, -1, 0});
  for (Boundary b : {kIn, kEx}) {
    const CastResult r = RayCast(Vec3{5, 5, 0.5f}, d, 100, kTurnedCube, b);
    EXPECT_TRUE(r.hit);
    EXPECT_NEAR(r.distance, 5 * std::sqrt(2.0) - 1, 4e-6);
    EXPECT_NEAR(r.point.x, std::sqrt(0.5), 2e-6);
    EXPECT_NEAR(r.point.y, std::sqrt(0.5), 2e-6);
    EXPECT_EQ(r.point.z, 0.5f);
    EXPECT_NEAR(r.normal.x, std::sqrt(0.5), 1e-7);
    EXPECT_NEAR(r.normal.y, std::sqrt(0.5), 1e-7);
    EXPECT_EQ(r.normal.z, 0.0f);
  }
}

TEST(RayCastOrientedBox, FlatBoxIsHitOnlyWhenInclusive) {
  // A unit square in the plane z = 0 (half-extent 0 along z), turned about
  // z: a ray down through it touches it, never passes through an interior.
  const OrientedBox flat{{0, 0, 0}, {1, 1, 0}, kTurnedCube.rotation};
  const CastResult in =
      RayCast(Vec3{0.25f, 0, 3}, Vec3{0, 0, -1}, 10, flat, kIn);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.distance, 3.0f);
  ExpectVec(in.normal, 0, 0, 1);
  ExpectMiss(RayCast(Vec3{0.25f, 0, 3}, Vec3{0, 0, -1}, 10, flat, kEx));
  // A ball has an interior to pass through: it stops 1 above the square.
  const CastResult ball =
      SweepSphere(Vec3{0.25f, 0, 3}, 1, Vec3{0, 0, -1}, 10, flat, kEx);
  EXPECT_TRUE(ball.hit);
  EXPECT_EQ(ball.distance, 2.0f);
  EXPECT_EQ(ball.point.z, 0.0f);
  ExpectVec(ball.normal, 0, 0, 1);
}

TEST(RayCastOrientedBox, StartingInsideReportsTheOriginAndMinusDirection) {
  const Vec3 d = NormalizeDirection(Vec3{1, 2, 3});
  for (Boundary b : {kIn, kEx}) {
    const CastResult r = RayCast(Vec3{0.5f, 0, 0}, d, 10, kTurnedCube, b);
    EXPECT_TRUE(r.hit);
    EXPECT_EQ(r.distance, 0.0f);
    ExpectVec(r.point, 0.5f, 0, 0);
    ExpectVec(r.normal, -d.x, -d.y, -d.z);
  }
}

// From o towards an integer point near the box, or along an axis after
// moving o level with that point on the other two.
Vec3 RandomCastDirection3(std::mt19937& rng, const Box& box, Vec3* o) {
  std::uniform_int_distribution<int> pick(0, 2), axis(0, 2), off(-1, 1);
  const Vec3 aim{box.min.x + float(off(rng)), box.max.y + float(off(rng)),
                 (box.min.z + box.max.z) / 2 + float(off(rng))};
  if (pick(rng) == 0) {
    const int k = axis(rng);
    Vec3 d{0, 0, 0};
    if (k != 0) o->x = aim.x;
    if (k != 1) o->y = aim.y;
    if (k != 2) o->z = aim.z;
    const float from = k == 0 ? o->x : k == 1 ? o->y : o->z;
    const float to = k == 0 ? aim.x : k == 1 ? aim.y : aim.z;
    (k == 0 ? d.x : k == 1 ? d.y : d.z) = from <= to ? 1.0f : -1.0f;
    return d;
  }
  Vec3 d{aim.x - o->x, aim.y - o->y, aim.z - o->z};
  if (d.x == 0 && d.y == 0 && d.z == 0) d.x = 1;
  return NormalizeDirection(d);
}

// Integer boxes turned by each of the 24 quarter turns, against the
// axis-aligned Box they cover: rays answer with the same hit, distance
// and normal (and point, along an axis), also through edges and corners
// where entering faces tie; sweeps with the same hit and distance (their
// contact and normal come from the centre, rounded in the other frame).
TEST(CastOrientedBox, QuarterTurnsAnswerExactlyLikeTheAxisAlignedBox) {
  std::mt19937 rng(106);
  std::uniform_int_distribution<int> pos(-8, 8), len(0, 6), turn(0, 3),
      rad(1, 3), far(0, 30);
  int hits = 0;
  for (int i = 0; i < 20000; ++i) {
    const Vec3 lo{float(pos(rng)), float(pos(rng)), float(pos(rng))};
    const Box box{lo, {lo.x + len(rng), lo.y + len(rng), lo.z + len(rng)}};
    const int tx = turn(rng), ty = turn(rng), tz = turn(rng);
    const OrientedBox turned = cast_reference::TurnedToCover(
        box, cast_reference::QuarterTurn(tx, ty, tz));
    Vec3 o{float(pos(rng) * 2), float(pos(rng) * 2), float(pos(rng) * 2)};
    const Vec3 d = RandomCastDirection3(rng, box, &o);
    const bool axis_aligned = (d.x != 0) + (d.y != 0) + (d.z != 0) == 1;
    const float max = float(far(rng));
    const float r = float(rad(rng));
    for (Boundary b : {kIn, kEx}) {
      const CastResult got = RayCast(o, d, max, turned, b);
      const CastResult want = RayCast(o, d, max, box, b);
      ASSERT_EQ(got.hit, want.hit) << i;
      hits += got.hit;
      ASSERT_EQ(got.distance, want.distance) << i;
      ASSERT_EQ(got.normal.x, want.normal.x) << i;
      ASSERT_EQ(got.normal.y, want.normal.y) << i;
      ASSERT_EQ(got.normal.z, want.normal.z) << i;
      if (axis_aligned) {
        ASSERT_EQ(got.point.x, want.point.x) << i;
        ASSERT_EQ(got.point.y, want.point.y) << i;
        ASSERT_EQ(got.point.z, want.point.z) << i;
      }
      ASSERT_NEAR(got.point.x, want.point.x, 1e-5f) << i;
      ASSERT_NEAR(got.point.y, want.point.y, 1e-5f) << i;
      ASSERT_NEAR(got.point.z, want.point.z, 1e-5f) << i;
      const CastResult sgot = SweepSphere(o, r, d, max, turned, b);
      const CastResult swant = SweepSphere(o, r, d, max, box, b);
      ASSERT_EQ(sgot.hit, swant.hit) << i;
      ASSERT_EQ(sgot.distance, swant.distance) << i;
      ASSERT_NEAR(sgot.normal.x, swant.normal.x, 1e-6f) << i;
      ASSERT_NEAR(sgot.normal.y, swant.normal.y, 1e-6f) << i;
      ASSERT_NEAR(sgot.normal.z, swant.normal.z, 1e-6f) << i;
      ASSERT_NEAR(sgot.point.x, swant.point.x, 1e-5f) << i;
      ASSERT_NEAR(sgot.point.y, swant.point.y, 1e-5f) << i;
      ASSERT_NEAR(sgot.point.z, swant.point.z, 1e-5f) << i;
    }
  }
  EXPECT_GT(hits, 5000);
}

// ---- Degenerate and huge input -------------------------------------------

TEST(NormalizeDirection, AxisAlignedDirectionsAreExactAndZeroStaysZero) {
  const Vec2 a = NormalizeDirection(Vec2{0, -7});
  EXPECT_EQ(a.x, 0.0f);
  EXPECT_EQ(a.y, -1.0f);
  const Vec2 b = NormalizeDirection(Vec2{3, 4});
  EXPECT_EQ(b.x, 0.6f);
  EXPECT_EQ(b.y, 0.8f);
  const Vec2 z = NormalizeDirection(Vec2{0, 0});
  EXPECT_EQ(z.x, 0.0f);
  EXPECT_EQ(z.y, 0.0f);
  const Vec3 c = NormalizeDirection(Vec3{0, 0, 1e9f});
  ExpectVec(c, 0, 0, 1);
  const Vec3 zero = NormalizeDirection(Vec3{0, 0, 0});
  ExpectVec(zero, 0, 0, 0);
  // Squares that underflow still give a unit vector.
  const Vec2 tiny = NormalizeDirection(Vec2{1e-30f, 0});
  EXPECT_EQ(tiny.x, 1.0f);
  const Vec3 t3 = NormalizeDirection(Vec3{1e-30f, -1e-30f, 0});
  EXPECT_NEAR(t3.x, std::sqrt(0.5f), 1e-7f);
  EXPECT_NEAR(t3.y, -std::sqrt(0.5f), 1e-7f);
}

TEST(NormalizeDirection, RandomDirectionsAreUnitWithinTheTolerance) {
  std::mt19937 rng(104);
  std::uniform_real_distribution<float> u(-1e6f, 1e6f);
  for (int i = 0; i < 10000; ++i) {
    const Vec3 d = NormalizeDirection(Vec3{u(rng), u(rng), u(rng)});
    const double len =
        std::sqrt(double(d.x) * d.x + double(d.y) * d.y + double(d.z) * d.z);
    ASSERT_NEAR(len, 1.0, kDirectionUnitTolerance / 10) << i;
  }
}

TEST(RayCast, HugeCoordinatesStayFinite) {
  const float tol = kCastDistanceTolerance * 3 * kBig;
  const Rect far{{kBig / 2, -5}, {kBig, 5}};
  const CastResult r = RayCast(Vec2{-kBig, 0}, Vec2{1, 0}, 3 * kBig, far, kEx);
  EXPECT_TRUE(r.hit);
  EXPECT_EQ(r.distance, 1.5f * kBig);
  ExpectVec(r.point, kBig / 2, 0);
  const Vec2 d = NormalizeDirection(Vec2{1, 1});
  const CastResult c =
      RayCast(Vec2{-kBig, -kBig}, d, 3 * kBig, Circle{{kBig, kBig}, kBig}, kEx);
  EXPECT_TRUE(c.hit);
  EXPECT_NEAR(c.distance, (2 * std::sqrt(2.0) - 1) * kBig, tol);
  const CastResult s = SweepSphere(
      Vec3{-kBig, -kBig, -kBig}, kBig, NormalizeDirection(Vec3{1, 1, 1}),
      3 * kBig, Box{{kBig, kBig, kBig}, {kBig, kBig, kBig}}, kEx);
  EXPECT_TRUE(s.hit);
  EXPECT_NEAR(s.distance, (2 * std::sqrt(3.0) - 1) * kBig, tol);
  EXPECT_TRUE(std::isfinite(s.normal.x));
  const CastResult miss = SweepCircle(Vec2{-kBig, kBig}, kBig / 4, Vec2{1, 0},
                                      kBig, Circle{{kBig, -kBig}, kBig}, kIn);
  EXPECT_FALSE(miss.hit);
}

}  // namespace
}  // namespace collision
