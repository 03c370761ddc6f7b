#include "collision/wire/scene_columns.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "collision/core/kernels.h"
#include "collision/wire/field_rules.h"

namespace collision::wire {
namespace {

// The scene's entities as the columns give them: ids[i] gets the shape of
// row i of the group's columns.
class ColumnReader {
 public:
  ColumnReader(const v1::EntityColumns& g, std::string path, Parser* parser,
               Violations* v)
      : g_(g), path_(std::move(path)), parser_(parser), v_(v) {}

  void Read(SceneDimension dimension, SceneColumnUpserts* out) {
    n_ = static_cast<std::size_t>(g_.ids_size());
    if (g_.categories_size() != 0 &&
        static_cast<std::size_t>(g_.categories_size()) != n_) {
      v_->Add(path_ + ".categories",
              absl::StrCat("has ", g_.categories_size(), " values for ", n_,
                           " ids; give ", n_, " or none"));
      return;
    }
    out->ids.assign(g_.ids().begin(), g_.ids().end());
    out->categories.assign(g_.categories().begin(), g_.categories().end());
    out_ = out;
    const bool flat = dimension == SceneDimension::k2D;
    switch (g_.shapes_case()) {
      case v1::EntityColumns::kCircles:
        if (!flat) break;
        return Balls2(g_.circles());
      case v1::EntityColumns::kRects:
        if (!flat) break;
        return Rects(g_.rects());
      case v1::EntityColumns::kRotatedRects:
        if (!flat) break;
        return Rotated(g_.rotated_rects());
      case v1::EntityColumns::kSpheres:
        if (flat) break;
        return Balls3(g_.spheres());
      case v1::EntityColumns::kBoxes:
        if (flat) break;
        return Boxes(g_.boxes());
      case v1::EntityColumns::kCapsules:
        if (flat) break;
        return Capsules(g_.capsules());
      case v1::EntityColumns::kOrientedBoxes:
        if (flat) break;
        return OrientedBoxes(g_.oriented_boxes());
      case v1::EntityColumns::SHAPES_NOT_SET:
        v_->Add(path_ + ".shapes",
                "is required: set circles, rects, rotated_rects, spheres, "
                "boxes, capsules or oriented_boxes");
        return;
    }
    v_->Add(path_, absl::StrCat("holds shapes of the wrong dimension for a ",
                                DimensionName(dimension), " scene"));
  }

 private:
  using Field = google::protobuf::RepeatedField<float>;

  template <typename F>
  bool Sized(const F& column, const char* name, bool optional = false) {
    const auto size = static_cast<std::size_t>(column.size());
    if (size == n_ || (optional && size == 0)) return true;
    v_->Add(absl::StrCat(path_, ".", name),
            absl::StrCat("has ", size, " values for ", n_, " ids",
                         optional ? " (give them all or none)" : ""));
    return false;
  }
  std::string At(const char* group, const char* name, std::size_t i) const {
    return absl::StrCat(path_, ".", group, ".", name, "[", i, "]");
  }
  // Column `c` of the output: the field's values, each checked as
  // Parser::Coord (or Length) would, with the field path built only for a
  // value that fails (a path per value cost more than all the rest of a
  // 10k-entity tick).
  std::vector<float>& Out(std::size_t c) {
    std::vector<float>& column = out_->columns[c];
    column.resize(n_);
    return column;
  }
  void Coords(std::size_t c, const Field& in, const char* g, const char* name) {
    float* out = Out(c).data();
    for (std::size_t i = 0; i < n_; ++i) {
      const float v = in.Get(static_cast<int>(i));
      out[i] =
          Passes(v, FieldRule::kCoord) ? v : parser_->Coord(v, At(g, name, i));
    }
  }
  void Lengths(std::size_t c, const Field& in, const char* g,
               const char* name) {
    float* out = Out(c).data();
    for (std::size_t i = 0; i < n_; ++i) {
      const float v = in.Get(static_cast<int>(i));
      out[i] = Passes(v, FieldRule::kLength)
                   ? v
                   : parser_->Length(v, At(g, name, i));
    }
  }
  // min <= max for every row of columns lo and hi.
  void Ordered(std::size_t lo, std::size_t hi, const char* g,
               const char* axis) {
    const float* a = out_->columns[lo].data();
    const float* b = out_->columns[hi].data();
    for (std::size_t i = 0; i < n_; ++i) {
      if (b[i] < a[i]) {
        parser_->Ordered(a[i], b[i], absl::StrCat(path_, ".", g, "[", i, "]"),
                         axis);
      }
    }
  }

