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
  // Box pairs: which SAT axis, 0-2 a's faces, 3-5 b's faces, 6 + 3 i + j
  // a_i x b_j.
  int id = -1;
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

// Closest pair of two boxes a and b.
struct Pair {
  float d2 = INFINITY;
  Vec3 on_edges;  // world point on a
  Vec3 on_box;    // world point on b
  // Unit, world, from on_edges to on_box when d2 > 0: taken from the local
  // difference, which the world points (rounded through the frame) need
  // not reproduce when the distance is small against the coordinates.
  Vec3 dir;
};

// Two boxes and what every box-pair routine shares.
struct BoxPair {
  Frame a, b;
  float c[3][3];  // c[i][j] = a_i . b_j: b's axes in a's frame
  Vec3 t;         // b.center - a.center, world
  Vec3 ta, tb;    // t in a's frame, in b's frame
};

BoxPair PairOf(const OrientedBox& a, const OrientedBox& b) {
  BoxPair p{FrameOf(a), FrameOf(b), {}, {}, {}, {}};
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j) {
      p.c[i][j] = Dot(Column(p.a.r, i), Column(p.b.r, j));
    }
  }
  p.t = Sub(b.center, a.center);
  p.ta = MulT(p.a.r, p.t);
  p.tb = MulT(p.b.r, p.t);
  return p;
}

// Least overlap of two boxes over the 15 separating axes (Gottschalk,
// Lin, Manocha 1996), in a's frame; negative: the largest gap. Face axes
// come first (so they win ties); with a quarter turn their projections are
// sums of exact terms, so exact inputs give the axis-aligned BoxBox's depth
// exactly. All 15 overlaps are computed without branches and the least
// taken after.
Axis ObbDepth(const BoxPair& p) {
  const auto& c = p.c;
  const float ha[3] = {p.a.h.x, p.a.h.y, p.a.h.z};
  const float hb[3] = {p.b.h.x, p.b.h.y, p.b.h.z};
  const float ta[3] = {p.ta.x, p.ta.y, p.ta.z};
  const float tb[3] = {p.tb.x, p.tb.y, p.tb.z};
  float overlap[15];
  float along[15];  // the axis's component of t: orients it from a to b
  for (int i = 0; i < 3; ++i) {
    const float rb = hb[0] * std::fabs(c[i][0]) + hb[1] * std::fabs(c[i][1]) +
                     hb[2] * std::fabs(c[i][2]);
    overlap[i] = ha[i] + rb - std::fabs(ta[i]);
    along[i] = ta[i];
  }
  for (int j = 0; j < 3; ++j) {
    const float ra = ha[0] * std::fabs(c[0][j]) + ha[1] * std::fabs(c[1][j]) +
                     ha[2] * std::fabs(c[2][j]);
    overlap[3 + j] = ra + hb[j] - std::fabs(tb[j]);
    along[3 + j] = tb[j];
  }
  // Cross axes l = a_i x b_j: 0 in component i, -c[v][j] in u and c[u][j]
  // in v (u, v the next two axes after i), measured unnormalised and
  // divided by |l| once.
  for (int i = 0; i < 3; ++i) {
    const int u = i == 2 ? 0 : i + 1;
    const int v = i == 0 ? 2 : i - 1;
    for (int j = 0; j < 3; ++j) {
      const float lu = -c[v][j];
      const float lv = c[u][j];
      const float ll = lu * lu + lv * lv;
      const float ra = ha[u] * std::fabs(lu) + ha[v] * std::fabs(lv);
      // (b_k . l) = sum_i c[i][k] l_i.
      const float rb = hb[0] * std::fabs(c[u][0] * lu + c[v][0] * lv) +
                       hb[1] * std::fabs(c[u][1] * lu + c[v][1] * lv) +
                       hb[2] * std::fabs(c[u][2] * lu + c[v][2] * lv);
      const float tl = ta[u] * lu + ta[v] * lv;
      // Edges within ~1e-6 rad of parallel: the axis is noise, and a face
      // axis gives the same bound.
      const float o = (ra + rb - std::fabs(tl)) / std::sqrt(ll);
      overlap[6 + 3 * i + j] = ll > 1e-12f ? o : INFINITY;
      along[6 + 3 * i + j] = tl;
    }
  }
  Axis best{{1, 0, 0}, INFINITY, -1};
  for (int k = 0; k < 15; ++k) {
    if (overlap[k] < best.overlap) {
      best.overlap = overlap[k];
      best.id = k;
    }
  }
  if (best.id < 0) return best;  // NaN input
  const int k = best.id;
  Vec3 n{};  // in a's frame
  if (k < 3) {
    Set(n, k, 1.0f);
  } else if (k < 6) {
    n = {c[0][k - 3], c[1][k - 3], c[2][k - 3]};
  } else {
    const int i = (k - 6) / 3;
    const int j = (k - 6) % 3;
    const int u = i == 2 ? 0 : i + 1;
    const int v = i == 0 ? 2 : i - 1;
    const float len = std::sqrt(c[v][j] * c[v][j] + c[u][j] * c[u][j]);
    Set(n, u, -c[v][j] / len);
    Set(n, v, c[u][j] / len);
  }
  best.n = Mul(p.a.r, along[k] < 0.0f ? Neg(n) : n);
  return best;
}

