// RayCast, SweepCircle and SweepSphere against an independent
// double-precision reference on random casts of every target kind, both
// boundary rules, rays and sweeps in 2D and 3D; and radius 0 sweeps equal
// rays bit for bit.
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

#include "cast_testing.h"
#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

// ---- Independent double-precision reference -------------------------------
//
// Every target, grown by the swept radius, is a box [lo, hi] grown by a
// radius in the target's own frame (a point, circle or sphere is a box with
// lo == hi). Its signed distance (negative inside) is convex, so along the
// segment g(t) = signed distance of o + t d minus the swept radius is convex
// in t: its minimum over [0, max] is found by golden-section search and the
// first t with g(t) <= level by bisection. Nothing here shares code with
// cast.cc: no slabs, no quadratic.

using D3 = std::array<double, 3>;

struct RefTarget {
  int dims = 2;
  D3 lo{}, hi{};
  double radius = 0;  // of a circle or sphere
  bool ball = false;  // a point, circle or sphere (lo == hi)
  // A rotated rectangle's frame: local = R^T (world - pos).
  double c = 1, s = 0;
  D3 pos{};
};

RefTarget MakeRef(const Shape& shape) {
  RefTarget t;
  const ShapeKind kind = KindOf(shape);
  t.dims = Is3D(kind) ? 3 : 2;
  t.ball = kind != ShapeKind::kRect && kind != ShapeKind::kRotatedRect &&
           kind != ShapeKind::kBox;
  if (const auto* p = std::get_if<Vec2>(&shape)) {
    t.lo = t.hi = {p->x, p->y, 0};
  } else if (const auto* c = std::get_if<Circle>(&shape)) {
    t.lo = t.hi = {c->center.x, c->center.y, 0};
    t.radius = c->radius;
  } else if (const auto* r = std::get_if<Rect>(&shape)) {
    t.lo = {r->min.x, r->min.y, 0};
    t.hi = {r->max.x, r->max.y, 0};
  } else if (const auto* rr = std::get_if<RotatedRect>(&shape)) {
    t.lo = {-double(rr->pivot.x), -double(rr->pivot.y), 0};
    t.hi = {double(rr->size.x) - rr->pivot.x, double(rr->size.y) - rr->pivot.y,
            0};
    t.c = rr->rotation.cos;
    t.s = rr->rotation.sin;
    t.pos = {rr->position.x, rr->position.y, 0};
  } else if (const auto* p3 = std::get_if<Vec3>(&shape)) {
    t.lo = t.hi = {p3->x, p3->y, p3->z};
  } else if (const auto* sp = std::get_if<Sphere>(&shape)) {
    t.lo = t.hi = {sp->center.x, sp->center.y, sp->center.z};
    t.radius = sp->radius;
  } else {
    const Box& b = std::get<Box>(shape);
    t.lo = {b.min.x, b.min.y, b.min.z};
    t.hi = {b.max.x, b.max.y, b.max.z};
  }
  return t;
}

D3 LocalVector(const RefTarget& t, const D3& v) {
  return {t.c * v[0] + t.s * v[1], t.c * v[1] - t.s * v[0], v[2]};
}
D3 LocalPoint(const RefTarget& t, const D3& p) {
  return LocalVector(t, {p[0] - t.pos[0], p[1] - t.pos[1], p[2] - t.pos[2]});
}
D3 WorldPoint(const RefTarget& t, const D3& l) {
  return {t.pos[0] + t.c * l[0] - t.s * l[1],
          t.pos[1] + t.s * l[0] + t.c * l[1], t.pos[2] + l[2]};
}

double Norm(const D3& v) {
  return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}
