// RayCast, SweepCircle and SweepSphere against an independent
// double-precision reference on random casts of every target kind, both
// boundary rules, rays and sweeps in 2D and 3D; and radius 0 sweeps equal
// rays bit for bit.
#include "cast_reference.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "cast_testing.h"
#include "collision/core/cast.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

using namespace cast_reference;  // NOLINT: the reference of this test

// ---- Random casts ----------------------------------------------------------

class CaseMaker {
 public:
  explicit CaseMaker(uint32_t seed) : rng_(seed) {}

  CastCase Make(ShapeKind kind, bool sweep) {
    integral_ = Chance(0.25);
    scale_ = integral_ ? 16.0f : kScales[Pick(5)];
    CastCase c;
    c.three_d = Is3D(kind);
    c.sweep = sweep;
    c.target = MakeTarget(kind);
    c.boundary = Chance(0.5) ? kIn : kEx;
    c.radius = sweep && !Chance(0.1) ? Num(0, scale_ / 3) : 0.0f;
    c.origin = MakeOrigin(c);
    c.direction = MakeDirection(c);
    if (Chance(0.1)) MakeTangent(&c);
    const double r = Uniform(0, 1);
    c.max_distance = r < 0.1 ? 0.0f : Num(0, 3 * scale_);
    return c;
  }

 private:
  static constexpr float kScales[5] = {1.0f, 50.0f, 1e4f, 1e7f,
                                       kMaxMagnitude / 3};

  double Uniform(double a, double b) {
    return std::uniform_real_distribution<double>(a, b)(rng_);
  }
  bool Chance(double p) { return Uniform(0, 1) < p; }
  int Pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  float Num(double a, double b) {
    const double x = Uniform(a, b);
    return integral_ ? float(std::round(x)) : float(x);
  }
  float Size() { return Chance(0.1) ? 0.0f : Num(0, scale_ / 2); }
  Vec3 Point(bool three_d, double half) {
    return {Num(-half, half), Num(-half, half), three_d ? Num(-half, half) : 0};
  }

  Shape MakeTarget(ShapeKind kind) {
    const double h = scale_ / 2;
    const Vec3 a = Point(Is3D(kind), h);
    switch (kind) {
      case ShapeKind::kPoint2:
        return Vec2{a.x, a.y};
      case ShapeKind::kCircle:
        return Circle{{a.x, a.y}, Size()};
      case ShapeKind::kRect:
        return Rect{{a.x, a.y}, {a.x + Size(), a.y + Size()}};
      case ShapeKind::kRotatedRect: {
        const float angle =
            Chance(0.3) ? float(Pick(9) - 4) * kHalfPi : float(Uniform(-4, 4));
        return RotatedRect{{Size(), Size()},
                           {Num(-h / 2, h), Num(-h / 2, h)},
                           {a.x, a.y},
                           RotationFromAngle(angle)};
      }
      case ShapeKind::kPoint3:
        return a;
      case ShapeKind::kSphere:
        return Sphere{a, Size()};
      case ShapeKind::kBox:
        return Box{a, {a.x + Size(), a.y + Size(), a.z + Size()}};
      case ShapeKind::kCapsule3: {
        // A zero-length capsule (a sphere) or a bare segment now and then.
        const Vec3 b = Chance(0.1) ? a : Point(true, h);
        return Capsule3{a, b, Chance(0.15) ? 0.0f : Num(0, scale_ / 6)};
      }
      case ShapeKind::kOrientedBox:
        // Size() is 0 a tenth of the time: flat boxes, segments, points.
        return OrientedBox{
            a, {Size() / 2, Size() / 2, Size() / 2}, MakeRotation()};
    }
    return Vec2{};
  }

  // A quarter turn (one of the 24, often in integer cases) or a random
  // rotation, as the float quaternion a caller would send.
  Quat MakeRotation() {
    if (Chance(integral_ ? 0.6 : 0.3)) {
      const int i = Pick(4), j = Pick(4), k = Pick(4);  // in this order
      return QuarterTurn(i, j, k);
    }
    std::normal_distribution<double> g;
    const double w = g(rng_), x = g(rng_), y = g(rng_), z = g(rng_);
    const double n = std::sqrt(w * w + x * x + y * y + z * z);
    return Quat{float(w / n), float(x / n), float(y / n), float(z / n)};
  }

  // A point inside the target, for the hitbox kinds: on a capsule's
  // segment or near an oriented box's centre.
  Vec3 Inside(const Shape& target) {
    const double u = Uniform(0, 1);
    if (const auto* c = std::get_if<Capsule3>(&target)) {
      return {float(c->a.x + u * (double(c->b.x) - c->a.x)),
              float(c->a.y + u * (double(c->b.y) - c->a.y)),
              float(c->a.z + u * (double(c->b.z) - c->a.z))};
    }
    const OrientedBox& b = std::get<OrientedBox>(target);
    const double e =
        u * std::min({b.half_extents.x, b.half_extents.y, b.half_extents.z});
    return {float(b.center.x + e), float(b.center.y - e / 2),
            float(b.center.z + e / 3)};
  }

