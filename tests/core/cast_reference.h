// The independent double-precision reference that cast_reference_test.cc
// holds RayCast, SweepCircle and SweepSphere to, and the check of one cast
// against it (with the worst errors seen); and the quarter-turned oriented
// boxes that it and cast_test.cc cast at.
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
// lo == hi; an oriented box's frame is its exact rotation, from the
// quaternion normalised in double), or a capsule: the points within its
// radius of a segment. Its signed distance (negative inside) is convex, so
// along the segment g(t) = signed distance of o + t d minus the swept radius
// is convex in t: its minimum over [0, max] is found by golden-section
// search and the first t with g(t) <= level by bisection. Nothing here
// shares code with cast.cc or hitbox3.cc: no slabs, no quadratic, no
// rotation matrix in float.

using D3 = std::array<double, 3>;

inline double Dot(const D3& a, const D3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
inline double Norm(const D3& v) { return std::sqrt(Dot(v, v)); }
inline D3 Sub(const D3& a, const D3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
inline D3 D(const Vec3& v) { return {v.x, v.y, v.z}; }

struct RefTarget {
  int dims = 2;
  D3 lo{}, hi{};
  double radius = 0;  // of a circle, sphere or capsule
  bool ball = false;  // a point, circle or sphere (lo == hi)
  // A capsule: the segment [seg_a, seg_b] grown by `radius` (lo, hi unused).
  bool capsule = false;
  D3 seg_a{}, seg_b{};
  // The frame of a rotated rectangle or oriented box: world = pos +
  // sum_k axis[k] * local_k.
  std::array<D3, 3> axis{{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
  D3 pos{};
};

// The world directions of an oriented box's local axes: each unit vector
// rotated by q v q* (the rotation of the unit quaternion q/|q|), written as
// v + 2 w (u x v) + 2 u x (u x v) with u the vector part.
inline std::array<D3, 3> QuatAxes(const Quat& q) {
  const double n = std::sqrt(double(q.w) * q.w + double(q.x) * q.x +
                             double(q.y) * q.y + double(q.z) * q.z);
  const double w = q.w / n;
  const D3 u{q.x / n, q.y / n, q.z / n};
  auto cross = [](const D3& a, const D3& b) {
    return D3{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
              a[0] * b[1] - a[1] * b[0]};
  };
  std::array<D3, 3> out;
  for (int k = 0; k < 3; ++k) {
    D3 v{};
    v[k] = 1;
    const D3 uv = cross(u, v);
    const D3 uuv = cross(u, uv);
    for (int i = 0; i < 3; ++i) out[k][i] = v[i] + 2 * w * uv[i] + 2 * uuv[i];
  }
  return out;
}

inline RefTarget MakeRef(const Shape& shape) {
  RefTarget t;
  const ShapeKind kind = KindOf(shape);
  t.dims = Is3D(kind) ? 3 : 2;
  t.ball = IsBall(kind);
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
    const double cs = rr->rotation.cos, sn = rr->rotation.sin;
    t.axis = {{{cs, sn, 0}, {-sn, cs, 0}, {0, 0, 1}}};
    t.pos = {rr->position.x, rr->position.y, 0};
  } else if (const auto* p3 = std::get_if<Vec3>(&shape)) {
    t.lo = t.hi = {p3->x, p3->y, p3->z};
  } else if (const auto* sp = std::get_if<Sphere>(&shape)) {
    t.lo = t.hi = {sp->center.x, sp->center.y, sp->center.z};
    t.radius = sp->radius;
  } else if (const auto* b = std::get_if<Box>(&shape)) {
    t.lo = {b->min.x, b->min.y, b->min.z};
    t.hi = {b->max.x, b->max.y, b->max.z};
  } else if (const auto* cap = std::get_if<Capsule3>(&shape)) {
    t.capsule = true;
    t.seg_a = D(cap->a);
    t.seg_b = D(cap->b);
    t.radius = cap->radius;
  } else {
    const OrientedBox& ob = std::get<OrientedBox>(shape);
    t.hi = D(ob.half_extents);
    t.lo = {-t.hi[0], -t.hi[1], -t.hi[2]};
    t.axis = QuatAxes(ob.rotation);
    t.pos = D(ob.center);
  }
  return t;
}

inline D3 LocalVector(const RefTarget& t, const D3& v) {
  return {Dot(t.axis[0], v), Dot(t.axis[1], v), Dot(t.axis[2], v)};
}
inline D3 LocalPoint(const RefTarget& t, const D3& p) {
  return LocalVector(t, Sub(p, t.pos));
}
inline D3 WorldPoint(const RefTarget& t, const D3& l) {
  D3 w = t.pos;
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < 3; ++i) w[i] += t.axis[k][i] * l[k];
  }
  return w;
}

// The point of a capsule's segment nearest to x (world).
inline D3 SegmentClosest(const RefTarget& t, const D3& x) {
  const D3 ab = Sub(t.seg_b, t.seg_a);
  const double l2 = Dot(ab, ab);
  const double u =
      l2 > 0 ? std::clamp(Dot(Sub(x, t.seg_a), ab) / l2, 0.0, 1.0) : 0.0;
  return {t.seg_a[0] + u * ab[0], t.seg_a[1] + u * ab[1],
          t.seg_a[2] + u * ab[2]};
}

// Signed distance from a local point to the target (without the sweep).
inline double SignedDistance(const RefTarget& t, const D3& x) {
  if (t.capsule) return Norm(Sub(x, SegmentClosest(t, x))) - t.radius;
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
    if (t_.capsule) {
      q = SegmentClosest(t_, x);
      v = Sub(x, q);
    } else {
      for (int i = 0; i < t_.dims; ++i) {
        q[i] = std::clamp(x[i], t_.lo[i], t_.hi[i]);
        v[i] = x[i] - q[i];
      }
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
    if (t_.capsule) {
      h += std::max(Dot(ln, t_.seg_a), Dot(ln, t_.seg_b));
      np = Dot(ln, lp);
    } else {
      for (int i = 0; i < t_.dims; ++i) {
        h += std::max(ln[i] * t_.lo[i], ln[i] * t_.hi[i]);
        np += ln[i] * lp[i];
      }
    }
    return h - np;
  }

  // A ray through a point, a zero-radius circle or sphere, or a bare
  // segment (a zero-radius capsule) reports -direction (a zero-size
  // rectangle or box keeps its slab normals).
  bool PointLike() const { return (t_.ball || t_.capsule) && t_.radius == 0; }
  bool HasInterior() const {
    if (t_.radius > 0 || c_.radius > 0) return true;
    if (t_.capsule) return false;
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
    s = std::max({s, std::fabs(t.lo[i]), std::fabs(t.hi[i]),
                  std::fabs(t.pos[i]), std::fabs(t.seg_a[i]),
                  std::fabs(t.seg_b[i])});
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
        } else if constexpr (std::is_same_v<T, Capsule3>) {
          os << "(" << s.a.x << ", " << s.a.y << ", " << s.a.z << ")-(" << s.b.x
             << ", " << s.b.y << ", " << s.b.z << ") r " << s.radius;
        } else {
          static_assert(std::is_same_v<T, OrientedBox>);
          os << "centre (" << s.center.x << ", " << s.center.y << ", "
             << s.center.z << ") half (" << s.half_extents.x << ", "
             << s.half_extents.y << ", " << s.half_extents.z << ") q ("
             << s.rotation.w << ", " << s.rotation.x << ", " << s.rotation.y
             << ", " << s.rotation.z << ")";
        }
      },
      c.target);
  return os.str();
}

