// Ray casts against capsules and oriented boxes (hitbox3.h): end caps and
// sides, grazes under both boundary rules, origins inside and on the
// surface, quarter turns against cast.h's RayCast(Box), NaN.
#include "hitbox3_testing.h"

namespace collision {
namespace {
// The shared generators and bounds (hitbox3_testing.h).
using namespace hitbox3_testing;  // NOLINT(build/namespaces)

// ---- Ray casts -------------------------------------------------------------

TEST(RaycastCapsule, AlongTheAxisHitsTheEndCap) {
  const Capsule3 c{{0, 0, 0}, {0, 0, 10}, 2};
  const auto hit = Raycast({0, 0, -10}, {0, 0, 1}, 100, c);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->t, 8.0f);
  EXPECT_EQ(hit->normal.z, -1.0f);
}

TEST(RaycastCapsule, AcrossTheAxisHitsTheSide) {
  const Capsule3 c{{0, 0, 0}, {0, 0, 10}, 2};
  const auto hit = Raycast({-10, 0, 5}, {1, 0, 0}, 100, c);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->t, 8.0f);
  EXPECT_EQ(hit->normal.x, -1.0f);
  EXPECT_EQ(hit->normal.z, 0.0f);
}

TEST(RaycastCapsule, TangentRayGrazesTheSideAndHits) {
  const Capsule3 c{{0, 0, 0}, {0, 0, 10}, 2};
  const auto hit = Raycast({-10, 2, 5}, {1, 0, 0}, 100, c);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->t, 10.0f);
  EXPECT_EQ(hit->normal.y, 1.0f);
}

TEST(RaycastCapsule, HitBeyondMaxDistanceOrBehindIsAMiss) {
  const Capsule3 c{{0, 0, 0}, {0, 0, 10}, 2};
  EXPECT_FALSE(Raycast({-10, 0, 5}, {1, 0, 0}, 7.9f, c));
  EXPECT_FALSE(Raycast({-10, 0, 5}, {-1, 0, 0}, 100, c));
  EXPECT_TRUE(Raycast({-10, 0, 5}, {1, 0, 0}, 8, c));
}

TEST(RaycastCapsule, OriginInsideHitsAtZeroFacingBack) {
  const Capsule3 c{{0, 0, 0}, {0, 0, 10}, 2};
  const auto hit = Raycast({1, 0, 11}, {0, 1, 0}, 5, c);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->t, 0.0f);
  EXPECT_EQ(hit->normal.y, -1.0f);
}

TEST(RaycastCapsule, ZeroLengthCapsuleIsTheSphereOfCast) {
  Gen g(18);
  for (int i = 0; i < 1000; ++i) {
    const Sphere s{g.Point(5), g.Uniform(0.1f, 3)};
    const Vec3 o = g.Point(10);
    const Vec3 d = g.Direction();
    for (Boundary bd : {kIn, kEx}) {
      const auto got =
          Raycast(o, d, 30, Capsule3{s.center, s.center, s.radius}, bd);
      const CastResult want = RayCast(o, d, 30, Shape{s}, bd);
      ASSERT_EQ(got.has_value(), want.hit) << Str(o) << Str(d);
      if (got) {
        EXPECT_NEAR(got->t, want.distance, 1e-4f);
        EXPECT_NEAR(got->normal.x, want.normal.x, 1e-3f);
        EXPECT_NEAR(got->normal.y, want.normal.y, 1e-3f);
        EXPECT_NEAR(got->normal.z, want.normal.z, 1e-3f);
      }
    }
  }
}

TEST(RaycastCapsule, ZeroRadiusSegmentIsHitOnlyWhereTheRayMeetsIt) {
  const Capsule3 c{{0, -5, 0}, {0, 5, 0}, 0};
  const auto hit = Raycast({-4, 1, 0}, {1, 0, 0}, 10, c);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->t, 4.0f);
  EXPECT_EQ(hit->normal.x, -1.0f);
  EXPECT_FALSE(Raycast({-4, 1, 1}, {1, 0, 0}, 10, c));
}

