// The hitbox kinds as shapes of the service: Intersect and ClosestPoint on
// the Shape variant for the pairings kinds.h answers one pair at a time.
#include <cassert>
#include <cstring>
#include <type_traits>
#include <variant>

#include "collision/core/hitbox3.h"
#include "collision/core/kinds.h"
#include "collision/core/scalar.h"

namespace collision {
namespace {

Sphere AsSphere3(const Shape& s) {
  if (const auto* p = std::get_if<Vec3>(&s)) return Sphere{*p, 0.0f};
  return std::get<Sphere>(s);
}

// A capsule whose ends coincide is the sphere it is: answered on the
// sphere's paths, so that it gives the sphere's bits through every function
// of the service (the hitbox functions agree with the sphere ones only up
// to rounding in ClosestPoint).
bool IsZeroLengthCapsule(const Shape& s) {
  const auto* c = std::get_if<Capsule3>(&s);
  return c != nullptr && c->a.x == c->b.x && c->a.y == c->b.y &&
         c->a.z == c->b.z;
}
Shape AsSphereIfZeroLength(const Shape& s) {
  if (!IsZeroLengthCapsule(s)) return s;
  const Capsule3& c = std::get<Capsule3>(s);
  return Sphere{c.a, c.radius};
}

// A box (axis-aligned or oriented) as an oriented box.
OrientedBox AsObb(const Shape& s) {
  if (const auto* b = std::get_if<Box>(&s)) return AsOrientedBox(*b);
  return std::get<OrientedBox>(s);
}

}  // namespace

OrientedBox AsOrientedBox(const Box& box) {
  OrientedBox out;
  out.center = {(box.min.x + box.max.x) * 0.5f, (box.min.y + box.max.y) * 0.5f,
                (box.min.z + box.max.z) * 0.5f};
  out.half_extents = {(box.max.x - box.min.x) * 0.5f,
                      (box.max.y - box.min.y) * 0.5f,
                      (box.max.z - box.min.z) * 0.5f};
  return out;
}

IntersectResult IntersectHitboxPair(const Shape& a, const Shape& b,
                                    Boundary boundary) {
  if (IsZeroLengthCapsule(a) || IsZeroLengthCapsule(b)) {
    return Intersect(AsSphereIfZeroLength(a), AsSphereIfZeroLength(b), boundary);
  }
  const std::optional<WorkKind> kind = IntersectWorkKind(KindOf(a), KindOf(b));
  assert(kind && !InfoOf(*kind).kernel);
  // The row's order: swap when a is the row's second shape.
  const WorkKindInfo& row = InfoOf(*kind);
  bool swap = row.first != ComputedAs(KindOf(a));
  if (KindOf(a) == KindOf(b)) {
    // Two capsules or two oriented boxes: the search for the closest
    // features runs in argument order and can round differently the other
    // way round (a few ulps); one canonical order, by the bytes of the
    // shapes, makes Intersect(a, b) and Intersect(b, a) the same bits.
    swap = std::visit(
        [&b](const auto& first) {
          using T = std::decay_t<decltype(first)>;
          return std::memcmp(&first, std::get_if<T>(&b), sizeof(T)) > 0;
        },
        a);
  }
  const Shape& x = swap ? b : a;
  const Shape& y = swap ? a : b;
  switch (*kind) {
    case WorkKind::kSphereCapsule:
      return Intersect(AsSphere3(x), std::get<Capsule3>(y), boundary);
    case WorkKind::kSphereOrientedBox:
      return Intersect(AsSphere3(x), std::get<OrientedBox>(y), boundary);
    case WorkKind::kCapsuleCapsule:
      return Intersect(std::get<Capsule3>(x), std::get<Capsule3>(y), boundary);
    case WorkKind::kCapsuleBox:
    case WorkKind::kCapsuleOrientedBox:
      return Intersect(std::get<Capsule3>(x), AsObb(y), boundary);
    case WorkKind::kBoxOrientedBox:
    case WorkKind::kOrientedBoxOrientedBox:
      return Intersect(AsObb(x), AsObb(y), boundary);
    default:
      break;
  }
  assert(false && "not a hitbox pairing");
  return IntersectResult{};
}

namespace {

// A 3D shape as one of the typed hitbox3 operands.
enum class Operand { kSphere, kCapsule, kBox };
Operand OperandOf(const Shape& s) {
  switch (KindOf(s)) {
    case ShapeKind::kPoint3:
    case ShapeKind::kSphere:
      return Operand::kSphere;
    case ShapeKind::kCapsule3:
      return Operand::kCapsule;
    default:
      return Operand::kBox;
  }
}

// ClosestPoints(a, b) for any two 3D shapes but two spheres: the typed
// function in its order (sphere, capsule, box), the answer turned back to
// (a, b) when it ran (b, a).
Distance3 ClosestPointsOf(const Shape& a, const Shape& b) {
  const Operand oa = OperandOf(a), ob = OperandOf(b);
  if (ob < oa) {
    const Distance3 d = ClosestPointsOf(b, a);
    return Distance3{d.point_b,
                     d.point_a,
                     {-d.normal.x, -d.normal.y, -d.normal.z},
                     d.distance};
  }
  if (oa == Operand::kSphere) {
    if (ob == Operand::kCapsule) {
      return ClosestPoints(AsSphere3(a), std::get<Capsule3>(b));
    }
    return ClosestPoints(AsSphere3(a), AsObb(b));
  }
  if (oa == Operand::kCapsule) {
    if (ob == Operand::kCapsule) {
      return ClosestPoints(std::get<Capsule3>(a), std::get<Capsule3>(b));
    }
    return ClosestPoints(std::get<Capsule3>(a), AsObb(b));
  }
  return ClosestPoints(AsObb(a), AsObb(b));
}

}  // namespace

ClosestPointResult ClosestPointOfShapes(const Shape& query, const Shape& target,
                                        Boundary boundary) {
  assert(ClosestWorkKind(KindOf(query), KindOf(target)) &&
         !IsBall(KindOf(query)));
  const IntersectResult hit = Intersect(query, target, boundary);
  const Distance3 d = ClosestPointsOf(query, target);
  ClosestPointResult out;
  out.has_query_point = true;
  out.query_point = d.point_a;
  out.surface_point = d.point_b;
  out.closest_point = hit.separation > 0.0f ? d.point_b : d.point_a;
  out.normal = {-d.normal.x, -d.normal.y, -d.normal.z};
  out.signed_distance = hit.separation;
  out.gap = hit.separation;
  out.inside = hit.hit;
  return out;
}

ClosestPointResult ClosestPointOnHitbox(Vec3 p, float radius,
                                        const Shape& target,
                                        Boundary boundary) {
  if (IsZeroLengthCapsule(target)) {
    const Capsule3& c = std::get<Capsule3>(target);
    return ClosestPointOnSphere(p, radius, Sphere{c.a, c.radius}, boundary);
  }
  const Sphere point{p, 0.0f};
  IntersectResult hit;
  Distance3 d;
  if (const auto* c = std::get_if<Capsule3>(&target)) {
    hit = Intersect(point, *c, boundary);
    d = ClosestPoints(point, *c);
  } else {
    const OrientedBox& box = std::get<OrientedBox>(target);
    hit = Intersect(point, box, boundary);
    d = ClosestPoints(point, box);
  }
  ClosestPointResult out;
  out.signed_distance = hit.separation;
  out.inside = hit.hit;
  out.surface_point = d.point_b;
  out.normal = {-d.normal.x, -d.normal.y, -d.normal.z};
  out.closest_point = hit.separation > 0.0f ? d.point_b : p;
  out.gap = hit.separation - radius;
  return out;
}

}  // namespace collision
