// Capsules and oriented boxes (hitbox3.h): random cases against the
// independent double-precision reference (hitbox3_reference.h), and named
// adversarial cases: touching features, parallel and zero-length capsules,
// quarter turns against the axis-aligned answers of scalar.h and cast.h,
// huge and tiny sizes, NaN.
#include "collision/core/hitbox3.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <vector>

#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"
#include "hitbox3_reference.h"

namespace collision {
namespace {

namespace ref = hitbox3_reference;

constexpr Boundary kIn = Boundary::kInclusive;
constexpr Boundary kEx = Boundary::kExclusive;
// Errors are measured relative to the scale of a case (its largest
// coordinate, size or radius). The worst seen is printed by each random
// test; this bound leaves a margin over it.
constexpr double kRelTol = 4e-6;
const float kSqrtHalf = std::sqrt(0.5f);

// ---- Generators ------------------------------------------------------------

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  float Uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng_);
  }
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  Vec3 Point(float s) {
    return {Uniform(-s, s), Uniform(-s, s), Uniform(-s, s)};
  }
  Vec3 IntPoint(int s) {
    return {float(Int(-s, s)), float(Int(-s, s)), float(Int(-s, s))};
  }
  Quat Rotation() {
    std::normal_distribution<float> n;
    Quat q{n(rng_), n(rng_), n(rng_), n(rng_)};
    const float len = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return {q.w / len, q.x / len, q.y / len, q.z / len};
  }
  Vec3 Direction() {
    std::normal_distribution<float> n;
    return NormalizeDirection(Vec3{n(rng_), n(rng_), n(rng_)});
  }
  // Sizes: a few exactly zero, the rest in [0, s].
  float Size(float s) { return Int(0, 9) == 0 ? 0.0f : Uniform(0, s); }
  Capsule3 Capsule(float s) {
    Capsule3 c{Point(s), Point(s), Size(s / 2)};
    if (Int(0, 9) == 0) c.b = c.a;
    return c;
  }
  OrientedBox Box(float s) {
    return {Point(s), {Size(s), Size(s), Size(s)}, Rotation()};
  }

 private:
  std::mt19937 rng_;
};

// The 24 rotations that map axes to axes, as float unit quaternions with
// components in {0, +-1/2, +-sqrt(1/2), +-1} (one of each +-q pair).
std::vector<Quat> QuarterTurns() {
  const float values[] = {0, 0.5f, -0.5f, kSqrtHalf, -kSqrtHalf, 1, -1};
  std::vector<Quat> out;
  for (float w : values) {
    for (float x : values) {
      for (float y : values) {
        for (float z : values) {
          const double n =
              double(w) * w + double(x) * x + double(y) * y + double(z) * z;
          if (std::fabs(n - 1) > 1e-6 || w < 0) continue;
          if (w == 0 && (x < 0 || (x == 0 && (y < 0 || (y == 0 && z < 0))))) {
            continue;
          }
          const Mat3 r = RotationMatrix({w, x, y, z});
          bool permutation = true;
          for (float v : r.m) permutation = permutation && std::fabs(v) != 0.5f;
          int nonzero = 0;
          for (float v : r.m) nonzero += v != 0.0f;
          if (permutation && nonzero == 3) out.push_back({w, x, y, z});
        }
      }
    }
  }
  return out;
}

// The axis-aligned box an exactly quarter-turned box covers.
Box AxisAligned(const OrientedBox& b) {
  const Mat3 r = RotationMatrix(b.rotation);
  const float h[3] = {b.half_extents.x, b.half_extents.y, b.half_extents.z};
  float w[3];
  for (int i = 0; i < 3; ++i) {
    w[i] = std::fabs(r.m[3 * i]) * h[0] + std::fabs(r.m[3 * i + 1]) * h[1] +
           std::fabs(r.m[3 * i + 2]) * h[2];
  }
  const Vec3 c = b.center;
  return {{c.x - w[0], c.y - w[1], c.z - w[2]},
          {c.x + w[0], c.y + w[1], c.z + w[2]}};
}