// One box seen from the other's frame: the box whose edges are measured
// against the other (whose half-extents are fh).
struct Seen {
  Vec3 axis[3];  // the box's axes in the other's frame
  Vec3 center;   // its centre in the other's frame
  Vec3 h;
  Vec3 fh;
};

Seen ASeenFromB(const BoxPair& p) {
  const auto& c = p.c;
  return {{{c[0][0], c[0][1], c[0][2]},
           {c[1][0], c[1][1], c[1][2]},
           {c[2][0], c[2][1], c[2][2]}},
          Neg(p.tb),
          p.a.h,
          p.b.h};
}

Seen BSeenFromA(const BoxPair& p) {
  const auto& c = p.c;
  return {{{c[0][0], c[1][0], c[2][0]},
           {c[0][1], c[1][1], c[2][1]},
           {c[0][2], c[1][2], c[2][2]}},
          p.ta,
          p.b.h,
          p.a.h};
}

// Edges are numbered 4 * axis + 2 * (u side > 0) + (v side > 0), with u and
// v the next two axes after `axis`, each running from -h to +h along it.
int EdgeAt(int axis, const float (&sign)[3]) {
  return 4 * axis + (sign[(axis + 1) % 3] > 0.0f ? 2 : 0) +
         (sign[(axis + 2) % 3] > 0.0f ? 1 : 0);
}

SegBox EdgeToBox(const Seen& s, int edge) {
  const int k = edge / 4;
  const int u = (k + 1) % 3;
  const int v = (k + 2) % 3;
  const float su = (edge & 2) ? Get(s.h, u) : -Get(s.h, u);
  const float sv = (edge & 1) ? Get(s.h, v) : -Get(s.h, v);
  const Vec3 mid =
      Add(s.center, Add(Scale(s.axis[u], su), Scale(s.axis[v], sv)));
  const Vec3 half = Scale(s.axis[k], Get(s.h, k));
  return ClosestSegBox(Sub(mid, half), Add(mid, half), s.fh);
}

// Where the boxes lie along a unit world direction u (from a towards b).
struct Along {
  float gap;    // b's least projection minus a's greatest: <= the distance
  float wa[3];  // a_i . u
  float wb[3];  // b_j . u
};