  // A point of the target: its closest point to a random point near it.
  Vec3 OnTarget(const CastCase& c) {
    const Vec3 q = Point(c.three_d, scale_);
    if (c.three_d) {
      return ClosestPoint(Shape{q}, c.target, kIn).surface_point;
    }
    return ClosestPoint(Shape{Vec2{q.x, q.y}}, c.target, kIn).surface_point;
  }

  Vec3 MakeOrigin(const CastCase& c) {
    const ShapeKind kind = KindOf(c.target);
    const bool hitbox =
        kind == ShapeKind::kCapsule3 || kind == ShapeKind::kOrientedBox;
    if (hitbox && Chance(0.15)) return Inside(c.target);
    const double p = Uniform(0, 1);
    if (p < 0.6) return Point(c.three_d, scale_);
    // On the target's surface, pushed out by the swept radius along a
    // random axis (so often on the grown surface) or left there.
    Vec3 s = OnTarget(c);
    if (p < 0.8 && c.radius > 0) {
      const int axis = Pick(c.three_d ? 3 : 2);
      float* v = axis == 0 ? &s.x : axis == 1 ? &s.y : &s.z;
      *v = *v + (Chance(0.5) ? c.radius : -c.radius);
    }
    return s;
  }

  Vec3 MakeDirection(const CastCase& c) {
    const int dims = c.three_d ? 3 : 2;
    D3 d{};
    const double p = Uniform(0, 1);
    if (p < 0.15) {
      d[Pick(dims)] = Chance(0.5) ? 1 : -1;
    } else if (p < 0.25) {
      for (int i = 0; i < dims; ++i) d[i] = Chance(0.5) ? 1 : -1;
    } else if (p < 0.75) {
      // Towards a point of the target, or a random point near it.
      const Vec3 aim = Chance(0.5) ? OnTarget(c) : Point(c.three_d, scale_ / 2);
      d = Sub(D(aim), D(c.origin));
    } else {
      std::normal_distribution<double> n;
      for (int i = 0; i < dims; ++i) d[i] = n(rng_);
    }
    if (!(Norm(d) > 0)) d = {1, 0, 0};
    const double len = Norm(d);
    return {float(d[0] / len), float(d[1] / len), float(d[2] / len)};
  }

  // A line tangent to the grown target at a point of its surface (up to
  // float rounding), starting up to `scale` before the contact.
  void MakeTangent(CastCase* c) {
    const Vec3 q = Point(c->three_d, scale_);
    const ClosestPointResult cp =
        c->three_d ? ClosestPoint(Shape{q}, c->target, kIn)
                   : ClosestPoint(Shape{Vec2{q.x, q.y}}, c->target, kIn);
    const D3 n = D(cp.normal);
    D3 t{};
    if (c->three_d) {
      std::normal_distribution<double> g;
      const D3 a{g(rng_), g(rng_), g(rng_)};
      t = {n[1] * a[2] - n[2] * a[1], n[2] * a[0] - n[0] * a[2],
           n[0] * a[1] - n[1] * a[0]};
    } else {
      t = {-n[1], n[0], 0};
    }
    const double len = Norm(t);
    if (!(len > 0)) return;
    const double back = Uniform(0, scale_);
    const D3 s = D(cp.surface_point);
    D3 o{};
    for (int i = 0; i < 3; ++i) {
      t[i] /= len;
      o[i] = s[i] + c->radius * n[i] - back * t[i];
    }
    c->origin = {float(o[0]), float(o[1]), float(o[2])};
    c->direction = {float(t[0]), float(t[1]), float(t[2])};
  }

  std::mt19937 rng_;
  bool integral_ = false;
  float scale_ = 1;
};

void RunRandom(const std::vector<ShapeKind>& kinds, bool sweep, uint32_t seed,
               const char* what, int casts = 20000) {
  CaseMaker maker(seed);
  Measured m;
  int failures = 0;
  for (int i = 0; i < casts && failures < 10; ++i) {
    const CastCase c = maker.Make(kinds[i % kinds.size()], sweep);
    if (!Check(c, &m)) ++failures;
    if (sweep && c.radius == 0) {
      CastCase ray = c;
      ray.sweep = false;
      EXPECT_TRUE(BitEqual(c.Run(), ray.Run())) << Describe(c);
    }
  }
  m.Print(what);
}

const std::vector<ShapeKind> kKinds2 = {ShapeKind::kPoint2, ShapeKind::kCircle,
                                        ShapeKind::kRect,
                                        ShapeKind::kRotatedRect};
const std::vector<ShapeKind> kKinds3 = {ShapeKind::kPoint3, ShapeKind::kSphere,
                                        ShapeKind::kBox};