float Scale(std::initializer_list<float> values) {
  float s = 0;
  for (float v : values) s = std::max(s, std::fabs(v));
  return s;
}
float Scale(const Vec3& v) { return Scale({v.x, v.y, v.z}); }
float Scale(const Capsule3& c) {
  return Scale({Scale(c.a), Scale(c.b), c.radius});
}
float Scale(const Sphere& s) { return Scale({Scale(s.center), s.radius}); }
float Scale(const OrientedBox& b) {
  return Scale(b.center) + Scale(b.half_extents);
}

// Tracks the worst error relative to the scale and checks each case.
struct Worst {
  std::string name;
  double worst = 0;
  int disjoint = 0, overlapping = 0, touching = 0;
  ~Worst() {
    std::printf(
        "[ accuracy ] %s: max |error| / scale = %.3g (%d disjoint, "
        "%d overlapping, %d touching)\n",
        name.c_str(), worst, disjoint, overlapping, touching);
  }
  void Check(const IntersectResult& got, double want, double scale,
             const std::string& what) {
    const double err = std::fabs(double(got.separation) - want) / scale;
    worst = std::max(worst, err);
    EXPECT_LE(err, kRelTol)
        << what << " got " << got.separation << " want " << want;
    if (want > kRelTol * scale) {
      EXPECT_EQ(got.relation, Relation::kDisjoint) << what;
    } else if (want < -kRelTol * scale) {
      EXPECT_EQ(got.relation, Relation::kOverlapping) << what;
    }
    EXPECT_EQ(got.hit, IsHit(got.relation, kIn)) << what;
    disjoint += got.relation == Relation::kDisjoint;
    overlapping += got.relation == Relation::kOverlapping;
    touching += got.relation == Relation::kTouching;
  }
};