Along AlongDir(const BoxPair& p, Vec3 u) {
  Along out;
  out.gap = Dot(p.t, u);
  for (int i = 0; i < 3; ++i) {
    out.wa[i] = Dot(Column(p.a.r, i), u);
    out.wb[i] = Dot(Column(p.b.r, i), u);
    out.gap = out.gap - Get(p.a.h, i) * std::fabs(out.wa[i]) -
              Get(p.b.h, i) * std::fabs(out.wb[i]);
  }
  return out;
}

// A lower bound on the distance from an edge of a (side 0) or of b (side
// 1) to the other box: the gap along u plus how far the edge lies behind
// its box's supporting plane, 2 h |w| for each side coordinate on the far
// side.
float EdgeBound(const BoxPair& p, const Along& al, int side, int edge) {
  const int k = edge / 4;
  const float* w = side == 0 ? al.wa : al.wb;
  const Vec3& h = side == 0 ? p.a.h : p.b.h;
  // a's support is along +u, b's along -u.
  const float toward = side == 0 ? 1.0f : -1.0f;
  float behind = 0.0f;
  for (int j : {(k + 1) % 3, (k + 2) % 3}) {
    const bool plus = (j == (k + 1) % 3) ? (edge & 2) : (edge & 1);
    const float wj = toward * w[j];
    if (plus ? wj < 0.0f : wj > 0.0f) {
      behind = behind + 2.0f * Get(h, j) * std::fabs(wj);
    }
  }
  return al.gap + behind;
}

// Distance of two boxes the SAT found not overlapping. Two disjoint convex
// polytopes have a closest pair with a corner of one against the other or
// with both points inside edges, and then the closest direction is a SAT
// axis (the edges' cross product). The result is always a real distance,
// an upper bound, and the gap along any direction a lower bound; so the
// cheap candidates are tried first, each accepted once a gap meets it
// within rounding:
// 1. for an edge-edge axis n = a_i x b_j, the two support edges along a_i
//    and b_j (the closest pair when it lies inside both);
// 2. the two support corners along n (the closest pair when it is a
//    corner over a face, whose normal is n, or a corner against an edge or
//    a corner that stays the support corner along the closest direction);
// 3. the 3 + 3 edges at the support corners (the closest features whenever
//    the closest direction leans from n without changing them);
// 4. every other edge whose lower bound (the gap plus how far the edge
//    lies behind its box's supporting plane, along n or along the best
//    direction found) is below the best so far. This is the search over
//    all 24 edges that the earlier steps only shortcut.
struct BoxSearch {
  const BoxPair& p;
  Seen seen[2];  // a seen from b (a's edges), b seen from a
  bool tried[2][12] = {};
  SegBox best{{}, {}, INFINITY};
  int best_side = 0;

  explicit BoxSearch(const BoxPair& pair)
      : p(pair), seen{ASeenFromB(pair), BSeenFromA(pair)} {}

  void Offer(const SegBox& c, int side) {
    if (c.d2 < best.d2) {
      best = c;
      best_side = side;
    }
  }
  void Try(int side, int edge) {
    if (tried[side][edge]) return;
    tried[side][edge] = true;
    Offer(EdgeToBox(seen[side], edge), side);
  }
  // Unit world direction from a's closest point to b's (best.d2 > 0).
  Vec3 Dir() const {
    const Frame& f = best_side == 0 ? p.b : p.a;
    const Vec3 d =
        Mul(f.r, Scale(Sub(best.box, best.seg), 1.0f / std::sqrt(best.d2)));
    return best_side == 0 ? d : Neg(d);
  }
  Pair Result() const {
    const Frame& f = best_side == 0 ? p.b : p.a;
    Pair out{best.d2, ToWorld(f, best.seg), ToWorld(f, best.box), {}};
    if (best.d2 > 0.0f) out.dir = Dir();
    if (best_side == 1) std::swap(out.on_edges, out.on_box);
    return out;
  }
};

