// Ray casts and swept balls (shape casts) against one shape: the scalar
// reference the scene engine answers raycast and sweep queries with.
//
// Conventions (the same as shapes.h; the wire schema documents them too):
// - A cast is a segment: origin + t * direction for t in [0, max_distance],
//   `direction` a unit vector (see NormalizeDirection), `max_distance` >= 0,
//   in the same length unit as the shapes. Distances are values of t.
// - A swept ball is a circle (2D) or sphere (3D) of radius r moving its
//   centre along that segment; it hits a target at the first t where the
//   moving ball and the target (both closed) meet. It is a ray cast against
//   the target grown by r (the Minkowski sum: a rounded rectangle or box,
//   a capsule of radius + r). A radius 0 sweep is a ray cast, bit for bit.
// - Boundary rule, as for Intersect: under kInclusive the cast hits when
//   the segment meets the closed (grown) target, so a ray that only grazes
//   an edge, a corner or a circle's tangent hits at the touching point.
//   Under kExclusive it hits only when the segment passes through the
//   target's interior; a graze is a miss, and a target with no interior
//   (a point, a zero-radius circle, a zero-width rectangle, a bare segment
//   (a zero-radius capsule), a box with a zero half-extent, all when
//   r = 0) is never hit. The reported distance is where the segment enters
//   the closed (grown) target in both rules.
// - A ray meets a point (a Vec2/Vec3 target, or a circle or sphere of
//   radius 0) only when the point is on the segment's line as evaluated in
//   float: the cross product of (point - origin) and direction is exactly
//   0 (so integer points on an axis-aligned or diagonal ray are exact), at
//   t = dot(point - origin, direction) / |direction|^2, which must lie in
//   [0, max_distance]. The reported point is the target point itself and
//   the normal is -direction. A ray meets a bare segment (a zero-radius
//   capsule, when r = 0) under kInclusive only where the closest points of
//   the cast and of the segment coincide in float (Raycast in hitbox3.h):
//   in practice through its end points or on axis-aligned or diagonal
//   integer lines. The point is the meeting point, the normal -direction.
// - Starting inside: a cast whose origin is already in the (grown) target
//   (in its interior, or on its boundary under kInclusive) hits at
//   distance 0, point = the origin for a ray, the target's closest point to
//   the origin for a swept ball, and normal = -direction. A cast starting
//   on the boundary under kExclusive hits at 0 only if it moves into the
//   interior, and then reports the same point and normal: every hit at
//   distance 0 does, whatever the boundary rule and the face it enters by.
// - Hit point and normal: `point` is where the cast first touches the
//   target (on the target's surface for a swept ball, not the ball's
//   centre); `normal` is the target's unit outward normal there (for a
//   swept ball: from the contact point towards the ball's centre). On an
//   edge or corner of a rectangle or box hit exactly, the normal is the one
//   of the face whose slab the ray entered last (the largest entry t); ties
//   go to the first axis in x, y, z order. For a rotated rectangle the
//   slabs are its local ones and a tie goes to the local axis whose world
//   direction is closer to the x axis (local x when |cos| >= |sin|), so
//   that a quarter-turned rectangle gives the same hit, distance and
//   normal as the axis-aligned one (the point may differ by rounding, as it
//   goes through the local frame). An oriented box is cast the same way in
//   its frame (centred on it): ties go to the local axis whose world
//   direction is closest to x (largest |component|, the first local axis
//   on equal ones), then of the other two to the one closest to y. A box
//   turned by any multiple of 90 degrees (whose matrix snaps to a signed
//   permutation, see OrientedBox) thus answers a ray as the axis-aligned
//   Box it covers: same hit, distance and normal, and the same point
//   along an axis; a swept sphere with the same hit and distance, its
//   point and normal within rounding (all for inputs whose sums are exact
//   in float, e.g. integers). On a capsule the normal points from the
//   nearest point of its segment to the ray's point (the ball's centre)
//   and the point is that nearest point + radius * normal, so a seam
//   between the cylinder and an end sphere has no jump. A zero-length
//   capsule is cast as the sphere it is, bit for bit. An axis-aligned
//   rectangle is cast in its own frame too (its min corner at 0), so it
//   answers bit for bit as the rotated rectangle of the same corners with
//   no turn and no pivot, and as precisely far from the origin as near it
//   (the answer's error scales with the shapes and the cast, not with
//   their distance from the origin: tested to offsets of 1e6). 2D casts
//   report z = 0. On a miss every other field is 0.
// - Inputs are assumed validated like shapes.h (finite, |value| <=
//   kMaxMagnitude, unit direction within kDirectionUnitTolerance,
//   max_distance and radius >= 0); invalid input gives unspecified numbers,
//   never a crash.
//
// Precision: every result is computed in float, without fused
// multiply-add. Axis-aligned rays against rectangles and boxes (and the
// unrotated or quarter-turned rotated rectangle and oriented box) are
// exact for integer inputs: hit, distance, point and normal; so are the
// hit/miss decisions of integer rays along an axis against integer
// circles and spheres.
// Otherwise the answer is backward stable: with
// band = kCastDistanceTolerance * (1 + scale) (see the constant), it is the
// exact answer for a target grown or shrunk by at most `band`:
// - hit/miss is exact unless the segment's closest approach to the
//   (grown) target, or its deepest penetration of it, is within `band`;
// - `distance` lies between the exact entry distances into the target
//   grown by `band` and shrunk by `band`. For a cast crossing the surface
//   at an angle a that is an error of about band / sin(a). A cast that
//   nearly grazes the surface, or barely clips an edge or a corner, can be
//   off by much more: up to about sqrt(2 * band * radius) for a circle or
//   sphere, up to the length of a face it runs nearly parallel to;
// - `point` is within `band` of the target's closest point to the ray's
//   point (the ball's centre) at `distance`; for a swept ball,
//   point + radius * normal is within `band` of that centre, and for a ray
//   the plane through `point` with `normal` supports the target within
//   `band`.
// The same band holds for capsules and oriented boxes, measured against a
// double-precision reference that takes the oriented box's exact rotation
// (the float matrix, its snap of 2^-22 included, stays within the band).
// Over 10^6 random casts of each of rays and sweeps against each kind
// (both rules, integer and continuous inputs up to kMaxMagnitude, quarter
// and random turns, bare segments, flat boxes, origins inside) the worst,
// divided by (1 + scale), was: distance (backward) 4.4e-7, point 5.8e-7,
// normal 2e-7 for a ray (its plane's support gap), 9.9e-7 for a sweep (the
// gap between point + radius * normal and the centre, with a radius of
// the scale). A ray within 1e-6 rad of parallel to a capsule's axis does
// not test the cylinder's side (hitbox3's Raycast), so it may enter by an
// end sphere instead, having missed a penetration of at most 1e-6 *
// max_distance, inside the band. (CastAgainstReference.*Against* in
// tests/core/cast_reference_test.cc runs 50,000 of each and prints its
// worst; the 10^6 figures are that test with a larger count.)
#ifndef COLLISION_CORE_CAST_H_
#define COLLISION_CORE_CAST_H_