TEST(CastAgainstReference, Rays2D) {
  RunRandom(kKinds2, false, 201, "rays 2D");
}
TEST(CastAgainstReference, Rays3D) {
  RunRandom(kKinds3, false, 202, "rays 3D");
}
TEST(CastAgainstReference, Sweeps2D) {
  RunRandom(kKinds2, true, 203, "sweeps 2D");
}
TEST(CastAgainstReference, Sweeps3D) {
  RunRandom(kKinds3, true, 204, "sweeps 3D");
}
TEST(CastAgainstReference, RaysAgainstCapsules) {
  RunRandom({ShapeKind::kCapsule3}, false, 207, "rays vs capsule3", 50000);
}
TEST(CastAgainstReference, SweepsAgainstCapsules) {
  RunRandom({ShapeKind::kCapsule3}, true, 208, "sweeps vs capsule3", 50000);
}
TEST(CastAgainstReference, RaysAgainstOrientedBoxes) {
  RunRandom({ShapeKind::kOrientedBox}, false, 209, "rays vs oriented_box",
            50000);
}
TEST(CastAgainstReference, SweepsAgainstOrientedBoxes) {
  RunRandom({ShapeKind::kOrientedBox}, true, 210, "sweeps vs oriented_box",
            50000);
}

TEST(SweepCircle, RadiusZeroIsRayCastBitForBit) {
  CaseMaker maker(205);
  const ShapeKind kinds[] = {ShapeKind::kPoint2, ShapeKind::kCircle,
                             ShapeKind::kRect, ShapeKind::kRotatedRect};
  for (int i = 0; i < 4000; ++i) {
    CastCase c = maker.Make(kinds[i % 4], false);
    const Vec2 o{c.origin.x, c.origin.y}, d{c.direction.x, c.direction.y};
    ASSERT_TRUE(
        BitEqual(SweepCircle(o, 0, d, c.max_distance, c.target, c.boundary),
                 RayCast(o, d, c.max_distance, c.target, c.boundary)))
        << Describe(c);
  }
}

TEST(SweepSphere, RadiusZeroIsRayCastBitForBit) {
  CaseMaker maker(206);
  const ShapeKind kinds[] = {ShapeKind::kPoint3, ShapeKind::kSphere,
                             ShapeKind::kBox};
  for (int i = 0; i < 3000; ++i) {
    CastCase c = maker.Make(kinds[i % 3], false);
    ASSERT_TRUE(BitEqual(
        SweepSphere(c.origin, 0, c.direction, c.max_distance, c.target,
                    c.boundary),
        RayCast(c.origin, c.direction, c.max_distance, c.target, c.boundary)))
        << Describe(c);
  }
}

// Far from the origin a circle swept against an axis-aligned rectangle
// answers as near it, as precisely as against the same rectangle given as a
// rotated one (no turn, pivot at its min corner), and bit for bit as that
// one: the distance's backward error (how much the rectangle must grow for
// the answer to be exact, against a double-precision reference on the same
// float inputs) stays within 1e-5 of the shapes' size at offsets up to 1e6.
// It was 3e-3 at 1e5 when the cast ran in world coordinates.
TEST(SweepCircle, FarFromTheOriginARectAnswersAsNearIt) {
  std::mt19937 rng(17);
  auto uniform = [&](float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng);
  };
  for (float offset : {0.0f, 1e3f, 1e5f, 1e6f}) {
    double worst = 0;
    int hits = 0;
    for (int i = 0; i < 3000; ++i) {
      const float w = uniform(1, 10), h = uniform(1, 10);
      const Rect rect{{offset + uniform(-5, 5), offset + uniform(-5, 5)}, {}};
      const Rect target{rect.min, {rect.min.x + w, rect.min.y + h}};
      const float angle = uniform(0, 6.2831853f);
      CastCase c;
      c.sweep = true;
      c.radius = uniform(0.1f, 2);
      c.origin = Vec3{target.min.x + uniform(-20, 30),
                      target.min.y + uniform(-20, 30), 0};
      const Vec2 d = NormalizeDirection(Vec2{std::cos(angle), std::sin(angle)});
      c.direction = Vec3{d.x, d.y, 0};
      c.max_distance = 50;
      c.target = target;
      c.boundary = i % 2 == 0 ? kIn : kEx;
      const CastResult got = c.Run();
      RotatedRect same;
      same.size = {target.max.x - target.min.x, target.max.y - target.min.y};
      same.pivot = {0, 0};
      same.position = target.min;
      same.rotation = {1, 0};
      const CastResult turned =
          SweepCircle(Vec2{c.origin.x, c.origin.y}, c.radius, d, c.max_distance,
                      same, c.boundary);
      ASSERT_EQ(got.hit, turned.hit) << Describe(c);
      if (!got.hit) continue;
      EXPECT_EQ(got.distance, turned.distance) << Describe(c);
      ++hits;
      const Reference ref(c);
      const double size = std::max({double(w), double(h), double(c.radius)});
      worst = std::max(worst, ref.DistanceBackwardError(got.distance) / size);
    }
    std::cout << "[ measured ] offset " << offset << ": " << hits
              << " hits, worst backward error / size " << worst << "\n";
    EXPECT_GT(hits, 250);
    EXPECT_LE(worst, 1e-5) << "offset " << offset;
  }
}

}  // namespace
}  // namespace collision