// Support corner signs along u: a's along +u, b's along -u.
void SupportSigns(const Along& al, float (&sa)[3], float (&sb)[3]) {
  for (int i = 0; i < 3; ++i) {
    sa[i] = al.wa[i] >= 0.0f ? 1.0f : -1.0f;
    sb[i] = al.wb[i] <= 0.0f ? 1.0f : -1.0f;
  }
}

Vec3 Corner(const Seen& s, const float (&sign)[3]) {
  return Add(s.center, Add(Add(Scale(s.axis[0], sign[0] * s.h.x),
                               Scale(s.axis[1], sign[1] * s.h.y)),
                           Scale(s.axis[2], sign[2] * s.h.z)));
}

// Closest pair of two boxes that the SAT found not overlapping: on_edges
// on a, on_box on b. `all_close`: skip no edge that could come within
// rounding of the best (the candidates a gap proves within rounding may
// still lie apart along nearly parallel edges, where the distance is flat;
// taking the least over all of them, as the full search would, keeps the
// normal the same whichever box comes first).
Pair ClosestBoxBox(const BoxPair& p, const Axis& sat, bool all_close) {
  BoxSearch s(p);
  // Rounding of the gaps and of the found distance: about an ulp of the
  // magnitudes they are computed from.
  const float magnitude = std::fabs(p.t.x) + std::fabs(p.t.y) +
                          std::fabs(p.t.z) + p.a.h.x + p.a.h.y + p.a.h.z +
                          p.b.h.x + p.b.h.y + p.b.h.z;
  const float slack = magnitude * 0x1p-24f;
  const Along an = AlongDir(p, sat.n);
  float lower = std::max(-sat.overlap, an.gap);
  float d = INFINITY;
  // True when the best so far is the distance (or the boxes touch).
  auto settled = [&] {
    if (!(s.best.d2 > 0.0f)) return true;
    d = std::sqrt(s.best.d2);
    return !all_close && d <= lower + slack;
  };
  float sa[3], sb[3];
  SupportSigns(an, sa, sb);
  if (sat.id >= 6) {
    // n = a_i x b_j: the support edges along a_i and b_j, in b's frame.
    const int i = (sat.id - 6) / 3;
    const int j = (sat.id - 6) % 3;
    float fa[3] = {sa[0], sa[1], sa[2]};
    fa[i] = -fa[i];
    const Vec3 qb{sb[0] * p.b.h.x, sb[1] * p.b.h.y, sb[2] * p.b.h.z};
    Vec3 rb = qb;
    Set(rb, j, -Get(qb, j));
    const SegSeg e =
        ClosestSegSeg(Corner(s.seen[0], sa), Corner(s.seen[0], fa), qb, rb);
    s.Offer({e.c1, e.c2, e.d2}, 0);
    if (settled()) return s.Result();
  }
  s.Offer(PointBox(Corner(s.seen[0], sa), p.b.h), 0);
  s.Offer(PointBox(Corner(s.seen[1], sb), p.a.h), 1);
  if (settled()) return s.Result();
  Along au = AlongDir(p, s.Dir());
  lower = std::max(lower, au.gap);
  if (settled()) return s.Result();
  for (int k = 0; k < 3; ++k) s.Try(0, EdgeAt(k, sa));
  for (int k = 0; k < 3; ++k) s.Try(1, EdgeAt(k, sb));
  if (settled()) return s.Result();
  au = AlongDir(p, s.Dir());
  lower = std::max(lower, au.gap);
  if (settled()) return s.Result();
  const float margin = all_close ? slack : 0.0f;
  for (int side = 0; side < 2; ++side) {
    for (int edge = 0; edge < 12; ++edge) {
      if (s.tried[side][edge]) continue;
      const float bound =
          std::max(EdgeBound(p, an, side, edge), EdgeBound(p, au, side, edge));
      if (bound >= d + margin) continue;
      s.Try(side, edge);
      if (!(s.best.d2 > 0.0f)) return s.Result();
      d = std::sqrt(s.best.d2);
    }
  }
  return s.Result();
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
