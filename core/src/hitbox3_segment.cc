// Closest features of segments and boxes, the building blocks of every
// capsule pair (hitbox3.h).
#include <algorithm>
#include <cmath>

#include "collision/core/scalar.h"
#include "hitbox3_internal.h"

namespace collision::hitbox3_internal {

// ---- Segment-segment -------------------------------------------------------

// Closest points of segments [p1, q1] and [p2, q2] (Ericson, Real-Time
// Collision Detection, 5.1.9). Zero-length segments take the exact-zero
// branches, so a point answers exactly as a point.
SegSeg ClosestSegSeg(Vec3 p1, Vec3 q1, Vec3 p2, Vec3 q2) {
  const Vec3 d1 = Sub(q1, p1);
  const Vec3 d2 = Sub(q2, p2);
  const Vec3 r = Sub(p1, p2);
  const float a = Dot(d1, d1);
  const float e = Dot(d2, d2);
  const float f = Dot(d2, r);
  float s = 0;
  float t = 0;
  if (a == 0.0f && e == 0.0f) {
    // Both points.
  } else if (a == 0.0f) {
    t = Clamp(f / e, 0.0f, 1.0f);
  } else {
    const float c = Dot(d1, r);
    if (e == 0.0f) {
      s = Clamp(-c / a, 0.0f, 1.0f);
    } else {
      const float b = Dot(d1, d2);
      // Ericson's s = (b f - c e) / (a e - b^2) loses every digit to
      // cancellation for nearly parallel segments (a e - b^2 is
      // |d1 x d2|^2, tiny against a e). The same s written with the cross
      // product n = d1 x d2, s = ((p2 - p1) x d2) . n / |n|^2, keeps them.
      // For exactly parallel segments (n = 0) any s will do: the clamps
      // below then find the right end point.
      const Vec3 n = Cross(d1, d2);
      const float nn = Dot(n, n);
      if (nn > 0.0f) {
        s = Clamp(Dot(Cross(Neg(r), d2), n) / nn, 0.0f, 1.0f);
      }
      t = (b * s + f) / e;
      if (t < 0.0f) {
        t = 0.0f;
        s = Clamp(-c / a, 0.0f, 1.0f);
      } else if (t > 1.0f) {
        t = 1.0f;
        s = Clamp((b - c) / a, 0.0f, 1.0f);
      }
    }
  }
  SegSeg out;
  // An end point is taken as is rather than p + 1 * d, which may round.
  out.c1 = s == 0.0f ? p1 : (s == 1.0f ? q1 : Add(p1, Scale(d1, s)));
  out.c2 = t == 0.0f ? p2 : (t == 1.0f ? q2 : Add(p2, Scale(d2, t)));
  const Vec3 diff = Sub(out.c2, out.c1);
  out.d2 = Dot(diff, diff);
  return out;
}

// ---- Segment-box -----------------------------------------------------------

Vec3 ClampToBox(Vec3 p, Vec3 h) {
  return {Clamp(p.x, -h.x, h.x), Clamp(p.y, -h.y, h.y), Clamp(p.z, -h.z, h.z)};
}

SegBox PointBox(Vec3 p, Vec3 h) {
  const Vec3 q = ClampToBox(p, h);
  const Vec3 d = Sub(p, q);
  return {p, q, Dot(d, d)};
}

// Distance from the segment [p0, p1] to the box [-h, h], both in the box
// frame. The squared distance along the segment, f(t) = sum over axes of
// (x_i(t) - clamp(x_i(t)))^2, is convex and a fixed quadratic between the
// (at most 6) parameters where the segment crosses a slab plane. So the
// minimum is the minimum over those (at most 7) pieces of each piece's
// vertex clamped into the piece: exact, and no iteration to bound. Each
// candidate is evaluated with the true clamp, so a piece misclassified by
// rounding can only cost optimality, never give a distance that no point
// pair has.
SegBox ClosestSegBox(Vec3 p0, Vec3 p1, Vec3 h) {
  if (Equal(p0, p1)) return PointBox(p0, h);
  const Vec3 d = Sub(p1, p0);
  // Breakpoints, each with the slab plane it crosses (axis -1: an end).
  struct Break {
    float t;
    int axis;
    float plane;
  };
  Break br[8];
  int n = 0;
  br[n++] = {0.0f, -1, 0.0f};
  br[n++] = {1.0f, -1, 0.0f};
  for (int i = 0; i < 3; ++i) {
    const float di = Get(d, i);
    if (di == 0.0f) continue;
    for (float plane : {-Get(h, i), Get(h, i)}) {
      const float t = (plane - Get(p0, i)) / di;
      if (t > 0.0f && t < 1.0f) br[n++] = {t, i, plane};
    }
  }
  for (int i = 1; i < n; ++i) {  // insertion sort of at most 8 values
    for (int j = i; j > 0 && br[j].t < br[j - 1].t; --j) {
      std::swap(br[j], br[j - 1]);
    }
  }
  auto at = [&](float t) {
    if (t == 0.0f) return p0;
    if (t == 1.0f) return p1;
    return Add(p0, Scale(d, t));
  };
  // A breakpoint's point is put exactly on its plane, so that a segment
  // crossing a flat (zero half-extent) box meets it at distance 0 rather
  // than at the rounding of p0 + t d.
  auto at_break = [&](const Break& b) {
    Vec3 p = at(b.t);
    if (b.axis >= 0) Set(p, b.axis, b.plane);
    return p;
  };
  SegBox best = PointBox(p0, h);
  for (int k = 1; k < n; ++k) {
    const SegBox c = PointBox(at_break(br[k]), h);
    if (c.d2 < best.d2) best = c;
  }
  for (int k = 0; k + 1 < n; ++k) {
    const float t0 = br[k].t;
    const float t1 = br[k + 1].t;
    if (!(t1 > t0)) continue;
    const Vec3 mid = at(0.5f * (t0 + t1));
    // On this piece, axis i contributes (p0_i - plane_i + t d_i)^2 when
    // outside its slab: the vertex is -sum(alpha_i d_i) / sum(d_i^2).
    float num = 0.0f;
    float den = 0.0f;
    for (int i = 0; i < 3; ++i) {
      const float x = Get(mid, i);
      const float hi = Get(h, i);
      if (x < -hi || x > hi) {
        const float alpha = Get(p0, i) - (x < -hi ? -hi : hi);
        num = num - alpha * Get(d, i);
        den = den + Get(d, i) * Get(d, i);
      }
    }
    const float t = den > 0.0f ? Clamp(num / den, t0, t1) : 0.5f * (t0 + t1);
    if (t == t0 || t == t1) continue;  // the breakpoints are done above
    const SegBox c = PointBox(at(t), h);
    if (c.d2 < best.d2) best = c;
  }
  return best;
}

// Penetration of the segment [p0, p1] into the box [-h, h] (box frame): the
// least overlap over the separating axes of a segment and a box, which are
// the 3 box axes and the segment crossed with each (the face normals of
// their Minkowski difference, so the least overlap is the exact depth).
// Cross axes of a segment within ~1e-6 rad of a box axis are skipped: the
// face axes then cover them.
Axis SegmentBoxDepth(Vec3 p0, Vec3 p1, Vec3 h) {
  Axis best{{-1, 0, 0}, INFINITY};
  // Face axes written as interval gaps, exact for integer inputs; ties go
  // to -x, +x, -y, +y, -z, +z like ClosestPointOnBox.
  for (int i = 0; i < 3; ++i) {
    const float lo = std::min(Get(p0, i), Get(p1, i));
    const float hi = std::max(Get(p0, i), Get(p1, i));
    const float hh = Get(h, i);
    const float below = hi + hh;  // overlap when leaving through -axis i
    const float above = hh - lo;  // through +axis i
    if (below < best.overlap) {
      best = {{}, below};
      Set(best.n, i, -1.0f);
    }
    if (above < best.overlap) {
      best = {{}, above};
      Set(best.n, i, 1.0f);
    }
  }
  const Vec3 u = Sub(p1, p0);
  const float u2 = Dot(u, u);
  const Vec3 m = Scale(Add(p0, p1), 0.5f);
  for (int i = 0; i < 3; ++i) {
    Vec3 e{};
    Set(e, i, 1.0f);
    const Vec3 l = Cross(u, e);
    const float l2 = Dot(l, l);
    if (!(l2 > 1e-12f * u2)) continue;
    const Vec3 n = Normalized(l);
    const float rb =
        h.x * std::fabs(n.x) + h.y * std::fabs(n.y) + h.z * std::fabs(n.z);
    const float mn = Dot(m, n);
    // The segment is perpendicular to n: its projection is the point m.n.
    const float overlap = rb - std::fabs(mn);
    if (overlap < best.overlap) best = {mn < 0.0f ? Neg(n) : n, overlap};
  }
  return best;
}

IntersectResult FromD2(float d2, float r, bool strictly_inside, float depth,
                       Boundary boundary) {
  IntersectResult out;
  out.relation = ClassifyBall(d2, r * r, strictly_inside);
  out.hit = IsHit(out.relation, boundary);
  if (out.relation == Relation::kTouching) {
    out.separation = 0.0f;
  } else if (d2 > 0.0f) {
    out.separation = std::sqrt(d2) - r;
  } else {
    out.separation = -depth - r;
  }
  return out;
}

// Any unit vector perpendicular to v (v != 0): v crossed with the axis of
// its smallest component.
Vec3 Perpendicular(Vec3 v) {
  const float ax = std::fabs(v.x), ay = std::fabs(v.y), az = std::fabs(v.z);
  Vec3 e{};
  Set(e, ax <= ay && ax <= az ? 0 : (ay <= az ? 1 : 2), 1.0f);
  return Normalized(Cross(v, e));
}

float Snap(float v) {
  constexpr float kSnap = 0x1p-22f;
  if (std::fabs(v) <= kSnap) return 0.0f;
  if (std::fabs(std::fabs(v) - 1.0f) <= kSnap) return v < 0.0f ? -1.0f : 1.0f;
  return v;
}

}  // namespace collision::hitbox3_internal
