// Field checks of collision.proto's CONVENTIONS, shared by every request
// parser (pairwise, columns, scenes): each records a violation with the
// field's path and returns the value to carry on with.
#ifndef COLLISION_WIRE_SHAPE_PARSER_H_
#define COLLISION_WIRE_SHAPE_PARSER_H_

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "collision/core/kernels.h"
#include "collision/core/shapes.h"
#include "collision/v1/collision.pb.h"
#include "collision/wire/convert.h"
#include "collision/wire/field_rules.h"

namespace collision::wire {

class Parser {
 public:
  explicit Parser(Violations* v) : v_(v) {}

  // A coordinate, offset or other signed length.
  float Coord(float value, const std::string& path) {
    return Checked(value, FieldRule::kCoord, path);
  }

  // A radius, width or height.
  float Length(float value, const std::string& path) {
    return Checked(value, FieldRule::kLength, path);
  }

  float Checked(float value, FieldRule rule, const std::string& path) {
    if (!Passes(value, rule)) {
      v_->Add(path, WhyNot(value, rule));
    }
    return value;
  }

  bool Required(bool present, const std::string& path) {
    if (!present) v_->Add(path, "is required");
    return present;
  }

  Vec2 Point(bool present, const v1::Vec2& p, const std::string& path) {
    if (!Required(present, path)) return {};
    return Vec2{Coord(p.x(), path + ".x"), Coord(p.y(), path + ".y")};
  }

  Vec3 Point3(bool present, const v1::Vec3& p, const std::string& path) {
    if (!Required(present, path)) return {};
    return Vec3{Coord(p.x(), path + ".x"), Coord(p.y(), path + ".y"),
                Coord(p.z(), path + ".z")};
  }

  Vec2 Size(bool present, const v1::Vec2& p, const std::string& path) {
    if (!Required(present, path)) return {};
    return Vec2{Length(p.x(), path + ".x"), Length(p.y(), path + ".y")};
  }

  void Ordered(float lo, float hi, const std::string& path,
               const std::string& axis) {
    if (std::isfinite(lo) && std::isfinite(hi) && hi < lo) {
      v_->Add(absl::StrCat(path, ".max.", axis),
              absl::StrCat("must be >= min.", axis, " (", lo, "), got ", hi));
    }
  }

  Rotation Orientation(const v1::RotatedRect& r, const std::string& path) {
    switch (r.orientation_case()) {
      case v1::RotatedRect::kAngle: {
        const float a = r.angle();
        if (!Passes(a, FieldRule::kAngle)) {
          Checked(a, FieldRule::kAngle, path + ".angle");
        } else {
          // The same vectorised sin/cos as the columnar path, so that both
          // wire forms give bit-identical answers (see kernels.h).
          Rotation rotation;
          simd::RotationFromAngleColumns(&a, 1, &rotation.cos, &rotation.sin);
          return rotation;
        }
        return {};
      }
      case v1::RotatedRect::kRotation: {
        const float c = r.rotation().cos();
        const float s = r.rotation().sin();
        if (!std::isfinite(c) || !std::isfinite(s)) {
          v_->Add(path + ".rotation",
                  absl::StrCat("must be finite, got (", c, ", ", s, ")"));
          return {};
        }
        if (!IsUnitRotation(c, s)) {
          v_->Add(
              path + ".rotation",
              absl::StrCat("(cos, sin) must have unit length (cos^2 + ",
                           "sin^2 within 1e-5 of 1), got (", c, ", ", s, ")"));
          return {};
        }
        return Rotation{c, s};
      }
      case v1::RotatedRect::ORIENTATION_NOT_SET:
        break;
    }
    v_->Add(path + ".orientation",
            "is required: set angle (radians) or rotation (cos, sin)");
    return {};
  }

  Vec3 Size3(bool present, const v1::Vec3& p, const std::string& path) {
    if (!Required(present, path)) return {};
    return Vec3{Length(p.x(), path + ".x"), Length(p.y(), path + ".y"),
                Length(p.z(), path + ".z")};
  }

