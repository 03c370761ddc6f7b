#include "collision/core/hitbox3.h"

#include <algorithm>
#include <cmath>

#include "collision/core/scalar.h"
#include "hitbox3_internal.h"

namespace collision {
// This file's own internals (hitbox3_internal.h).
using namespace hitbox3_internal;  // NOLINT(build/namespaces)

namespace {

// Normal and points from a (sphere or capsule, core segment [p0, p1] in
// the box frame, radius r) to the box, given their segment-box answer.
Distance3 CoreBoxDistance(Vec3 p0, Vec3 p1, float r, const Frame& f) {
  const SegBox c = ClosestSegBox(p0, p1, f.h);
  Distance3 out;
  if (c.d2 > 0.0f) {
    const float d = std::sqrt(c.d2);
    const Vec3 n_local = Scale(Sub(c.box, c.seg), 1.0f / d);
    out.normal = Mul(f.r, n_local);
    out.point_b = ToWorld(f, c.box);
    out.point_a = ToWorld(f, Add(c.seg, Scale(n_local, r)));
    out.distance = d - r;
    return out;
  }
  const Axis axis = SegmentBoxDepth(p0, p1, f.h);
  // axis.n points out of the box through the face a leaves by; b moves
  // the other way to separate.
  const Vec3 n_local = Neg(axis.n);
  const Vec3 deepest = Dot(p0, n_local) >= Dot(p1, n_local) ? p0 : p1;
  const Vec3 pa = Add(deepest, Scale(n_local, r));
  out.distance = -axis.overlap - r;
  out.normal = Mul(f.r, n_local);
  out.point_a = ToWorld(f, pa);
  out.point_b = ToWorld(f, Add(pa, Scale(n_local, out.distance)));
  return out;
}

bool RaySphere(Vec3 origin, Vec3 dir, Vec3 center, float r, float* t) {
  const Vec3 m = Sub(origin, center);
  const float b = Dot(m, dir);
  // r^2 - |m - b dir|^2 instead of b^2 - (|m|^2 - r^2): the perpendicular
  // form keeps its precision for far origins (Haines et al., "Precision
  // Improvements for Ray/Sphere Intersection", Ray Tracing Gems 7).
  const Vec3 perp = Sub(m, Scale(dir, b));
  const float disc = r * r - Dot(perp, perp);
  if (disc < 0.0f || b > 0.0f) return false;
  *t = std::max(0.0f, -b - std::sqrt(disc));
  return true;
}

}  // namespace

Mat3 RotationMatrix(const Quat& q) {
  const float n = q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z;
  const float s = 2.0f / n;
  const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
  const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
  const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
  Mat3 r{{1.0f - s * (yy + zz), s * (xy - wz), s * (xz + wy),  //
          s * (xy + wz), 1.0f - s * (xx + zz), s * (yz - wx),  //
          s * (xz - wy), s * (yz + wx), 1.0f - s * (xx + yy)}};
  for (float& v : r.m) v = Snap(v);
  return r;
}

IntersectResult Intersect(const Capsule3& a, const Capsule3& b,
                          Boundary boundary) {
  const SegSeg c = ClosestSegSeg(a.a, a.b, b.a, b.b);
  return FromD2(c.d2, a.radius + b.radius, false, 0.0f, boundary);
}

IntersectResult Intersect(const Sphere& a, const Capsule3& b,
                          Boundary boundary) {
  return Intersect(Capsule3{a.center, a.center, a.radius}, b, boundary);
}

IntersectResult Intersect(const Sphere& a, const OrientedBox& b,
                          Boundary boundary) {
  const Frame f = FrameOf(b);
  const Sphere local{ToLocal(f, a.center), a.radius};
  return IntersectSphereBox(local, Box{Neg(f.h), f.h}, boundary);
}

IntersectResult Intersect(const Capsule3& a, const OrientedBox& b,
                          Boundary boundary) {
  if (Equal(a.a, a.b)) return Intersect(Sphere{a.a, a.radius}, b, boundary);
  const Frame f = FrameOf(b);
  const Vec3 p0 = ToLocal(f, a.a);
  const Vec3 p1 = ToLocal(f, a.b);
  const float d2 = ClosestSegBox(p0, p1, f.h).d2;
  const float depth = d2 > 0.0f ? 0.0f : SegmentBoxDepth(p0, p1, f.h).overlap;
  return FromD2(d2, a.radius, depth > 0.0f, depth, boundary);
}

IntersectResult Intersect(const OrientedBox& a, const OrientedBox& b,
                          Boundary boundary) {
  const BoxPair p = PairOf(a, b);
  const Axis sat = ObbDepth(p);
  IntersectResult out;
  if (sat.overlap > 0.0f) {
    out.relation = Relation::kOverlapping;
    out.separation = -sat.overlap;
  } else {
    // No axis overlaps with positive extent; the distance decides between
    // disjoint and touching within rounding.
    const float d2 = ClosestBoxBox(p, sat, false).d2;
    out.relation = d2 > 0.0f ? Relation::kDisjoint : Relation::kTouching;
    out.separation = d2 > 0.0f ? std::sqrt(d2) : 0.0f;
  }
  out.hit = IsHit(out.relation, boundary);
  return out;
}

Distance3 ClosestPoints(const Capsule3& a, const Capsule3& b) {
  const SegSeg c = ClosestSegSeg(a.a, a.b, b.a, b.b);
  Distance3 out;
  const float d = std::sqrt(c.d2);
  if (d > 0.0f) {
    out.normal = Scale(Sub(c.c2, c.c1), 1.0f / d);
  } else {
    const Vec3 da = Sub(a.b, a.a);
    const Vec3 db = Sub(b.b, b.a);
    const Vec3 x = Cross(da, db);
    if (Dot(x, x) > 0.0f) {
      out.normal = Normalized(x);
    } else if (!Equal(da, Vec3{})) {
      out.normal = Perpendicular(da);
    } else if (!Equal(db, Vec3{})) {
      out.normal = Perpendicular(db);
    } else {
      out.normal = {1, 0, 0};
    }
  }
  out.point_a = Add(c.c1, Scale(out.normal, a.radius));
  out.point_b = Sub(c.c2, Scale(out.normal, b.radius));
  out.distance = d - a.radius - b.radius;
  return out;
}

Distance3 ClosestPoints(const Sphere& a, const Capsule3& b) {
  return ClosestPoints(Capsule3{a.center, a.center, a.radius}, b);
}

Distance3 ClosestPoints(const Sphere& a, const OrientedBox& b) {
  const Frame f = FrameOf(b);
  const Vec3 p = ToLocal(f, a.center);
  return CoreBoxDistance(p, p, a.radius, f);
}

Distance3 ClosestPoints(const Capsule3& a, const OrientedBox& b) {
  const Frame f = FrameOf(b);
  return CoreBoxDistance(ToLocal(f, a.a), ToLocal(f, a.b), a.radius, f);
}

Distance3 ClosestPoints(const OrientedBox& a, const OrientedBox& b) {
  const BoxPair pair = PairOf(a, b);
  const Axis axis = ObbDepth(pair);
  Distance3 out;
  if (!(axis.overlap > 0.0f)) {
    const Pair p = ClosestBoxBox(pair, axis, true);
    if (p.d2 > 0.0f) {
      out.distance = std::sqrt(p.d2);
      out.normal = p.dir;
      out.point_a = p.on_edges;
      out.point_b = p.on_box;
      return out;
    }
  }
  const Frame& fa = pair.a;
  // a's support point along the normal: the corner deepest in b.
  Vec3 deepest{};
  for (int i = 0; i < 3; ++i) {
    const float along = Dot(Column(fa.r, i), axis.n);
    Set(deepest, i, along >= 0.0f ? Get(fa.h, i) : -Get(fa.h, i));
  }
  out.distance = axis.overlap > 0.0f ? -axis.overlap : 0.0f;
  out.normal = axis.n;
  out.point_a = ToWorld(fa, deepest);
  out.point_b = Add(out.point_a, Scale(axis.n, out.distance));
  return out;
}

std::optional<RayHit3> Raycast(const Vec3& origin, const Vec3& dir, float max_t,
                               const Capsule3& capsule, Boundary boundary) {
  const float r = capsule.radius;
  if (boundary == Boundary::kExclusive) {
    // Only a cast through the interior hits: the cast segment must come
    // strictly closer than r to the axis. Where it enters is then the
    // inclusive answer.
    const Vec3 end = Add(origin, Scale(dir, max_t));
    if (!(ClosestSegSeg(origin, end, capsule.a, capsule.b).d2 < r * r)) {
      return std::nullopt;
    }
  }
  const SegSeg at_origin = ClosestSegSeg(origin, origin, capsule.a, capsule.b);
  if (at_origin.d2 <= r * r) return RayHit3{0.0f, Neg(dir)};
  if (r == 0.0f) {
    // A bare segment: only an exact meeting counts (see the header).
    const Vec3 end = Add(origin, Scale(dir, max_t));
    const SegSeg c = ClosestSegSeg(origin, end, capsule.a, capsule.b);
    if (c.d2 != 0.0f) return std::nullopt;
    return RayHit3{std::sqrt(Dot(Sub(c.c1, origin), Sub(c.c1, origin))),
                   Neg(dir)};
  }
  float best = INFINITY;
  Vec3 normal{};
  // The capsule is the union of the two end spheres and the cylinder
  // between them; the first entry into a union is the first entry into a
  // part, and a ray entering the finite cylinder through a flat end is
  // already inside an end sphere.
  for (const Vec3& c : {capsule.a, capsule.b}) {
    float t;
    if (RaySphere(origin, dir, c, r, &t) && t < best) {
      best = t;
      normal = Normalized(Sub(Add(origin, Scale(dir, t)), c));
    }
  }
  const Vec3 ax = Sub(capsule.b, capsule.a);
  const float l2 = Dot(ax, ax);
  if (l2 > 0.0f) {
    // The cylinder side, in the plane perpendicular to the axis.
    const Vec3 m = Sub(origin, capsule.a);
    const Vec3 mp = Sub(m, Scale(ax, Dot(m, ax) / l2));
    const Vec3 dp = Sub(dir, Scale(ax, Dot(dir, ax) / l2));
    const float a = Dot(dp, dp);
    if (a > 1e-12f) {
      const float tc = -Dot(mp, dp) / a;  // closest approach to the axis
      const Vec3 q = Add(mp, Scale(dp, tc));
      const float disc = r * r - Dot(q, q);
      if (disc >= 0.0f) {
        const float t = std::max(0.0f, tc - std::sqrt(disc / a));
        const Vec3 p = Add(m, Scale(dir, t));
        const float s = Dot(p, ax) / l2;
        if (s >= 0.0f && s <= 1.0f && tc >= 0.0f && t < best) {
          best = t;
          normal = Normalized(Sub(p, Scale(ax, s)));
        }
      }
    }
  }
  if (!(best <= max_t)) return std::nullopt;
  return RayHit3{best, normal};
}

std::optional<RayHit3> Raycast(const Vec3& origin, const Vec3& dir, float max_t,
                               const OrientedBox& box, Boundary boundary) {
  const bool exclusive = boundary == Boundary::kExclusive;
  const Frame f = FrameOf(box);
  const Vec3 o = ToLocal(f, origin);
  const Vec3 d = MulT(f.r, dir);
  const Vec3 h = f.h;
  const bool in_closed =
      std::fabs(o.x) <= h.x && std::fabs(o.y) <= h.y && std::fabs(o.z) <= h.z;
  if (in_closed && !exclusive) return RayHit3{0.0f, Neg(dir)};
  // Slab test (Kay and Kajiya) in the box frame; the entry face is the
  // slab with the largest entry, the first axis on ties.
  float enter = -INFINITY;
  float exit = INFINITY;
  int face = -1;
  for (int i = 0; i < 3; ++i) {
    const float oi = Get(o, i), di = Get(d, i), hi = Get(h, i);
    if (di == 0.0f) {
      // Running along the slab: inside it for good, or never.
      const bool in_slab =
          exclusive ? (-hi < oi && oi < hi) : (-hi <= oi && oi <= hi);
      if (!in_slab) return std::nullopt;
      continue;
    }
    const float t0 = (-hi - oi) / di;
    const float t1 = (hi - oi) / di;
    const float near = std::min(t0, t1);
    if (near > enter) {
      enter = near;
      face = i;
    }
    exit = std::min(exit, std::max(t0, t1));
  }
  if (exclusive) {
    // The open interval (enter, exit), where the line is in the interior,
    // must meet [0, max_t].
    if (!(enter < exit && enter < max_t && exit > 0.0f)) return std::nullopt;
    if (in_closed) return RayHit3{0.0f, Neg(dir)};
  } else if (!(enter <= exit && enter <= max_t)) {
    return std::nullopt;
  }
  // The origin is outside, so a hit enters at some t >= 0.
  if (face < 0 || enter < 0.0f) return std::nullopt;
  Vec3 n_local{};
  Set(n_local, face, Get(d, face) > 0.0f ? -1.0f : 1.0f);
  return RayHit3{enter, Mul(f.r, n_local)};
}

}  // namespace collision
