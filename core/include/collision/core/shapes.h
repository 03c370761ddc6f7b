// Shapes, conventions and result types of the collision core.
//
// Conventions (the same ones the wire schema `collision.v1` documents):
// - Units: any length unit, the same for every value of a query. float32.
// - Frame: right-handed x/y(/z). Nothing here depends on whether +y points up
//   or down; "min corner" is the top-left corner on a y-down screen and the
//   bottom-left corner in a y-up frame.
// - Angles: radians. A positive angle rotates counter-clockwise in a y-up
//   frame, which is clockwise on a y-down screen (the matrix is the same).
// - Boundary: shapes are closed sets. Touching (distance exactly 0) is a hit
//   under Boundary::kInclusive and not under Boundary::kExclusive.
// - Degenerate shapes are valid: zero radius (a point), zero width or height
//   (a segment or a point). Their answers are documented per function.
// - Inputs are assumed validated (finite, within kMaxMagnitude, radii and
//   sizes >= 0, max >= min); the core only debug-asserts that.
#ifndef COLLISION_CORE_SHAPES_H_
#define COLLISION_CORE_SHAPES_H_

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <variant>

namespace collision {

// Largest absolute value accepted for any coordinate, size, radius or pivot
// offset. Chosen so that every intermediate square stays far from float
// overflow (worst case ~1e20 vs FLT_MAX ~3.4e38).
inline constexpr float kMaxMagnitude = 1e9f;
// Largest absolute rotation angle accepted, in radians. The SIMD sin/cos is
// accurate to a few ulp on this range.
inline constexpr float kMaxAngle = 1e4f;
// Largest allowed deviation of cos^2 + sin^2 from 1 for a rotation given as
// a (cos, sin) pair. A float-rounded pair is within ~2.4e-7.
inline constexpr float kRotationUnitTolerance = 1e-5f;

struct Vec2 {
  float x = 0;
  float y = 0;
};

struct Vec3 {
  float x = 0;
  float y = 0;
  float z = 0;
};

// A 2D point is a Vec2; a 3D point is a Vec3.

struct Circle {
  Vec2 center;
  float radius = 0;  // >= 0; 0 behaves as a point.
};

// Axis-aligned rectangle as the closed set [min.x, max.x] x [min.y, max.y].
// min <= max per axis; equal bounds give a segment or a point.
struct Rect {
  Vec2 min;
  Vec2 max;
};

// A rotation by an angle, stored as its cosine and sine.
struct Rotation {
  float cos = 1;
  float sin = 0;
};

// Rotation for `angle` radians. Angles that are exactly k * float(pi/2)
// (computed in float, |k| <= 4096) give exact quarter turns (cos and sin in
// {-1, 0, 1}), so that a rectangle turned by a multiple of pi/2 answers
// exactly like the axis-aligned one. Other angles use float sin/cos.
Rotation RotationFromAngle(float angle);

// Rotated rectangle, in the parametrisation of seed 003 (docs/references.md
// describes the seeds): a w x h rectangle
// whose local frame has its min corner at -pivot, so it spans
// [-pivot.x, size.x - pivot.x] x [-pivot.y, size.y - pivot.y]. The local
// frame is rotated by `rotation` about the pivot and the pivot is placed at
// `position`: world = position + R * local, R = [[cos, -sin], [sin, cos]].
// pivot = size / 2 rotates about the centre (seed 004); pivot = (0, 0) about
// the min corner. Pivot may lie outside the rectangle.
struct RotatedRect {
  Vec2 size;
  Vec2 pivot;
  Vec2 position;
  Rotation rotation;
};

struct Sphere {
  Vec3 center;
  float radius = 0;  // >= 0; 0 behaves as a point.
};

// Axis-aligned box, the closed set [min, max] per axis; min <= max.
struct Box {
  Vec3 min;
  Vec3 max;
};

// Rotation as a unit quaternion w + xi + yj + zk; rotates v to q v q*.
// The core assumes |q| = 1 (the wire checks w^2 + x^2 + y^2 + z^2 within
// kRotationUnitTolerance of 1, as for the (cos, sin) of a Rotation, and
// refuses anything else rather than normalising it). A quaternion that is
// slightly off unit length is treated as the rotation it is closest to
// (the matrix divides by |q|^2). The default is the identity.
struct Quat {
  float w = 1;
  float x = 0;
  float y = 0;
  float z = 0;
};

// Capsule: every point within `radius` of the segment [a, b]. a == b is a
// sphere and answers exactly as Sphere{a, radius} in every function here;
// radius == 0 is the bare segment (no interior).
struct Capsule3 {
  Vec3 a;
  Vec3 b;
  float radius = 0;  // >= 0
};

// Oriented box: the closed set center + R * local for local in
// [-half_extents, half_extents], R the matrix of `rotation`. Half-extents
// >= 0; a zero half-extent gives a rectangle, a segment or a point.
//
// Quarter turns: the rotation matrix is computed from the quaternion in
// float and every entry within 2^-22 of 0 or of +-1 is snapped to it. So a
// box turned by any multiple of 90 degrees about the axes (whose quaternion
// components, like sqrt(1/2), are not exact in float) has an exact signed
// permutation matrix. For inputs whose sums and differences are exact in
// float (e.g. small integers) such a box then answers exactly as the
// axis-aligned Box with the same corners: bit for bit in
// Intersect(Sphere, OrientedBox) vs IntersectSphereBox,
// Intersect(OrientedBox, OrientedBox) vs IntersectBoxBox and Raycast vs
// RayCast along the axes (tested on all 24 turns); for a capsule the
// relation is exact and the separation of a slanted segment may differ by
// rounding (its sums run in the box's axis order). The snap changes a
// genuine rotation by at most about 2^-22 rad, below what its float
// components can express anyway.
struct OrientedBox {
  Vec3 center;
  Vec3 half_extents;  // >= 0 per axis
  Quat rotation;
};

using Shape = std::variant<Vec2, Circle, Rect, RotatedRect, Vec3, Sphere, Box,
                           Capsule3, OrientedBox>;

enum class ShapeKind : uint8_t {
  kPoint2 = 0,
  kCircle = 1,
  kRect = 2,
  kRotatedRect = 3,
  kPoint3 = 4,
  kSphere = 5,
  kBox = 6,
  kCapsule3 = 7,
  kOrientedBox = 8,
};
inline constexpr int kShapeKinds = 9;

// What the core knows of a shape kind, in one row. Everything else that
// lists kinds (column counts of the scene, the batch and the store, names,
// the pairings of kinds.h) reads this table or is held to it by a
// static_assert, so that a new kind is one row here plus its geometry.
struct ShapeKindInfo {
  ShapeKind kind;
  // The kind's name on the wire, in errors, metrics and the load tool.
  const char* name;
  int dimension;  // 2 or 3
  // Points, circles and spheres: the shapes that go first in a pair and
  // that closest-point queries are made of.
  bool ball;
  // The kind as the core computes and stores it: a point is its ball of
  // radius 0 (circle, sphere); every other kind is itself.
  ShapeKind computed_as;
  // Columns of the kind as given to Scene::UpsertColumns, in this order:
  // point x y; circle x y radius; rect min_x min_y max_x max_y; rotated rect
  // size_x size_y pivot_x pivot_y position_x position_y cos sin; point3
  // x y z; sphere x y z radius; box min_x min_y min_z max_x max_y max_z;
  // capsule3 a_x a_y a_z b_x b_y b_z radius; oriented box center_x center_y
  // center_z half_x half_y half_z w x y z.
  int columns;
};

inline constexpr ShapeKindInfo kShapeKindTable[kShapeKinds] = {
    {ShapeKind::kPoint2, "point", 2, true, ShapeKind::kCircle, 2},
    {ShapeKind::kCircle, "circle", 2, true, ShapeKind::kCircle, 3},
    {ShapeKind::kRect, "rect", 2, false, ShapeKind::kRect, 4},
    {ShapeKind::kRotatedRect, "rotated_rect", 2, false, ShapeKind::kRotatedRect,
     8},
    {ShapeKind::kPoint3, "point3", 3, true, ShapeKind::kSphere, 3},
    {ShapeKind::kSphere, "sphere", 3, true, ShapeKind::kSphere, 4},
    {ShapeKind::kBox, "box", 3, false, ShapeKind::kBox, 6},
    {ShapeKind::kCapsule3, "capsule3", 3, false, ShapeKind::kCapsule3, 7},
    {ShapeKind::kOrientedBox, "oriented_box", 3, false, ShapeKind::kOrientedBox,
     10},
};

// The most columns a kind has.
constexpr int MaxKindColumns() {
  int most = 0;
  for (const ShapeKindInfo& info : kShapeKindTable) {
    most = info.columns > most ? info.columns : most;
  }
  return most;
}
inline constexpr size_t kMaxKindColumns = MaxKindColumns();

constexpr const ShapeKindInfo& InfoOf(ShapeKind k) {
  return kShapeKindTable[static_cast<int>(k)];
}
// A point as its ball (point -> circle, point3 -> sphere); others unchanged.
constexpr ShapeKind ComputedAs(ShapeKind k) { return InfoOf(k).computed_as; }
// Columns a shape occupies once computed: a point carries a radius of 0.
constexpr int ComputedColumns(ShapeKind k) {
  return InfoOf(ComputedAs(k)).columns;
}

namespace shapes_internal {
constexpr bool TableIsConsistent() {
  for (int i = 0; i < kShapeKinds; ++i) {
    const ShapeKindInfo& info = kShapeKindTable[i];
    if (static_cast<int>(info.kind) != i) return false;
    if (info.dimension != 2 && info.dimension != 3) return false;
    // A kind computed as another is a point as its ball: same dimension,
    // one radius column more, and the ball computed as itself.
    const ShapeKindInfo& as =
        kShapeKindTable[static_cast<int>(info.computed_as)];
    if (as.computed_as != as.kind || as.dimension != info.dimension) {
      return false;
    }
    if (info.computed_as != info.kind &&
        (!info.ball || !as.ball || as.columns != info.columns + 1)) {
      return false;
    }
  }
  return true;
}
}  // namespace shapes_internal
static_assert(shapes_internal::TableIsConsistent(),
              "kShapeKindTable: rows out of ShapeKind order or a point not "
              "computed as its ball");
// KindOf() is the variant's index: one alternative per kind, in order.
template <ShapeKind K, typename T>
constexpr bool kAlternativeIs =
    std::is_same_v<std::variant_alternative_t<static_cast<int>(K), Shape>, T>;
static_assert(std::variant_size_v<Shape> == kShapeKinds &&
              kAlternativeIs<ShapeKind::kPoint2, Vec2> &&
              kAlternativeIs<ShapeKind::kCircle, Circle> &&
              kAlternativeIs<ShapeKind::kRect, Rect> &&
              kAlternativeIs<ShapeKind::kRotatedRect, RotatedRect> &&
              kAlternativeIs<ShapeKind::kPoint3, Vec3> &&
              kAlternativeIs<ShapeKind::kSphere, Sphere> &&
              kAlternativeIs<ShapeKind::kBox, Box> &&
              kAlternativeIs<ShapeKind::kCapsule3, Capsule3> &&
              kAlternativeIs<ShapeKind::kOrientedBox, OrientedBox>);

inline ShapeKind KindOf(const Shape& s) {
  return static_cast<ShapeKind>(s.index());
}
constexpr bool Is3D(ShapeKind k) { return InfoOf(k).dimension == 3; }
constexpr bool IsBall(ShapeKind k) { return InfoOf(k).ball; }
// "point", "circle", "rect", "rotated_rect", "point3", "sphere", "box",
// "capsule3", "oriented_box".
constexpr const char* KindName(ShapeKind k) { return InfoOf(k).name; }

enum class Boundary : uint8_t {
  kInclusive = 0,  // touching is a hit (seed 001, `<=`)
  kExclusive = 1,  // only overlapping is a hit (seed 000, `<`)
};

// How two closed shapes relate.
// - kDisjoint: their distance is > 0.
// - kTouching: they share boundary points only (distance exactly 0, no
//   interior overlap). Two coincident points touch.
// - kOverlapping: they overlap with positive extent, or a zero-size shape
//   lies strictly inside the other.
// Decided from squared quantities computed in float exactly as the seeds
// write them (d2 = dx*dx + dy*dy compared with r*r), without fused
// multiply-add, so that integer inputs give exact answers.
enum class Relation : uint8_t {
  kDisjoint = 0,
  kTouching = 1,
  kOverlapping = 2,
};

inline bool IsHit(Relation r, Boundary b) {
  return b == Boundary::kInclusive ? r != Relation::kDisjoint
                                   : r == Relation::kOverlapping;
}

struct IntersectResult {
  bool hit = false;
  Relation relation = Relation::kDisjoint;
  // Signed separation: the distance between the shapes when disjoint (> 0),
  // exactly 0 when touching, and minus the penetration depth when
  // overlapping (< 0; the smallest translation that separates them for
  // boxes and circles; for a circle and a rectangle, the circle radius plus
  // the distance from its centre to the nearest edge).
  float separation = 0;
};

struct ClosestPointResult {
  // Point of the target (a closed solid) nearest to the query centre. Equals
  // the query centre when the centre is inside the target. 2D: z = 0.
  Vec3 closest_point;
  // Point of the target's boundary nearest to the query centre. Equals
  // closest_point when the centre is outside.
  Vec3 surface_point;
  // Unit outward normal of the target at surface_point. Outside: the
  // direction from surface_point to the centre. Inside or on the boundary:
  // the outward normal of the nearest face; ties are broken in the order
  // -x, +x, -y, +y, -z, +z. Circle/sphere/point target with the centre at its
  // centre: +x.
  Vec3 normal;
  // Distance from the query centre to the target's boundary, negative when
  // the centre is strictly inside, 0 on the boundary.
  float signed_distance = 0;
  // signed_distance minus the query radius: the free space between a query
  // circle/sphere and the target (negative: penetration). Equals
  // signed_distance for point queries.
  float gap = 0;
  // The query centre is in the target: strictly inside, or on its boundary
  // when the boundary rule is inclusive.
  bool inside = false;
  // A capsule3, box or oriented box query (3D) is measured as a shape, not
  // by a centre: query_point is its point nearest the target (when they
  // meet, its point deepest in it), closest_point the target's point
  // nearest the query (when they meet, query_point), surface_point the
  // target's surface point paired with query_point, normal the target's
  // outward normal there; signed_distance and gap are both the shapes'
  // separation, and inside says whether they meet (by the boundary rule).
  // Ball queries leave has_query_point false.
  bool has_query_point = false;
  Vec3 query_point;
};

}  // namespace collision

#endif  // COLLISION_CORE_SHAPES_H_
