// SIMD kernels of the collision core: one query kind over many pairs at once.
//
// Data layout: struct of arrays. Every shape operand is a set of `const
// float*` columns of n elements (pair i is element i of every column); lanes
// run across pairs, never across x/y/z. Columns need no particular alignment
// and may alias each other (the same column for two operands is fine); they
// must not alias an output. Outputs go to caller-provided arrays of n
// elements (hit_bits: (n + 7) / 8 bytes).
//
// Semantics: every kernel answers exactly what the scalar reference in
// scalar.h answers for the same pair (same relation, hit, separation, closest
// point, normal, tie-breaks and signed zeros), computed with the same
// operations in the same order (multiply then add, never fused;
// correctly rounded sqrt and divide), so the results are bit-identical to
// scalar.h on every target. The one exception is the rotation computed from
// an angle (RotationFromAngleColumns and the *AngleColumns kernels): quarter
// turns are exact as in RotationFromAngle(), other angles use Highway's
// vectorised sin/cos, which is within kSinCosUlpTolerance of std::sin/std::cos
// but not bit-equal to it and may differ between targets (it uses fused
// multiply-add where the target has it). Everything after the rotation is
// exact, so an *AngleColumns kernel equals the cos/sin kernel fed with
// RotationFromAngleColumns' output, bit for bit. (What this promises users:
// proto/README.md, "Exactness across machines".)
//
// Normalised operands: the ball (point, circle, sphere) comes first; a point
// is a ball of radius 0. Inputs are assumed valid as in shapes.h (finite,
// |value| <= kMaxMagnitude, radii and sizes >= 0, min <= max,
// |angle| <= kMaxAngle); invalid input gives unspecified numbers, never a
// crash.
//
// Dispatch: the best Highway target for this CPU is chosen at the first call
// (AVX-512, AVX2, SSE4, ... or a portable fallback); all functions are
// thread-safe and allocation-free.
#ifndef COLLISION_CORE_KERNELS_H_
#define COLLISION_CORE_KERNELS_H_

#include <cstddef>
#include <cstdint>

#include "collision/core/shapes.h"