  Quat Quaternion(bool present, const v1::Quaternion& q,
                  const std::string& path) {
    if (!Required(present, path)) return {};
    const Quat out{q.w(), q.x(), q.y(), q.z()};
    if (!std::isfinite(out.w) || !std::isfinite(out.x) ||
        !std::isfinite(out.y) || !std::isfinite(out.z)) {
      v_->Add(path, absl::StrCat("must be finite, got (w ", out.w, ", x ",
                                 out.x, ", y ", out.y, ", z ", out.z, ")"));
    } else if (!IsUnitQuaternion(out.w, out.x, out.y, out.z)) {
      v_->Add(path, absl::StrCat("must have unit length (w^2 + x^2 + y^2 + "
                                 "z^2 within 1e-5 of 1), got (w ",
                                 out.w, ", x ", out.x, ", y ", out.y, ", z ",
                                 out.z, ")"));
    }
    return out;
  }

  std::optional<Shape> ParseShape(bool present, const v1::Shape& s,
                                  const std::string& path) {
    if (!Required(present, path)) return std::nullopt;
    switch (s.kind_case()) {
      case v1::Shape::kPoint:
        return Point(true, s.point(), path + ".point");
      case v1::Shape::kCircle: {
        const std::string p = path + ".circle";
        const auto& c = s.circle();
        return Circle{Point(c.has_center(), c.center(), p + ".center"),
                      Length(c.radius(), p + ".radius")};
      }
      case v1::Shape::kRect: {
        const std::string p = path + ".rect";
        const auto& r = s.rect();
        Rect out{Point(r.has_min(), r.min(), p + ".min"),
                 Point(r.has_max(), r.max(), p + ".max")};
        if (r.has_min() && r.has_max()) {
          Ordered(out.min.x, out.max.x, p, "x");
          Ordered(out.min.y, out.max.y, p, "y");
        }
        return out;
      }
      case v1::Shape::kRotatedRect: {
        const std::string p = path + ".rotated_rect";
        const auto& r = s.rotated_rect();
        RotatedRect out;
        out.size = Size(r.has_size(), r.size(), p + ".size");
        out.pivot = Point(r.has_pivot(), r.pivot(), p + ".pivot");
        out.position = Point(r.has_position(), r.position(), p + ".position");
        out.rotation = Orientation(r, p);
        return out;
      }
      case v1::Shape::kPoint3:
        return Point3(true, s.point3(), path + ".point3");
      case v1::Shape::kSphere: {
        const std::string p = path + ".sphere";
        const auto& c = s.sphere();
        return Sphere{Point3(c.has_center(), c.center(), p + ".center"),
                      Length(c.radius(), p + ".radius")};
      }
      case v1::Shape::kBox: {
        const std::string p = path + ".box";
        const auto& b = s.box();
        Box out{Point3(b.has_min(), b.min(), p + ".min"),
                Point3(b.has_max(), b.max(), p + ".max")};
        if (b.has_min() && b.has_max()) {
          Ordered(out.min.x, out.max.x, p, "x");
          Ordered(out.min.y, out.max.y, p, "y");
          Ordered(out.min.z, out.max.z, p, "z");
        }
        return out;
      }
      case v1::Shape::kCapsule3: {
        const std::string p = path + ".capsule3";
        const auto& c = s.capsule3();
        return Capsule3{Point3(c.has_a(), c.a(), p + ".a"),
                        Point3(c.has_b(), c.b(), p + ".b"),
                        Length(c.radius(), p + ".radius")};
      }
      case v1::Shape::kOrientedBox: {
        const std::string p = path + ".oriented_box";
        const auto& b = s.oriented_box();
        OrientedBox out;
        out.center = Point3(b.has_center(), b.center(), p + ".center");
        out.half_extents =
            Size3(b.has_half_extents(), b.half_extents(), p + ".half_extents");
        out.rotation = Quaternion(b.has_rotation(), b.rotation(),
                                  p + ".rotation");
        return out;
      }
      case v1::Shape::KIND_NOT_SET:
        break;
    }
    v_->Add(path,
            "has no shape set: set one of point, circle, rect, rotated_rect, "
            "point3, sphere, box, capsule3, oriented_box");
    return std::nullopt;
  }

