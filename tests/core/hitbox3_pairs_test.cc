// Capsule and oriented-box pairs (hitbox3.h) on named adversarial cases:
// touching features, parallel and zero-length capsules, quarter turns
// against the axis-aligned answers of scalar.h, nearly parallel edges,
// symmetric argument order.
#include <cmath>
#include <cstring>
#include <random>

#include "collision/core/kinds.h"
#include "collision/core/scalar.h"
#include "hitbox3_testing.h"

namespace collision {
namespace {
// The shared generators and bounds (hitbox3_testing.h).
using namespace hitbox3_testing;  // NOLINT(build/namespaces)

// ---- Capsule pairs ---------------------------------------------------------

TEST(CapsuleCapsule, ParallelOverlappingSegmentsSeparationIsRadiusGap) {
  const Capsule3 a{{0, 0, 0}, {10, 0, 0}, 1};
  const Capsule3 b{{5, 3, 0}, {15, 3, 0}, 1};
  const IntersectResult r = Intersect(a, b, kIn);
  EXPECT_EQ(r.relation, Relation::kDisjoint);
  EXPECT_EQ(r.separation, 1.0f);
  EXPECT_EQ(Intersect(b, a, kIn).separation, 1.0f);
}

TEST(CapsuleCapsule, CollinearSegmentsSeparationIsTheEndGap) {
  const Capsule3 a{{0, 0, 0}, {1, 0, 0}, 0.5f};
  const Capsule3 b{{5, 0, 0}, {3, 0, 0}, 0.5f};
  EXPECT_EQ(Intersect(a, b, kIn).separation, 1.0f);
}

TEST(CapsuleCapsule, AntiparallelSegmentsAtRadiusSumTouch) {
  // 3-4-5: the axes are 5 apart, the radii sum to 5.
  const Capsule3 a{{0, 0, 0}, {0, 0, 10}, 2};
  const Capsule3 b{{3, 4, 8}, {3, 4, -5}, 3};
  const IntersectResult in = Intersect(a, b, kIn);
  EXPECT_EQ(in.relation, Relation::kTouching);
  EXPECT_TRUE(in.hit);
  EXPECT_EQ(in.separation, 0.0f);
  EXPECT_FALSE(Intersect(a, b, kEx).hit);
}

TEST(CapsuleCapsule, CrossingSegmentsPenetrateByTheRadiusSum) {
  const Capsule3 a{{-1, 0, 0}, {1, 0, 0}, 1};
  const Capsule3 b{{0, -1, 0}, {0, 1, 0}, 2};
  const IntersectResult r = Intersect(a, b, kEx);
  EXPECT_EQ(r.relation, Relation::kOverlapping);
  EXPECT_EQ(r.separation, -3.0f);
}

TEST(CapsuleCapsule, SkewSegmentsSeparationIsTheCommonPerpendicular) {
  // x axis and a line along y at height z = 7, both long enough.
  const Capsule3 a{{-5, 0, 0}, {5, 0, 0}, 1};
  const Capsule3 b{{2, -5, 7}, {2, 5, 7}, 1};
  EXPECT_EQ(Intersect(a, b, kIn).separation, 5.0f);
}

TEST(CapsuleCapsule, EndPointToInteriorUsesTheEndPoint) {
  const Capsule3 a{{0, 0, 0}, {10, 0, 0}, 0};
  const Capsule3 b{{4, 3, 0}, {4, 100, 0}, 0};
  EXPECT_EQ(Intersect(a, b, kIn).separation, 3.0f);
}

TEST(CapsuleCapsule, ZeroRadiusCrossingSegmentsOnlyTouch) {
  const Capsule3 a{{-1, 0, 0}, {1, 0, 0}, 0};
  const Capsule3 b{{0, -1, 0}, {0, 1, 0}, 0};
  const IntersectResult r = Intersect(a, b, kIn);
  EXPECT_EQ(r.relation, Relation::kTouching);
  EXPECT_FALSE(Intersect(a, b, kEx).hit);
}

TEST(CapsuleCapsule, ZeroLengthCapsulesEqualSphereSphereExactly) {
  Gen g(10);
  for (int i = 0; i < 2000; ++i) {
    const Sphere a{g.IntPoint(6), float(g.Int(0, 4))};
    const Sphere b{g.IntPoint(6), float(g.Int(0, 4))};
    const Capsule3 ca{a.center, a.center, a.radius};
    const Capsule3 cb{b.center, b.center, b.radius};
    for (Boundary bd : {kIn, kEx}) {
      const IntersectResult want = IntersectSphereSphere(a, b, bd);
      ExpectSame(Intersect(ca, cb, bd), want, Str(ca) + " vs " + Str(cb));
      ExpectSame(Intersect(a, cb, bd), want, Str(cb));
    }
  }
}

TEST(CapsuleCapsule, ZeroLengthCapsuleMatchesSphereAgainstSegment) {
  Gen g(11);
  for (int i = 0; i < 1000; ++i) {
    const Sphere a{g.Point(5), g.Uniform(0, 2)};
    const Capsule3 b = g.Capsule(5);
    ExpectSame(Intersect(Capsule3{a.center, a.center, a.radius}, b, kIn),
               Intersect(a, b, kIn), Str(b));
  }
}

TEST(CapsuleCapsule, SymmetricWithinRounding) {
  Gen g(12);
  for (int i = 0; i < 1000; ++i) {
    const Capsule3 a = g.Capsule(10), b = g.Capsule(10);
    EXPECT_NEAR(Intersect(a, b, kIn).separation,
                Intersect(b, a, kIn).separation, 1e-5f);
  }
}

TEST(CapsuleCapsule, NearlyParallelLongSegmentsAreAccurate) {
  // Segments 2000 long, 1e-4 rad apart, crossing at their middles 0.5 apart.
  const Capsule3 a{{-1000, 0, 0}, {1000, 0, 0}, 0.1f};
  const Capsule3 b{{-1000, -0.1f, 0.5f}, {1000, 0.1f, 0.5f}, 0.1f};
  const double want = ref::CapsuleCapsule(a, b);
  EXPECT_NEAR(Intersect(a, b, kIn).separation, want, 1e-3);
}

// ---- Sphere and capsule vs oriented box ------------------------------------

TEST(QuarterTurns, TwentyFourRotationsAreFoundAndExact) {
  const std::vector<Quat> turns = QuarterTurns();
  EXPECT_EQ(turns.size(), 24u);
  for (const Quat& q : turns) {
    const Mat3 r = RotationMatrix(q);
    for (float v : r.m) EXPECT_TRUE(v == 0 || v == 1 || v == -1) << v;
  }
}

TEST(SphereBox3, QuarterTurnedBoxAnswersExactlyAsAxisAlignedBox) {
  Gen g(13);
  const std::vector<Quat> turns = QuarterTurns();
  Worst w{"sphere-obb quarter turns"};
  for (int i = 0; i < 5000; ++i) {
    const OrientedBox b{
        g.IntPoint(3),
        {float(g.Int(0, 3)), float(g.Int(0, 3)), float(g.Int(0, 3))},
        turns[g.Int(0, 23)]};
    const Sphere s{g.IntPoint(7), float(g.Int(0, 3))};
    for (Boundary bd : {kIn, kEx}) {
      ExpectSame(
          Intersect(s, b, bd), IntersectSphereBox(s, AxisAligned(b), bd),
          Str(s.center) + " r " + std::to_string(s.radius) + " " + Str(b));
    }
    w.Check(Intersect(s, b, kIn), ref::SphereBox(s, b), 10, Str(b));
  }
  EXPECT_GT(w.touching, 50);  // faces, edges and corners touched exactly
}

TEST(SphereBox3, CentreInsideSeparationIsRadiusPlusNearestFace) {
  const OrientedBox b{{0, 0, 0}, {10, 20, 30}, {0.5f, 0.5f, 0.5f, 0.5f}};
  // This turn maps local x to world y: the world half-extents are (30, 10,
  // 20); the centre (1, 2, 3) is 8 from the world y faces.
  EXPECT_EQ(Intersect(Sphere{{1, 2, 3}, 1}, b, kEx).separation, -9.0f);
}

TEST(SphereBox3, Rotated45DegreesReachesFartherAlongTheDiagonal) {
  const float s = std::sin(0.3926991f), c = std::cos(0.3926991f);
  const OrientedBox b{{0, 0, 0}, {1, 1, 1}, {c, 0, 0, s}};  // 45 deg about z
  const IntersectResult r = Intersect(Sphere{{2, 0, 0}, 0}, b, kIn);
  EXPECT_NEAR(r.separation, 2 - std::sqrt(2.0), 1e-6);
}

TEST(CapsuleBox3, ZeroLengthCapsuleEqualsSphereBoxExactly) {
  Gen g(14);
  for (int i = 0; i < 2000; ++i) {
    const OrientedBox b = g.Box(5);
    const Sphere s{g.Point(8), g.Size(3)};
    ExpectSame(Intersect(Capsule3{s.center, s.center, s.radius}, b, kIn),
               Intersect(s, b, kIn), Str(b));
  }
}

TEST(CapsuleBox3, SegmentThroughBoxPenetratesToTheNearestSideFace) {
  // Through the middle along x: leaving by a y face (half-extent 2) is
  // shortest; the cross axes give 2 (y) and 3 (z) too.
  const OrientedBox b{{0, 0, 0}, {1, 2, 3}, {}};
  const Capsule3 c{{-10, 0, 0}, {10, 0, 0}, 0.5f};
  const IntersectResult r = Intersect(c, b, kEx);
  EXPECT_EQ(r.relation, Relation::kOverlapping);
  EXPECT_EQ(r.separation, -2.5f);
}

TEST(CapsuleBox3, DiagonalSegmentThroughBoxUsesACrossAxis) {
  // A segment along (1, 1, 0) through the centre of a 2 x 2 x 10 box:
  // moving it along (1, -1, 0)/sqrt(2) by sqrt(2) clears the box, less
  // than the 5 along z or the 6 along x or y.
  const OrientedBox b{{0, 0, 0}, {1, 1, 5}, {}};
  const Capsule3 c{{-5, -5, 0}, {5, 5, 0}, 0};
  EXPECT_NEAR(Intersect(c, b, kIn).separation, -std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(ref::CapsuleBox(c, b), -std::sqrt(2.0), 1e-9);
}

TEST(CapsuleBox3, CapsuleLyingOnAFaceAtItsRadiusTouches) {
  const OrientedBox b{{0, 0, 0}, {2, 2, 2}, {kSqrtHalf, kSqrtHalf, 0, 0}};
  const Capsule3 c{{-5, 1, 3}, {5, 1, 3}, 1};
  const IntersectResult r = Intersect(c, b, kIn);
  EXPECT_EQ(r.relation, Relation::kTouching);
  EXPECT_FALSE(Intersect(c, b, kEx).hit);
}

TEST(CapsuleBox3, CapsuleAlongAnEdgeTouchesAtThreeFourFive) {
  // Parallel to the box's z edge at (2, 2), 5 away diagonally.
  const OrientedBox b{{0, 0, 0}, {2, 2, 2}, {}};
  const Capsule3 c{{5, 6, -1}, {5, 6, 1}, 5};
  EXPECT_EQ(Intersect(c, b, kIn).relation, Relation::kTouching);
}

TEST(CapsuleBox3, ClosestPointsAboveAFaceAndThroughTheBox) {
  // A quarter turn about z; the capsule hovers 3 above the top face.
  const OrientedBox b{{0, 0, 0}, {2, 1, 1}, {kSqrtHalf, 0, 0, kSqrtHalf}};
  const Distance3 above = ClosestPoints(Capsule3{{-5, 0, 5}, {5, 0, 5}, 1}, b);
  EXPECT_EQ(above.distance, 3.0f);
  EXPECT_EQ(above.normal.z, -1.0f);
  EXPECT_EQ(above.point_a.z, 4.0f);
  EXPECT_EQ(above.point_b.z, 1.0f);
  // Through the box along x (world half-extents 1, 2, 1): leaving along -z
  // or +z by 1 plus the radius; ties go to -z, so b moves along +z.
  const Distance3 through =
      ClosestPoints(Capsule3{{-5, 0, 0}, {5, 0, 0}, 0.5f}, b);
  EXPECT_EQ(through.distance, -1.5f);
  EXPECT_EQ(through.normal.z, 1.0f);
  EXPECT_EQ(through.point_a.z, 0.5f);
  EXPECT_EQ(through.point_b.z, -1.0f);
}

TEST(CapsuleBox3, ZeroRadiusSegmentOverlapsOnlyThroughTheInterior) {
  const OrientedBox b{{0, 0, 0}, {1, 1, 1}, {}};
  EXPECT_EQ(Intersect(Capsule3{{-3, 0, 0}, {3, 0, 0}, 0}, b, kIn).relation,
            Relation::kOverlapping);
  EXPECT_EQ(Intersect(Capsule3{{-3, 1, 0}, {3, 1, 0}, 0}, b, kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(Intersect(Capsule3{{-3, 1, 1}, {3, 1, 1}, 0}, b, kIn).relation,
            Relation::kTouching);
  EXPECT_EQ(Intersect(Capsule3{{1, 1, 1}, {3, 3, 3}, 0}, b, kIn).relation,
            Relation::kTouching);
}

TEST(CapsuleBox3, QuarterTurnedBoxGivesTheUnturnedRelationExactly) {
  Gen g(15);
  const std::vector<Quat> turns = QuarterTurns();
  int touching = 0;
  for (int i = 0; i < 5000; ++i) {
    const OrientedBox b{
        g.IntPoint(3),
        {float(g.Int(0, 3)), float(g.Int(0, 3)), float(g.Int(0, 3))},
        turns[g.Int(0, 23)]};
    const Box aabb = AxisAligned(b);
    const OrientedBox unturned{
        b.center,
        {(aabb.max.x - aabb.min.x) / 2, (aabb.max.y - aabb.min.y) / 2,
         (aabb.max.z - aabb.min.z) / 2},
        {}};
    const Capsule3 c{g.IntPoint(7), g.IntPoint(7), float(g.Int(0, 3))};
    // The relation is exact; the distance of a slanted segment goes through
    // sums taken in the box's axis order, so it may differ by rounding.
    const IntersectResult got = Intersect(c, b, kIn);
    const IntersectResult want = Intersect(c, unturned, kIn);
    EXPECT_EQ(got.relation, want.relation) << Str(c) << " vs " << Str(b);
    EXPECT_NEAR(got.separation, want.separation, 1e-6f * 16)
        << Str(c) << " vs " << Str(b);
    touching += got.relation == Relation::kTouching;
  }
  EXPECT_GT(touching, 20);
}

// ---- Oriented box pairs ----------------------------------------------------

TEST(BoxBox3, QuarterTurnedBoxesAnswerExactlyAsAxisAlignedBoxBox) {
  Gen g(16);
  const std::vector<Quat> turns = QuarterTurns();
  int touching = 0;
  for (int i = 0; i < 5000; ++i) {
    OrientedBox b[2];
    for (OrientedBox& x : b) {
      x = {g.IntPoint(4),
           {float(g.Int(0, 3)), float(g.Int(0, 3)), float(g.Int(0, 3))},
           turns[g.Int(0, 23)]};
    }
    for (Boundary bd : {kIn, kEx}) {
      const IntersectResult got = Intersect(b[0], b[1], bd);
      ExpectSame(got, IntersectBoxBox(AxisAligned(b[0]), AxisAligned(b[1]), bd),
                 Str(b[0]) + " vs " + Str(b[1]));
      touching += got.relation == Relation::kTouching;
    }
  }
  EXPECT_GT(touching, 50);  // faces, edges and corners touching exactly
}

// Two unit cubes: a turned 45 degrees about x (an edge along x on top, at
// height sqrt(2)), b turned 45 degrees about y (an edge along y at the
// bottom) and lifted so the two edges cross `gap` apart.
std::pair<OrientedBox, OrientedBox> CrossedEdges(float gap) {
  const float s = std::sin(0.3926991f), c = std::cos(0.3926991f);
  const float lift = float(2 * std::sqrt(2.0)) + gap;
  return {OrientedBox{{0, 0, 0}, {1, 1, 1}, {c, s, 0, 0}},
          OrientedBox{{0, 0, lift}, {1, 1, 1}, {c, 0, s, 0}}};
}

TEST(BoxBox3, CrossedEdgesSeparationIsTheEdgeGap) {
  const auto [a, b] = CrossedEdges(0.5f);
  const IntersectResult r = Intersect(a, b, kIn);
  EXPECT_EQ(r.relation, Relation::kDisjoint);
  EXPECT_NEAR(r.separation, 0.5, 1e-6);
  EXPECT_NEAR(ref::BoxBox(a, b), 0.5, 1e-6);
}

TEST(BoxBox3, CrossedEdgesPenetrationIsFoundOnTheEdgeEdgeAxis) {
  const auto [a, b] = CrossedEdges(-0.25f);
  const IntersectResult r = Intersect(a, b, kIn);
  EXPECT_EQ(r.relation, Relation::kOverlapping);
  EXPECT_NEAR(r.separation, -0.25, 1e-6);
  EXPECT_NEAR(ref::BoxBox(a, b), -0.25, 1e-6);
}

TEST(BoxBox3, RodAlongAnEdgeAwayFromTheSatSupportCornerIsFound) {
  // The SAT's best axis is x (gap 2); the cube's support corner along it,
  // (1, 1, 1) on ties, is not the closest feature: the cube's edge at
  // x = 1, z = -1 runs parallel to the rod sqrt(5) away.
  const OrientedBox cube{{0, 0, 0}, {1, 1, 1}, {}};
  const OrientedBox rod{{3, 0, -2}, {0, 5, 0}, {}};
  for (const IntersectResult& r :
       {Intersect(cube, rod, kIn), Intersect(rod, cube, kIn)}) {
    EXPECT_EQ(r.relation, Relation::kDisjoint);
    EXPECT_EQ(r.separation, std::sqrt(5.0f));
  }
  EXPECT_NEAR(ref::BoxBox(cube, rod), std::sqrt(5.0), 1e-12);
  const Distance3 d = ClosestPoints(cube, rod);
  EXPECT_EQ(d.distance, std::sqrt(5.0f));
  EXPECT_EQ(d.point_a.x, 1.0f);
  EXPECT_EQ(d.point_a.z, -1.0f);
  EXPECT_NEAR(d.normal.x, 2 / std::sqrt(5.0f), 1e-6f);
  EXPECT_NEAR(d.normal.y, 0, 1e-6f);
  EXPECT_NEAR(d.normal.z, -1 / std::sqrt(5.0f), 1e-6f);
}

TEST(BoxBox3, SameTurnBoxesSideBySideMatchTheirLocalAxisAlignedAnswer) {
  // Parallel edges everywhere: every cross axis is degenerate.
  Gen g(17);
  for (int i = 0; i < 500; ++i) {
    const Quat q = g.Rotation();
    const Mat3 r = RotationMatrix(q);
    const Vec3 ha{g.Uniform(0.5f, 2), g.Uniform(0.5f, 2), g.Uniform(0.5f, 2)};
    const Vec3 hb{g.Uniform(0.5f, 2), g.Uniform(0.5f, 2), g.Uniform(0.5f, 2)};
    const Vec3 off = g.Point(4);  // b's centre in the shared local frame
    const Vec3 cb{r.m[0] * off.x + r.m[1] * off.y + r.m[2] * off.z,
                  r.m[3] * off.x + r.m[4] * off.y + r.m[5] * off.z,
                  r.m[6] * off.x + r.m[7] * off.y + r.m[8] * off.z};
    const Box la{{-ha.x, -ha.y, -ha.z}, ha};
    const Box lb{{off.x - hb.x, off.y - hb.y, off.z - hb.z},
                 {off.x + hb.x, off.y + hb.y, off.z + hb.z}};
    const float want = IntersectBoxBox(la, lb, kIn).separation;
    EXPECT_NEAR(
        Intersect(OrientedBox{{0, 0, 0}, ha, q}, OrientedBox{cb, hb, q}, kIn)
            .separation,
        want, 1e-5f);
  }
}

Quat Compose(const Quat& a, const Quat& b) {  // a * b: b first, then a
  return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
          a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
          a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

// Turned by `angle` about a random axis.
Quat SmallTurn(Gen& g, float angle) {
  const Vec3 axis = g.Direction();
  const float s = std::sin(angle / 2);
  return {std::cos(angle / 2), axis.x * s, axis.y * s, axis.z * s};
}

TEST(BoxBox3, NearlyParallelEdgesStayAccurateAtEveryAngle) {
  // Nearly parallel edges make the 9 cross axes ill-conditioned; the face
  // axes must carry the answer where they are skipped.
  Gen g(20);
  for (float angle : {1e-1f, 1e-2f, 1e-3f, 1e-4f, 1e-5f, 1e-6f, 1e-7f}) {
    Worst w{"obb-obb nearly parallel, angle " + Fmt(angle)};
    for (int i = 0; i < 300; ++i) {
      const OrientedBox a{
          g.Point(1),
          {g.Uniform(0.2f, 1), g.Uniform(0.2f, 1), g.Uniform(0.2f, 1)},
          g.Rotation()};
      const OrientedBox b{
          g.Point(1),
          {g.Uniform(0.2f, 1), g.Uniform(0.2f, 1), g.Uniform(0.2f, 1)},
          Compose(a.rotation, SmallTurn(g, angle))};
      w.Check(
          Intersect(a, b, kIn), ref::BoxBox(a, b), 2,
          "angle " + std::to_string(angle) + " " + Str(a) + " vs " + Str(b));
    }
  }
}

TEST(CapsuleBox3, SegmentsNearlyParallelToABoxAxisStayAccurate) {
  Gen g(21);
  for (float angle : {1e-2f, 1e-4f, 1e-6f, 1e-7f}) {
    Worst w{"capsule-obb nearly axis-parallel, angle " + Fmt(angle)};
    for (int i = 0; i < 300; ++i) {
      const OrientedBox b{
          g.Point(1),
          {g.Uniform(0.2f, 1), g.Uniform(0.2f, 1), g.Uniform(0.2f, 1)},
          g.Rotation()};
      // A segment along a box axis, turned slightly.
      const Mat3 r = RotationMatrix(Compose(b.rotation, SmallTurn(g, angle)));
      const int k = g.Int(0, 2);
      const float len = g.Uniform(0.5f, 3);
      const Vec3 dir{r.m[k] * len, r.m[3 + k] * len, r.m[6 + k] * len};
      const Vec3 p = g.Point(1.5f);
      const Capsule3 c{
          p, {p.x + dir.x, p.y + dir.y, p.z + dir.z}, g.Size(0.3f)};
      w.Check(
          Intersect(c, b, kIn), ref::CapsuleBox(c, b), 3,
          "angle " + std::to_string(angle) + " " + Str(c) + " vs " + Str(b));
    }
  }
}

TEST(CapsuleCapsule, NearlyParallelSegmentsStayAccurateAtEveryAngle) {
  Gen g(22);
  for (float angle : {1e-2f, 1e-4f, 1e-6f, 1e-7f}) {
    Worst w{"capsule-capsule nearly parallel, angle " + Fmt(angle)};
    for (int i = 0; i < 500; ++i) {
      const Vec3 d = g.Direction();
      const Mat3 r = RotationMatrix(SmallTurn(g, angle));
      const Vec3 e{r.m[0] * d.x + r.m[1] * d.y + r.m[2] * d.z,
                   r.m[3] * d.x + r.m[4] * d.y + r.m[5] * d.z,
                   r.m[6] * d.x + r.m[7] * d.y + r.m[8] * d.z};
      const float la = g.Uniform(0.1f, 100), lb = g.Uniform(0.1f, 100);
      const Vec3 pa = g.Point(10), pb = g.Point(10);
      const Capsule3 a{
          pa, {pa.x + la * d.x, pa.y + la * d.y, pa.z + la * d.z}, g.Size(1)};
      const Capsule3 b{
          pb, {pb.x + lb * e.x, pb.y + lb * e.y, pb.z + lb * e.z}, g.Size(1)};
      w.Check(Intersect(a, b, kIn), ref::CapsuleCapsule(a, b),
              std::max(Scale(a), Scale(b)), Str(a) + " vs " + Str(b));
    }
  }
}

TEST(BoxBox3, ClosestPointsOfCrossedEdgesAreOnTheEdges) {
  const auto [a, b] = CrossedEdges(0.5f);
  const Distance3 d = ClosestPoints(a, b);
  EXPECT_NEAR(d.distance, 0.5f, 1e-6f);
  EXPECT_NEAR(d.point_a.z, std::sqrt(2.0f), 1e-6f);
  EXPECT_NEAR(d.point_a.x, 0, 1e-6f);
  EXPECT_NEAR(d.point_a.y, 0, 1e-6f);
  EXPECT_NEAR(d.normal.z, 1, 1e-6f);
  const Distance3 o =
      ClosestPoints(CrossedEdges(-0.25f).first, CrossedEdges(-0.25f).second);
  EXPECT_NEAR(o.distance, -0.25f, 1e-6f);
  EXPECT_NEAR(o.normal.z, 1, 1e-6f);
}

TEST(BoxBox3, SymmetricRelationAndSeparationWithinRounding) {
  Gen g(24);
  double worst_normal = 0;
  for (int i = 0; i < 2000; ++i) {
    const OrientedBox a = g.Box(1), b = g.Box(1);
    const IntersectResult ab = Intersect(a, b, kIn), ba = Intersect(b, a, kIn);
    EXPECT_EQ(ab.relation, ba.relation) << Str(a) << " vs " << Str(b);
    EXPECT_NEAR(ab.separation, ba.separation, 1e-6f)
        << Str(a) << " vs " << Str(b);
    const Distance3 dab = ClosestPoints(a, b), dba = ClosestPoints(b, a);
    EXPECT_NEAR(dab.distance, dba.distance, 1e-6f);
    // The same contact seen from the other side: normals opposite (the
    // difference of the closest points of convex sets is unique), up to
    // where float can place a minimum that is flat (a corner against an
    // edge: about sqrt(ulp * distance) along the edge).
    if (dab.distance > 0.1f) {
      const double dev =
          ref::Norm(ref::Add(ref::D(dab.normal), ref::D(dba.normal)));
      worst_normal = std::max(worst_normal, dev);
      EXPECT_LE(dev, 1e-3) << Str(a) << " vs " << Str(b);
    }
  }
  std::printf(
      "[ accuracy ] obb-obb normal, a-b vs b-a: max |difference| = %.3g\n",
      worst_normal);
}

TEST(BoxBox3, BoxInsideBoxDepthIsTheShortestWayOut) {
  const OrientedBox big{{0, 0, 0}, {10, 10, 10}, {}};
  const OrientedBox small{{7, 0, 0}, {1, 1, 1}, {0.5f, 0.5f, 0.5f, 0.5f}};
  EXPECT_EQ(Intersect(big, small, kEx).separation, -4.0f);
}

TEST(BoxBox3, FlatBoxesInOnePlaneOnlyTouch) {
  const OrientedBox a{{0, 0, 0}, {2, 2, 0}, {}};
  const OrientedBox b{{1, 1, 0}, {2, 2, 0}, {}};
  EXPECT_EQ(Intersect(a, b, kIn).relation, Relation::kTouching);
}

}  // namespace
}  // namespace collision

namespace collision {
namespace {

// Through the service's functions (scalar.h), a capsule whose ends
// coincide answers exactly as its sphere, against every 3D kind and as a
// closest-point target (the hitbox functions alone agree only up to
// rounding there).
TEST(ZeroLengthCapsule, AnswersAsItsSphereThroughTheServiceBitForBit) {
  std::mt19937 rng(91);
  std::uniform_real_distribution<float> coord(-5, 5), size(0, 3);
  auto point = [&] { return Vec3{coord(rng), coord(rng), coord(rng)}; };
  const float h = std::sqrt(0.5f);
  int checked = 0;
  for (int i = 0; i < 2000; ++i) {
    const Vec3 c = point();
    const float r = i % 7 == 0 ? 0.0f : size(rng);
    const Shape capsule = Capsule3{c, c, r};
    const Shape sphere = Sphere{c, r};
    const Vec3 lo = point();
    const Shape others[] = {
        point(),
        Sphere{point(), size(rng)},
        Box{lo, {lo.x + size(rng), lo.y + size(rng), lo.z + size(rng)}},
        Capsule3{point(), point(), size(rng)},
        OrientedBox{point(), {size(rng), size(rng), size(rng)}, {h, 0, h, 0}},
    };
    for (const Shape& other : others) {
      for (Boundary b : {Boundary::kInclusive, Boundary::kExclusive}) {
        for (bool swap : {false, true}) {
          const IntersectResult got = swap ? Intersect(other, capsule, b)
                                           : Intersect(capsule, other, b);
          const IntersectResult want = Intersect(sphere, other, b);
          ASSERT_EQ(got.hit, want.hit) << i;
          ASSERT_EQ(got.relation, want.relation) << i;
          ASSERT_EQ(std::memcmp(&got.separation, &want.separation, 4), 0)
              << i << " " << got.separation << " vs " << want.separation;
        }
      }
      if (!IsBall(KindOf(other))) continue;
      const ClosestPointResult got =
          ClosestPoint(other, capsule, Boundary::kInclusive);
      const ClosestPointResult want =
          ClosestPoint(other, sphere, Boundary::kInclusive);
      const float g[] = {got.closest_point.x,
                         got.closest_point.y,
                         got.closest_point.z,
                         got.surface_point.x,
                         got.surface_point.y,
                         got.surface_point.z,
                         got.normal.x,
                         got.normal.y,
                         got.normal.z,
                         got.signed_distance,
                         got.gap};
      const float w[] = {want.closest_point.x,
                         want.closest_point.y,
                         want.closest_point.z,
                         want.surface_point.x,
                         want.surface_point.y,
                         want.surface_point.z,
                         want.normal.x,
                         want.normal.y,
                         want.normal.z,
                         want.signed_distance,
                         want.gap};
      ASSERT_EQ(std::memcmp(g, w, sizeof g), 0) << i;
      ASSERT_EQ(got.inside, want.inside) << i;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4000);
}

}  // namespace
}  // namespace collision
