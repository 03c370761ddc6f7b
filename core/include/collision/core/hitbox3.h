// 3D hitbox geometry: capsules and oriented boxes (shapes.h), the shapes
// game servers build characters from and check shots against (issue #36).
// Pure scalar functions, one pair at a time.
//
// Conventions (shapes.h, cast.h): any length unit, the same for every value
// of a call; float32 in and out; right-handed x/y/z; shapes are closed sets;
// Boundary decides whether touching is a hit. Inputs are assumed validated
// (finite, |value| <= kMaxMagnitude, radii and half-extents >= 0, unit
// quaternions and directions); the wire layer will check them. Invalid input
// (NaN, Inf, a non-unit quaternion far from 1) gives unspecified numbers but
// never a crash or an unbounded loop: every routine here runs a fixed number
// of steps.
//
// Separation, as IntersectResult documents it: the distance between the
// shapes when disjoint (> 0), exactly 0 when touching, and minus the
// penetration depth (the length of the smallest translation that separates
// them) when overlapping.
//
// Relation with degenerate shapes (zero radius, zero half-extents): two
// shapes that meet overlap when no arbitrarily small translation parts
// them (positive penetration depth), and touch otherwise. This agrees with
// shapes.h for the existing kinds (a point strictly inside a box overlaps,
// crossing segments and coplanar flat boxes only touch) and decides the
// new cases: a segment (zero-radius capsule) that pierces a flat box, or
// two flat boxes that cross like a plus sign, overlap.
//
// Precision: computed in float without fused multiply-add. Relations are
// decided from squared float distances like the rest of the core, so
// integer inputs on axis-aligned or quarter-turned shapes give exact
// answers; otherwise a relation can flip only when the shapes are within a
// few float ulps of the scale of the inputs from touching.
#ifndef COLLISION_CORE_HITBOX3_H_
#define COLLISION_CORE_HITBOX3_H_

#include <optional>

#include "collision/core/shapes.h"