#include "collision/core/shapes.h"

namespace collision {

// Largest allowed deviation of |direction| from 1.
inline constexpr float kDirectionUnitTolerance = 1e-5f;

// Relative band of the precision statement above: band =
// kCastDistanceTolerance * (1 + scale), where scale is the largest absolute
// value among the cast's and the target's coordinates, sizes, pivots, radii
// and max_distance. A result passes through a handful of float roundings of
// values up to a few times the scale (frame change, grown bounds, slab
// division or quadratic, origin + t * direction), each within 2^-24 of the
// value; 4e-6 is about 64 such units of the scale, where the worst measured
// against a double-precision reference is about 5 (17 for a sweep's normal
// against an oriented box, through its rotated frame); the rest is margin
// (docs/decisions/0018-cast-distance-tolerance.md).
inline constexpr float kCastDistanceTolerance = 4e-6f;

struct CastResult {
  bool hit = false;
  float distance = 0;  // t of the first contact, in [0, max_distance].
  Vec3 point;          // contact point on the target; z = 0 in 2D.
  Vec3 normal;         // unit outward normal of the target at `point`.
};

// `direction` scaled to unit length by dividing each component by
// sqrt(x*x + y*y (+ z*z)), in float; axis-aligned directions come out
// exact. A direction so short that its squares underflow is first divided
// by its largest component. Returns a zero vector for a zero direction
// (callers reject that).
Vec2 NormalizeDirection(Vec2 direction);
Vec3 NormalizeDirection(Vec3 direction);

// Ray (segment) against a 2D target (point, circle, rect, rotated rect). A
// 3D target is a bug: debug-asserted, a miss otherwise (and the other way
// round for the 3D overloads).
CastResult RayCast(Vec2 origin, Vec2 direction, float max_distance,
                   const Shape& target, Boundary boundary);
// Ray against a 3D target (point3, sphere, box, capsule3, oriented_box).
CastResult RayCast(Vec3 origin, Vec3 direction, float max_distance,
                   const Shape& target, Boundary boundary);

// Circle of `radius` moving its centre from `origin` along the segment,
// against a 2D target. radius == 0 equals RayCast.
CastResult SweepCircle(Vec2 origin, float radius, Vec2 direction,
                       float max_distance, const Shape& target,
                       Boundary boundary);
// Sphere of `radius` moving along the segment, against a 3D target.
CastResult SweepSphere(Vec3 origin, float radius, Vec3 direction,
                       float max_distance, const Shape& target,
                       Boundary boundary);

}  // namespace collision

#endif  // COLLISION_CORE_CAST_H_