namespace collision {
namespace simd {

// Largest difference, in units of 2^-24 (one ulp of values in [0.5, 1)),
// between RotationFromAngleColumns' cos/sin and std::cos/std::sin for
// |angle| <= kMaxAngle, as measured by tests/simd on every target.
inline constexpr int kSinCosUlpTolerance = 4;

// ---- Input columns ----------------------------------------------------------

// Circles (2D balls); points have radius 0.
struct BallColumns2 {
  const float* x = nullptr;
  const float* y = nullptr;
  const float* radius = nullptr;
};

// Spheres (3D balls); 3D points have radius 0.
struct BallColumns3 {
  const float* x = nullptr;
  const float* y = nullptr;
  const float* z = nullptr;
  const float* radius = nullptr;
};

// Axis-aligned rectangles [min_x, max_x] x [min_y, max_y].
struct RectColumns {
  const float* min_x = nullptr;
  const float* min_y = nullptr;
  const float* max_x = nullptr;
  const float* max_y = nullptr;
};

// Axis-aligned boxes.
struct BoxColumns {
  const float* min_x = nullptr;
  const float* min_y = nullptr;
  const float* min_z = nullptr;
  const float* max_x = nullptr;
  const float* max_y = nullptr;
  const float* max_z = nullptr;
};

// Rotated rectangles with their rotation as (cos, sin); see RotatedRect.
struct RotatedRectColumns {
  const float* size_x = nullptr;
  const float* size_y = nullptr;
  const float* pivot_x = nullptr;
  const float* pivot_y = nullptr;
  const float* position_x = nullptr;
  const float* position_y = nullptr;
  const float* cos = nullptr;
  const float* sin = nullptr;
};

// Rotated rectangles with their rotation as an angle in radians, as on the
// wire; the kernel turns it into (cos, sin) like RotationFromAngleColumns.
struct RotatedRectAngleColumns {
  const float* size_x = nullptr;
  const float* size_y = nullptr;
  const float* pivot_x = nullptr;
  const float* pivot_y = nullptr;
  const float* position_x = nullptr;
  const float* position_y = nullptr;
  const float* angle = nullptr;
};

// ---- Outputs ----------------------------------------------------------------

// Where an Intersect kernel writes; every pointer may be null to skip that
// output. With separation == nullptr the kernel skips the square roots and
// the penetration depth (the hit-and-relation-only fast path).
struct IntersectOutputs {
  uint8_t* hit = nullptr;        // n bytes: 1 hit, 0 miss (IsHit()).
  uint8_t* hit_bits = nullptr;   // (n + 7) / 8 bytes: bit i (LSB first in
                                 // byte i / 8) = hit of pair i. Unused high
                                 // bits of the last byte are written as 0.
  Relation* relation = nullptr;  // n values.
  float* separation = nullptr;   // n values (IntersectResult::separation).
};

// Where a ClosestPoint kernel writes; see ClosestPointResult for the meaning.
// All pointers are required, except the *_z columns, which the 2D kernels
// ignore (the scalar reference reports z = 0 for 2D).
struct ClosestPointOutputs {
  float* closest_x = nullptr;
  float* closest_y = nullptr;
  float* closest_z = nullptr;
  float* surface_x = nullptr;
  float* surface_y = nullptr;
  float* surface_z = nullptr;
  float* normal_x = nullptr;
  float* normal_y = nullptr;
  float* normal_z = nullptr;
  float* signed_distance = nullptr;
  float* gap = nullptr;
  uint8_t* inside = nullptr;  // n bytes: 1 inside, 0 not.
};

// ---- Rotation ---------------------------------------------------------------

// cos[i], sin[i] = RotationFromAngle(angle[i]): exact quarter turns for
// angles that are exactly k * float(pi/2) (|k| <= 4096), Highway sin/cos
// otherwise (see kSinCosUlpTolerance). cos and sin may not alias angle.
void RotationFromAngleColumns(const float* angle, size_t n, float* cos,
                              float* sin);

// ---- Intersect --------------------------------------------------------------
// Each answers Intersect() of pair i = (operand a[i], operand b[i]). The
// batched twins of scalar.h's functions are named after them with a Columns
// suffix, so that a reader (and grep) tells the two apart.

// Circle/point vs circle/point (IntersectCircleCircle).
void IntersectCircleCircleColumns(const BallColumns2& a, const BallColumns2& b,
                                  size_t n, Boundary boundary,
                                  const IntersectOutputs& out);
// Circle/point vs axis-aligned rectangle (IntersectCircleRect).
void IntersectCircleRectColumns(const BallColumns2& a, const RectColumns& b,
                                size_t n, Boundary boundary,
                                const IntersectOutputs& out);
// Circle/point vs rotated rectangle given by (cos, sin)
// (IntersectCircleRotatedRect).
void IntersectCircleRotatedRectColumns(const BallColumns2& a,
                                       const RotatedRectColumns& b, size_t n,
                                       Boundary boundary,
                                       const IntersectOutputs& out);
// The same with the rotation given as an angle (sin/cos computed in the
// kernel, vectorised; see RotationFromAngleColumns).
void IntersectCircleRotatedRectAngleColumns(const BallColumns2& a,
                                            const RotatedRectAngleColumns& b,
                                            size_t n, Boundary boundary,
                                            const IntersectOutputs& out);
// Axis-aligned rectangle vs rectangle (IntersectRectRect).
void IntersectRectRectColumns(const RectColumns& a, const RectColumns& b,
                              size_t n, Boundary boundary,
                              const IntersectOutputs& out);
// Sphere/point3 vs sphere/point3 (IntersectSphereSphere).
void IntersectSphereSphereColumns(const BallColumns3& a, const BallColumns3& b,
                                  size_t n, Boundary boundary,
                                  const IntersectOutputs& out);
// Sphere/point3 vs box (IntersectSphereBox).
void IntersectSphereBoxColumns(const BallColumns3& a, const BoxColumns& b,
                               size_t n, Boundary boundary,
                               const IntersectOutputs& out);
// Box vs box (IntersectBoxBox).
void IntersectBoxBoxColumns(const BoxColumns& a, const BoxColumns& b, size_t n,
                            Boundary boundary, const IntersectOutputs& out);

// ---- ClosestPoint -----------------------------------------------------------
// The query is a ball: its centre is the query point, its radius only affects
// gap. Each answers ClosestPoint(query[i], target[i]).

// Target circle/point (ClosestPointOnCircle).
void ClosestPointOnCircleColumns(const BallColumns2& query,
                                 const BallColumns2& target, size_t n,
                                 Boundary boundary,
                                 const ClosestPointOutputs& out);
// Target axis-aligned rectangle (ClosestPointOnRect).
void ClosestPointOnRectColumns(const BallColumns2& query,
                               const RectColumns& target, size_t n,
                               Boundary boundary,
                               const ClosestPointOutputs& out);
// Target rotated rectangle given by (cos, sin) (ClosestPointOnRotatedRect).
void ClosestPointOnRotatedRectColumns(const BallColumns2& query,
                                      const RotatedRectColumns& target,
                                      size_t n, Boundary boundary,
                                      const ClosestPointOutputs& out);
// Target sphere/point3 (ClosestPointOnSphere).
void ClosestPointOnSphereColumns(const BallColumns3& query,
                                 const BallColumns3& target, size_t n,
                                 Boundary boundary,
                                 const ClosestPointOutputs& out);
// Target box (ClosestPointOnBox).
void ClosestPointOnBoxColumns(const BallColumns3& query,
                              const BoxColumns& target, size_t n,
                              Boundary boundary,
                              const ClosestPointOutputs& out);

// ---- Target -----------------------------------------------------------------

// Name of the Highway target the kernels run on ("AVX3", "AVX2", "SSE4",
// "EMU128", ...).
const char* TargetName();

// Floats in one vector of that target (4 on SSE4, 8 on AVX2, 16 on
// AVX-512): a kernel call over a multiple of it takes no tail path.
size_t FloatLanes();

}  // namespace simd
}  // namespace collision

#endif  // COLLISION_CORE_KERNELS_H_