  Violations* violations() { return v_; }

 private:
  Violations* v_;
};

// A shape's fields as found on the wire, before any check: which kind (the
// Shape oneof's field number), which of its message fields were present,
// and its numbers in field order (a missing number is 0, as in proto3):
//   point, point3      x, y[, z]
//   circle, sphere     center (field 1), radius (2)
//   rect, box          min (1), max (2)
//   rotated_rect       size (1), pivot (2), position (3): v[0..5];
//                      angle (4): v[6]; rotation (5) cos, sin: v[7], v[8]
//   capsule3           a (1), b (2): v[0..5]; radius (3): v[6]
//   oriented_box       center (1), half_extents (2): v[0..5];
//                      rotation (3) w, x, y, z: v[6..9]
// Filled from a message (FastShape) or from the bytes (pair_wire.cc).
struct ShapeFields {
  int kind = 0;          // v1::Shape::KindCase
  uint32_t present = 0;  // bit f: message field f of the shape was set
  float v[10] = {};

  bool has(int field) const { return (present >> field) & 1u; }
};

// The shape when every field is valid: the same rules and the same
// conversions as Parser::ParseShape, rotations included; false otherwise,
// and the caller runs Parser::ParseShape for the messages. Builds no
// strings: the fast path of large batches.
inline bool ShapeFromFields(const ShapeFields& f, Shape* out) {
  // Finite and within the magnitude bound, in one comparison (false for
  // NaN and the infinities).
  auto coord = [](float v) { return Passes(v, FieldRule::kCoord); };
  auto length = [](float v) { return Passes(v, FieldRule::kLength); };
  auto coords = [&](int first, int n) {
    for (int i = first; i < first + n; ++i) {
      if (!coord(f.v[i])) return false;
    }
    return true;
  };
  const float* v = f.v;
  switch (f.kind) {
    case v1::Shape::kPoint:
      if (!coords(0, 2)) return false;
      *out = Vec2{v[0], v[1]};
      return true;
    case v1::Shape::kCircle:
      if (!f.has(1) || !coords(0, 2) || !length(v[2])) return false;
      *out = Circle{{v[0], v[1]}, v[2]};
      return true;
    case v1::Shape::kRect:
      if (!f.has(1) || !f.has(2) || !coords(0, 4) || v[2] < v[0] ||
          v[3] < v[1]) {
        return false;
      }
      *out = Rect{{v[0], v[1]}, {v[2], v[3]}};
      return true;
    case v1::Shape::kRotatedRect: {
      if (!f.has(1) || !f.has(2) || !f.has(3) || !length(v[0]) ||
          !length(v[1]) || !coords(2, 4)) {
        return false;
      }
      RotatedRect rect;
      rect.size = {v[0], v[1]};
      rect.pivot = {v[2], v[3]};
      rect.position = {v[4], v[5]};
      if (f.has(4) == f.has(5)) return false;  // neither, or both (oneof)
      if (f.has(4)) {
        const float a = v[6];
        if (!Passes(a, FieldRule::kAngle)) return false;
        simd::RotationFromAngleColumns(&a, 1, &rect.rotation.cos,
                                       &rect.rotation.sin);
      } else {
        const float c = v[7];
        const float sn = v[8];
        if (!IsUnitRotation(c, sn)) return false;
        rect.rotation = {c, sn};
      }
      *out = rect;
      return true;
    }
    case v1::Shape::kPoint3:
      if (!coords(0, 3)) return false;
      *out = Vec3{v[0], v[1], v[2]};
      return true;
    case v1::Shape::kSphere:
      if (!f.has(1) || !coords(0, 3) || !length(v[3])) return false;
      *out = Sphere{{v[0], v[1], v[2]}, v[3]};
      return true;
    case v1::Shape::kBox:
      if (!f.has(1) || !f.has(2) || !coords(0, 6) || v[3] < v[0] ||
          v[4] < v[1] || v[5] < v[2]) {
        return false;
      }
      *out = Box{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
      return true;
    case v1::Shape::kCapsule3:
      if (!f.has(1) || !f.has(2) || !coords(0, 6) || !length(v[6])) {
        return false;
      }
      *out = Capsule3{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, v[6]};
      return true;
    case v1::Shape::kOrientedBox:
      if (!f.has(1) || !f.has(2) || !f.has(3) || !coords(0, 3) ||
          !length(v[3]) || !length(v[4]) || !length(v[5]) ||
          !IsUnitQuaternion(v[6], v[7], v[8], v[9])) {
        return false;
      }
      *out = OrientedBox{{v[0], v[1], v[2]},
                         {v[3], v[4], v[5]},
                         Quat{v[6], v[7], v[8], v[9]}};
      return true;
    default:
      return false;
  }
}

// ShapeFromFields of a parsed message.
inline bool FastShape(const v1::Shape& s, Shape* out) {
  ShapeFields f;
  f.kind = s.kind_case();
  auto vec2 = [&](int field, bool present, const v1::Vec2& p, int at) {
    if (present) f.present |= 1u << field;
    f.v[at] = p.x();
    f.v[at + 1] = p.y();
  };
  auto vec3 = [&](int field, bool present, const v1::Vec3& p, int at) {
    if (present) f.present |= 1u << field;
    f.v[at] = p.x();
    f.v[at + 1] = p.y();
    f.v[at + 2] = p.z();
  };
  switch (s.kind_case()) {
    case v1::Shape::kPoint:
      vec2(0, true, s.point(), 0);
      break;
    case v1::Shape::kCircle:
      vec2(1, s.circle().has_center(), s.circle().center(), 0);
      f.v[2] = s.circle().radius();
      break;
    case v1::Shape::kRect:
      vec2(1, s.rect().has_min(), s.rect().min(), 0);
      vec2(2, s.rect().has_max(), s.rect().max(), 2);
      break;
    case v1::Shape::kRotatedRect: {
      const v1::RotatedRect& r = s.rotated_rect();
      vec2(1, r.has_size(), r.size(), 0);
      vec2(2, r.has_pivot(), r.pivot(), 2);
      vec2(3, r.has_position(), r.position(), 4);
      if (r.orientation_case() == v1::RotatedRect::kAngle) {
        f.present |= 1u << 4;
        f.v[6] = r.angle();
      } else if (r.orientation_case() == v1::RotatedRect::kRotation) {
        f.present |= 1u << 5;
        f.v[7] = r.rotation().cos();
        f.v[8] = r.rotation().sin();
      }
      break;
    }
    case v1::Shape::kPoint3:
      vec3(0, true, s.point3(), 0);
      break;
    case v1::Shape::kSphere:
      vec3(1, s.sphere().has_center(), s.sphere().center(), 0);
      f.v[3] = s.sphere().radius();
      break;
    case v1::Shape::kBox:
      vec3(1, s.box().has_min(), s.box().min(), 0);
      vec3(2, s.box().has_max(), s.box().max(), 3);
      break;
    case v1::Shape::kCapsule3:
      vec3(1, s.capsule3().has_a(), s.capsule3().a(), 0);
      vec3(2, s.capsule3().has_b(), s.capsule3().b(), 3);
      f.v[6] = s.capsule3().radius();
      break;
    case v1::Shape::kOrientedBox: {
      const v1::OrientedBox& b = s.oriented_box();
      vec3(1, b.has_center(), b.center(), 0);
      vec3(2, b.has_half_extents(), b.half_extents(), 3);
      if (b.has_rotation()) f.present |= 1u << 3;
      f.v[6] = b.rotation().w();
      f.v[7] = b.rotation().x();
      f.v[8] = b.rotation().y();
      f.v[9] = b.rotation().z();
      break;
    }
    case v1::Shape::KIND_NOT_SET:
      return false;
  }
  return ShapeFromFields(f, out);
}

}  // namespace collision::wire

#endif  // COLLISION_WIRE_SHAPE_PARSER_H_