  void Balls2(const v1::BallColumns2& b) {
    if (!Sized(b.x(), "circles.x") || !Sized(b.y(), "circles.y") ||
        !Sized(b.radius(), "circles.radius", true)) {
      return;
    }
    out_->kind = b.radius_size() == 0 ? ShapeKind::kPoint2 : ShapeKind::kCircle;
    Coords(0, b.x(), "circles", "x");
    Coords(1, b.y(), "circles", "y");
    if (b.radius_size() != 0) Lengths(2, b.radius(), "circles", "radius");
  }
  void Rects(const v1::RectColumns& r) {
    if (!Sized(r.min_x(), "rects.min_x") || !Sized(r.min_y(), "rects.min_y") ||
        !Sized(r.max_x(), "rects.max_x") || !Sized(r.max_y(), "rects.max_y")) {
      return;
    }
    out_->kind = ShapeKind::kRect;
    Coords(0, r.min_x(), "rects", "min_x");
    Coords(1, r.min_y(), "rects", "min_y");
    Coords(2, r.max_x(), "rects", "max_x");
    Coords(3, r.max_y(), "rects", "max_y");
    Ordered(0, 2, "rects", "x");
    Ordered(1, 3, "rects", "y");
  }
  void Rotated(const v1::RotatedRectColumns& r) {
    const char* g = "rotated_rects";
    if (!Sized(r.size_x(), "rotated_rects.size_x") ||
        !Sized(r.size_y(), "rotated_rects.size_y") ||
        !Sized(r.pivot_x(), "rotated_rects.pivot_x") ||
        !Sized(r.pivot_y(), "rotated_rects.pivot_y") ||
        !Sized(r.position_x(), "rotated_rects.position_x") ||
        !Sized(r.position_y(), "rotated_rects.position_y")) {
      return;
    }
    const bool angles = r.angle_size() != 0;
    if (angles == (r.cos_size() != 0 || r.sin_size() != 0)) {
      v_->Add(path_ + ".rotated_rects",
              "needs either angle or both cos and sin");
      return;
    }
    if (angles ? !Sized(r.angle(), "rotated_rects.angle")
               : !Sized(r.cos(), "rotated_rects.cos") ||
                     !Sized(r.sin(), "rotated_rects.sin")) {
      return;
    }
    out_->kind = ShapeKind::kRotatedRect;
    Lengths(0, r.size_x(), g, "size_x");
    Lengths(1, r.size_y(), g, "size_y");
    Coords(2, r.pivot_x(), g, "pivot_x");
    Coords(3, r.pivot_y(), g, "pivot_y");
    Coords(4, r.position_x(), g, "position_x");
    Coords(5, r.position_y(), g, "position_y");
    float* cos = Out(6).data();
    float* sin = Out(7).data();
    for (std::size_t i = 0; i < n_; ++i) {
      // Valid orientations are converted here; an invalid one goes through
      // the per-entity parser for its message (and the same rules).
      bool valid = false;
      if (angles) {
        const float a = r.angle(static_cast<int>(i));
        valid = Passes(a, FieldRule::kAngle);
        if (valid) simd::RotationFromAngleColumns(&a, 1, &cos[i], &sin[i]);
      } else {
        cos[i] = r.cos(static_cast<int>(i));
        sin[i] = r.sin(static_cast<int>(i));
        valid = IsUnitRotation(cos[i], sin[i]);
      }
      if (!valid) {
        v1::RotatedRect one;
        if (angles) {
          one.set_angle(r.angle(static_cast<int>(i)));
        } else {
          one.mutable_rotation()->set_cos(r.cos(static_cast<int>(i)));
          one.mutable_rotation()->set_sin(r.sin(static_cast<int>(i)));
        }
        parser_->Orientation(one, absl::StrCat(path_, ".", g, "[", i, "]"));
      }
    }
  }
  void Balls3(const v1::BallColumns3& b) {
    if (!Sized(b.x(), "spheres.x") || !Sized(b.y(), "spheres.y") ||
        !Sized(b.z(), "spheres.z") ||
        !Sized(b.radius(), "spheres.radius", true)) {
      return;
    }
    out_->kind = b.radius_size() == 0 ? ShapeKind::kPoint3 : ShapeKind::kSphere;
    Coords(0, b.x(), "spheres", "x");
    Coords(1, b.y(), "spheres", "y");
    Coords(2, b.z(), "spheres", "z");
    if (b.radius_size() != 0) Lengths(3, b.radius(), "spheres", "radius");
  }
  void Boxes(const v1::BoxColumns& b) {
    if (!Sized(b.min_x(), "boxes.min_x") || !Sized(b.min_y(), "boxes.min_y") ||
        !Sized(b.min_z(), "boxes.min_z") || !Sized(b.max_x(), "boxes.max_x") ||
        !Sized(b.max_y(), "boxes.max_y") || !Sized(b.max_z(), "boxes.max_z")) {
      return;
    }
    out_->kind = ShapeKind::kBox;
    Coords(0, b.min_x(), "boxes", "min_x");
    Coords(1, b.min_y(), "boxes", "min_y");
    Coords(2, b.min_z(), "boxes", "min_z");
    Coords(3, b.max_x(), "boxes", "max_x");
    Coords(4, b.max_y(), "boxes", "max_y");
    Coords(5, b.max_z(), "boxes", "max_z");
    Ordered(0, 3, "boxes", "x");
    Ordered(1, 4, "boxes", "y");
    Ordered(2, 5, "boxes", "z");
  }