namespace collision {

// ---- Intersect -------------------------------------------------------------
//
// Relation and separation as in shapes.h. All are symmetric in their
// arguments (only one order is declared).

// Capsules: d = distance between the two segments (closed form, Ericson
// 5.1.9, with the line parameter written through the cross product of the
// directions so that nearly parallel segments keep their precision;
// parallel and zero-length segments handled), compared with r = ra + rb as
// d2 <= r^2 in float. Separation d - r. Two zero-radius capsules that meet
// only touch (segments have no interior).
IntersectResult Intersect(const Capsule3& a, const Capsule3& b,
                          Boundary boundary);
// Sphere vs capsule: the capsule pair with a zero-length first segment,
// bit for bit.
IntersectResult Intersect(const Sphere& a, const Capsule3& b,
                          Boundary boundary);
// Sphere vs oriented box: the sphere centre is moved into the box frame
// and clamped, as IntersectSphereBox does (seed 002). A centre inside the
// box: separation = -(radius + distance to the nearest face). A
// zero-radius sphere strictly inside overlaps, on the surface touches.
IntersectResult Intersect(const Sphere& a, const OrientedBox& b,
                          Boundary boundary);
// Capsule vs oriented box: d = distance from the segment to the solid box,
// computed in the box frame by exact minimisation of the convex piecewise
// quadratic squared distance along the segment (at most 7 pieces, no
// iteration). When the segment enters the box, the penetration depth is
// radius + the segment's own depth, the smallest overlap over the 6
// separating axes of a segment and a box (the 3 box axes and the 3 cross
// products of the segment with them). A zero-radius capsule overlaps when
// its segment meets the box's interior (or pierces a flat box) and touches
// when it only runs along the surface. A zero-length capsule answers
// exactly as Intersect(Sphere, OrientedBox).
IntersectResult Intersect(const Capsule3& a, const OrientedBox& b,
                          Boundary boundary);
// Oriented boxes. First the separating axis test (Gottschalk et al. 1996,
// "OBBTree") over the 15 axes: overlapping when every axis overlaps with
// positive extent, the depth is the smallest overlap. Cross axes of edges
// closer than ~1e-6 rad to parallel are skipped (their direction is
// rounding noise; the face axes then bound the depth within about size *
// 1e-6). Otherwise the Euclidean distance, the smallest distance from any
// of the 24 edges of either box to the other box (two disjoint convex
// polytopes have a closest pair with a point on an edge), and touching
// when it is 0. The edges are searched from the features the SAT's best
// axis points at, and the search stops once the gap along some direction
// (a lower bound) meets the best distance found (an upper bound) within
// about an ulp of the magnitudes (centre offset plus half-extents): most
// pairs take one segment or two corner distances. Pairs within rounding of
// touching may come out overlapping by a rounding-sized depth or disjoint
// by a rounding-sized distance. Measured against the double reference for
// boxes turned 1e-1 to 1e-7 rad from each other: within 2e-7 of the size.
IntersectResult Intersect(const OrientedBox& a, const OrientedBox& b,
                          Boundary boundary);

// ---- Closest points --------------------------------------------------------

// Signed distance between two shapes with the points that realise it.
// - distance: as IntersectResult::separation (negative: penetration depth).
// - normal: unit, from a towards b: moving b by t * normal for t >= 0 never
//   brings the shapes closer; when overlapping, moving b by -distance *
//   normal separates them (to touching). When disjoint it is the direction
//   between the closest points, so its angle is only as good as they are
//   over the distance. Where the distance is flat around its minimum (an
//   end point or corner against an edge) float places the closest point
//   along the edge only to about sqrt(ulp * distance): measured up to
//   ~2e-4 rad for unit boxes a tenth apart.
// - point_a on a's surface, point_b ~= point_a + distance * normal (exact
//   up to rounding). When disjoint or touching both are the closest pair.
// - Degenerate contact (the cores touch: capsule segments that intersect,
//   a sphere centre on a capsule's segment): the normal is taken
//   perpendicular to both segments (their cross product), else perpendicular
//   to the one segment (the axis with the smallest component of its
//   direction crossed with it), else +x.
struct Distance3 {
  Vec3 point_a;
  Vec3 point_b;
  Vec3 normal;
  float distance = 0;
};

Distance3 ClosestPoints(const Capsule3& a, const Capsule3& b);
Distance3 ClosestPoints(const Sphere& a, const Capsule3& b);
// Box pairs: when the sphere's centre or the capsule's segment is outside
// the box, the closest points (point_b on the box) and the normal between
// them. When it is inside (the core meets the box), the normal is the
// separating axis of least overlap (SegmentBox depth, see Intersect),
// oriented from a to b; point_a is a's support point along the normal (the
// point of a deepest in b) and point_b lies on b's supporting plane
// perpendicular to the normal (on b's face for a face axis; for a sphere
// that is the face point nearest to its centre, ties in the order -x, +x,
// -y, +y, -z, +z of the box's local axes).
Distance3 ClosestPoints(const Sphere& a, const OrientedBox& b);
Distance3 ClosestPoints(const Capsule3& a, const OrientedBox& b);
// Boxes: when disjoint, the closest pair over the edges of Intersect's
// search that could come within rounding of the best (the distance may
// differ from Intersect's separation by about an ulp of the magnitudes;
// the pair does not depend on the argument order beyond rounding). When they
// meet, the normal is the SAT axis of least overlap, oriented from a's centre
// towards b's; point_a is a's corner deepest along it (its support point) and
// point_b = point_a + distance * normal lies on b's supporting plane. Touching
// boxes get distance 0 and point_b = point_a.
Distance3 ClosestPoints(const OrientedBox& a, const OrientedBox& b);

// ---- Ray casts (shot checks) -----------------------------------------------

struct RayHit3 {
  float t = 0;  // distance along the unit direction, in [0, max_t]
  Vec3 normal;  // unit outward normal of the target at the hit
};

// Ray (the segment origin + t * dir, t in [0, max_t]) against a capsule or
// an oriented box, with cast.h's conventions. `dir` is unit (within
// kDirectionUnitTolerance); max_t >= 0. Returns nullopt on a miss.
// - Boundary (default inclusive, the shot-check case): under kInclusive a
//   ray that grazes the closed shape hits at the touching point; under
//   kExclusive it hits only when the segment passes through the interior,
//   so a graze is a miss and a shape with no interior (a zero-radius
//   capsule, a box with a zero half-extent) is never hit. The reported t is
//   where the segment enters the closed shape under both rules.
// - Origin inside the closed shape: t = 0 and normal = -dir, the cast.h
//   convention for every hit at distance 0. Under kExclusive an origin on
//   the surface hits at 0 only if the ray moves into the interior.
// - Capsule: the first hit is the earliest of the hit on the cylinder side
//   (in the plane perpendicular to the axis, kept when the hit projects
//   inside the segment) and the hits on the two end spheres; the normal
//   points from the nearest axis point to the hit. A zero-length capsule is
//   a sphere. A zero-radius capsule (a segment) is hit, inclusive only,
//   where the cast segment meets it at exactly distance 0 in float
//   (normal = -dir): in practice only rays through its end points or along
//   axis-aligned integer lines.
// - Oriented box: a slab test in the box frame (origin and direction
//   turned by R^T). The normal is the face whose slab the ray entered last;
//   ties go to the first local axis in x, y, z order, as cast.h does for
//   Box. Quarter-turned boxes answer as RayCast against the axis-aligned
//   Box (same hit, t and normal, both rules) for inputs exact in float.
std::optional<RayHit3> Raycast(const Vec3& origin, const Vec3& dir, float max_t,
                               const Capsule3& capsule,
                               Boundary boundary = Boundary::kInclusive);
std::optional<RayHit3> Raycast(const Vec3& origin, const Vec3& dir, float max_t,
                               const OrientedBox& box,
                               Boundary boundary = Boundary::kInclusive);

// ---- As shapes of the service
// ------------------------------------------------

// An axis-aligned box as the oriented box it is: centre (min + max) / 2,
// half-extents (max - min) / 2, computed in float, identity rotation. Exact
// when those halves are exact in float (integers, halves, ...); otherwise
// the box moves by at most an ulp of its magnitude.
OrientedBox AsOrientedBox(const Box& box);

// Intersect(a, b) of shapes.h for a pair whose pairing has no SIMD kernel
// (kinds.h: the pairs with a capsule3 or an oriented box), in either order:
// a point3 is a sphere of radius 0, a box against a capsule3 or an oriented
// box is AsOrientedBox(box), and a capsule whose ends coincide is its
// sphere (the sphere's functions, so its bits). Symmetric bit for bit: two
// shapes of the same kind are computed in one order, the one whose bytes
// compare lower first (memcmp), since the typed functions may differ by
// rounding between the two orders. Debug-asserts the pairing.
IntersectResult IntersectHitboxPair(const Shape& a, const Shape& b,
                                    Boundary boundary);

// ClosestPoint of scalar.h (the query centre p with the query radius
// against a capsule3 or oriented box target): signed_distance and `inside`
// are the separation and hit of Intersect(point p, target) (decided from
// squared distances, exactly 0 when touching); surface_point, the normal
// (outward: minus ClosestPoints' normal) from ClosestPoints(point p,
// target); closest_point is the surface point when p is outside, else p.
// A capsule whose ends coincide: ClosestPointOnSphere of its sphere.
ClosestPointResult ClosestPointOnHitbox(Vec3 p, float radius,
                                        const Shape& target, Boundary boundary);

// ClosestPoint of scalar.h for a capsule3, box or oriented box query against
// any 3D target (ClosestPointResult's shape-query fields): the points and
// normal from ClosestPoints between the two (boxes as AsOrientedBox, a
// point3 as a sphere of radius 0, the arguments in the order the typed
// function takes them), signed_distance = gap and inside from Intersect of
// the two (exactly 0 when touching).
ClosestPointResult ClosestPointOfShapes(const Shape& query, const Shape& target,
                                        Boundary boundary);

// ---- Frames ----------------------------------------------------------------

// The box's rotation matrix, row-major: m[3 * row + col], world = R * local.
// Entries within 2^-22 of 0 or +-1 snapped (see OrientedBox).
struct Mat3 {
  float m[9];
};
Mat3 RotationMatrix(const Quat& q);

// ---- Casts on the Shape variant --------------------------------------------
//
// cast.h's RayCast(Vec3, ...) and SweepSphere answer capsule3 and
// oriented_box targets with the scene engine's conventions (cast.h): a
// capsule through Raycast above, its radius grown by the swept one (a
// zero-length capsule as the Sphere it is); an oriented box through
// cast.h's own box code in the box's frame. Where an oriented box's
// entering faces tie (a ray through an edge or a corner), cast.h takes the
// face whose local axis is closest to world x, then y, so that a
// quarter-turned box answers as the axis-aligned Box; Raycast above takes
// the first in local x, y, z order and may give another face's normal.

}  // namespace collision

#endif  // COLLISION_CORE_HITBOX3_H_
