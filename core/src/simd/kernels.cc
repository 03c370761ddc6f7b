// Highway dynamic dispatch of the kernels declared in kernels.h: this file is
// compiled once per target by foreach_target.h; HWY_EXPORT collects the
// per-target functions and HWY_DYNAMIC_DISPATCH picks the best one at run
// time (no -march flag needed).
#include "collision/core/kernels.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "simd/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"
#include "simd/closest-inl.h"
#include "simd/common-inl.h"
#include "simd/intersect-inl.h"

HWY_BEFORE_NAMESPACE();
namespace collision {
namespace simd {
namespace HWY_NAMESPACE {

const char* TargetNameT() { return hwy::TargetName(HWY_TARGET); }
size_t FloatLanesT() { return hn::Lanes(DF()); }

void RotationFromAngleT(const float* angle, size_t n, float* cos, float* sin) {
  const DF d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    VF c, s;
    RotationFromAngle(hn::LoadU(d, angle + i), c, s);
    hn::StoreU(c, d, cos + i);
    hn::StoreU(s, d, sin + i);
  }
  if (i < n) {
    const size_t rem = n - i;
    HWY_ALIGN float buf[1][kMaxLanes];
    const float* ptrs[1];
    PadTail<1>(&angle, i, rem, buf, ptrs);
    HWY_ALIGN float cbuf[kMaxLanes];
    HWY_ALIGN float sbuf[kMaxLanes];
    VF c, s;
    RotationFromAngle(hn::Load(d, buf[0]), c, s);
    hn::Store(c, d, cbuf);
    hn::Store(s, d, sbuf);
    for (size_t j = 0; j < rem; ++j) {
      cos[i + j] = cbuf[j];
      sin[i + j] = sbuf[j];
    }
  }
}

void CircleCircleT(const BallColumns2& a, const BallColumns2& b, size_t n,
                   Boundary boundary, const IntersectOutputs& out) {
  const float* in[] = {a.x, a.y, a.radius, b.x, b.y, b.radius};
  RunIntersect<CircleCircleKernel>(in, n, boundary, out);
}

void CircleRectT(const BallColumns2& a, const RectColumns& b, size_t n,
                 Boundary boundary, const IntersectOutputs& out) {
  const float* in[] = {a.x, a.y, a.radius, b.min_x, b.min_y, b.max_x, b.max_y};
  RunIntersect<CircleRectKernel>(in, n, boundary, out);
}

void CircleRotatedRectT(const BallColumns2& a, const RotatedRectColumns& b,
                        size_t n, Boundary boundary,
                        const IntersectOutputs& out) {
  const float* in[] = {a.x,          a.y,       a.radius,  b.size_x,
                       b.size_y,     b.pivot_x, b.pivot_y, b.position_x,
                       b.position_y, b.cos,     b.sin};
  RunIntersect<CircleRotatedRectKernel>(in, n, boundary, out);
}

void CircleRotatedRectAngleT(const BallColumns2& a,
                             const RotatedRectAngleColumns& b, size_t n,
                             Boundary boundary, const IntersectOutputs& out) {
  const float* in[] = {a.x,          a.y,       a.radius,  b.size_x,
                       b.size_y,     b.pivot_x, b.pivot_y, b.position_x,
                       b.position_y, b.angle};
  RunIntersect<CircleRotatedRectAngleKernel>(in, n, boundary, out);
}

void RectRectT(const RectColumns& a, const RectColumns& b, size_t n,
               Boundary boundary, const IntersectOutputs& out) {
  const float* in[] = {a.min_x, a.min_y, a.max_x, a.max_y,
                       b.min_x, b.min_y, b.max_x, b.max_y};
  RunIntersect<RectRectKernel>(in, n, boundary, out);
}

void SphereSphereT(const BallColumns3& a, const BallColumns3& b, size_t n,
                   Boundary boundary, const IntersectOutputs& out) {
  const float* in[] = {a.x, a.y, a.z, a.radius, b.x, b.y, b.z, b.radius};
  RunIntersect<SphereSphereKernel>(in, n, boundary, out);
}

void SphereBoxT(const BallColumns3& a, const BoxColumns& b, size_t n,
                Boundary boundary, const IntersectOutputs& out) {
  const float* in[] = {a.x,     a.y,     a.z,     a.radius, b.min_x,
                       b.min_y, b.min_z, b.max_x, b.max_y,  b.max_z};
  RunIntersect<SphereBoxKernel>(in, n, boundary, out);
}

void BoxBoxT(const BoxColumns& a, const BoxColumns& b, size_t n,
             Boundary boundary, const IntersectOutputs& out) {
  const float* in[] = {a.min_x, a.min_y, a.min_z, a.max_x, a.max_y, a.max_z,
                       b.min_x, b.min_y, b.min_z, b.max_x, b.max_y, b.max_z};
  RunIntersect<BoxBoxKernel>(in, n, boundary, out);
}

// The 11 float output columns in kernel order; z dropped for 2D.
inline void FloatOutputs(const ClosestPointOutputs& o, bool with_z, float** f) {
  float* all[kClosestFloats] = {
      o.closest_x,       o.closest_y, with_z ? o.closest_z : nullptr,
      o.surface_x,       o.surface_y, with_z ? o.surface_z : nullptr,
      o.normal_x,        o.normal_y,  with_z ? o.normal_z : nullptr,
      o.signed_distance, o.gap};
  for (size_t k = 0; k < kClosestFloats; ++k) f[k] = all[k];
}

void OnCircleT(const BallColumns2& q, const BallColumns2& t, size_t n,
               Boundary boundary, const ClosestPointOutputs& out) {
  const float* in[] = {q.x, q.y, q.radius, t.x, t.y, t.radius};
  float* f[kClosestFloats];
  FloatOutputs(out, false, f);
  RunClosest<OnCircleKernel>(in, n, boundary, f, out.inside);
}

void OnRectT(const BallColumns2& q, const RectColumns& t, size_t n,
             Boundary boundary, const ClosestPointOutputs& out) {
  const float* in[] = {q.x, q.y, q.radius, t.min_x, t.min_y, t.max_x, t.max_y};
  float* f[kClosestFloats];
  FloatOutputs(out, false, f);
  RunClosest<OnRectKernel>(in, n, boundary, f, out.inside);
}

void OnRotatedRectT(const BallColumns2& q, const RotatedRectColumns& t,
                    size_t n, Boundary boundary,
                    const ClosestPointOutputs& out) {
  const float* in[] = {q.x,          q.y,       q.radius,  t.size_x,
                       t.size_y,     t.pivot_x, t.pivot_y, t.position_x,
                       t.position_y, t.cos,     t.sin};
  float* f[kClosestFloats];
  FloatOutputs(out, false, f);
  RunClosest<OnRotatedRectKernel>(in, n, boundary, f, out.inside);
}

void OnSphereT(const BallColumns3& q, const BallColumns3& t, size_t n,
               Boundary boundary, const ClosestPointOutputs& out) {
  const float* in[] = {q.x, q.y, q.z, q.radius, t.x, t.y, t.z, t.radius};
  float* f[kClosestFloats];
  FloatOutputs(out, true, f);
  RunClosest<OnSphereKernel>(in, n, boundary, f, out.inside);
}

void OnBoxT(const BallColumns3& q, const BoxColumns& t, size_t n,
            Boundary boundary, const ClosestPointOutputs& out) {
  const float* in[] = {q.x,     q.y,     q.z,     q.radius, t.min_x,
                       t.min_y, t.min_z, t.max_x, t.max_y,  t.max_z};
  float* f[kClosestFloats];
  FloatOutputs(out, true, f);
  RunClosest<OnBoxKernel>(in, n, boundary, f, out.inside);
}

}  // namespace HWY_NAMESPACE
}  // namespace simd
}  // namespace collision
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace collision {
namespace simd {

HWY_EXPORT(TargetNameT);
HWY_EXPORT(FloatLanesT);
HWY_EXPORT(RotationFromAngleT);
HWY_EXPORT(CircleCircleT);
HWY_EXPORT(CircleRectT);
HWY_EXPORT(CircleRotatedRectT);
HWY_EXPORT(CircleRotatedRectAngleT);
HWY_EXPORT(RectRectT);
HWY_EXPORT(SphereSphereT);
HWY_EXPORT(SphereBoxT);
HWY_EXPORT(BoxBoxT);
HWY_EXPORT(OnCircleT);
HWY_EXPORT(OnRectT);
HWY_EXPORT(OnRotatedRectT);
HWY_EXPORT(OnSphereT);
HWY_EXPORT(OnBoxT);

const char* TargetName() { return HWY_DYNAMIC_DISPATCH(TargetNameT)(); }

size_t FloatLanes() {
  static const size_t lanes = HWY_DYNAMIC_DISPATCH(FloatLanesT)();
  return lanes;
}

void RotationFromAngleColumns(const float* angle, size_t n, float* cos,
                              float* sin) {
  HWY_DYNAMIC_DISPATCH(RotationFromAngleT)(angle, n, cos, sin);
}

void IntersectCircleCircleColumns(const BallColumns2& a, const BallColumns2& b,
                                  size_t n, Boundary boundary,
                                  const IntersectOutputs& out) {
  HWY_DYNAMIC_DISPATCH(CircleCircleT)(a, b, n, boundary, out);
}

void IntersectCircleRectColumns(const BallColumns2& a, const RectColumns& b,
                                size_t n, Boundary boundary,
                                const IntersectOutputs& out) {
  HWY_DYNAMIC_DISPATCH(CircleRectT)(a, b, n, boundary, out);
}

void IntersectCircleRotatedRectColumns(const BallColumns2& a,
                                       const RotatedRectColumns& b, size_t n,
                                       Boundary boundary,
                                       const IntersectOutputs& out) {
  HWY_DYNAMIC_DISPATCH(CircleRotatedRectT)(a, b, n, boundary, out);
}

void IntersectCircleRotatedRectAngleColumns(const BallColumns2& a,
                                            const RotatedRectAngleColumns& b,
                                            size_t n, Boundary boundary,
                                            const IntersectOutputs& out) {
  HWY_DYNAMIC_DISPATCH(CircleRotatedRectAngleT)(a, b, n, boundary, out);
}

void IntersectRectRectColumns(const RectColumns& a, const RectColumns& b,
                              size_t n, Boundary boundary,
                              const IntersectOutputs& out) {
  HWY_DYNAMIC_DISPATCH(RectRectT)(a, b, n, boundary, out);
}

void IntersectSphereSphereColumns(const BallColumns3& a, const BallColumns3& b,
                                  size_t n, Boundary boundary,
                                  const IntersectOutputs& out) {
  HWY_DYNAMIC_DISPATCH(SphereSphereT)(a, b, n, boundary, out);
}

void IntersectSphereBoxColumns(const BallColumns3& a, const BoxColumns& b,
                               size_t n, Boundary boundary,
                               const IntersectOutputs& out) {
  HWY_DYNAMIC_DISPATCH(SphereBoxT)(a, b, n, boundary, out);
}

void IntersectBoxBoxColumns(const BoxColumns& a, const BoxColumns& b, size_t n,
                            Boundary boundary, const IntersectOutputs& out) {
  HWY_DYNAMIC_DISPATCH(BoxBoxT)(a, b, n, boundary, out);
}

void ClosestPointOnCircleColumns(const BallColumns2& query,
                                 const BallColumns2& target, size_t n,
                                 Boundary boundary,
                                 const ClosestPointOutputs& out) {
  HWY_DYNAMIC_DISPATCH(OnCircleT)(query, target, n, boundary, out);
}

void ClosestPointOnRectColumns(const BallColumns2& query,
                               const RectColumns& target, size_t n,
                               Boundary boundary,
                               const ClosestPointOutputs& out) {
  HWY_DYNAMIC_DISPATCH(OnRectT)(query, target, n, boundary, out);
}

void ClosestPointOnRotatedRectColumns(const BallColumns2& query,
                                      const RotatedRectColumns& target,
                                      size_t n, Boundary boundary,
                                      const ClosestPointOutputs& out) {
  HWY_DYNAMIC_DISPATCH(OnRotatedRectT)(query, target, n, boundary, out);
}

void ClosestPointOnSphereColumns(const BallColumns3& query,
                                 const BallColumns3& target, size_t n,
                                 Boundary boundary,
                                 const ClosestPointOutputs& out) {
  HWY_DYNAMIC_DISPATCH(OnSphereT)(query, target, n, boundary, out);
}

void ClosestPointOnBoxColumns(const BallColumns3& query,
                              const BoxColumns& target, size_t n,
                              Boundary boundary,
                              const ClosestPointOutputs& out) {
  HWY_DYNAMIC_DISPATCH(OnBoxT)(query, target, n, boundary, out);
}

}  // namespace simd
}  // namespace collision
#endif  // HWY_ONCE
