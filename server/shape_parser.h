// Field checks of collision.proto's CONVENTIONS, shared by every request
// parser (pairwise, columns, scenes): each records a violation with the
// field's path and returns the value to carry on with.
#ifndef COLLISION_SERVER_SHAPE_PARSER_H_
#define COLLISION_SERVER_SHAPE_PARSER_H_

#include <cmath>
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "collision/core/kernels.h"
#include "collision/core/shapes.h"
#include "collision/v1/collision.pb.h"
#include "server/convert.h"

namespace collision::server {

class Parser {
 public:
  explicit Parser(Violations* v) : v_(v) {}

  // A coordinate, offset or other signed length.
  float Coord(float value, const std::string& path) {
    if (!std::isfinite(value)) {
      v_->Add(absl::StrCat(path, " must be finite, got ", value));
    } else if (std::fabs(value) > kMaxMagnitude) {
      v_->Add(absl::StrCat(path, " must be within [-1e9, 1e9], got ", value));
    }
    return value;
  }

  // A radius, width or height.
  float Length(float value, const std::string& path) {
    Coord(value, path);
    if (value < 0) v_->Add(absl::StrCat(path, " must be >= 0, got ", value));
    return value;
  }

  bool Required(bool present, const std::string& path) {
    if (!present) v_->Add(absl::StrCat(path, " is required"));
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
      v_->Add(absl::StrCat(path, ".max.", axis, " must be >= min.", axis, " (",
                           lo, "), got ", hi));
    }
  }

  Rotation Orientation(const v1::RotatedRect& r, const std::string& path) {
    switch (r.orientation_case()) {
      case v1::RotatedRect::kAngle: {
        const float a = r.angle();
        if (!std::isfinite(a)) {
          v_->Add(absl::StrCat(path, ".angle must be finite, got ", a));
        } else if (std::fabs(a) > kMaxAngle) {
          v_->Add(absl::StrCat(path, ".angle must be within [-1e4, 1e4] ",
                               "radians, got ", a));
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
          v_->Add(absl::StrCat(path, ".rotation must be finite, got (", c, ", ",
                               s, ")"));
          return {};
        }
        const double norm = double{c} * c + double{s} * s;
        if (std::fabs(norm - 1.0) > kRotationUnitTolerance) {
          v_->Add(absl::StrCat(path, ".rotation (cos, sin) must have unit ",
                               "length (cos^2 + sin^2 within 1e-5 of 1), ",
                               "got (", c, ", ", s, ")"));
          return {};
        }
        return Rotation{c, s};
      }
      case v1::RotatedRect::ORIENTATION_NOT_SET:
        break;
    }
    v_->Add(absl::StrCat(path, ".orientation is required: set angle ",
                         "(radians) or rotation (cos, sin)"));
    return {};
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
      case v1::Shape::KIND_NOT_SET:
        break;
    }
    v_->Add(absl::StrCat(path, " has no shape set: set one of point, circle, ",
                         "rect, rotated_rect, point3, sphere, box"));
    return std::nullopt;
  }

  Violations* violations() { return v_; }

 private:
  Violations* v_;
};

// The shape when every field of it is valid (the same rules and the same
// conversions as Parser::ParseShape, rotations included); false otherwise,
// and the caller runs Parser::ParseShape for the messages. Builds no
// strings: the fast path of large batches.
inline bool FastShape(const v1::Shape& s, Shape* out) {
  auto coord = [](float v) {
    return std::isfinite(v) && std::fabs(v) <= kMaxMagnitude;
  };
  auto length = [&](float v) { return coord(v) && v >= 0; };
  switch (s.kind_case()) {
    case v1::Shape::kPoint:
      if (!coord(s.point().x()) || !coord(s.point().y())) return false;
      *out = Vec2{s.point().x(), s.point().y()};
      return true;
    case v1::Shape::kCircle: {
      const v1::Circle& c = s.circle();
      if (!c.has_center() || !coord(c.center().x()) || !coord(c.center().y()) ||
          !length(c.radius())) {
        return false;
      }
      *out = Circle{{c.center().x(), c.center().y()}, c.radius()};
      return true;
    }
    case v1::Shape::kRect: {
      const v1::Rect& r = s.rect();
      if (!r.has_min() || !r.has_max()) return false;
      const Rect rect{{r.min().x(), r.min().y()}, {r.max().x(), r.max().y()}};
      if (!coord(rect.min.x) || !coord(rect.min.y) || !coord(rect.max.x) ||
          !coord(rect.max.y) || rect.max.x < rect.min.x ||
          rect.max.y < rect.min.y) {
        return false;
      }
      *out = rect;
      return true;
    }
    case v1::Shape::kRotatedRect: {
      const v1::RotatedRect& r = s.rotated_rect();
      if (!r.has_size() || !r.has_pivot() || !r.has_position()) return false;
      RotatedRect rect;
      rect.size = {r.size().x(), r.size().y()};
      rect.pivot = {r.pivot().x(), r.pivot().y()};
      rect.position = {r.position().x(), r.position().y()};
      if (!length(rect.size.x) || !length(rect.size.y) ||
          !coord(rect.pivot.x) || !coord(rect.pivot.y) ||
          !coord(rect.position.x) || !coord(rect.position.y)) {
        return false;
      }
      if (r.orientation_case() == v1::RotatedRect::kAngle) {
        const float a = r.angle();
        if (!std::isfinite(a) || std::fabs(a) > kMaxAngle) return false;
        simd::RotationFromAngleColumns(&a, 1, &rect.rotation.cos,
                                       &rect.rotation.sin);
      } else if (r.orientation_case() == v1::RotatedRect::kRotation) {
        const float c = r.rotation().cos();
        const float sn = r.rotation().sin();
        if (!std::isfinite(c) || !std::isfinite(sn) ||
            std::fabs(double{c} * c + double{sn} * sn - 1.0) >
                kRotationUnitTolerance) {
          return false;
        }
        rect.rotation = {c, sn};
      } else {
        return false;
      }
      *out = rect;
      return true;
    }
    case v1::Shape::kPoint3: {
      const v1::Vec3& p = s.point3();
      if (!coord(p.x()) || !coord(p.y()) || !coord(p.z())) return false;
      *out = Vec3{p.x(), p.y(), p.z()};
      return true;
    }
    case v1::Shape::kSphere: {
      const v1::Sphere& c = s.sphere();
      if (!c.has_center() || !coord(c.center().x()) || !coord(c.center().y()) ||
          !coord(c.center().z()) || !length(c.radius())) {
        return false;
      }
      *out =
          Sphere{{c.center().x(), c.center().y(), c.center().z()}, c.radius()};
      return true;
    }
    case v1::Shape::kBox: {
      const v1::Box& b = s.box();
      if (!b.has_min() || !b.has_max()) return false;
      const Box box{{b.min().x(), b.min().y(), b.min().z()},
                    {b.max().x(), b.max().y(), b.max().z()}};
      const float v[6] = {box.min.x, box.min.y, box.min.z,
                          box.max.x, box.max.y, box.max.z};
      for (float x : v) {
        if (!coord(x)) return false;
      }
      if (box.max.x < box.min.x || box.max.y < box.min.y ||
          box.max.z < box.min.z) {
        return false;
      }
      *out = box;
      return true;
    }
    case v1::Shape::KIND_NOT_SET:
      return false;
  }
  return false;
}

}  // namespace collision::server

#endif  // COLLISION_SERVER_SHAPE_PARSER_H_
