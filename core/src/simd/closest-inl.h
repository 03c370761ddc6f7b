// Per-target ClosestPoint kernels: scalar.cc's ClosestOnBox and ClosestOnBall
// over vectors of queries. Both branches (centre outside / inside) are
// computed and blended, which gives the same bits as the scalar branches.
#if defined(COLLISION_SIMD_CLOSEST_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef COLLISION_SIMD_CLOSEST_INL_H_
#undef COLLISION_SIMD_CLOSEST_INL_H_
#else
#define COLLISION_SIMD_CLOSEST_INL_H_
#endif

#include <limits>

#include "hwy/highway.h"
#include "simd/common-inl.h"

HWY_BEFORE_NAMESPACE();
namespace collision {
namespace simd {
namespace HWY_NAMESPACE {

// Below the smallest normal float a squared length has lost too many bits to
// normalise by: scalar.cc then uses NormalizeTiny.
HWY_INLINE VF MinNormal() {
  return hn::Set(DF(), std::numeric_limits<float>::min());
}

template <int N>
struct ClosestV {
  VF closest[N];
  VF surface[N];
  VF normal[N];
  VF signed_distance;
  MF inside;
};

// ClosestOnBox<N>: closest point of the closed box [lo, hi] to p.
template <int N>
HWY_INLINE void ClosestOnBox(const VF* p, const VF* lo, const VF* hi,
                             bool inclusive, ClosestV<N>& out) {
  const DF d;
  const VF zero = hn::Zero(d);
  VF q[N], dv[N];
  MF outside = hn::Lt(zero, zero);  // all false
  for (int i = 0; i < N; ++i) {
    q[i] = Clamp(p[i], lo[i], hi[i]);
    dv[i] = hn::Sub(p[i], q[i]);
    outside = hn::Or(outside, hn::Ne(dv[i], zero));
  }
  // Outside: normal along p - q.
  const VF d2 = Dot<N>(dv);
  const VF len = hn::Sqrt(d2);
  VF n[N];
  for (int i = 0; i < N; ++i) n[i] = hn::Div(dv[i], len);
  const MF tiny = hn::AndNot(hn::Ge(d2, MinNormal()), outside);
  if (HWY_UNLIKELY(!hn::AllFalse(d, tiny))) {
    VF t[N];
    NormalizeTiny<N>(dv, t);
    for (int i = 0; i < N; ++i) n[i] = hn::IfThenElse(tiny, t[i], n[i]);
  }
  // Inside or on the boundary: the nearest face, first in -x, +x, -y, ...
  VF best = hn::Sub(p[0], lo[0]);
  VF face = zero;
  for (int i = 0; i < N; ++i) {
    const VF to_lo = hn::Sub(p[i], lo[i]);
    const VF to_hi = hn::Sub(hi[i], p[i]);
    const MF m_lo = hn::Lt(to_lo, best);
    best = hn::IfThenElse(m_lo, to_lo, best);
    face = hn::IfThenElse(m_lo, hn::Set(d, static_cast<float>(2 * i)), face);
    const MF m_hi = hn::Lt(to_hi, best);
    best = hn::IfThenElse(m_hi, to_hi, best);
    face =
        hn::IfThenElse(m_hi, hn::Set(d, static_cast<float>(2 * i + 1)), face);
  }
  for (int i = 0; i < N; ++i) {
    const MF is_lo = hn::Eq(face, hn::Set(d, static_cast<float>(2 * i)));
    const MF is_hi = hn::Eq(face, hn::Set(d, static_cast<float>(2 * i + 1)));
    const VF s =
        hn::IfThenElse(is_lo, lo[i], hn::IfThenElse(is_hi, hi[i], p[i]));
    const VF an = hn::IfThenElse(is_lo, hn::Set(d, -1.0f),
                                 hn::IfThenElse(is_hi, hn::Set(d, 1.0f), zero));
    out.closest[i] = hn::IfThenElse(outside, q[i], p[i]);
    out.surface[i] = hn::IfThenElse(outside, q[i], s);
    out.normal[i] = hn::IfThenElse(outside, n[i], an);
  }
  const VF inside_sd = hn::IfThenElse(hn::Eq(best, zero), zero, Negate(best));
  out.signed_distance = hn::IfThenElse(outside, len, inside_sd);
  out.inside =
      inclusive ? hn::Not(outside) : hn::AndNot(outside, hn::Gt(best, zero));
}

// ClosestOnBall<N>: closest point of the closed ball (c, r) to p.
template <int N>
HWY_INLINE void ClosestOnBall(const VF* p, const VF* c, VF r, bool inclusive,
                              ClosestV<N>& out) {
  const DF d;
  const VF zero = hn::Zero(d);
  VF v[N];
  MF apart = hn::Lt(zero, zero);  // all false
  for (int i = 0; i < N; ++i) {
    v[i] = hn::Sub(p[i], c[i]);
    apart = hn::Or(apart, hn::Ne(v[i], zero));
  }
  const VF l2 = Dot<N>(v);
  const VF r2 = hn::Mul(r, r);
  const VF len = hn::Sqrt(l2);
  const MF positive = hn::Ge(l2, MinNormal());
  VF n[N];
  for (int i = 0; i < N; ++i) n[i] = hn::Div(v[i], len);
  const MF tiny = hn::AndNot(positive, apart);
  if (HWY_UNLIKELY(!hn::AllFalse(d, tiny))) {
    VF t[N];
    NormalizeTiny<N>(v, t);
    for (int i = 0; i < N; ++i) n[i] = hn::IfThenElse(tiny, t[i], n[i]);
  }
  // Centre at the centre: +x by convention.
  const MF centred = hn::Not(hn::Or(positive, apart));
  n[0] = hn::IfThenElse(centred, hn::Set(d, 1.0f), n[0]);
  for (int i = 1; i < N; ++i) n[i] = hn::IfThenElseZero(hn::Not(centred), n[i]);
  const MF within = hn::Le(l2, r2);
  for (int i = 0; i < N; ++i) {
    out.surface[i] = hn::Add(c[i], hn::Mul(r, n[i]));
    out.normal[i] = n[i];
    out.closest[i] = hn::IfThenElse(within, p[i], out.surface[i]);
  }
  const MF on = hn::Eq(l2, r2);
  out.signed_distance = hn::IfThenElse(on, zero, hn::Sub(len, r));
  out.inside = inclusive ? within : hn::Lt(l2, r2);
}

// Writes a ClosestV into the driver's output order; 2D gets z = 0.
template <int N>
HWY_INLINE void Emit(const ClosestV<N>& c, VF radius, VF* f, MF& inside) {
  const VF zero = hn::Zero(DF());
  for (int i = 0; i < 9; ++i) f[i] = zero;
  for (int i = 0; i < N; ++i) {
    f[i] = c.closest[i];
    f[3 + i] = c.surface[i];
    f[6 + i] = c.normal[i];
  }
  f[9] = c.signed_distance;
  f[10] = hn::Sub(c.signed_distance, radius);
  inside = c.inside;
}

// ---- Kernels: query ball columns first, then the target's columns in the
// order of the public column structs.

struct OnCircleKernel {
  static constexpr size_t kCols = 6;
  static HWY_INLINE void Eval(const VF* x, bool inclusive, VF* f, MF& in) {
    ClosestV<2> c;
    ClosestOnBall<2>(x, x + 3, x[5], inclusive, c);
    Emit<2>(c, x[2], f, in);
  }
};

struct OnRectKernel {
  static constexpr size_t kCols = 7;
  static HWY_INLINE void Eval(const VF* x, bool inclusive, VF* f, MF& in) {
    ClosestV<2> c;
    ClosestOnBox<2>(x, x + 3, x + 5, inclusive, c);
    Emit<2>(c, x[2], f, in);
  }
};

// ClosestPointOnRotatedRect: the rect answer in the local frame, mapped back
// with ToWorldPoint/ToWorldVector; the closest point is the query centre
// itself unless the centre is strictly outside.
struct OnRotatedRectKernel {
  static constexpr size_t kCols = 11;
  static HWY_INLINE void Eval(const VF* x, bool inclusive, VF* f, MF& in) {
    const VF cs = x[9];
    const VF sn = x[10];
    const VF rx = hn::Sub(x[0], x[7]);
    const VF ry = hn::Sub(x[1], x[8]);
    const VF local[2] = {hn::Add(hn::Mul(cs, rx), hn::Mul(sn, ry)),
                         hn::Sub(hn::Mul(cs, ry), hn::Mul(sn, rx))};
    const VF lo[2] = {Negate(x[5]), Negate(x[6])};
    const VF hi[2] = {hn::Sub(x[3], x[5]), hn::Sub(x[4], x[6])};
    ClosestV<2> c;
    ClosestOnBox<2>(local, lo, hi, inclusive, c);
    const VF sx = hn::Sub(hn::Mul(cs, c.surface[0]), hn::Mul(sn, c.surface[1]));
    const VF sy = hn::Add(hn::Mul(sn, c.surface[0]), hn::Mul(cs, c.surface[1]));
    const VF nx = hn::Sub(hn::Mul(cs, c.normal[0]), hn::Mul(sn, c.normal[1]));
    const VF ny = hn::Add(hn::Mul(sn, c.normal[0]), hn::Mul(cs, c.normal[1]));
    c.surface[0] = hn::Add(x[7], sx);
    c.surface[1] = hn::Add(x[8], sy);
    c.normal[0] = nx;
    c.normal[1] = ny;
    const MF out = hn::Gt(c.signed_distance, hn::Zero(DF()));
    c.closest[0] = hn::IfThenElse(out, c.surface[0], x[0]);
    c.closest[1] = hn::IfThenElse(out, c.surface[1], x[1]);
    Emit<2>(c, x[2], f, in);
  }
};

struct OnSphereKernel {
  static constexpr size_t kCols = 8;
  static HWY_INLINE void Eval(const VF* x, bool inclusive, VF* f, MF& in) {
    ClosestV<3> c;
    ClosestOnBall<3>(x, x + 4, x[7], inclusive, c);
    Emit<3>(c, x[3], f, in);
  }
};

struct OnBoxKernel {
  static constexpr size_t kCols = 10;
  static HWY_INLINE void Eval(const VF* x, bool inclusive, VF* f, MF& in) {
    ClosestV<3> c;
    ClosestOnBox<3>(x, x + 4, x + 7, inclusive, c);
    Emit<3>(c, x[3], f, in);
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace collision
HWY_AFTER_NAMESPACE();

#endif  // COLLISION_SIMD_CLOSEST_INL_H_
