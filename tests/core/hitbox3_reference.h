// The independent double-precision reference that hitbox3_test.cc holds
// the capsule and oriented-box functions (hitbox3.h) to. Nothing here
// shares code or method with hitbox3.cc:
// - segment-segment and segment-box distances minimise a convex function
//   of the segment parameter (the distance from a point of the segment to
//   the other shape, by projection or clamp) by dense sampling and
//   golden-section refinement, instead of Ericson's closed form or the
//   piecewise-quadratic pieces;
// - box-box distance is the least of the vertex-to-box and edge-to-edge
//   distances, instead of edge-to-box distances;
// - penetration depths are the separating-axis overlaps evaluated in
//   double over every candidate axis, with no axis skipped (a test also
//   samples random directions to check that none overlaps less);
// - ray casts follow the signed distance along the ray: its minimum by
//   golden section, then the first crossing of zero by bisection, instead
//   of slabs and quadratics.
#ifndef COLLISION_TESTS_CORE_HITBOX3_REFERENCE_H_
#define COLLISION_TESTS_CORE_HITBOX3_REFERENCE_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <vector>

#include "collision/core/hitbox3.h"

namespace collision::hitbox3_reference {

using D3 = std::array<double, 3>;

inline D3 D(Vec3 v) { return {v.x, v.y, v.z}; }
inline D3 Add(const D3& a, const D3& b) {
  return {a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}
inline D3 Sub(const D3& a, const D3& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
inline D3 Mul(const D3& a, double s) { return {a[0] * s, a[1] * s, a[2] * s}; }
inline double Dot(const D3& a, const D3& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
inline double Norm(const D3& a) { return std::sqrt(Dot(a, a)); }
inline D3 Cross(const D3& a, const D3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
          a[0] * b[1] - a[1] * b[0]};
}

// An oriented box in double: world = c + sum_i axis[i] * local_i.
struct RBox {
  D3 c;
  D3 h;
  std::array<D3, 3> axis;  // orthonormal columns of R
};

inline RBox MakeBox(const OrientedBox& b) {
  double w = b.rotation.w, x = b.rotation.x, y = b.rotation.y, z = b.rotation.z;
  const double n = std::sqrt(w * w + x * x + y * y + z * z);
  w /= n;
  x /= n;
  y /= n;
  z /= n;
  // Rotate the unit vectors by q v q* (the Hamilton product, written out).
  auto rotate = [&](const D3& v) {
    const D3 u{x, y, z};
    const D3 t = Mul(Cross(u, v), 2.0);
    return Add(Add(v, Mul(t, w)), Cross(u, t));
  };
  RBox r;
  r.c = D(b.center);
  r.h = D(b.half_extents);
  r.axis = {rotate({1, 0, 0}), rotate({0, 1, 0}), rotate({0, 0, 1})};
  return r;
}

inline D3 BoxLocal(const RBox& b, const D3& p) {
  const D3 d = Sub(p, b.c);
  return {Dot(d, b.axis[0]), Dot(d, b.axis[1]), Dot(d, b.axis[2])};
}
inline D3 BoxWorld(const RBox& b, const D3& l) {
  return Add(b.c, Add(Add(Mul(b.axis[0], l[0]), Mul(b.axis[1], l[1])),
                      Mul(b.axis[2], l[2])));
}
// Closest point of the solid box to p (world).
inline D3 ProjectToBox(const RBox& b, const D3& p) {
  D3 l = BoxLocal(b, p);
  for (int i = 0; i < 3; ++i) l[i] = std::clamp(l[i], -b.h[i], b.h[i]);
  return BoxWorld(b, l);
}
inline double PointBoxDistance(const RBox& b, const D3& p) {
  return Norm(Sub(p, ProjectToBox(b, p)));
}
// Signed: negative inside, minus the distance to the nearest face.
inline double PointBoxSigned(const RBox& b, const D3& p) {
  const D3 l = BoxLocal(b, p);
  double out2 = 0, in = -INFINITY;
  for (int i = 0; i < 3; ++i) {
    const double g = std::fabs(l[i]) - b.h[i];
    if (g > 0) out2 += g * g;
    in = std::max(in, g);
  }
  return out2 > 0 ? std::sqrt(out2) : std::min(in, 0.0);
}

inline double PointSegmentDistance(const D3& p, const D3& a, const D3& b) {
  const D3 d = Sub(b, a);
  const double dd = Dot(d, d);
  const double t = dd > 0 ? std::clamp(Dot(Sub(p, a), d) / dd, 0.0, 1.0) : 0;
  return Norm(Sub(p, Add(a, Mul(d, t))));
}

// Minimum of a convex f on [lo, hi]: the best of `samples` evenly spaced
// values, then golden-section search on the bracket around it.
template <typename F>
double MinimizeConvex(F f, double lo, double hi, double* arg,
                      int samples = 64) {
  double best_t = lo, best = f(lo);
  for (int i = 1; i <= samples; ++i) {
    const double t = lo + (hi - lo) * i / samples;
    const double v = f(t);
    if (v < best) best = v, best_t = t;
  }
  double a = std::max(lo, best_t - (hi - lo) / samples);
  double b = std::min(hi, best_t + (hi - lo) / samples);
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = b - g * (b - a), x2 = a + g * (b - a);
  double f1 = f(x1), f2 = f(x2);
  for (int i = 0; i < 100; ++i) {
    if (f1 < f2) {
      b = x2, x2 = x1, f2 = f1, x1 = b - g * (b - a), f1 = f(x1);
    } else {
      a = x1, x1 = x2, f1 = f2, x2 = a + g * (b - a), f2 = f(x2);
    }
  }
  for (double t : {x1, x2, a, b}) {
    const double v = f(t);
    if (v < best) best = v, best_t = t;
  }
  if (arg != nullptr) *arg = best_t;
  return best;
}

inline double SegmentSegmentDistance(const D3& p1, const D3& q1, const D3& p2,
                                     const D3& q2) {
  const D3 d = Sub(q1, p1);
  return MinimizeConvex(
      [&](double s) {
        return PointSegmentDistance(Add(p1, Mul(d, s)), p2, q2);
      },
      0, 1, nullptr);
}

// Signed: the least signed distance of a segment point to the box
// (negative when the segment enters the box).
inline double SegmentBoxSigned(const D3& p, const D3& q, const RBox& b) {
  const D3 d = Sub(q, p);
  return MinimizeConvex(
      [&](double s) { return PointBoxSigned(b, Add(p, Mul(d, s))); }, 0, 1,
      nullptr);
}

// Overlap of two convex sets along unit n from their support functions:
// how far b must move along n for the projections to stop overlapping
// (negative: a gap).
template <typename SA, typename SB>
double Overlap(SA support_a, SB support_b, const D3& n) {
  const double a_hi = support_a(n), a_lo = -support_a(Mul(n, -1));
  const double b_hi = support_b(n), b_lo = -support_b(Mul(n, -1));
  return std::min(a_hi - b_lo, b_hi - a_lo);
}
inline double BoxSupport(const RBox& b, const D3& n) {
  return Dot(b.c, n) + b.h[0] * std::fabs(Dot(b.axis[0], n)) +
         b.h[1] * std::fabs(Dot(b.axis[1], n)) +
         b.h[2] * std::fabs(Dot(b.axis[2], n));
}
inline double SegmentSupport(const D3& p, const D3& q, const D3& n) {
  return std::max(Dot(p, n), Dot(q, n));
}

// Least overlap over the given directions (zero ones skipped).
template <typename SA, typename SB>
double LeastOverlap(SA sa, SB sb, const std::vector<D3>& axes) {
  double best = INFINITY;
  for (const D3& a : axes) {
    const double n = Norm(a);
    if (n == 0) continue;
    best = std::min(best, Overlap(sa, sb, Mul(a, 1 / n)));
  }
  return best;
}

// ---- The reference answers: signed separations ----------------------------

inline double CapsuleCapsule(const Capsule3& a, const Capsule3& b) {
  return SegmentSegmentDistance(D(a.a), D(a.b), D(b.a), D(b.b)) -
         double(a.radius) - double(b.radius);
}

inline double SphereBox(const Sphere& s, const OrientedBox& box) {
  return PointBoxSigned(MakeBox(box), D(s.center)) - double(s.radius);
}

inline std::vector<D3> SegmentBoxAxes(const D3& p, const D3& q, const RBox& b) {
  std::vector<D3> axes(b.axis.begin(), b.axis.end());
  for (const D3& e : b.axis) axes.push_back(Cross(Sub(q, p), e));
  return axes;
}

inline double CapsuleBox(const Capsule3& c, const OrientedBox& box) {
  const RBox b = MakeBox(box);
  const D3 p = D(c.a), q = D(c.b);
  // No separating axis among the 6 (positive least overlap): they
  // intersect and cannot be parted by an arbitrarily small move.
  const double depth = LeastOverlap(
      [&](const D3& n) { return SegmentSupport(p, q, n); },
      [&](const D3& n) { return BoxSupport(b, n); }, SegmentBoxAxes(p, q, b));
  if (depth > 0) return -depth - c.radius;
  return std::max(0.0, SegmentBoxSigned(p, q, b)) - c.radius;
}

inline std::vector<D3> BoxBoxAxes(const RBox& a, const RBox& b) {
  std::vector<D3> axes;
  for (const D3& e : a.axis) axes.push_back(e);
  for (const D3& e : b.axis) axes.push_back(e);
  for (const D3& ea : a.axis) {
    for (const D3& eb : b.axis) axes.push_back(Cross(ea, eb));
  }
  return axes;
}

inline std::array<D3, 8> BoxVertices(const RBox& b) {
  std::array<D3, 8> v;
  for (int k = 0; k < 8; ++k) {
    v[k] = BoxWorld(b, {k & 1 ? b.h[0] : -b.h[0], k & 2 ? b.h[1] : -b.h[1],
                        k & 4 ? b.h[2] : -b.h[2]});
  }
  return v;
}

// Distance between two disjoint boxes: two convex polytopes always have a
// closest pair that is vertex-face, face-vertex or edge-edge, so it is the
// least of the 16 vertex-to-box distances and the 144 edge-edge
// distances.
inline double BoxBoxDistance(const RBox& a, const RBox& b) {
  double d = INFINITY;
  for (const D3& v : BoxVertices(a)) d = std::min(d, PointBoxDistance(b, v));
  for (const D3& v : BoxVertices(b)) d = std::min(d, PointBoxDistance(a, v));
  const std::array<D3, 8> va = BoxVertices(a), vb = BoxVertices(b);
  // Vertices k and k ^ bit differ along one axis: the 12 edges.
  for (int ka = 0; ka < 8; ++ka) {
    for (int ba : {1, 2, 4}) {
      if (ka & ba) continue;
      for (int kb = 0; kb < 8; ++kb) {
        for (int bb : {1, 2, 4}) {
          if (kb & bb) continue;
          d = std::min(d, SegmentSegmentDistance(va[ka], va[ka | ba], vb[kb],
                                                 vb[kb | bb]));
        }
      }
    }
  }
  return d;
}

inline double BoxBox(const OrientedBox& oa, const OrientedBox& ob) {
  const RBox a = MakeBox(oa), b = MakeBox(ob);
  const double sat = LeastOverlap([&](const D3& n) { return BoxSupport(a, n); },
                                  [&](const D3& n) { return BoxSupport(b, n); },
                                  BoxBoxAxes(a, b));
  if (sat > 0) return -sat;
  return BoxBoxDistance(a, b);
}

// ---- Ray casts by following the signed distance ----------------------------

// First t in [0, max_t] where the convex signed distance g(t) <= 0.
template <typename G>
std::optional<double> FirstRoot(G g, double max_t) {
  if (g(0) <= 0) return 0.0;
  double t_min;
  const double lowest = MinimizeConvex(g, 0, max_t, &t_min, 256);
  if (lowest > 0) return std::nullopt;
  double lo = 0, hi = t_min;  // g(lo) > 0 >= g(hi)
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (g(mid) > 0 ? lo : hi) = mid;
  }
  return hi;
}

inline std::optional<double> RayCapsule(const Vec3& o, const Vec3& d,
                                        float max_t, const Capsule3& c) {
  return FirstRoot(
      [&](double t) {
        return PointSegmentDistance(Add(D(o), Mul(D(d), t)), D(c.a), D(c.b)) -
               c.radius;
      },
      max_t);
}

inline std::optional<double> RayBox(const Vec3& o, const Vec3& d, float max_t,
                                    const OrientedBox& box) {
  const RBox b = MakeBox(box);
  return FirstRoot(
      [&](double t) { return PointBoxSigned(b, Add(D(o), Mul(D(d), t))); },
      max_t);
}

}  // namespace collision::hitbox3_reference

#endif  // COLLISION_TESTS_CORE_HITBOX3_REFERENCE_H_