D3 Sub(const D3& a, const D3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
D3 D(const Vec3& v) { return {v.x, v.y, v.z}; }

// Signed distance from a local point to the target (without the sweep).
double SignedDistance(const RefTarget& t, const D3& x) {
  double out2 = 0, depth = std::numeric_limits<double>::infinity();
  for (int i = 0; i < t.dims; ++i) {
    const double g = std::max(t.lo[i] - x[i], x[i] - t.hi[i]);
    if (g > 0) out2 += g * g;
    depth = std::min(depth, -g);
  }
  return (out2 > 0 ? std::sqrt(out2) : -depth) - t.radius;
}

struct CastCase {
  bool three_d = false;
  bool sweep = false;
  Vec3 origin;
  Vec3 direction;
  float max_distance = 0;
  float radius = 0;
  Shape target;
  Boundary boundary = kIn;

  CastResult Run() const {
    if (three_d) {
      return sweep ? SweepSphere(origin, radius, direction, max_distance,
                                 target, boundary)
                   : RayCast(origin, direction, max_distance, target, boundary);
    }
    const Vec2 o{origin.x, origin.y}, d{direction.x, direction.y};
    return sweep ? SweepCircle(o, radius, d, max_distance, target, boundary)
                 : RayCast(o, d, max_distance, target, boundary);
  }
};

class Reference {
 public:
  explicit Reference(const CastCase& c)
      : c_(c), t_(MakeRef(c.target)), o_(D(c.origin)), d_(D(c.direction)) {
    local_o_ = LocalPoint(t_, o_);
    local_d_ = LocalVector(t_, d_);
    FindMinimum();
  }

  // Signed distance of the ball's centre at t from the grown target.
  double G(double t) const {
    const D3 x{local_o_[0] + t * local_d_[0], local_o_[1] + t * local_d_[1],
               local_o_[2] + t * local_d_[2]};
    return SignedDistance(t_, x) - c_.radius;
  }
  double min_g() const { return min_g_; }

  // First t in [0, max] with G(t) <= level, or -1.
  double FirstAtMost(double level) const {
    if (G(0) <= level) return 0;
    if (min_g_ > level) return -1;
    double a = 0, b = t_min_;
    for (int i = 0; i < 200; ++i) {
      const double m = 0.5 * (a + b);
      (G(m) <= level ? b : a) = m;
    }
    return b;
  }

  // How much the target must grow or shrink for `t` to be the exact entry
  // distance: G(t) for an early answer, the depth already reached before t
  // for a late one.
  double DistanceBackwardError(double t) const {
    if (t == 0) return std::max(0.0, G(0));
    const double before = G(std::min(t_min_, t));
    return std::max({0.0, G(t), -before});
  }

  D3 CentreAt(double t) const {
    return {o_[0] + t * d_[0], o_[1] + t * d_[1], o_[2] + t * d_[2]};
  }

  // Closest point of the (ungrown) target to a world point.
  D3 Closest(const D3& world) const {
    const D3 x = LocalPoint(t_, world);
    D3 q = x, v{};
    for (int i = 0; i < t_.dims; ++i) {
      q[i] = std::clamp(x[i], t_.lo[i], t_.hi[i]);
      v[i] = x[i] - q[i];
    }
    const double len = Norm(v);
    if (len <= t_.radius) return world;
    for (int i = 0; i < 3; ++i) q[i] += v[i] * (t_.radius / len);
    return WorldPoint(t_, q);
  }

  // How far the target sticks out past the plane through p with normal n:
  // 0 when n is an outward normal of the target at p.
  double SupportGap(const D3& n, const D3& p) const {
    const D3 ln = LocalVector(t_, n);
    const D3 lp = LocalPoint(t_, p);
    double h = t_.radius * Norm(ln), np = 0;
    for (int i = 0; i < t_.dims; ++i) {
      h += std::max(ln[i] * t_.lo[i], ln[i] * t_.hi[i]);
      np += ln[i] * lp[i];
    }
    return h - np;
  }

  // A ray through a point, or a zero-radius circle or sphere, reports
  // -direction (a zero-size rectangle keeps its slab normals).
  bool PointLike() const { return t_.ball && t_.radius == 0; }
  bool HasInterior() const {
    if (t_.radius > 0 || c_.radius > 0) return true;
    for (int i = 0; i < t_.dims; ++i) {
      if (!(t_.lo[i] < t_.hi[i])) return false;
    }
    return true;
  }

 private:
  void FindMinimum() {
    const double phi = (std::sqrt(5.0) - 1) / 2;
    double a = 0, b = c_.max_distance;
    for (int i = 0; i < 200 && b > a; ++i) {
      const double m1 = b - phi * (b - a), m2 = a + phi * (b - a);
      if (G(m1) <= G(m2)) {
        b = m2;
      } else {
        a = m1;
      }
    }
    t_min_ = 0.5 * (a + b);
    min_g_ = G(t_min_);
    for (double t : {0.0, double(c_.max_distance)}) {
      if (G(t) <= min_g_) t_min_ = t, min_g_ = G(t);
    }
  }

  CastCase c_;
  RefTarget t_;
  D3 o_, d_, local_o_, local_d_;
  double t_min_ = 0, min_g_ = 0;
};

double Scale(const CastCase& c) {
  double s =
      std::max({std::fabs(double(c.origin.x)), std::fabs(double(c.origin.y)),
                std::fabs(double(c.origin.z)), double(c.max_distance),
                double(c.radius)});
  const RefTarget t = MakeRef(c.target);
  for (int i = 0; i < 3; ++i) {
    s = std::max(
        {s, std::fabs(t.lo[i]), std::fabs(t.hi[i]), std::fabs(t.pos[i])});
  }
  if (const auto* rr = std::get_if<RotatedRect>(&c.target)) {
    s = std::max({s, double(rr->size.x), double(rr->size.y)});
  }
  return std::max(s, t.radius);
}

std::string Describe(const CastCase& c) {
  std::ostringstream os;
  os.precision(9);
  os << (c.sweep ? "sweep r=" : "ray")
     << (c.sweep ? std::to_string(c.radius) : "") << " "
     << KindName(KindOf(c.target))
     << (c.boundary == kIn ? " inclusive" : " exclusive") << " o=("
     << c.origin.x << ", " << c.origin.y << ", " << c.origin.z << ") d=("
     << c.direction.x << ", " << c.direction.y << ", " << c.direction.z
     << ") max=" << c.max_distance << " target=";
  std::visit(
      [&os](const auto& s) {
        using T = std::decay_t<decltype(s)>;
        if constexpr (std::is_same_v<T, Vec2>) {
          os << "(" << s.x << ", " << s.y << ")";
        } else if constexpr (std::is_same_v<T, Vec3>) {
          os << "(" << s.x << ", " << s.y << ", " << s.z << ")";
        } else if constexpr (std::is_same_v<T, Circle>) {
          os << "(" << s.center.x << ", " << s.center.y << ") r " << s.radius;
        } else if constexpr (std::is_same_v<T, Sphere>) {
          os << "(" << s.center.x << ", " << s.center.y << ", " << s.center.z
             << ") r " << s.radius;
        } else if constexpr (std::is_same_v<T, Rect>) {
          os << "[" << s.min.x << ", " << s.min.y << "]-[" << s.max.x << ", "
             << s.max.y << "]";
        } else if constexpr (std::is_same_v<T, Box>) {
          os << "[" << s.min.x << ", " << s.min.y << ", " << s.min.z << "]-["
             << s.max.x << ", " << s.max.y << ", " << s.max.z << "]";
        } else {
          os << "size (" << s.size.x << ", " << s.size.y << ") pivot ("
             << s.pivot.x << ", " << s.pivot.y << ") pos (" << s.position.x
             << ", " << s.position.y << ") rot (" << s.rotation.cos << ", "
             << s.rotation.sin << ")";
        }
      },
      c.target);
  return os.str();
}

// Worst errors seen, each divided by (1 + scale).
struct Measured {
  double distance = 0;  // backward error of the distance
  double point = 0;     // point vs the reference closest point
  double normal = 0;    // support gap (ray) or centre gap (sweep)
  double forward = 0;   // |t - t_ref| for well-conditioned casts
  int hits = 0, misses = 0, band = 0, cases = 0;

  void Print(const char* what) const {
    std::cout << "[ measured ] " << what << ": " << cases << " casts (" << hits
              << " hits, " << misses << " misses, " << band
              << " within the band); worst / (1 + scale): distance (backward) "
              << distance << ", point " << point << ", normal " << normal
              << ", distance (forward, crossing >= 30 deg) " << forward
              << "; tolerance " << kCastDistanceTolerance << "\n";
  }
};

// Checks one cast against the reference; returns false (and reports) on a
// failure.
bool Check(const CastCase& c, Measured* m) {
  const CastResult got = c.Run();
  const Reference ref(c);
  const double scale1 = 1 + Scale(c);
  const double band = kCastDistanceTolerance * scale1;
  ++m->cases;
  const double g = ref.min_g();
  // g: the closest approach (> 0) or the deepest penetration (< 0).
  bool must_hit = g < -band;
  bool must_miss = g > band;
  if (c.boundary == kEx && !ref.HasInterior()) {
    must_hit = false;
    must_miss = true;
  }
  if (!must_hit && !must_miss) ++m->band;
  auto fail = [&](const std::string& why) {
    ADD_FAILURE() << why << "\n  case: " << Describe(c) << "\n  got hit "
                  << got.hit << " distance " << got.distance << " point ("
                  << got.point.x << ", " << got.point.y << ", " << got.point.z
                  << ") normal (" << got.normal.x << ", " << got.normal.y
                  << ", " << got.normal.z << ")\n  reference min g " << g
                  << " entry " << ref.FirstAtMost(0) << " band " << band;
    return false;
  };
  if (got.hit && must_miss) return fail("hit, the reference misses");
  if (!got.hit && must_hit) return fail("missed, the reference hits");
  if (!got.hit) {
    ++m->misses;
    return true;
  }
  ++m->hits;
  const double t = got.distance;
  if (!(t >= 0 && t <= c.max_distance)) return fail("distance out of range");
  const double be = ref.DistanceBackwardError(t);
  m->distance = std::max(m->distance, be / scale1);
  if (be > band) return fail("distance off by " + std::to_string(be));

  const D3 n = D(got.normal), p = D(got.point);
  const double unit = std::fabs(Norm(n) - 1);
  if (unit > 1e-6) return fail("normal not unit");
  const Vec3 minus_d{0.0f - c.direction.x, 0.0f - c.direction.y,
                     0.0f - c.direction.z};
  if (t == 0 || (!c.sweep && ref.PointLike())) {
    if (got.normal.x != minus_d.x || got.normal.y != minus_d.y ||
        got.normal.z != minus_d.z) {
      return fail("normal is not -direction");
    }
  }
  if (t == 0 && !c.sweep) {
    if (got.point.x != c.origin.x || got.point.y != c.origin.y ||
        got.point.z != c.origin.z) {
      return fail("point is not the origin");
    }
    return true;
  }
  const double pe = Norm(Sub(p, ref.Closest(ref.CentreAt(t))));
  m->point = std::max(m->point, pe / scale1);
  if (pe > band) return fail("point off by " + std::to_string(pe));
  if (t == 0) return true;
  double ne = 0;
  if (c.sweep) {
    const D3 centre = ref.CentreAt(t);
    const D3 back{p[0] + c.radius * n[0], p[1] + c.radius * n[1],
                  p[2] + c.radius * n[2]};
    ne = Norm(Sub(back, centre));
  } else if (!ref.PointLike()) {
    ne = std::max(0.0, ref.SupportGap(n, p));
  }
  m->normal = std::max(m->normal, ne / scale1);
  if (ne > band) return fail("normal off by " + std::to_string(ne));

  // The forward error, where the problem is well conditioned: the signed
  // distance falls at a rate of at least 1/2 on both sides of the entry
  // (the cast crosses the surface at 30 degrees or more, not at a corner
  // it barely clips), and the cast goes well inside.
  const double t_ref = ref.FirstAtMost(0);
  if (t_ref > 0 && g < -100 * band) {
    const double h = std::min(t_ref, 1e-6 * scale1);
    const double before = (ref.G(t_ref - h) - ref.G(t_ref)) / h;
    const double after = (ref.G(t_ref) - ref.G(t_ref + h)) / h;
    if (std::min(before, after) >= 0.5) {
      m->forward = std::max(m->forward, std::fabs(t - t_ref) / scale1);
    }
  }
  return true;
}

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
    }
    return Vec2{};
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