TEST(RaycastBox3, QuarterTurnedBoxAnswersExactlyAsCastAgainstBox) {
  Gen g(19);
  const std::vector<Quat> turns = QuarterTurns();
  const Vec3 axes[] = {{1, 0, 0},  {-1, 0, 0}, {0, 1, 0},
                       {0, -1, 0}, {0, 0, 1},  {0, 0, -1}};
  int hits = 0;
  for (int i = 0; i < 5000; ++i) {
    const OrientedBox b{
        g.IntPoint(3),
        {float(g.Int(0, 3)), float(g.Int(0, 3)), float(g.Int(0, 3))},
        turns[g.Int(0, 23)]};
    const Vec3 o = g.IntPoint(6);
    const Vec3 d = axes[g.Int(0, 5)];
    const float max_t = float(g.Int(0, 16));
    for (Boundary bd : {kIn, kEx}) {
      const auto got = Raycast(o, d, max_t, b, bd);
      const CastResult want = RayCast(o, d, max_t, Shape{AxisAligned(b)}, bd);
      const std::string what =
          Str(o) + Str(d) + Str(b) + (bd == kIn ? " inclusive" : " exclusive");
      ASSERT_EQ(got.has_value(), want.hit) << what;
      if (!got) continue;
      ++hits;
      EXPECT_EQ(got->t, want.distance) << what;
      EXPECT_EQ(got->normal.x, want.normal.x) << what;
      EXPECT_EQ(got->normal.y, want.normal.y) << what;
      EXPECT_EQ(got->normal.z, want.normal.z) << what;
    }
  }
  EXPECT_GT(hits, 200);
}

TEST(RaycastBox3, RayOntoAnEdgeTakesTheLastEnteredSlabFirstAxisOnTies) {
  const OrientedBox b{{0, 0, 0}, {1, 1, 1}, {}};
  const float r = float(1 / std::sqrt(2.0));
  const auto hit = Raycast({-3, -3, 0}, {r, r, 0}, 10, b);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->normal.x, -1.0f);  // x and y entered together: x
  EXPECT_EQ(hit->normal.y, 0.0f);
}

TEST(RaycastBox3, RayAlongAFaceGrazesAndHits) {
  const OrientedBox b{{0, 0, 0}, {1, 1, 1}, {kSqrtHalf, 0, 0, kSqrtHalf}};
  const auto hit = Raycast({-5, 1, 0}, {1, 0, 0}, 10, b);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->t, 4.0f);
}

TEST(RaycastBox3, GrazesAndFlatBoxesMissWhenExclusive) {
  const OrientedBox b{{0, 0, 0}, {1, 1, 1}, {kSqrtHalf, 0, 0, kSqrtHalf}};
  EXPECT_FALSE(Raycast({-5, 1, 0}, {1, 0, 0}, 10, b, kEx));  // along a face
  EXPECT_FALSE(Raycast({-5, 1, 1}, {1, 0, 0}, 10, b, kEx));  // along an edge
  const auto through = Raycast({-5, 0.5f, 0}, {1, 0, 0}, 10, b, kEx);
  ASSERT_TRUE(through);
  EXPECT_EQ(through->t, 4.0f);
  const OrientedBox flat{{0, 0, 0}, {1, 0, 1}, {}};
  EXPECT_TRUE(Raycast({0, -5, 0}, {0, 1, 0}, 10, flat, kIn));
  EXPECT_FALSE(Raycast({0, -5, 0}, {0, 1, 0}, 10, flat, kEx));
}

TEST(RaycastBox3, OriginOnTheSurfaceHitsAtZeroExclusiveOnlyWhenMovingIn) {
  const OrientedBox b{{0, 0, 0}, {1, 1, 1}, {}};
  const auto in = Raycast({1, 0, 0}, {-1, 0, 0}, 10, b, kEx);
  ASSERT_TRUE(in);
  EXPECT_EQ(in->t, 0.0f);
  EXPECT_EQ(in->normal.x, 1.0f);  // -dir
  EXPECT_FALSE(Raycast({1, 0, 0}, {1, 0, 0}, 10, b, kEx));
  EXPECT_TRUE(Raycast({1, 0, 0}, {1, 0, 0}, 10, b, kIn));
}

