// A core shape as its collision.v1 message, field by field (rotated
// rectangles as (cos, sin)): tests build requests from the shapes whose
// answers they compute in process.
#ifndef COLLISION_TESTS_UTIL_SHAPE_PROTO_H_
#define COLLISION_TESTS_UTIL_SHAPE_PROTO_H_

#include <variant>

#include "collision/core/shapes.h"
#include "collision/v1/collision.pb.h"

namespace collision::test_util {

inline void ToProto(const Shape& shape, v1::Shape* out) {
  switch (KindOf(shape)) {
    case ShapeKind::kPoint2: {
      const Vec2& p = std::get<Vec2>(shape);
      out->mutable_point()->set_x(p.x);
      out->mutable_point()->set_y(p.y);
      return;
    }
    case ShapeKind::kCircle: {
      const Circle& c = std::get<Circle>(shape);
      out->mutable_circle()->mutable_center()->set_x(c.center.x);
      out->mutable_circle()->mutable_center()->set_y(c.center.y);
      out->mutable_circle()->set_radius(c.radius);
      return;
    }
    case ShapeKind::kRect: {
      const Rect& r = std::get<Rect>(shape);
      out->mutable_rect()->mutable_min()->set_x(r.min.x);
      out->mutable_rect()->mutable_min()->set_y(r.min.y);
      out->mutable_rect()->mutable_max()->set_x(r.max.x);
      out->mutable_rect()->mutable_max()->set_y(r.max.y);
      return;
    }
    case ShapeKind::kRotatedRect: {
      const RotatedRect& r = std::get<RotatedRect>(shape);
      v1::RotatedRect* o = out->mutable_rotated_rect();
      o->mutable_size()->set_x(r.size.x);
      o->mutable_size()->set_y(r.size.y);
      o->mutable_pivot()->set_x(r.pivot.x);
      o->mutable_pivot()->set_y(r.pivot.y);
      o->mutable_position()->set_x(r.position.x);
      o->mutable_position()->set_y(r.position.y);
      o->mutable_rotation()->set_cos(r.rotation.cos);
      o->mutable_rotation()->set_sin(r.rotation.sin);
      return;
    }
    case ShapeKind::kPoint3: {
      const Vec3& p = std::get<Vec3>(shape);
      out->mutable_point3()->set_x(p.x);
      out->mutable_point3()->set_y(p.y);
      out->mutable_point3()->set_z(p.z);
      return;
    }
    case ShapeKind::kSphere: {
      const Sphere& s = std::get<Sphere>(shape);
      out->mutable_sphere()->mutable_center()->set_x(s.center.x);
      out->mutable_sphere()->mutable_center()->set_y(s.center.y);
      out->mutable_sphere()->mutable_center()->set_z(s.center.z);
      out->mutable_sphere()->set_radius(s.radius);
      return;
    }
    case ShapeKind::kBox: {
      const Box& b = std::get<Box>(shape);
      out->mutable_box()->mutable_min()->set_x(b.min.x);
      out->mutable_box()->mutable_min()->set_y(b.min.y);
      out->mutable_box()->mutable_min()->set_z(b.min.z);
      out->mutable_box()->mutable_max()->set_x(b.max.x);
      out->mutable_box()->mutable_max()->set_y(b.max.y);
      out->mutable_box()->mutable_max()->set_z(b.max.z);
      return;
    }
    case ShapeKind::kCapsule3: {
      const Capsule3& c = std::get<Capsule3>(shape);
      v1::Capsule3* o = out->mutable_capsule3();
      o->mutable_a()->set_x(c.a.x);
      o->mutable_a()->set_y(c.a.y);
      o->mutable_a()->set_z(c.a.z);
      o->mutable_b()->set_x(c.b.x);
      o->mutable_b()->set_y(c.b.y);
      o->mutable_b()->set_z(c.b.z);
      o->set_radius(c.radius);
      return;
    }
    case ShapeKind::kOrientedBox: {
      const OrientedBox& b = std::get<OrientedBox>(shape);
      v1::OrientedBox* o = out->mutable_oriented_box();
      o->mutable_center()->set_x(b.center.x);
      o->mutable_center()->set_y(b.center.y);
      o->mutable_center()->set_z(b.center.z);
      o->mutable_half_extents()->set_x(b.half_extents.x);
      o->mutable_half_extents()->set_y(b.half_extents.y);
      o->mutable_half_extents()->set_z(b.half_extents.z);
      o->mutable_rotation()->set_w(b.rotation.w);
      o->mutable_rotation()->set_x(b.rotation.x);
      o->mutable_rotation()->set_y(b.rotation.y);
      o->mutable_rotation()->set_z(b.rotation.z);
      return;
    }
  }
}

}  // namespace collision::test_util

#endif  // COLLISION_TESTS_UTIL_SHAPE_PROTO_H_