  void Capsules(const v1::Capsule3Columns& c) {
    const char* g = "capsules";
    if (!Sized(c.a_x(), "capsules.a_x") || !Sized(c.a_y(), "capsules.a_y") ||
        !Sized(c.a_z(), "capsules.a_z") || !Sized(c.b_x(), "capsules.b_x") ||
        !Sized(c.b_y(), "capsules.b_y") || !Sized(c.b_z(), "capsules.b_z") ||
        !Sized(c.radius(), "capsules.radius")) {
      return;
    }
    out_->kind = ShapeKind::kCapsule3;
    Coords(0, c.a_x(), g, "a_x");
    Coords(1, c.a_y(), g, "a_y");
    Coords(2, c.a_z(), g, "a_z");
    Coords(3, c.b_x(), g, "b_x");
    Coords(4, c.b_y(), g, "b_y");
    Coords(5, c.b_z(), g, "b_z");
    Lengths(6, c.radius(), g, "radius");
  }
  void OrientedBoxes(const v1::OrientedBoxColumns& b) {
    const char* g = "oriented_boxes";
    if (!Sized(b.center_x(), "oriented_boxes.center_x") ||
        !Sized(b.center_y(), "oriented_boxes.center_y") ||
        !Sized(b.center_z(), "oriented_boxes.center_z") ||
        !Sized(b.half_x(), "oriented_boxes.half_x") ||
        !Sized(b.half_y(), "oriented_boxes.half_y") ||
        !Sized(b.half_z(), "oriented_boxes.half_z") ||
        !Sized(b.rotation_w(), "oriented_boxes.rotation_w") ||
        !Sized(b.rotation_x(), "oriented_boxes.rotation_x") ||
        !Sized(b.rotation_y(), "oriented_boxes.rotation_y") ||
        !Sized(b.rotation_z(), "oriented_boxes.rotation_z")) {
      return;
    }
    out_->kind = ShapeKind::kOrientedBox;
    Coords(0, b.center_x(), g, "center_x");
    Coords(1, b.center_y(), g, "center_y");
    Coords(2, b.center_z(), g, "center_z");
    Lengths(3, b.half_x(), g, "half_x");
    Lengths(4, b.half_y(), g, "half_y");
    Lengths(5, b.half_z(), g, "half_z");
    float* q[4] = {Out(6).data(), Out(7).data(), Out(8).data(), Out(9).data()};
    for (std::size_t i = 0; i < n_; ++i) {
      const int row = static_cast<int>(i);
      q[0][i] = b.rotation_w(row), q[1][i] = b.rotation_x(row);
      q[2][i] = b.rotation_y(row), q[3][i] = b.rotation_z(row);
      if (!IsUnitQuaternion(q[0][i], q[1][i], q[2][i], q[3][i])) {
        // The per-entity parser's words for it.
        v1::Quaternion one;
        one.set_w(q[0][i]);
        one.set_x(q[1][i]);
        one.set_y(q[2][i]);
        one.set_z(q[3][i]);
        parser_->Quaternion(true, one,
                            absl::StrCat(path_, ".", g, "[", i, "].rotation"));
      }
    }
  }

  const v1::EntityColumns& g_;
  const std::string path_;
  Parser* parser_;
  Violations* v_;
  std::size_t n_ = 0;
  SceneColumnUpserts* out_ = nullptr;
};

}  // namespace

Shape SceneColumnUpserts::shape(std::size_t i) const {
  const auto at = [&](std::size_t c) { return columns[c][i]; };
  switch (kind) {
    case ShapeKind::kPoint2:
      return Vec2{at(0), at(1)};
    case ShapeKind::kCircle:
      return Circle{{at(0), at(1)}, at(2)};
    case ShapeKind::kRect:
      return Rect{{at(0), at(1)}, {at(2), at(3)}};
    case ShapeKind::kRotatedRect:
      return RotatedRect{
          {at(0), at(1)}, {at(2), at(3)}, {at(4), at(5)}, {at(6), at(7)}};
    case ShapeKind::kPoint3:
      return Vec3{at(0), at(1), at(2)};
    case ShapeKind::kSphere:
      return Sphere{{at(0), at(1), at(2)}, at(3)};
    case ShapeKind::kBox:
      return Box{{at(0), at(1), at(2)}, {at(3), at(4), at(5)}};
    case ShapeKind::kCapsule3:
      return Capsule3{{at(0), at(1), at(2)}, {at(3), at(4), at(5)}, at(6)};
    case ShapeKind::kOrientedBox:
      return OrientedBox{{at(0), at(1), at(2)},
                         {at(3), at(4), at(5)},
                         {at(6), at(7), at(8), at(9)}};
  }
  return Vec2{};
}

const char* DimensionName(SceneDimension d) {
  return d == SceneDimension::k3D ? "3D" : "2D";
}

void ReadEntityColumns(const v1::EntityColumns& group, const std::string& path,
                       SceneDimension dimension, Parser* parser, Violations* v,
                       SceneColumnUpserts* out) {
  ColumnReader(group, path, parser, v).Read(dimension, out);
}

}  // namespace collision::wire