TEST(RaycastCapsule, TangentRayMissesWhenExclusive) {
  const Capsule3 c{{0, 0, 0}, {0, 0, 10}, 2};
  EXPECT_FALSE(Raycast({-10, 2, 5}, {1, 0, 0}, 100, c, kEx));
  const auto hit = Raycast({-10, 1, 5}, {1, 0, 0}, 100, c, kEx);
  ASSERT_TRUE(hit);
  EXPECT_NEAR(hit->t, 10 - std::sqrt(3.0f), 1e-5f);
  EXPECT_FALSE(Raycast({-4, 1, 0}, {1, 0, 0}, 10,
                       Capsule3{{0, -5, 0}, {0, 5, 0}, 0}, kEx));
}

TEST(RaycastCapsule, OriginOnTheSurfaceHitsAtZeroExclusiveOnlyWhenMovingIn) {
  const Capsule3 c{{0, 0, 0}, {0, 0, 10}, 2};
  ASSERT_TRUE(Raycast({2, 0, 5}, {-1, 0, 0}, 10, c, kEx));
  EXPECT_EQ(Raycast({2, 0, 5}, {-1, 0, 0}, 10, c, kEx)->t, 0.0f);
  EXPECT_FALSE(Raycast({2, 0, 5}, {1, 0, 0}, 10, c, kEx));
}

TEST(Raycast3, ExclusiveHitsAreInclusiveHitsAtTheSameDistance) {
  Gen g(23);
  int hits = 0;
  for (int i = 0; i < 3000; ++i) {
    const Capsule3 c = g.Capsule(1);
    const OrientedBox b = g.Box(1);
    const Vec3 o = g.Point(3);
    const Vec3 aim = g.Point(0.5f);
    const Vec3 d =
        NormalizeDirection(Vec3{aim.x - o.x, aim.y - o.y, aim.z - o.z});
    const auto ce = Raycast(o, d, 6, c, kEx), ci = Raycast(o, d, 6, c, kIn);
    const auto be = Raycast(o, d, 6, b, kEx), bi = Raycast(o, d, 6, b, kIn);
    if (ce) {
      ASSERT_TRUE(ci);
      EXPECT_EQ(ce->t, ci->t);
      ++hits;
    }
    if (be) {
      ASSERT_TRUE(bi);
      EXPECT_EQ(be->t, bi->t);
      ++hits;
    }
  }
  EXPECT_GT(hits, 200);
}

// ---- Invalid input ---------------------------------------------------------

TEST(Hitbox3, NanInputGivesSomeAnswerWithoutCrashingOrLooping) {
  // Callers validate (the wire will); the core only promises to return.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (float bad : {nan, inf, -inf}) {
    const Capsule3 c{{bad, 0, 0}, {1, bad, 0}, 1};
    const Capsule3 ok{{0, 0, 0}, {1, 1, 1}, 1};
    const OrientedBox b{{0, bad, 0}, {1, 1, bad}, {bad, 0, 0, 0}};
    const OrientedBox good{{0, 0, 0}, {1, 1, 1}, {}};
    const Sphere s{{bad, 0, 0}, bad};
    (void)Intersect(c, ok, kIn);
    (void)Intersect(s, ok, kIn);
    (void)Intersect(s, good, kIn);
    (void)Intersect(c, good, kIn);
    (void)Intersect(ok, b, kIn);
    (void)Intersect(b, good, kIn);
    (void)Intersect(good, b, kIn);
    (void)ClosestPoints(c, ok);
    (void)ClosestPoints(ok, b);
    (void)ClosestPoints(s, b);
    (void)Raycast({bad, 0, 0}, {1, 0, 0}, 10, ok);
    (void)Raycast({0, 0, 0}, {bad, 0, 0}, 10, good);
    (void)Raycast({0, 0, 0}, {1, 0, 0}, bad, b);
  }
  SUCCEED();
}

}  // namespace
}  // namespace collision
