#include "collision/core/scalar.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>

#include "collision/core/hitbox3.h"
#include "collision/core/kinds.h"
#include "exact_vec.h"

namespace collision {
namespace {

using exact::A;
using exact::Dot;
using exact::kMinNormal;
using exact::ToVec3;
using exact::V;

// The seeds' clamp: Max(lo, Min(c, hi)).
inline float Clamp(float c, float lo, float hi) {
  return std::max(lo, std::min(c, hi));
}

// Unit vector along v when |v|^2 underflows (to 0 or to a subnormal, which
// has lost too many bits to normalise by) but v != 0.
template <int N>
V<N> NormalizeTiny(V<N> v) {
  float m = 0;
  for (float x : v) m = std::max(m, std::fabs(x));
  for (float& x : v) x = x / m;
  const float len = std::sqrt(Dot<N>(v, v));
  for (float& x : v) x = x / len;
  return v;
}

template <int N>
V<N> AxisNormal(int face) {
  V<N> n{};
  n[face / 2] = (face % 2 == 0) ? -1.0f : 1.0f;
  return n;
}

// Ball (centre c, radius r) against the closed box [lo, hi].
template <int N>
IntersectResult BallBox(const V<N>& c, float r, const V<N>& lo, const V<N>& hi,
                        Boundary boundary) {
  V<N> d;
  bool strictly_inside = true;
  bool outside = false;
  for (int i = 0; i < N; ++i) {
    d[i] = c[i] - Clamp(c[i], lo[i], hi[i]);
    strictly_inside = strictly_inside && lo[i] < c[i] && c[i] < hi[i];
    outside = outside || d[i] != 0.0f;
  }
  const float d2 = Dot<N>(d, d);
  IntersectResult out;
  out.relation = ClassifyBall(d2, r * r, strictly_inside);
  out.hit = IsHit(out.relation, boundary);
  if (out.relation == Relation::kTouching) {
    out.separation = 0;
  } else if (outside) {
    out.separation = std::sqrt(d2) - r;
  } else {
    float depth = c[0] - lo[0];
    for (int i = 0; i < N; ++i) {
      depth = std::min(depth, std::min(c[i] - lo[i], hi[i] - c[i]));
    }
    out.separation = -depth - r;
  }
  return out;
}

template <int N>
IntersectResult BallBall(const V<N>& a, float ra, const V<N>& b, float rb,
                         Boundary boundary) {
  V<N> d;
  for (int i = 0; i < N; ++i) d[i] = a[i] - b[i];
  const float d2 = Dot<N>(d, d);
  const float r = ra + rb;
  IntersectResult out;
  out.relation = ClassifyBall(d2, r * r, false);
  out.hit = IsHit(out.relation, boundary);
  out.separation =
      out.relation == Relation::kTouching ? 0.0f : std::sqrt(d2) - r;
  return out;
}

template <int N>
IntersectResult BoxBox(const V<N>& alo, const V<N>& ahi, const V<N>& blo,
                       const V<N>& bhi, Boundary boundary) {
  // g[i] > 0: a gap along axis i; g[i] < 0: the intervals overlap by -g[i].
  // The sign of a float difference is exact, so the relation is exact.
  V<N> g;
  bool any_gap = false;
  bool all_overlap = true;
  float sum = 0;
  float max_g = -INFINITY;
  for (int i = 0; i < N; ++i) {
    g[i] = std::max(alo[i] - bhi[i], blo[i] - ahi[i]);
    any_gap = any_gap || g[i] > 0.0f;
    all_overlap = all_overlap && g[i] < 0.0f;
    const float pos = std::max(g[i], 0.0f);
    sum = sum + pos * pos;
    max_g = std::max(max_g, g[i]);
  }
  IntersectResult out;
  if (any_gap) {
    out.relation = Relation::kDisjoint;
    out.separation = std::sqrt(sum);
  } else if (all_overlap) {
    out.relation = Relation::kOverlapping;
    out.separation = max_g;
  } else {
    out.relation = Relation::kTouching;
    out.separation = 0;
  }
  out.hit = IsHit(out.relation, boundary);
  return out;
}

struct ClosestN {
  Vec3 closest, surface, normal;
  float signed_distance;
  bool inside;
};

// Closest point of the closed box [lo, hi] to p.
template <int N>
ClosestN ClosestOnBox(const V<N>& p, const V<N>& lo, const V<N>& hi,
                      Boundary boundary) {
  V<N> q, d;
  bool outside = false;
  for (int i = 0; i < N; ++i) {
    q[i] = Clamp(p[i], lo[i], hi[i]);
    d[i] = p[i] - q[i];
    outside = outside || d[i] != 0.0f;
  }
  ClosestN out;
  if (outside) {
    const float d2 = Dot<N>(d, d);
    const float len = std::sqrt(d2);
    V<N> n = d;
    if (d2 >= kMinNormal) {
      for (float& x : n) x = x / len;
    } else {
      n = NormalizeTiny<N>(d);
    }
    out.closest = out.surface = ToVec3(q);
    out.normal = ToVec3(n);
    out.signed_distance = len;
    out.inside = false;
    return out;
  }
  // Inside or on the boundary: the nearest face, first in -x, +x, -y, ...
  int face = 0;
  float best = p[0] - lo[0];
  for (int i = 0; i < N; ++i) {
    const float to_lo = p[i] - lo[i];
    const float to_hi = hi[i] - p[i];
    if (to_lo < best) best = to_lo, face = 2 * i;
    if (to_hi < best) best = to_hi, face = 2 * i + 1;
  }
  V<N> s = p;
  s[face / 2] = (face % 2 == 0) ? lo[face / 2] : hi[face / 2];
  out.closest = ToVec3(p);
  out.surface = ToVec3(s);
  out.normal = ToVec3(AxisNormal<N>(face));
  out.signed_distance = best == 0.0f ? 0.0f : -best;
  out.inside = best > 0.0f || boundary == Boundary::kInclusive;
  return out;
}

// Closest point of the closed ball (c, r) to p.
template <int N>
ClosestN ClosestOnBall(const V<N>& p, const V<N>& c, float r,
                       Boundary boundary) {
  V<N> v;
  bool apart = false;
  for (int i = 0; i < N; ++i) {
    v[i] = p[i] - c[i];
    apart = apart || v[i] != 0.0f;
  }
  const float l2 = Dot<N>(v, v);
  const float r2 = r * r;
  const float len = std::sqrt(l2);
  V<N> n{};
  if (l2 >= kMinNormal) {
    for (int i = 0; i < N; ++i) n[i] = v[i] / len;
  } else if (apart) {
    n = NormalizeTiny<N>(v);
  } else {
    n[0] = 1.0f;  // centre at the centre: +x by convention
  }
  V<N> s;
  for (int i = 0; i < N; ++i) s[i] = c[i] + r * n[i];
  ClosestN out;
  out.surface = ToVec3(s);
  out.normal = ToVec3(n);
  out.closest = l2 <= r2 ? ToVec3(p) : out.surface;
  out.signed_distance = l2 == r2 ? 0.0f : len - r;
  out.inside = l2 < r2 || (l2 == r2 && boundary == Boundary::kInclusive);
  return out;
}

ClosestPointResult Finish(const ClosestN& c, float radius) {
  ClosestPointResult out;
  out.closest_point = c.closest;
  out.surface_point = c.surface;
  out.normal = c.normal;
  out.signed_distance = c.signed_distance;
  out.gap = c.signed_distance - radius;
  out.inside = c.inside;
  return out;
}

// Point or circle as a circle; point3 or sphere as a sphere.
Circle AsCircle(const Shape& s) {
  if (const auto* p = std::get_if<Vec2>(&s)) return Circle{*p, 0.0f};
  return std::get<Circle>(s);
}
Sphere AsSphere(const Shape& s) {
  if (const auto* p = std::get_if<Vec3>(&s)) return Sphere{*p, 0.0f};
  return std::get<Sphere>(s);
}
bool IsBall2(ShapeKind k) { return IsBall(k) && !Is3D(k); }
bool IsBall3(ShapeKind k) { return IsBall(k) && Is3D(k); }

}  // namespace

Rotation RotationFromAngle(float angle) {
  // float(pi / 2); k * kHalfPi is rounded to float exactly like a caller
  // computing `k * float(M_PI / 2)` would.
  constexpr float kHalfPi = 1.57079637f;
  const float k = std::nearbyint(angle / kHalfPi);
  if (std::fabs(k) <= 4096.0f && k * kHalfPi == angle) {
    static constexpr Rotation kQuarter[4] = {
        {1.0f, 0.0f}, {0.0f, 1.0f}, {-1.0f, 0.0f}, {0.0f, -1.0f}};
    const int q = ((static_cast<int>(k) % 4) + 4) % 4;
    return kQuarter[q];
  }
  return Rotation{std::cos(angle), std::sin(angle)};
}

Relation ClassifyBall(float d2, float r2, bool strictly_inside) {
  if (d2 < r2) return Relation::kOverlapping;
  if (d2 > r2) return Relation::kDisjoint;
  if (r2 == 0.0f && strictly_inside) return Relation::kOverlapping;
  return Relation::kTouching;
}

Vec2 ToLocal(const RotatedRect& r, Vec2 world) {
  const float rx = world.x - r.position.x;
  const float ry = world.y - r.position.y;
  const float c = r.rotation.cos;
  const float s = r.rotation.sin;
  return Vec2{c * rx + s * ry, c * ry - s * rx};
}

Vec2 ToWorldVector(const RotatedRect& r, Vec2 local) {
  const float c = r.rotation.cos;
  const float s = r.rotation.sin;
  return Vec2{c * local.x - s * local.y, s * local.x + c * local.y};
}

Vec2 ToWorldPoint(const RotatedRect& r, Vec2 local) {
  const Vec2 v = ToWorldVector(r, local);
  return Vec2{r.position.x + v.x, r.position.y + v.y};
}

Rect LocalBounds(const RotatedRect& r) {
  return Rect{Vec2{-r.pivot.x, -r.pivot.y},
              Vec2{r.size.x - r.pivot.x, r.size.y - r.pivot.y}};
}

IntersectResult IntersectCircleCircle(const Circle& a, const Circle& b,
                                      Boundary boundary) {
  return BallBall<2>(A(a.center), a.radius, A(b.center), b.radius, boundary);
}

IntersectResult IntersectCircleRect(const Circle& c, const Rect& r,
                                    Boundary boundary) {
  return BallBox<2>(A(c.center), c.radius, A(r.min), A(r.max), boundary);
}

IntersectResult IntersectCircleRotatedRect(const Circle& c,
                                           const RotatedRect& r,
                                           Boundary boundary) {
  return IntersectCircleRect(Circle{ToLocal(r, c.center), c.radius},
                             LocalBounds(r), boundary);
}

IntersectResult IntersectRectRect(const Rect& a, const Rect& b,
                                  Boundary boundary) {
  return BoxBox<2>(A(a.min), A(a.max), A(b.min), A(b.max), boundary);
}

IntersectResult IntersectSphereSphere(const Sphere& a, const Sphere& b,
                                      Boundary boundary) {
  return BallBall<3>(A(a.center), a.radius, A(b.center), b.radius, boundary);
}

IntersectResult IntersectSphereBox(const Sphere& s, const Box& b,
                                   Boundary boundary) {
  return BallBox<3>(A(s.center), s.radius, A(b.min), A(b.max), boundary);
}

IntersectResult IntersectBoxBox(const Box& a, const Box& b, Boundary boundary) {
  return BoxBox<3>(A(a.min), A(a.max), A(b.min), A(b.max), boundary);
}

IntersectResult Intersect(const Shape& a, const Shape& b, Boundary boundary) {
  const ShapeKind ka = KindOf(a);
  const ShapeKind kb = KindOf(b);
  assert(IsSupportedIntersectPair(ka, kb));
  if (!InfoOf(*IntersectWorkKind(ka, kb)).kernel) {
    return IntersectHitboxPair(a, b, boundary);
  }
  // Put the ball (point/circle/sphere) first; the answer is symmetric.
  if (!IsBall(ka) && IsBall(kb)) {
    return Intersect(b, a, boundary);
  }
  if (IsBall2(ka)) {
    const Circle c = AsCircle(a);
    switch (kb) {
      case ShapeKind::kPoint2:
      case ShapeKind::kCircle:
        return IntersectCircleCircle(c, AsCircle(b), boundary);
      case ShapeKind::kRect:
        return IntersectCircleRect(c, std::get<Rect>(b), boundary);
      case ShapeKind::kRotatedRect:
        return IntersectCircleRotatedRect(c, std::get<RotatedRect>(b),
                                          boundary);
      default:
        break;
    }
  } else if (IsBall3(ka)) {
    const Sphere s = AsSphere(a);
    if (IsBall3(kb)) return IntersectSphereSphere(s, AsSphere(b), boundary);
    if (kb == ShapeKind::kBox) {
      return IntersectSphereBox(s, std::get<Box>(b), boundary);
    }
  } else if (ka == ShapeKind::kRect && kb == ShapeKind::kRect) {
    return IntersectRectRect(std::get<Rect>(a), std::get<Rect>(b), boundary);
  } else if (ka == ShapeKind::kBox && kb == ShapeKind::kBox) {
    return IntersectBoxBox(std::get<Box>(a), std::get<Box>(b), boundary);
  }
  assert(false && "unsupported pair");
  return IntersectResult{};
}

ClosestPointResult ClosestPointOnCircle(Vec2 p, float radius,
                                        const Circle& target,
                                        Boundary boundary) {
  return Finish(
      ClosestOnBall<2>(A(p), A(target.center), target.radius, boundary),
      radius);
}

ClosestPointResult ClosestPointOnRect(Vec2 p, float radius, const Rect& target,
                                      Boundary boundary) {
  return Finish(ClosestOnBox<2>(A(p), A(target.min), A(target.max), boundary),
                radius);
}

ClosestPointResult ClosestPointOnRotatedRect(Vec2 p, float radius,
                                             const RotatedRect& target,
                                             Boundary boundary) {
  const Rect local = LocalBounds(target);
  ClosestPointResult out =
      ClosestPointOnRect(ToLocal(target, p), radius, local, boundary);
  const Vec2 surface =
      ToWorldPoint(target, Vec2{out.surface_point.x, out.surface_point.y});
  const Vec2 closest =
      ToWorldPoint(target, Vec2{out.closest_point.x, out.closest_point.y});
  const Vec2 normal = ToWorldVector(target, Vec2{out.normal.x, out.normal.y});
  // Inside (or on) the rectangle the closest point is the query centre
  // itself; return it exactly rather than after a round trip through the
  // local frame.
  out.closest_point = out.signed_distance > 0.0f
                          ? Vec3{closest.x, closest.y, 0.0f}
                          : Vec3{p.x, p.y, 0.0f};
  out.surface_point = {surface.x, surface.y, 0.0f};
  out.normal = {normal.x, normal.y, 0.0f};
  return out;
}

ClosestPointResult ClosestPointOnSphere(Vec3 p, float radius,
                                        const Sphere& target,
                                        Boundary boundary) {
  return Finish(
      ClosestOnBall<3>(A(p), A(target.center), target.radius, boundary),
      radius);
}

ClosestPointResult ClosestPointOnBox(Vec3 p, float radius, const Box& target,
                                     Boundary boundary) {
  return Finish(ClosestOnBox<3>(A(p), A(target.min), A(target.max), boundary),
                radius);
}

ClosestPointResult ClosestPoint(const Shape& query, const Shape& target,
                                Boundary boundary) {
  assert(IsSupportedClosestPointPair(KindOf(query), KindOf(target)));
  if (!Is3D(KindOf(query))) {
    const Circle q = AsCircle(query);
    switch (KindOf(target)) {
      case ShapeKind::kPoint2:
      case ShapeKind::kCircle:
        return ClosestPointOnCircle(q.center, q.radius, AsCircle(target),
                                    boundary);
      case ShapeKind::kRect:
        return ClosestPointOnRect(q.center, q.radius, std::get<Rect>(target),
                                  boundary);
      case ShapeKind::kRotatedRect:
        return ClosestPointOnRotatedRect(
            q.center, q.radius, std::get<RotatedRect>(target), boundary);
      default:
        break;
    }
  } else {
    if (!IsBall(KindOf(query))) {
      return ClosestPointOfShapes(query, target, boundary);
    }
    const Sphere q = AsSphere(query);
    if (!InfoOf(*ClosestWorkKind(KindOf(query), KindOf(target))).kernel) {
      return ClosestPointOnHitbox(q.center, q.radius, target, boundary);
    }
    if (KindOf(target) == ShapeKind::kBox) {
      return ClosestPointOnBox(q.center, q.radius, std::get<Box>(target),
                               boundary);
    }
    return ClosestPointOnSphere(q.center, q.radius, AsSphere(target), boundary);
  }
  assert(false && "unsupported pair");
  return ClosestPointResult{};
}

}  // namespace collision