std::string Fmt(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
std::string Str(const Vec3& v) {
  return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " +
         std::to_string(v.z) + ")";
}
std::string Str(const Capsule3& c) {
  return "capsule " + Str(c.a) + "-" + Str(c.b) + " r " +
         std::to_string(c.radius);
}
std::string Str(const OrientedBox& b) {
  return "box c " + Str(b.center) + " h " + Str(b.half_extents) + " q (" +
         std::to_string(b.rotation.w) + ", " + std::to_string(b.rotation.x) +
         ", " + std::to_string(b.rotation.y) + ", " +
         std::to_string(b.rotation.z) + ")";
}

void ExpectSame(const IntersectResult& a, const IntersectResult& b,
                const std::string& what) {
  EXPECT_EQ(a.relation, b.relation) << what;
  EXPECT_EQ(a.hit, b.hit) << what;
  EXPECT_EQ(a.separation, b.separation) << what;
}

constexpr float kScales[] = {1e-3f, 1.0f, 1e6f};

// ---- Random cases against the reference ------------------------------------

TEST(CapsuleCapsule, RandomCasesMatchReferenceAtEveryScale) {
  Worst w{"capsule-capsule"};
  Gen g(1);
  for (float s : kScales) {
    for (int i = 0; i < 3000; ++i) {
      const Capsule3 a = g.Capsule(s), b = g.Capsule(s);
      const double scale = std::max(Scale(a), Scale(b));
      w.Check(Intersect(a, b, kIn), ref::CapsuleCapsule(a, b), scale,
              Str(a) + " vs " + Str(b));
    }
  }
}

TEST(SphereCapsule, RandomCasesMatchReferenceAtEveryScale) {
  Worst w{"sphere-capsule"};
  Gen g(2);
  for (float s : kScales) {
    for (int i = 0; i < 2000; ++i) {
      const Sphere a{g.Point(s), g.Size(s / 2)};
      const Capsule3 b = g.Capsule(s);
      const double scale = std::max(Scale(a), Scale(b));
      w.Check(Intersect(a, b, kIn),
              ref::CapsuleCapsule({a.center, a.center, a.radius}, b), scale,
              Str(b));
    }
  }
}

TEST(SphereBox3, RandomCasesMatchReferenceAtEveryScale) {
  Worst w{"sphere-obb"};
  Gen g(3);
  for (float s : kScales) {
    for (int i = 0; i < 3000; ++i) {
      const Sphere a{g.Point(s), g.Size(s / 2)};
      const OrientedBox b = g.Box(s);
      const double scale = std::max(Scale(a), Scale(b));
      w.Check(Intersect(a, b, kIn), ref::SphereBox(a, b), scale, Str(b));
    }
  }
}

TEST(CapsuleBox3, RandomCasesMatchReferenceAtEveryScale) {
  Worst w{"capsule-obb"};
  Gen g(4);
  for (float s : kScales) {
    for (int i = 0; i < 3000; ++i) {
      const Capsule3 a = g.Capsule(s);
      const OrientedBox b = g.Box(s);
      const double scale = std::max(Scale(a), Scale(b));
      w.Check(Intersect(a, b, kIn), ref::CapsuleBox(a, b), scale,
              Str(a) + " vs " + Str(b));
    }
  }
}

TEST(BoxBox3, RandomCasesMatchReferenceAtEveryScale) {
  Worst w{"obb-obb"};
  Gen g(5);
  for (float s : kScales) {
    for (int i = 0; i < 1500; ++i) {
      const OrientedBox a = g.Box(s), b = g.Box(s);
      const double scale = std::max(Scale(a), Scale(b));
      w.Check(Intersect(a, b, kIn), ref::BoxBox(a, b), scale,
              Str(a) + " vs " + Str(b));
    }
  }
}

TEST(BoxBox3, RodsAndPlatesMatchReferenceAtEveryScale) {
  // Boxes of very different proportions (rods, plates, near-points) close
  // together: the SAT's best axis often does not point at the closest
  // features, so Intersect's edge search goes past its shortcuts (about one
  // disjoint pair in a hundred reaches the search over all edges).
  Worst w{"obb-obb rods and plates"};
  Gen g(25);
  for (float s : kScales) {
    auto size = [&] {
      return g.Int(0, 1) ? g.Uniform(0, 0.05f * s) : g.Uniform(0.5f * s, 3 * s);
    };
    for (int i = 0; i < 3000; ++i) {
      const Vec3 ca = g.Point(s);
      const Vec3 ha{size(), size(), size()};
      const OrientedBox a{ca, ha, g.Rotation()};
      const Vec3 cb = g.Point(3 * s);
      const Vec3 hb{size(), size(), size()};
      const OrientedBox b{cb, hb, g.Rotation()};
      const double scale = std::max(Scale(a), Scale(b));
      const double want = ref::BoxBox(a, b);
      const std::string what = Str(a) + " vs " + Str(b);
      w.Check(Intersect(a, b, kIn), want, scale, what);
      w.Check(Intersect(b, a, kIn), want, scale, what);
      EXPECT_NEAR(ClosestPoints(a, b).distance, want, kRelTol * scale) << what;
    }
  }
}

TEST(BoxBox3, SatAxesAreTheLeastOverlapOverSampledDirections) {
  // The reference depth takes the 15 SAT axes on trust; check on overlapping
  // pairs that no sampled direction overlaps less.
  Gen g(6);
  int checked = 0;
  for (int i = 0; i < 200; ++i) {
    const OrientedBox oa = g.Box(1), ob = g.Box(1);
    const double want = ref::BoxBox(oa, ob);
    if (want >= 0) continue;
    ++checked;
    const ref::RBox a = ref::MakeBox(oa), b = ref::MakeBox(ob);
    for (int k = 0; k < 500; ++k) {
      const Vec3 d = g.Direction();
      const double o = ref::Overlap(
          [&](const ref::D3& n) { return ref::BoxSupport(a, n); },
          [&](const ref::D3& n) { return ref::BoxSupport(b, n); }, ref::D(d));
      EXPECT_GE(o, -want - 1e-6);
    }
  }
  EXPECT_GT(checked, 20);
}

TEST(ClosestPoints3, RandomCasesAreConsistentWithIntersectAndReference) {
  Gen g(7);
  double worst = 0;
  auto check = [&](const Distance3& d, const IntersectResult& r, double want,
                   double scale, const std::string& what) {
    const double tol = kRelTol * scale;
    EXPECT_NEAR(d.distance, r.separation, tol) << what;
    worst = std::max(worst, std::fabs(d.distance - want) / scale);
    EXPECT_NEAR(d.distance, want, tol) << what;
    EXPECT_NEAR(ref::Norm(ref::D(d.normal)), 1.0, 1e-5) << what;
    const ref::D3 gap = ref::Sub(ref::D(d.point_b), ref::D(d.point_a));
    const ref::D3 expect = ref::Mul(ref::D(d.normal), d.distance);
    EXPECT_LE(ref::Norm(ref::Sub(gap, expect)), 2 * tol) << what;
  };
  for (float s : kScales) {
    for (int i = 0; i < 1000; ++i) {
      const Capsule3 a = g.Capsule(s), b = g.Capsule(s);
      const OrientedBox box = g.Box(s);
      const Sphere sp{g.Point(s), g.Size(s / 2)};
      const double sab = std::max(Scale(a), Scale(b));
      const double sbox = std::max(Scale(a), Scale(box));
      const double ssp = std::max(Scale(sp), Scale(box));
      check(ClosestPoints(a, b), Intersect(a, b, kIn),
            ref::CapsuleCapsule(a, b), sab, Str(a) + " vs " + Str(b));
      const Distance3 cb = ClosestPoints(a, box);
      check(cb, Intersect(a, box, kIn), ref::CapsuleBox(a, box), sbox,
            Str(a) + " vs " + Str(box));
      const OrientedBox box2 = g.Box(s);
      const double sbb = std::max(Scale(box2), Scale(box));
      const Distance3 bb = ClosestPoints(box, box2);
      check(bb, Intersect(box, box2, kIn), ref::BoxBox(box, box2), sbb,
            Str(box) + " vs " + Str(box2));
      if (bb.distance > 0) {
        EXPECT_NEAR(ref::PointBoxSigned(ref::MakeBox(box), ref::D(bb.point_a)),
                    0, kRelTol * sbb);
        EXPECT_NEAR(ref::PointBoxSigned(ref::MakeBox(box2), ref::D(bb.point_b)),
                    0, kRelTol * sbb);
      } else {
        // Moving b by -distance along the normal leaves them touching.
        OrientedBox moved = box2;
        moved.center.x -= bb.distance * bb.normal.x;
        moved.center.y -= bb.distance * bb.normal.y;
        moved.center.z -= bb.distance * bb.normal.z;
        EXPECT_NEAR(ref::BoxBox(box, moved), 0, 2 * kRelTol * sbb)
            << Str(box) << " vs " << Str(box2);
      }
      const Distance3 sb = ClosestPoints(sp, box);
      check(sb, Intersect(sp, box, kIn), ref::SphereBox(sp, box), ssp,
            Str(box));
      // Outside: point_b is on the box's surface and point_a on the capsule's.
      const ref::RBox rb = ref::MakeBox(box);
      if (cb.distance + a.radius > 0) {
        EXPECT_NEAR(ref::PointBoxSigned(rb, ref::D(cb.point_b)), 0,
                    kRelTol * sbox);
        EXPECT_NEAR(ref::PointSegmentDistance(ref::D(cb.point_a), ref::D(a.a),
                                              ref::D(a.b)),
                    a.radius, kRelTol * sbox);
      }
    }
  }
  std::printf("[ accuracy ] closest points: max |error| / scale = %.3g\n",
              worst);
}

// Checks a cast against the reference in the backward sense of cast.h: a
// hit lies on the surface within the band, no earlier point is deeper than
// the band, and the normal is the outward one there.
template <typename Shape, typename SignedDistance, typename RefCast>
void CheckCast(const Vec3& o, const Vec3& d, float max_t, const Shape& shape,
               SignedDistance sd, RefCast ref_cast, double scale, double* worst,
               const std::string& what) {
  const double band = kRelTol * scale;
  const std::optional<RayHit3> got = Raycast(o, d, max_t, shape);
  auto at = [&](double t) {
    return ref::Add(ref::D(o), ref::Mul(ref::D(d), t));
  };
  double t_min;
  const double lowest = ref::MinimizeConvex([&](double t) { return sd(at(t)); },
                                            0, max_t, &t_min, 256);
  if (!got) {
    EXPECT_GT(lowest, -band) << what;
    return;
  }
  EXPECT_LT(lowest, band) << what;
  EXPECT_GE(got->t, 0.0f);
  EXPECT_LE(got->t, max_t);
  EXPECT_NEAR(ref::Norm(ref::D(got->normal)), 1.0, 1e-5) << what;
  if (got->t == 0.0f) {
    EXPECT_LE(sd(ref::D(o)), band) << what;
    EXPECT_EQ(got->normal.x, -d.x);
    EXPECT_EQ(got->normal.y, -d.y);
    EXPECT_EQ(got->normal.z, -d.z);
    return;
  }
  EXPECT_NEAR(sd(at(got->t)), 0, band) << what;
  const std::optional<double> want = ref_cast();
  if (lowest < -band && want) {
    *worst = std::max(*worst, std::fabs(got->t - *want) / scale);
  }
  // Nothing before the hit is inside by more than the band.
  for (int k = 0; k < 64; ++k) {
    EXPECT_GT(sd(at(got->t * k / 64.0)), -band) << what;
  }
  EXPECT_LE(ref::Dot(ref::D(got->normal), ref::D(d)), 1e-5) << what;
}

TEST(RaycastCapsule, RandomCastsMatchReferenceAtEveryScale) {
  Gen g(8);
  double worst = 0;
  for (float s : kScales) {
    for (int i = 0; i < 2000; ++i) {
      const Capsule3 c = g.Capsule(s);
      const Vec3 o = g.Point(3 * s);
      // Aim at a point near the capsule so that about half the casts hit.
      const Vec3 target = g.Point(s);
      const Vec3 d = NormalizeDirection(
          Vec3{target.x - o.x, target.y - o.y, target.z - o.z});
      const float max_t = g.Uniform(0, 8 * s);
      const double scale = double(std::max({Scale(c), Scale(o), max_t}));
      CheckCast(
          o, d, max_t, c,
          [&](const ref::D3& p) {
            return ref::PointSegmentDistance(p, ref::D(c.a), ref::D(c.b)) -
                   c.radius;
          },
          [&] { return ref::RayCapsule(o, d, max_t, c); }, scale, &worst,
          Str(c) + " from " + Str(o) + " dir " + Str(d));
    }
  }
  std::printf("[ accuracy ] ray-capsule: max |t error| / scale = %.3g\n",
              worst);
}

TEST(RaycastBox3, RandomCastsMatchReferenceAtEveryScale) {
  Gen g(9);
  double worst = 0;
  for (float s : kScales) {
    for (int i = 0; i < 2000; ++i) {
      const OrientedBox b = g.Box(s);
      const ref::RBox rb = ref::MakeBox(b);
      const Vec3 o = g.Point(3 * s);
      const Vec3 target = g.Point(s);
      const Vec3 d = NormalizeDirection(
          Vec3{target.x - o.x, target.y - o.y, target.z - o.z});
      const float max_t = g.Uniform(0, 8 * s);
      const double scale = double(std::max({Scale(b), Scale(o), max_t}));
      CheckCast(
          o, d, max_t, b,
          [&](const ref::D3& p) { return ref::PointBoxSigned(rb, p); },
          [&] { return ref::RayBox(o, d, max_t, b); }, scale, &worst,
          Str(b) + " from " + Str(o) + " dir " + Str(d));
    }
  }
  std::printf("[ accuracy ] ray-obb: max |t error| / scale = %.3g\n", worst);
}

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
