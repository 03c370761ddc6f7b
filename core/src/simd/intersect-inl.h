// Per-target Intersect kernels: the formulas of scalar.cc's BallBall,
// BallBox and BoxBox over vectors of pairs, operation for operation, except
// where BallBox says why a cheaper form gives the same bits.
#if defined(COLLISION_SIMD_INTERSECT_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef COLLISION_SIMD_INTERSECT_INL_H_
#undef COLLISION_SIMD_INTERSECT_INL_H_
#else
#define COLLISION_SIMD_INTERSECT_INL_H_
#endif

#include "hwy/contrib/math/math-inl.h"
#include "hwy/highway.h"
#include "simd/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace collision {
namespace simd {
namespace HWY_NAMESPACE {

// RotationFromAngle(): exact quarter turns when angle == k * float(pi/2) with
// |k| <= 4096, Highway's sin/cos otherwise.
HWY_INLINE void RotationFromAngle(VF angle, VF& c, VF& s) {
  const DF d;
  const hn::RebindToSigned<DF> di;
  const VF half_pi = hn::Set(d, 1.57079637f);
  const VF k = hn::Round(hn::Div(angle, half_pi));
  const MF quarter = hn::And(hn::Le(hn::Abs(k), hn::Set(d, 4096.0f)),
                             hn::Eq(hn::Mul(k, half_pi), angle));
  // ((k % 4) + 4) % 4 is the low two bits of k in two's complement.
  const auto q = hn::And(hn::ConvertTo(di, k), hn::Set(di, 3));
  const VF one = hn::Set(d, 1.0f);
  const VF minus_one = hn::Set(d, -1.0f);
  const auto q_is = [&](int v) {
    return hn::RebindMask(d, hn::Eq(q, hn::Set(di, v)));
  };
  const VF qc = hn::IfThenElse(q_is(0), one,
                               hn::IfThenElse(q_is(2), minus_one, hn::Zero(d)));
  const VF qs = hn::IfThenElse(q_is(1), one,
                               hn::IfThenElse(q_is(3), minus_one, hn::Zero(d)));
  if (hn::AllTrue(d, quarter)) {
    c = qc;
    s = qs;
    return;
  }
  c = hn::IfThenElse(quarter, qc, hn::Cos(d, angle));
  s = hn::IfThenElse(quarter, qs, hn::Sin(d, angle));
}

// c - Clamp(c, lo, hi) as far as BallBox uses it: only its square (and, in
// the scalar reference, whether it is 0, which BallBox reads from the depth's
// sign instead). Where c equals a bound the min/max below may return the
// other one of the two equal values, so only the sign of a zero can differ
// from Clamp's, and squares cannot see it. The operand order is the point:
// with c as the first (register) operand x86 folds the loads of lo and hi
// into vminps/vmaxps; with Clamp's order GCC folds c's load into vminps and
// loads c a second time for the subtraction, 9 loads per vector for 7
// columns (circle-rect) and 13 for 10 (sphere-box), on load ports that bound
// the hit-only kernels.
HWY_INLINE VF ClampOffset(VF c, VF lo, VF hi) {
  return hn::Sub(c, hn::Max(hn::Min(c, hi), lo));
}

// Ball (centre c, radius r) against the closed box [lo, hi]: BallBox<N>.
template <int N, bool kSep, bool kHitIncl>
HWY_INLINE void BallBox(const VF* c, VF r, const VF* lo, const VF* hi,
                        MF& overlap, MF& touch, VF& sep) {
  const DF d;
  const VF zero = hn::Zero(d);
  if (kHitIncl) {  // touching or overlapping: d2 <= r2
    VF dv[N];
    for (int i = 0; i < N; ++i) dv[i] = ClampOffset(c[i], lo[i], hi[i]);
    overlap = hn::Le(Dot<N>(dv), hn::Mul(r, r));
    touch = overlap;
    return;
  }
  // Per axis, m = max(lo - c, c - hi): the distance outside the slab when
  // > 0, minus the distance to its nearer face when inside. max(m, 0) is
  // |c - Clamp(c, lo, hi)| exactly (lo - c == -(c - lo) in IEEE), so its
  // square is dv's; and the largest m over the axes is exactly minus
  // scalar.cc's depth, min over the axes of min(c - lo, hi - c) (same
  // values negated; its zeros' signs only reach a separation that a touch
  // zeroes, see below). Two subtractions per axis serve both, where the
  // clamp and the depth took five operations. The depth's sign is exactly
  // "strictly inside" (< 0 here) and "outside" (> 0): with gradual
  // underflow a - b is 0 only when a == b and has the sign of a - b. That
  // is two compares instead of 4N - 1 compares and logic ops.
  VF dv[N];
  VF minus_depth = zero;
  for (int i = 0; i < N; ++i) {
    const VF m = hn::Max(hn::Sub(lo[i], c[i]), hn::Sub(c[i], hi[i]));
    dv[i] = hn::Max(m, zero);
    minus_depth = i == 0 ? m : hn::Max(minus_depth, m);
  }
  const VF d2 = Dot<N>(dv);
  ClassifyBall(d2, hn::Mul(r, r), hn::Lt(minus_depth, zero), overlap, touch);
  if (!kSep) return;
  // A depth of 0 (c on a face) is a touch when r == 0, whose separation is
  // 0; with r > 0 both signs of the zero give -r.
  // sqrt(d2) - r outside, minus_depth - r inside: the operand chosen
  // first, then one subtraction (the same operation on the same values).
  const MF outside = hn::Lt(zero, minus_depth);
  const VF from = hn::IfThenElse(outside, hn::Sqrt(d2), minus_depth);
  sep = hn::IfThenZeroElse(touch, hn::Sub(from, r));
}

// BallBall<N>.
template <int N, bool kSep, bool kHitIncl>
HWY_INLINE void BallBall(const VF* a, VF ra, const VF* b, VF rb, MF& overlap,
                         MF& touch, VF& sep) {
  VF dv[N];
  for (int i = 0; i < N; ++i) dv[i] = hn::Sub(a[i], b[i]);
  const VF d2 = Dot<N>(dv);
  const VF r = hn::Add(ra, rb);
  const VF r2 = hn::Mul(r, r);
  if (kHitIncl) {
    overlap = hn::Le(d2, r2);
    touch = overlap;
    return;
  }
  overlap = hn::Lt(d2, r2);
  touch = hn::Eq(d2, r2);
  if (!kSep) return;
  sep = hn::IfThenZeroElse(touch, hn::Sub(hn::Sqrt(d2), r));
}

// BoxBox<N>: per-axis interval gaps.
template <int N, bool kSep, bool kHitIncl>
HWY_INLINE void BoxBox(const VF* alo, const VF* ahi, const VF* blo,
                       const VF* bhi, MF& overlap, MF& touch, VF& sep) {
  const DF d;
  const VF zero = hn::Zero(d);
  VF g[N];
  for (int i = 0; i < N; ++i) {
    g[i] = StdMax(hn::Sub(alo[i], bhi[i]), hn::Sub(blo[i], ahi[i]));
  }
  MF any_gap = hn::Gt(g[0], zero);
  MF all_overlap = hn::Lt(g[0], zero);
  for (int i = 1; i < N; ++i) {
    any_gap = hn::Or(any_gap, hn::Gt(g[i], zero));
    all_overlap = hn::And(all_overlap, hn::Lt(g[i], zero));
  }
  if (kHitIncl) {  // no axis with a gap
    overlap = hn::Not(any_gap);
    touch = overlap;
    return;
  }
  overlap = all_overlap;
  touch = hn::Not(hn::Or(any_gap, all_overlap));
  if (!kSep) return;
  VF sum = zero;
  VF max_g = hn::Set(d, -HUGE_VALF);
  for (int i = 0; i < N; ++i) {
    const VF pos = StdMax(g[i], zero);
    sum = hn::Add(sum, hn::Mul(pos, pos));
    max_g = StdMax(max_g, g[i]);
  }
  sep = hn::IfThenElse(any_gap, hn::Sqrt(sum),
                       hn::IfThenElse(all_overlap, max_g, zero));
}

// ---- Kernels: column order is the order of the public column structs,
// operand a first.

struct CircleCircleKernel {
  static constexpr size_t kCols = 6;
  template <bool kSep, bool kHitIncl>
  static HWY_INLINE void Eval(const VF* x, MF& o, MF& t, VF& s) {
    BallBall<2, kSep, kHitIncl>(x, x[2], x + 3, x[5], o, t, s);
  }
};

struct CircleRectKernel {
  static constexpr size_t kCols = 7;
  template <bool kSep, bool kHitIncl>
  static HWY_INLINE void Eval(const VF* x, MF& o, MF& t, VF& s) {
    BallBox<2, kSep, kHitIncl>(x, x[2], x + 3, x + 5, o, t, s);
  }
};

// Circle (x[0..2]) vs rotated rect (x[3..8]: size, pivot, position) with
// rotation (c, s): IntersectCircleRotatedRect via ToLocal and LocalBounds.
template <bool kSep, bool kHitIncl>
HWY_INLINE void CircleRotated(const VF* x, VF c, VF s, MF& o, MF& t, VF& sep) {
  const VF rx = hn::Sub(x[0], x[7]);
  const VF ry = hn::Sub(x[1], x[8]);
  const VF local[2] = {hn::Add(hn::Mul(c, rx), hn::Mul(s, ry)),
                       hn::Sub(hn::Mul(c, ry), hn::Mul(s, rx))};
  const VF lo[2] = {Negate(x[5]), Negate(x[6])};
  const VF hi[2] = {hn::Sub(x[3], x[5]), hn::Sub(x[4], x[6])};
  BallBox<2, kSep, kHitIncl>(local, x[2], lo, hi, o, t, sep);
}

struct CircleRotatedRectKernel {
  static constexpr size_t kCols = 11;
  template <bool kSep, bool kHitIncl>
  static HWY_INLINE void Eval(const VF* x, MF& o, MF& t, VF& s) {
    CircleRotated<kSep, kHitIncl>(x, x[9], x[10], o, t, s);
  }
};

struct CircleRotatedRectAngleKernel {
  static constexpr size_t kCols = 10;
  template <bool kSep, bool kHitIncl>
  static HWY_INLINE void Eval(const VF* x, MF& o, MF& t, VF& s) {
    VF c, sn;
    RotationFromAngle(x[9], c, sn);
    CircleRotated<kSep, kHitIncl>(x, c, sn, o, t, s);
  }
};

struct RectRectKernel {
  static constexpr size_t kCols = 8;
  template <bool kSep, bool kHitIncl>
  static HWY_INLINE void Eval(const VF* x, MF& o, MF& t, VF& s) {
    BoxBox<2, kSep, kHitIncl>(x, x + 2, x + 4, x + 6, o, t, s);
  }
};

struct SphereSphereKernel {
  static constexpr size_t kCols = 8;
  template <bool kSep, bool kHitIncl>
  static HWY_INLINE void Eval(const VF* x, MF& o, MF& t, VF& s) {
    BallBall<3, kSep, kHitIncl>(x, x[3], x + 4, x[7], o, t, s);
  }
};

struct SphereBoxKernel {
  static constexpr size_t kCols = 10;
  template <bool kSep, bool kHitIncl>
  static HWY_INLINE void Eval(const VF* x, MF& o, MF& t, VF& s) {
    BallBox<3, kSep, kHitIncl>(x, x[3], x + 4, x + 7, o, t, s);
  }
};

struct BoxBoxKernel {
  static constexpr size_t kCols = 12;
  template <bool kSep, bool kHitIncl>
  static HWY_INLINE void Eval(const VF* x, MF& o, MF& t, VF& s) {
    BoxBox<3, kSep, kHitIncl>(x, x + 3, x + 6, x + 9, o, t, s);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace collision
HWY_AFTER_NAMESPACE();

#endif  // COLLISION_SIMD_INTERSECT_INL_H_