void RunRandom(bool three_d, bool sweep, uint32_t seed, const char* what) {
  CaseMaker maker(seed);
  Measured m;
  const ShapeKind kinds2[] = {ShapeKind::kPoint2, ShapeKind::kCircle,
                              ShapeKind::kRect, ShapeKind::kRotatedRect};
  const ShapeKind kinds3[] = {ShapeKind::kPoint3, ShapeKind::kSphere,
                              ShapeKind::kBox};
  int failures = 0;
  for (int i = 0; i < 20000 && failures < 10; ++i) {
    const ShapeKind kind = three_d ? kinds3[i % 3] : kinds2[i % 4];
    const CastCase c = maker.Make(kind, sweep);
    if (!Check(c, &m)) ++failures;
    if (sweep && c.radius == 0) {
      CastCase ray = c;
      ray.sweep = false;
      EXPECT_TRUE(BitEqual(c.Run(), ray.Run())) << Describe(c);
    }
  }
  m.Print(what);
}

TEST(CastAgainstReference, Rays2D) { RunRandom(false, false, 201, "rays 2D"); }
TEST(CastAgainstReference, Rays3D) { RunRandom(true, false, 202, "rays 3D"); }
TEST(CastAgainstReference, Sweeps2D) {
  RunRandom(false, true, 203, "sweeps 2D");
}
TEST(CastAgainstReference, Sweeps3D) {
  RunRandom(true, true, 204, "sweeps 3D");
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

}  // namespace
}  // namespace collision
