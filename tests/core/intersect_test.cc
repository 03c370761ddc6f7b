// Behaviour of the scalar Intersect reference: boundary rules, relations,
// separation, degenerate shapes, symmetry, frames and rotations.
#include <cmath>
#include <random>

#include "collision/core/scalar.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

constexpr Boundary kIn = Boundary::kInclusive;
constexpr Boundary kEx = Boundary::kExclusive;
constexpr float kHalfPi = 1.57079637f;

Rect R(float x0, float y0, float x1, float y1) { return {{x0, y0}, {x1, y1}}; }

TEST(CircleRect, TouchingEdgeIsHitWhenInclusiveOnly) {
  const Circle c{{5, 5}, 2};
  const Rect r = R(7, 0, 11, 10);
  const IntersectResult in = IntersectCircleRect(c, r, kIn);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.relation, Relation::kTouching);
  EXPECT_EQ(in.separation, 0.0f);
  EXPECT_FALSE(IntersectCircleRect(c, r, kEx).hit);
}

TEST(CircleRect, TouchingCornerOnIntegerCoordinates) {
  // 3-4-5 triangle: the corner (3, 4) is exactly 5 from the origin.
  const Circle c{{0, 0}, 5};
  EXPECT_EQ(IntersectCircleRect(c, R(3, 4, 9, 9), kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(IntersectCircleRect(c, R(3, 4, 9, 9), kEx).hit, false);
  EXPECT_EQ(IntersectCircleRect(c, R(2.99f, 4, 9, 9), kEx).relation,
            Relation::kOverlapping);
  EXPECT_EQ(IntersectCircleRect(c, R(3.01f, 4, 9, 9), kIn).relation,
            Relation::kDisjoint);
}

TEST(CircleRect, CircleFullyInsideIsOverlapping) {
  const IntersectResult r =
      IntersectCircleRect({{50, 50}, 1}, R(0, 0, 100, 100), kEx);
  EXPECT_TRUE(r.hit);
  EXPECT_EQ(r.relation, Relation::kOverlapping);
  // Nearest edge 50 away plus the radius.
  EXPECT_EQ(r.separation, -51.0f);
}

TEST(CircleRect, RectFullyInsideCircleIsOverlapping) {
  EXPECT_EQ(IntersectCircleRect({{0, 0}, 100}, R(-1, -1, 1, 1), kEx).relation,
            Relation::kOverlapping);
}

TEST(CircleRect, SeparationIsTheGapWhenDisjoint) {
  const IntersectResult r =
      IntersectCircleRect({{0, 0}, 1}, R(4, 0, 6, 2), kIn);
  EXPECT_EQ(r.relation, Relation::kDisjoint);
  EXPECT_EQ(r.separation, 3.0f);
}

TEST(PointRect, InsideOverlapsEdgeTouchesOutsideIsDisjoint) {
  const Rect r = R(0, 0, 10, 10);
  EXPECT_EQ(Intersect(Vec2{5, 5}, r, kEx).relation, Relation::kOverlapping);
  EXPECT_TRUE(Intersect(Vec2{5, 5}, r, kEx).hit);
  EXPECT_EQ(Intersect(Vec2{10, 5}, r, kIn).relation, Relation::kTouching);
  EXPECT_TRUE(Intersect(Vec2{10, 5}, r, kIn).hit);
  EXPECT_FALSE(Intersect(Vec2{10, 5}, r, kEx).hit);
  EXPECT_EQ(Intersect(Vec2{0, 0}, r, kIn).relation, Relation::kTouching);
  EXPECT_EQ(Intersect(Vec2{10.5f, 5}, r, kIn).relation, Relation::kDisjoint);
}

TEST(PointRect, ZeroSizeRectBehavesAsAPoint) {
  const Rect dot = R(3, 4, 3, 4);
  EXPECT_EQ(Intersect(Vec2{3, 4}, dot, kIn).relation, Relation::kTouching);
  EXPECT_FALSE(Intersect(Vec2{3, 4}, dot, kEx).hit);
  EXPECT_EQ(Intersect(Circle{{0, 0}, 5}, dot, kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(Intersect(Circle{{0, 0}, 6}, dot, kEx).relation,
            Relation::kOverlapping);
}

TEST(PointRect, ZeroWidthRectIsASegment) {
  const Rect seg = R(2, 0, 2, 10);
  EXPECT_EQ(Intersect(Vec2{2, 5}, seg, kIn).relation, Relation::kTouching);
  EXPECT_EQ(Intersect(Circle{{0, 5}, 2}, seg, kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(Intersect(Circle{{0, 5}, 3}, seg, kEx).relation,
            Relation::kOverlapping);
}

TEST(CircleCircle, TouchingAndSymmetric) {
  const Circle a{{0, 0}, 2}, b{{5, 0}, 3};
  EXPECT_EQ(IntersectCircleCircle(a, b, kIn).relation, Relation::kTouching);
  EXPECT_FALSE(IntersectCircleCircle(a, b, kEx).hit);
  EXPECT_EQ(Intersect(Vec2{0, 0}, Vec2{0, 0}, kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(Intersect(Vec2{0, 0}, Circle{{0, 0}, 1}, kEx).relation,
            Relation::kOverlapping);
  EXPECT_EQ(IntersectCircleCircle(a, {{1, 0}, 1}, kEx).separation, -2.0f);
}

TEST(CircleCircle, SymmetricOnRandomPairs) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> pos(-10, 10), len(0, 5);
  for (int i = 0; i < 100000; ++i) {
    const Circle a{{pos(rng), pos(rng)}, len(rng)};
    const Circle b{{pos(rng), pos(rng)}, len(rng)};
    const IntersectResult ab = IntersectCircleCircle(a, b, kIn);
    const IntersectResult ba = IntersectCircleCircle(b, a, kIn);
    ASSERT_EQ(ab.relation, ba.relation);
    ASSERT_EQ(ab.separation, ba.separation);
  }
}

TEST(Intersect, EveryPairIsSymmetricInOrder) {
  const Shape shapes[] = {
      Vec2{1, 1}, Circle{{2, 2}, 1.5f}, R(0, 0, 3, 3),
      RotatedRect{{2, 2}, {1, 1}, {2, 2}, RotationFromAngle(0.3f)}};
  for (const Shape& a : shapes) {
    for (const Shape& b : shapes) {
      if (!IsSupportedIntersectPair(KindOf(a), KindOf(b))) continue;
      const IntersectResult ab = Intersect(a, b, kIn);
      const IntersectResult ba = Intersect(b, a, kIn);
      EXPECT_EQ(ab.relation, ba.relation);
      EXPECT_EQ(ab.separation, ba.separation);
    }
  }
}

TEST(Intersect, SupportedPairs) {
  using K = ShapeKind;
  EXPECT_TRUE(IsSupportedIntersectPair(K::kRect, K::kCircle));
  EXPECT_TRUE(IsSupportedIntersectPair(K::kRotatedRect, K::kPoint2));
  EXPECT_TRUE(IsSupportedIntersectPair(K::kRect, K::kRect));
  EXPECT_TRUE(IsSupportedIntersectPair(K::kBox, K::kSphere));
  EXPECT_TRUE(IsSupportedIntersectPair(K::kPoint3, K::kPoint3));
  EXPECT_FALSE(IsSupportedIntersectPair(K::kRect, K::kRotatedRect));
  EXPECT_FALSE(IsSupportedIntersectPair(K::kRotatedRect, K::kRotatedRect));
  EXPECT_FALSE(IsSupportedIntersectPair(K::kCircle, K::kSphere));
  EXPECT_FALSE(IsSupportedIntersectPair(K::kRect, K::kBox));
}

TEST(RectRect, OverlapTouchAndGap) {
  EXPECT_EQ(IntersectRectRect(R(0, 0, 2, 2), R(1, 1, 3, 3), kEx).relation,
            Relation::kOverlapping);
  EXPECT_EQ(IntersectRectRect(R(0, 0, 2, 2), R(1, 1, 3, 3), kEx).separation,
            -1.0f);
  EXPECT_EQ(IntersectRectRect(R(0, 0, 2, 2), R(2, 0, 3, 3), kIn).relation,
            Relation::kTouching);
  EXPECT_FALSE(IntersectRectRect(R(0, 0, 2, 2), R(2, 2, 3, 3), kEx).hit);
  const IntersectResult gap =
      IntersectRectRect(R(0, 0, 1, 1), R(4, 5, 6, 6), kIn);
  EXPECT_EQ(gap.relation, Relation::kDisjoint);
  EXPECT_EQ(gap.separation, 5.0f);  // (3, 4) apart
}

TEST(SphereBox, ThreeDTouchingCornerAndInside) {
  const Box b{{0, 0, 0}, {2, 2, 2}};
  // Corner (2, 2, 2) to (3, 4, 4): distance 3.
  EXPECT_EQ(IntersectSphereBox({{3, 4, 4}, 3}, b, kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(IntersectSphereBox({{1, 1, 1}, 0}, b, kEx).relation,
            Relation::kOverlapping);
  EXPECT_EQ(Intersect(Vec3{2, 1, 1}, b, kIn).relation, Relation::kTouching);
  EXPECT_EQ(IntersectSphereSphere({{0, 0, 0}, 1}, {{0, 0, 3}, 2}, kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(IntersectBoxBox(b, Box{{2, 0, 0}, {3, 1, 1}}, kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(IntersectBoxBox(b, Box{{1, 1, 1}, {3, 3, 3}}, kEx).separation,
            -1.0f);
}

TEST(Rotation, QuarterTurnsAreExact) {
  for (int k = -8; k <= 8; ++k) {
    const Rotation r = RotationFromAngle(static_cast<float>(k) * kHalfPi);
    const int q = ((k % 4) + 4) % 4;
    EXPECT_EQ(r.cos, q == 0 ? 1.0f : q == 2 ? -1.0f : 0.0f) << k;
    EXPECT_EQ(r.sin, q == 1 ? 1.0f : q == 3 ? -1.0f : 0.0f) << k;
  }
  EXPECT_EQ(RotationFromAngle(-0.0f).cos, 1.0f);
  // Not a quarter turn: ordinary float sin/cos.
  EXPECT_EQ(RotationFromAngle(0.5f).sin, std::sin(0.5f));
  EXPECT_NE(RotationFromAngle(std::nextafter(kHalfPi, 2.0f)).cos, 0.0f);
}

// A rectangle rotated by a multiple of pi/2 about its centre is an
// axis-aligned rectangle: every answer must match exactly.
TEST(RotatedRect, QuarterTurnsMatchTheAxisAlignedAnswer) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int> pos(-12, 12), len(0, 8);
  for (int i = 0; i < 100000; ++i) {
    const int k = pos(rng);
    const float w = 2.0f * len(rng), h = 2.0f * len(rng);
    const float x = pos(rng), y = pos(rng);
    const RotatedRect rr{
        {w, h}, {w / 2, h / 2}, {x, y}, RotationFromAngle(k * kHalfPi)};
    const bool swapped = (k % 2) != 0;
    const float hx = (swapped ? h : w) / 2, hy = (swapped ? w : h) / 2;
    const Rect aabb = R(x - hx, y - hy, x + hx, y + hy);
    const Circle c{{float(pos(rng)), float(pos(rng))}, float(len(rng))};
    for (Boundary b : {kIn, kEx}) {
      const IntersectResult got = IntersectCircleRotatedRect(c, rr, b);
      const IntersectResult want = IntersectCircleRect(c, aabb, b);
      ASSERT_EQ(got.hit, want.hit) << i;
      ASSERT_EQ(got.relation, want.relation) << i;
      ASSERT_EQ(got.separation, want.separation) << i;
    }
  }
}

TEST(RotatedRect, PositiveAngleTurnsCounterClockwiseInYUp) {
  // 4x2 rectangle, pivot at its min corner, at the origin. A quarter turn
  // counter-clockwise (y up) puts it in x in [-2, 0], y in [0, 4].
  const RotatedRect r{{4, 2}, {0, 0}, {0, 0}, RotationFromAngle(kHalfPi)};
  EXPECT_TRUE(Intersect(Vec2{-1, 3}, r, kEx).hit);
  EXPECT_FALSE(Intersect(Vec2{1, 1}, r, kIn).hit);
  EXPECT_FALSE(Intersect(Vec2{1, -3}, r, kIn).hit);
  // A negative angle turns the other way: x in [0, 2], y in [-4, 0].
  const RotatedRect n{{4, 2}, {0, 0}, {0, 0}, RotationFromAngle(-kHalfPi)};
  EXPECT_TRUE(Intersect(Vec2{1, -3}, n, kEx).hit);
  EXPECT_FALSE(Intersect(Vec2{-1, 3}, n, kIn).hit);
}

TEST(RotatedRect, YDownIsTheMirrorOfYUpWithTheAngleNegated) {
  // The same scene described with y flipped (a y-down screen) answers the
  // same when rectangles flip min/max in y and angles change sign.
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> pos(-10, 10), len(0, 6), quarter(-4, 4);
  for (int i = 0; i < 50000; ++i) {
    const float w = len(rng), h = len(rng), px = pos(rng), py = pos(rng);
    const float ox = len(rng), oy = len(rng);
    const float a = quarter(rng) * kHalfPi;
    const Circle c{{float(pos(rng)), float(pos(rng))}, float(len(rng))};
    const RotatedRect up{{w, h}, {ox, oy}, {px, py}, RotationFromAngle(a)};
    // Mirroring y maps the local span [-oy, h - oy] to [-(h - oy), oy].
    const RotatedRect down{
        {w, h}, {ox, h - oy}, {px, -py}, RotationFromAngle(-a)};
    const Circle cd{{c.center.x, -c.center.y}, c.radius};
    ASSERT_EQ(IntersectCircleRotatedRect(c, up, kIn).relation,
              IntersectCircleRotatedRect(cd, down, kIn).relation)
        << i;
  }
}

TEST(RotatedRect, TinyAnglesStayCloseToTheAxisAlignedAnswer) {
  const RotatedRect r{{10, 10}, {5, 5}, {0, 0}, RotationFromAngle(1e-7f)};
  EXPECT_TRUE(Intersect(Vec2{4.9f, 4.9f}, r, kEx).hit);
  EXPECT_FALSE(Intersect(Vec2{5.1f, 0}, r, kIn).hit);
}

TEST(Degenerate, HugeCoordinatesStayFinite) {
  const float big = kMaxMagnitude;
  const IntersectResult r =
      IntersectCircleRect({{-big, -big}, big}, R(big, big, big, big), kIn);
  EXPECT_EQ(r.relation, Relation::kDisjoint);
  EXPECT_TRUE(std::isfinite(r.separation));
  const IntersectResult s = IntersectSphereBox(
      {{-big, -big, -big}, big}, Box{{big, big, big}, {big, big, big}}, kIn);
  EXPECT_TRUE(std::isfinite(s.separation));
}

TEST(Degenerate, NegativeZeroIsZero) {
  EXPECT_EQ(Intersect(Vec2{-0.0f, 5}, R(0, 0, 10, 10), kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(Intersect(Circle{{-0.0f, -0.0f}, 0}, Vec2{0, 0}, kIn).relation,
            Relation::kTouching);
}

}  // namespace
}  // namespace collision
