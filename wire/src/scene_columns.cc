#include "collision/wire/scene_columns.h"

#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "collision/core/kernels.h"

namespace collision::wire {
namespace {

// The scene's entities as the columns give them: ids[i] gets the shape of
// row i of the group's columns.
class ColumnReader {
 public:
  ColumnReader(const v1::EntityColumns& g, std::string path, Parser* parser,
               Violations* v)
      : g_(g), path_(std::move(path)), parser_(parser), v_(v) {}

  void Read(SceneDimension dimension, std::vector<SceneUpsert>* out) {
    n_ = static_cast<std::size_t>(g_.ids_size());
    if (g_.categories_size() != 0 &&
        static_cast<std::size_t>(g_.categories_size()) != n_) {
      v_->Add(path_ + ".categories",
              absl::StrCat("has ", g_.categories_size(), " values for ", n_,
                           " ids; give ", n_, " or none"));
      return;
    }
    const std::size_t first = out->size();
    out->resize(first + n_);
    for (std::size_t i = 0; i < n_; ++i) {
      (*out)[first + i].id = g_.ids(static_cast<int>(i));
      (*out)[first + i].category =
          g_.categories_size() == 0 ? 1 : g_.categories(static_cast<int>(i));
    }
    SceneUpsert* rows = out->data() + first;
    const bool flat = dimension == SceneDimension::k2D;
    switch (g_.shapes_case()) {
      case v1::EntityColumns::kCircles:
        if (!flat) break;
        return Balls2(g_.circles(), rows);
      case v1::EntityColumns::kRects:
        if (!flat) break;
        return Rects(g_.rects(), rows);
      case v1::EntityColumns::kRotatedRects:
        if (!flat) break;
        return Rotated(g_.rotated_rects(), rows);
      case v1::EntityColumns::kSpheres:
        if (flat) break;
        return Balls3(g_.spheres(), rows);
      case v1::EntityColumns::kBoxes:
        if (flat) break;
        return Boxes(g_.boxes(), rows);
      case v1::EntityColumns::SHAPES_NOT_SET:
        v_->Add(path_ + ".shapes",
                "is required: set circles, rects, rotated_rects, spheres or "
                "boxes");
        return;
    }
    v_->Add(path_, absl::StrCat("holds shapes of the wrong dimension for a ",
                                DimensionName(dimension), " scene"));
  }

