// The independent double-precision reference that cast_reference_test.cc
// holds RayCast, SweepCircle and SweepSphere to, and the check of one cast
// against it (with the worst errors seen).
#ifndef COLLISION_TESTS_CORE_CAST_REFERENCE_H_
#define COLLISION_TESTS_CORE_CAST_REFERENCE_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>

#include "cast_testing.h"
#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"

namespace collision::cast_reference {

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

inline RefTarget MakeRef(const Shape& shape) {
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

inline D3 LocalVector(const RefTarget& t, const D3& v) {
  return {t.c * v[0] + t.s * v[1], t.c * v[1] - t.s * v[0], v[2]};
}
inline D3 LocalPoint(const RefTarget& t, const D3& p) {
  return LocalVector(t, {p[0] - t.pos[0], p[1] - t.pos[1], p[2] - t.pos[2]});
}
inline D3 WorldPoint(const RefTarget& t, const D3& l) {
  return {t.pos[0] + t.c * l[0] - t.s * l[1],
          t.pos[1] + t.s * l[0] + t.c * l[1], t.pos[2] + l[2]};
}

inline double Norm(const D3& v) {
  return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}
inline D3 Sub(const D3& a, const D3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
inline D3 D(const Vec3& v) { return {v.x, v.y, v.z}; }

// Signed distance from a local point to the target (without the sweep).
inline double SignedDistance(const RefTarget& t, const D3& x) {
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

inline double Scale(const CastCase& c) {
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

inline std::string Describe(const CastCase& c) {
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
        } else if constexpr (std::is_same_v<T, RotatedRect>) {
          os << "size (" << s.size.x << ", " << s.size.y << ") pivot ("
             << s.pivot.x << ", " << s.pivot.y << ") pos (" << s.position.x
             << ", " << s.position.y << ") rot (" << s.rotation.cos << ", "
             << s.rotation.sin << ")";
        } else {
          os << "(a hitbox kind, not cast in scenes)";
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
inline bool Check(const CastCase& c, Measured* m) {
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

}  // namespace collision::cast_reference

#endif  // COLLISION_TESTS_CORE_CAST_REFERENCE_H_
