// Capsules and oriented boxes (hitbox3.h) on random cases at sizes 1e-3,
// 1 and 1e6 against the independent double-precision reference
// (hitbox3_reference.h); the worst error seen is printed.
#include "hitbox3_testing.h"

namespace collision {
namespace {
// The shared generators and bounds (hitbox3_testing.h).
using namespace hitbox3_testing;  // NOLINT(build/namespaces)

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

}  // namespace
}  // namespace collision
