#include "collision/core/hitbox3.h"

#include <algorithm>
#include <cmath>

#include "collision/core/scalar.h"

namespace collision {
namespace {

// Sums are written left to right and the library is built with
// -ffp-contract=off, so integer inputs stay exact (see exact_vec.h).
Vec3 Add(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
Vec3 Sub(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 Scale(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
Vec3 Neg(Vec3 a) { return {-a.x, -a.y, -a.z}; }
float Dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
Vec3 Cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
float Get(Vec3 v, int i) { return i == 0 ? v.x : (i == 1 ? v.y : v.z); }
void Set(Vec3& v, int i, float value) {
  (i == 0 ? v.x : (i == 1 ? v.y : v.z)) = value;
}
float Clamp(float v, float lo, float hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}
bool Equal(Vec3 a, Vec3 b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
Vec3 Normalized(Vec3 v) { return Scale(v, 1.0f / std::sqrt(Dot(v, v))); }

// Column `col` of R: the world direction of local axis `col`.
Vec3 Column(const Mat3& r, int col) {
  return {r.m[col], r.m[3 + col], r.m[6 + col]};
}
Vec3 MulT(const Mat3& r, Vec3 v) {  // R^T v: world vector -> local
  return {Dot(Column(r, 0), v), Dot(Column(r, 1), v), Dot(Column(r, 2), v)};
}
Vec3 Mul(const Mat3& r, Vec3 v) {  // R v: local vector -> world
  return {r.m[0] * v.x + r.m[1] * v.y + r.m[2] * v.z,
          r.m[3] * v.x + r.m[4] * v.y + r.m[5] * v.z,
          r.m[6] * v.x + r.m[7] * v.y + r.m[8] * v.z};
}

struct Frame {
  Mat3 r;
  Vec3 center;
  Vec3 h;
};
Frame FrameOf(const OrientedBox& b) {
  return {RotationMatrix(b.rotation), b.center, b.half_extents};
}
Vec3 ToLocal(const Frame& f, Vec3 p) { return MulT(f.r, Sub(p, f.center)); }
Vec3 ToWorld(const Frame& f, Vec3 p) { return Add(f.center, Mul(f.r, p)); }

// ---- Segment-segment -------------------------------------------------------

struct SegSeg {
  Vec3 c1, c2;  // closest points on the first and the second segment
  float d2;     // |c2 - c1|^2
};

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

struct SegBox {
  Vec3 seg;  // closest point of the segment (box frame)
  Vec3 box;  // closest point of the box (box frame)
  float d2;  // |seg - box|^2
};

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

struct Axis {
  Vec3 n;         // unit, box frame
  float overlap;  // > 0: the projections overlap by that much
};

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

// The 12 edges of a box, in world coordinates.
void BoxEdges(const Frame& f, Vec3 (&from)[12], Vec3 (&to)[12]) {
  int k = 0;
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3;
    const int v = (axis + 2) % 3;
    for (float su : {-1.0f, 1.0f}) {
      for (float sv : {-1.0f, 1.0f}) {
        Vec3 p{};
        Set(p, u, su * Get(f.h, u));
        Set(p, v, sv * Get(f.h, v));
        Vec3 q = p;
        Set(p, axis, -Get(f.h, axis));
        Set(q, axis, Get(f.h, axis));
        from[k] = ToWorld(f, p);
        to[k] = ToWorld(f, q);
        ++k;
      }
    }
  }
}

struct Pair {
  float d2 = INFINITY;
  Vec3 on_edges;  // world point on the box whose edges were tried
  Vec3 on_box;    // world point on the other box
  // Unit, world, from on_edges to on_box when d2 > 0: taken from the local
  // difference, which the world points (rounded through the frame) need
  // not reproduce when the distance is small against the coordinates.
  Vec3 dir;
};

Pair EdgesToBox(const Frame& edges_of, const Frame& box) {
  Vec3 from[12], to[12];
  BoxEdges(edges_of, from, to);
  Pair best;
  for (int k = 0; k < 12; ++k) {
    const SegBox c =
        ClosestSegBox(ToLocal(box, from[k]), ToLocal(box, to[k]), box.h);
    if (c.d2 < best.d2) {
      best = {c.d2, ToWorld(box, c.seg), ToWorld(box, c.box), {}};
      if (c.d2 == 0.0f) break;
      best.dir = Mul(box.r, Scale(Sub(c.box, c.seg), 1.0f / std::sqrt(c.d2)));
    }
  }
  return best;
}

// Closest pair of two boxes: on_edges on a, on_box on b.
Pair ClosestBoxBox(const Frame& fa, const Frame& fb) {
  Pair p = EdgesToBox(fa, fb);
  if (p.d2 > 0.0f) {
    const Pair q = EdgesToBox(fb, fa);
    if (q.d2 < p.d2) p = {q.d2, q.on_box, q.on_edges, Neg(q.dir)};
  }
  return p;
}

// Least overlap of two boxes over the 15 separating axes (Gottschalk,
// Lin, Manocha 1996), in a's frame. Face axes come first (so they win
// ties); with a quarter turn their projections are sums of exact terms, so
// exact inputs give the axis-aligned BoxBox's depth exactly.
Axis ObbDepth(const Frame& a, const Frame& b) {
  // c[i][j] = a_i . b_j: b's axes in a's frame.
  float c[3][3];
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) c[i][j] = Dot(Column(a.r, i), Column(b.r, j));
  }
  const Vec3 t = MulT(a.r, Sub(b.center, a.center));   // in a's frame
  const Vec3 tb = MulT(b.r, Sub(b.center, a.center));  // in b's frame
  // n in a's frame, oriented from a to b (along t): b moves along it to
  // separate.
  Axis best{{1, 0, 0}, INFINITY};
  auto offer = [&](Vec3 n, float overlap, float along_t) {
    if (overlap < best.overlap) best = {along_t < 0.0f ? Neg(n) : n, overlap};
  };
  for (int i = 0; i < 3; ++i) {
    const float ra = Get(a.h, i);
    const float rb = Get(b.h, 0) * std::fabs(c[i][0]) +
                     Get(b.h, 1) * std::fabs(c[i][1]) +
                     Get(b.h, 2) * std::fabs(c[i][2]);
    Vec3 n{};
    Set(n, i, 1.0f);
    offer(n, ra + rb - std::fabs(Get(t, i)), Get(t, i));
  }
  for (int j = 0; j < 3; ++j) {
    const float ra = Get(a.h, 0) * std::fabs(c[0][j]) +
                     Get(a.h, 1) * std::fabs(c[1][j]) +
                     Get(a.h, 2) * std::fabs(c[2][j]);
    const float rb = Get(b.h, j);
    offer({c[0][j], c[1][j], c[2][j]}, ra + rb - std::fabs(Get(tb, j)),
          Get(tb, j));
  }
  for (int i = 0; i < 3; ++i) {
    Vec3 ea{};
    Set(ea, i, 1.0f);
    for (int j = 0; j < 3; ++j) {
      const Vec3 eb{c[0][j], c[1][j], c[2][j]};
      const Vec3 l = Cross(ea, eb);
      // Edges within ~1e-6 rad of parallel: the axis is noise, and a face
      // axis gives the same bound.
      if (!(Dot(l, l) > 1e-12f)) continue;
      const Vec3 n = Normalized(l);
      const float ra = a.h.x * std::fabs(n.x) + a.h.y * std::fabs(n.y) +
                       a.h.z * std::fabs(n.z);
      // n in b's frame: (b_k . n) = sum_i c[i][k] n_i.
      float rb = 0.0f;
      for (int k = 0; k < 3; ++k) {
        const float nk = c[0][k] * n.x + c[1][k] * n.y + c[2][k] * n.z;
        rb = rb + Get(b.h, k) * std::fabs(nk);
      }
      offer(n, ra + rb - std::fabs(Dot(t, n)), Dot(t, n));
    }
  }
  best.n = Mul(a.r, best.n);
  return best;
}

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
  const Frame fa = FrameOf(a);
  const Frame fb = FrameOf(b);
  const float d2 = ClosestBoxBox(fa, fb).d2;
  IntersectResult out;
  if (d2 > 0.0f) {
    out.relation = Relation::kDisjoint;
    out.separation = std::sqrt(d2);
  } else {
    const float depth = ObbDepth(fa, fb).overlap;
    // A gap on some axis here means the boxes are within rounding of
    // touching: the edge distance found a common point.
    out.relation = depth > 0.0f ? Relation::kOverlapping : Relation::kTouching;
    out.separation = depth > 0.0f ? -depth : 0.0f;
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
  const Frame fa = FrameOf(a);
  const Frame fb = FrameOf(b);
  const Pair p = ClosestBoxBox(fa, fb);
  Distance3 out;
  if (p.d2 > 0.0f) {
    out.distance = std::sqrt(p.d2);
    out.normal = p.dir;
    out.point_a = p.on_edges;
    out.point_b = p.on_box;
    return out;
  }
  const Axis axis = ObbDepth(fa, fb);
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
