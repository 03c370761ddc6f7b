// The kinds of work the core computes, in one table: which pairs of shape
// kinds Intersect() and ClosestPoint() answer, what each pairing is called
// (metrics label work with these names; the load tool's --kinds takes them),
// its dimension, and which shape goes first.
//
// Naming and order. An intersect pairing is named after its two shapes with
// the ball first when only one of them is a ball (circle_rect also covers
// rect vs circle), else in the order point, circle, rect, rotated rect,
// point3, sphere, capsule3, box, oriented box (capsule3_box also covers box
// vs capsule3); a point counts as a ball of radius 0 (circle_circle also
// covers point vs circle, sphere_box point3 vs box). A closest-point query is
// a ball (point or circle in 2D, point3 or sphere in 3D) against a target of
// the same dimension; the pairing is named after the target (closest_rect),
// a point target counting as its ball. The batch dispatcher (batch.cc) groups
// work in this order too.
#ifndef COLLISION_CORE_KINDS_H_
#define COLLISION_CORE_KINDS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "collision/core/shapes.h"

namespace collision {

enum class WorkKind : uint8_t {
  kCircleCircle,
  kCircleRect,
  kCircleRotatedRect,
  kRectRect,
  kSphereSphere,
  kSphereBox,
  kBoxBox,
  kSphereCapsule,
  kSphereOrientedBox,
  kCapsuleCapsule,
  kCapsuleBox,
  kCapsuleOrientedBox,
  kBoxOrientedBox,
  kOrientedBoxOrientedBox,
  kClosestCircle,
  kClosestRect,
  kClosestRotatedRect,
  kClosestSphere,
  kClosestBox,
  kClosestCapsule,
  kClosestOrientedBox,
  // Shape queries (3D, ClosestPointResult::query_point).
  kClosestCapsuleToSphere,
  kClosestCapsuleToBox,
  kClosestCapsuleToCapsule,
  kClosestCapsuleToOrientedBox,
  kClosestBoxToSphere,
  kClosestBoxToBox,
  kClosestBoxToCapsule,
  kClosestBoxToOrientedBox,
  kClosestOrientedBoxToSphere,
  kClosestOrientedBoxToBox,
  kClosestOrientedBoxToCapsule,
  kClosestOrientedBoxToOrientedBox,
};
inline constexpr int kWorkKinds = 33;
// The intersect pairings come first: WorkKind values [0, 14).
inline constexpr int kIntersectWorkKinds = 14;

struct WorkKindInfo {
  WorkKind kind;
  const char* name;
  bool closest;  // a closest-point pairing (else an intersect pairing)
  bool three_d;
  // Intersect: the two shapes, ball first, else in the order of the name.
  // Closest point: the query's ball and the target. Points appear as their
  // balls (circle, sphere).
  ShapeKind first;
  ShapeKind second;
  // Answered by a SIMD kernel over columns (kernels.h); the others (the
  // hitbox pairs, hitbox3.h) one pair at a time by the scalar functions.
  bool kernel;
};

inline constexpr std::array<WorkKindInfo, kWorkKinds> kWorkKindTable = {{
    {WorkKind::kCircleCircle, "circle_circle", false, false, ShapeKind::kCircle,
     ShapeKind::kCircle, true},
    {WorkKind::kCircleRect, "circle_rect", false, false, ShapeKind::kCircle,
     ShapeKind::kRect, true},
    {WorkKind::kCircleRotatedRect, "circle_rotated_rect", false, false,
     ShapeKind::kCircle, ShapeKind::kRotatedRect, true},
    {WorkKind::kRectRect, "rect_rect", false, false, ShapeKind::kRect,
     ShapeKind::kRect, true},
    {WorkKind::kSphereSphere, "sphere_sphere", false, true, ShapeKind::kSphere,
     ShapeKind::kSphere, true},
    {WorkKind::kSphereBox, "sphere_box", false, true, ShapeKind::kSphere,
     ShapeKind::kBox, true},
    {WorkKind::kBoxBox, "box_box", false, true, ShapeKind::kBox,
     ShapeKind::kBox, true},
    {WorkKind::kSphereCapsule, "sphere_capsule3", false, true,
     ShapeKind::kSphere, ShapeKind::kCapsule3, false},
    {WorkKind::kSphereOrientedBox, "sphere_oriented_box", false, true,
     ShapeKind::kSphere, ShapeKind::kOrientedBox, false},
    {WorkKind::kCapsuleCapsule, "capsule3_capsule3", false, true,
     ShapeKind::kCapsule3, ShapeKind::kCapsule3, false},
    {WorkKind::kCapsuleBox, "capsule3_box", false, true, ShapeKind::kCapsule3,
     ShapeKind::kBox, false},
    {WorkKind::kCapsuleOrientedBox, "capsule3_oriented_box", false, true,
     ShapeKind::kCapsule3, ShapeKind::kOrientedBox, false},
    {WorkKind::kBoxOrientedBox, "box_oriented_box", false, true,
     ShapeKind::kBox, ShapeKind::kOrientedBox, false},
    {WorkKind::kOrientedBoxOrientedBox, "oriented_box_oriented_box", false,
     true, ShapeKind::kOrientedBox, ShapeKind::kOrientedBox, false},
    {WorkKind::kClosestCircle, "closest_circle", true, false,
     ShapeKind::kCircle, ShapeKind::kCircle, true},
    {WorkKind::kClosestRect, "closest_rect", true, false, ShapeKind::kCircle,
     ShapeKind::kRect, true},
    {WorkKind::kClosestRotatedRect, "closest_rotated_rect", true, false,
     ShapeKind::kCircle, ShapeKind::kRotatedRect, true},
    {WorkKind::kClosestSphere, "closest_sphere", true, true, ShapeKind::kSphere,
     ShapeKind::kSphere, true},
    {WorkKind::kClosestBox, "closest_box", true, true, ShapeKind::kSphere,
     ShapeKind::kBox, true},
    {WorkKind::kClosestCapsule, "closest_capsule3", true, true,
     ShapeKind::kSphere, ShapeKind::kCapsule3, false},
    {WorkKind::kClosestOrientedBox, "closest_oriented_box", true, true,
     ShapeKind::kSphere, ShapeKind::kOrientedBox, false},
    {WorkKind::kClosestCapsuleToSphere, "closest_capsule3_to_sphere", true,
     true, ShapeKind::kCapsule3, ShapeKind::kSphere, false},
    {WorkKind::kClosestCapsuleToBox, "closest_capsule3_to_box", true, true,
     ShapeKind::kCapsule3, ShapeKind::kBox, false},
    {WorkKind::kClosestCapsuleToCapsule, "closest_capsule3_to_capsule3", true,
     true, ShapeKind::kCapsule3, ShapeKind::kCapsule3, false},
    {WorkKind::kClosestCapsuleToOrientedBox, "closest_capsule3_to_oriented_box",
     true, true, ShapeKind::kCapsule3, ShapeKind::kOrientedBox, false},
    {WorkKind::kClosestBoxToSphere, "closest_box_to_sphere", true, true,
     ShapeKind::kBox, ShapeKind::kSphere, false},
    {WorkKind::kClosestBoxToBox, "closest_box_to_box", true, true,
     ShapeKind::kBox, ShapeKind::kBox, false},
    {WorkKind::kClosestBoxToCapsule, "closest_box_to_capsule3", true, true,
     ShapeKind::kBox, ShapeKind::kCapsule3, false},
    {WorkKind::kClosestBoxToOrientedBox, "closest_box_to_oriented_box", true,
     true, ShapeKind::kBox, ShapeKind::kOrientedBox, false},
    {WorkKind::kClosestOrientedBoxToSphere, "closest_oriented_box_to_sphere",
     true, true, ShapeKind::kOrientedBox, ShapeKind::kSphere, false},
    {WorkKind::kClosestOrientedBoxToBox, "closest_oriented_box_to_box", true,
     true, ShapeKind::kOrientedBox, ShapeKind::kBox, false},
    {WorkKind::kClosestOrientedBoxToCapsule, "closest_oriented_box_to_capsule3",
     true, true, ShapeKind::kOrientedBox, ShapeKind::kCapsule3, false},
    {WorkKind::kClosestOrientedBoxToOrientedBox,
     "closest_oriented_box_to_oriented_box", true, true,
     ShapeKind::kOrientedBox, ShapeKind::kOrientedBox, false},
}};

constexpr const WorkKindInfo& InfoOf(WorkKind kind) {
  return kWorkKindTable[static_cast<int>(kind)];
}
// "circle_rect", "closest_box", ...
constexpr const char* WorkKindName(WorkKind kind) { return InfoOf(kind).name; }

namespace kinds_internal {
constexpr std::optional<WorkKind> Find(bool closest, ShapeKind first,
                                       ShapeKind second) {
  // Rows are pairings of computed kinds, so points find their balls' rows.
  for (const WorkKindInfo& info : kWorkKindTable) {
    if (info.closest == closest && info.first == ComputedAs(first) &&
        info.second == ComputedAs(second)) {
      return info.kind;
    }
  }
  return std::nullopt;
}
}  // namespace kinds_internal

namespace kinds_internal {
// Every ordered pair of shape kinds looked up once, at compile time: the
// lookups below run per pair on the request path. -1: unsupported.
constexpr std::array<int8_t, kShapeKinds * kShapeKinds> Lookup(bool closest) {
  std::array<int8_t, kShapeKinds * kShapeKinds> table{};
  for (int a = 0; a < kShapeKinds; ++a) {
    for (int b = 0; b < kShapeKinds; ++b) {
      const auto ka = static_cast<ShapeKind>(a);
      const auto kb = static_cast<ShapeKind>(b);
      std::optional<WorkKind> kind;
      if (closest) {
        kind = Find(true, ka, kb);
      } else {
        kind = Find(false, ka, kb);
        if (!kind) kind = Find(false, kb, ka);
      }
      table[static_cast<size_t>(a * kShapeKinds + b)] =
          kind ? static_cast<int8_t>(*kind) : int8_t{-1};
    }
  }
  return table;
}
inline constexpr auto kIntersectLookup = Lookup(false);
inline constexpr auto kClosestLookup = Lookup(true);
constexpr std::optional<WorkKind> At(
    const std::array<int8_t, kShapeKinds * kShapeKinds>& table, ShapeKind a,
    ShapeKind b) {
  const int8_t k = table[static_cast<size_t>(static_cast<int>(a) * kShapeKinds +
                                             static_cast<int>(b))];
  if (k < 0) return std::nullopt;
  return static_cast<WorkKind>(k);
}
}  // namespace kinds_internal

// The pairing of Intersect(a, b), in either order; nullopt when Intersect()
// does not answer it: rect vs rotated rect, rotated rect vs rotated rect,
// rect vs box and every 2D-3D pair.
constexpr std::optional<WorkKind> IntersectWorkKind(ShapeKind a, ShapeKind b) {
  return kinds_internal::At(kinds_internal::kIntersectLookup, a, b);
}
// The pairing of ClosestPoint(query, target); nullopt when the query is
// neither a ball nor a 3D capsule3, box or oriented box, or the dimensions
// differ.
constexpr std::optional<WorkKind> ClosestWorkKind(ShapeKind query,
                                                  ShapeKind target) {
  return kinds_internal::At(kinds_internal::kClosestLookup, query, target);
}

// Which pairs Intersect() answers: any of point/circle against
// point/circle/rect/rotated rect, rect against rect, and every pair of 3D
// kinds (point3, sphere, box, capsule3, oriented box), in either order.
// Rect-rotated rect, rotated rect-rotated rect and 2D-3D pairs are not.
constexpr bool IsSupportedIntersectPair(ShapeKind a, ShapeKind b) {
  return IntersectWorkKind(a, b).has_value();
}
// Queries are points or circles (2D) and points or spheres (3D), measured
// from their centre, against any target of the same dimension; and
// capsule3s, boxes and oriented boxes measured as shapes against any 3D
// target (ClosestPointResult::query_point). Scenes' nearest queries are
// balls only (IsBall).
constexpr bool IsClosestPointQuery(ShapeKind k) {
  return IsBall(k) || k == ShapeKind::kCapsule3 || k == ShapeKind::kBox ||
         k == ShapeKind::kOrientedBox;
}
constexpr bool IsSupportedClosestPointPair(ShapeKind query, ShapeKind target) {
  return ClosestWorkKind(query, target).has_value();
}

}  // namespace collision

#endif  // COLLISION_CORE_KINDS_H_