 private:
  template <typename Field>
  bool Sized(const Field& column, const char* name, bool optional = false) {
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
  // The checks of Parser::Coord / Length, with the field path built only
  // for a value that fails them (a path per value cost more than all the
  // rest of a 10k-entity tick).
  float Coord(const google::protobuf::RepeatedField<float>& c, const char* g,
              const char* name, std::size_t i) {
    const float v = c.Get(static_cast<int>(i));
    if (std::isfinite(v) && std::fabs(v) <= kMaxMagnitude) return v;
    return parser_->Coord(v, At(g, name, i));
  }
  float Length(const google::protobuf::RepeatedField<float>& c, const char* g,
               const char* name, std::size_t i) {
    const float v = c.Get(static_cast<int>(i));
    if (std::isfinite(v) && std::fabs(v) <= kMaxMagnitude && v >= 0) return v;
    return parser_->Length(v, At(g, name, i));
  }

  void Balls2(const v1::BallColumns2& b, SceneUpsert* rows) {
    if (!Sized(b.x(), "circles.x") || !Sized(b.y(), "circles.y") ||
        !Sized(b.radius(), "circles.radius", true)) {
      return;
    }
    for (std::size_t i = 0; i < n_; ++i) {
      const Vec2 c{Coord(b.x(), "circles", "x", i),
                   Coord(b.y(), "circles", "y", i)};
      if (b.radius_size() == 0) {
        rows[i].shape = c;
      } else {
        rows[i].shape = Circle{c, Length(b.radius(), "circles", "radius", i)};
      }
    }
  }
  void Rects(const v1::RectColumns& r, SceneUpsert* rows) {
    if (!Sized(r.min_x(), "rects.min_x") || !Sized(r.min_y(), "rects.min_y") ||
        !Sized(r.max_x(), "rects.max_x") || !Sized(r.max_y(), "rects.max_y")) {
      return;
    }
    for (std::size_t i = 0; i < n_; ++i) {
      const Rect rect{{Coord(r.min_x(), "rects", "min_x", i),
                       Coord(r.min_y(), "rects", "min_y", i)},
                      {Coord(r.max_x(), "rects", "max_x", i),
                       Coord(r.max_y(), "rects", "max_y", i)}};
      if (rect.max.x < rect.min.x || rect.max.y < rect.min.y) {
        const std::string p = absl::StrCat(path_, ".rects[", i, "]");
        parser_->Ordered(rect.min.x, rect.max.x, p, "x");
        parser_->Ordered(rect.min.y, rect.max.y, p, "y");
      }
      rows[i].shape = rect;
    }
  }
  void Rotated(const v1::RotatedRectColumns& r, SceneUpsert* rows) {
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
    for (std::size_t i = 0; i < n_; ++i) {
      // Valid orientations are converted here; an invalid one goes through
      // the per-entity parser for its message (and the same rules).
      Rotation rotation;
      bool valid = false;
      if (angles) {
        const float a = r.angle(static_cast<int>(i));
        valid = std::isfinite(a) && std::fabs(a) <= kMaxAngle;
        if (valid) {
          simd::RotationFromAngleColumns(&a, 1, &rotation.cos, &rotation.sin);
        }
      } else {
        rotation = {r.cos(static_cast<int>(i)), r.sin(static_cast<int>(i))};
        valid = std::isfinite(rotation.cos) && std::isfinite(rotation.sin) &&
                std::fabs(double{rotation.cos} * rotation.cos +
                          double{rotation.sin} * rotation.sin - 1.0) <=
                    kRotationUnitTolerance;
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
      RotatedRect rect;
      rect.size = {Length(r.size_x(), g, "size_x", i),
                   Length(r.size_y(), g, "size_y", i)};
      rect.pivot = {Coord(r.pivot_x(), g, "pivot_x", i),
                    Coord(r.pivot_y(), g, "pivot_y", i)};
      rect.position = {Coord(r.position_x(), g, "position_x", i),
                       Coord(r.position_y(), g, "position_y", i)};
      rect.rotation = rotation;
      rows[i].shape = rect;
    }
  }
  void Balls3(const v1::BallColumns3& b, SceneUpsert* rows) {
    if (!Sized(b.x(), "spheres.x") || !Sized(b.y(), "spheres.y") ||
        !Sized(b.z(), "spheres.z") ||
        !Sized(b.radius(), "spheres.radius", true)) {
      return;
    }
    for (std::size_t i = 0; i < n_; ++i) {
      const Vec3 c{Coord(b.x(), "spheres", "x", i),
                   Coord(b.y(), "spheres", "y", i),
                   Coord(b.z(), "spheres", "z", i)};
      if (b.radius_size() == 0) {
        rows[i].shape = c;
      } else {
        rows[i].shape = Sphere{c, Length(b.radius(), "spheres", "radius", i)};
      }
    }
  }
  void Boxes(const v1::BoxColumns& b, SceneUpsert* rows) {
    if (!Sized(b.min_x(), "boxes.min_x") || !Sized(b.min_y(), "boxes.min_y") ||
        !Sized(b.min_z(), "boxes.min_z") || !Sized(b.max_x(), "boxes.max_x") ||
        !Sized(b.max_y(), "boxes.max_y") || !Sized(b.max_z(), "boxes.max_z")) {
      return;
    }
    for (std::size_t i = 0; i < n_; ++i) {
      const Box box{{Coord(b.min_x(), "boxes", "min_x", i),
                     Coord(b.min_y(), "boxes", "min_y", i),
                     Coord(b.min_z(), "boxes", "min_z", i)},
                    {Coord(b.max_x(), "boxes", "max_x", i),
                     Coord(b.max_y(), "boxes", "max_y", i),
                     Coord(b.max_z(), "boxes", "max_z", i)}};
      if (box.max.x < box.min.x || box.max.y < box.min.y ||
          box.max.z < box.min.z) {
        const std::string p = absl::StrCat(path_, ".boxes[", i, "]");
        parser_->Ordered(box.min.x, box.max.x, p, "x");
        parser_->Ordered(box.min.y, box.max.y, p, "y");
        parser_->Ordered(box.min.z, box.max.z, p, "z");
      }
      rows[i].shape = box;
    }
  }

  const v1::EntityColumns& g_;
  const std::string path_;
  Parser* parser_;
  Violations* v_;
  std::size_t n_ = 0;
};

}  // namespace

const char* DimensionName(SceneDimension d) {
  return d == SceneDimension::k3D ? "3D" : "2D";
}

void ReadEntityColumns(const v1::EntityColumns& group, const std::string& path,
                       SceneDimension dimension, Parser* parser, Violations* v,
                       std::vector<SceneUpsert>* out) {
  ColumnReader(group, path, parser, v).Read(dimension, out);
}

}  // namespace collision::wire
