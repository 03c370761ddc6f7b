// Two oriented boxes: the separating-axis test and the search for their
// closest features when they are apart (hitbox3.h). The SAT runs first and
// the search is bounded, measured in
// docs/decisions/0026-box-pairs-sat-first.md.
#include <algorithm>
#include <cmath>

#include "hitbox3_internal.h"

namespace collision::hitbox3_internal {

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

}  // namespace collision::hitbox3_internal