// ---- Quarter turns ---------------------------------------------------------

// i quarter turns about x, then j about y, then k about z (i, j, k in
// 0..3 give all 24 rotations that map axes to axes), as the float unit
// quaternion a caller would send: components in {0, +-1/2, +-sqrt(1/2),
// +-1}, multiplied out in double.
inline Quat QuarterTurn(int i, int j, int k) {
  const double c[4] = {1, std::sqrt(0.5), 0, -std::sqrt(0.5)};
  const double s[4] = {0, std::sqrt(0.5), 1, std::sqrt(0.5)};
  using Q = std::array<double, 4>;  // w, x, y, z
  auto mul = [](const Q& a, const Q& b) {
    return Q{a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
             a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
             a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
             a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  };
  const Q q =
      mul(Q{c[k], 0, 0, s[k]}, mul(Q{c[j], 0, s[j], 0}, Q{c[i], s[i], 0, 0}));
  return Quat{float(q[0]), float(q[1]), float(q[2]), float(q[3])};
}

// The oriented box turned by the quarter turn q that covers `box`: its
// centre and, along each local axis, the half-size of the world axis that
// local axis is turned onto (found by turning the unit vectors in double).
inline OrientedBox TurnedToCover(const Box& box, const Quat& q) {
  const double w = q.w, u[3] = {q.x, q.y, q.z};
  const double half[3] = {(double(box.max.x) - box.min.x) / 2,
                          (double(box.max.y) - box.min.y) / 2,
                          (double(box.max.z) - box.min.z) / 2};
  float local[3] = {0, 0, 0};
  for (int k = 0; k < 3; ++k) {
    // e_k turned: e_k + 2 w (u x e_k) + 2 u x (u x e_k).
    double v[3] = {0, 0, 0};
    v[k] = 1;
    const double uv[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2],
                          u[0] * v[1] - u[1] * v[0]};
    const double uuv[3] = {u[1] * uv[2] - u[2] * uv[1],
                           u[2] * uv[0] - u[0] * uv[2],
                           u[0] * uv[1] - u[1] * uv[0]};
    for (int i = 0; i < 3; ++i) {
      if (std::fabs(v[i] + 2 * w * uv[i] + 2 * uuv[i]) > 0.5) {
        local[k] = float(half[i]);
      }
    }
  }
  return OrientedBox{{float((double(box.min.x) + box.max.x) / 2),
                      float((double(box.min.y) + box.max.y) / 2),
                      float((double(box.min.z) + box.max.z) / 2)},
                     {local[0], local[1], local[2]},
                     q};
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
  // it barely clips), and the cast goes well inside. The rate after the
  // entry is taken over 1e-6 of the scale even when the entry is nearer
  // the origin: an origin within rounding of a face's plane that the cast
  // runs nearly parallel to (a rotated frame's rounding decides whether it
  // is in that face's slab) can enter by the steep face and then meet the
  // grazing one a hair later.
  const double t_ref = ref.FirstAtMost(0);
  if (t_ref > 0 && g < -100 * band) {
    const double h = 1e-6 * scale1;
    const double h0 = std::min(t_ref, h);
    const double before = (ref.G(t_ref - h0) - ref.G(t_ref)) / h0;
    const double after = (ref.G(t_ref) - ref.G(t_ref + h)) / h;
    if (std::min(before, after) >= 0.5) {
      m->forward = std::max(m->forward, std::fabs(t - t_ref) / scale1);
    }
  }
  return true;
}

}  // namespace collision::cast_reference

#endif  // COLLISION_TESTS_CORE_CAST_REFERENCE_H_
