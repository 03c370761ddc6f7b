// Scalar reference implementation of every query. Plain C++, float32, one
// pair at a time. The SIMD kernels are tested against these functions, and
// the conventions below are the service's contract (see shapes.h).
//
// Intersection of a circle (or point: radius 0) with a rectangle clamps the
// centre into the rectangle (seed 000/001); for a rotated rectangle the centre
// is first moved into the rectangle's local frame (seed 003/004). Spheres and
// boxes use the same clamp per axis (seed 002). The seeds: docs/references.md.
#ifndef COLLISION_CORE_SCALAR_H_
#define COLLISION_CORE_SCALAR_H_

#include "collision/core/kinds.h"
#include "collision/core/shapes.h"

namespace collision {

// ---- Intersect -------------------------------------------------------------

// Which pairs are answered: IsSupportedIntersectPair (kinds.h).

// Answers a supported pair (debug-asserts support). Symmetric: Intersect(a, b)
// equals Intersect(b, a).
IntersectResult Intersect(const Shape& a, const Shape& b, Boundary boundary);

// Circles (points are circles of radius 0). Overlapping when
// d2 < (ra + rb)^2, touching when equal. Two coincident points touch.
IntersectResult IntersectCircleCircle(const Circle& a, const Circle& b,
                                      Boundary boundary);
// Circle vs axis-aligned rectangle by clamping: with q = clamp(center, r),
// d2 = |center - q|^2 is compared with radius^2. A zero-radius circle
// (a point) overlaps when strictly inside and touches on the boundary.
IntersectResult IntersectCircleRect(const Circle& c, const Rect& r,
                                    Boundary boundary);
// The same in the rotated rectangle's local frame (see RotatedRect).
IntersectResult IntersectCircleRotatedRect(const Circle& c,
                                           const RotatedRect& r,
                                           Boundary boundary);
// Axis-aligned rectangles: per-axis interval gaps. Touching when the gaps
// are <= 0 and one is exactly 0.
IntersectResult IntersectRectRect(const Rect& a, const Rect& b,
                                  Boundary boundary);
IntersectResult IntersectSphereSphere(const Sphere& a, const Sphere& b,
                                      Boundary boundary);
IntersectResult IntersectSphereBox(const Sphere& s, const Box& b,
                                   Boundary boundary);
IntersectResult IntersectBoxBox(const Box& a, const Box& b, Boundary boundary);

// ---- ClosestPoint ----------------------------------------------------------

// Which pairs are answered: IsSupportedClosestPointPair (kinds.h).

// Closest point on `target` to the query's centre; see ClosestPointResult.
ClosestPointResult ClosestPoint(const Shape& query, const Shape& target,
                                Boundary boundary);

// Per target kind; `radius` is the query radius (0 for a point query) and
// only affects `gap`.
ClosestPointResult ClosestPointOnCircle(Vec2 p, float radius,
                                        const Circle& target,
                                        Boundary boundary);
ClosestPointResult ClosestPointOnRect(Vec2 p, float radius, const Rect& target,
                                      Boundary boundary);
ClosestPointResult ClosestPointOnRotatedRect(Vec2 p, float radius,
                                             const RotatedRect& target,
                                             Boundary boundary);
ClosestPointResult ClosestPointOnSphere(Vec3 p, float radius,
                                        const Sphere& target,
                                        Boundary boundary);
ClosestPointResult ClosestPointOnBox(Vec3 p, float radius, const Box& target,
                                     Boundary boundary);

// ---- Frames ----------------------------------------------------------------

// World point -> the rotated rectangle's local frame (pivot at the origin,
// rectangle spanning [-pivot, size - pivot]): R^T * (p - position).
Vec2 ToLocal(const RotatedRect& r, Vec2 world);
// Local vector/point -> world: R * local (+ position for points).
Vec2 ToWorldPoint(const RotatedRect& r, Vec2 local);
Vec2 ToWorldVector(const RotatedRect& r, Vec2 local);
// The rotated rectangle's local bounds [-pivot, size - pivot].
Rect LocalBounds(const RotatedRect& r);

// Relation from d2 (squared distance from the query centre to the closed
// target) and r2 (squared query radius): the shared rule of every
// centre-vs-shape test. `strictly_inside` says whether the centre is in the
// target's interior; it decides between touching and overlapping when both
// squares are 0.
Relation ClassifyBall(float d2, float r2, bool strictly_inside);

}  // namespace collision

#endif  // COLLISION_CORE_SCALAR_H_
