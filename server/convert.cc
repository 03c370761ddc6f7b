#include "server/convert.h"

#include <cmath>
#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "collision/core/kernels.h"
#include "collision/core/scalar.h"

namespace collision::server {

void Violations::Add(std::string message) {
  if (listed_.size() < kMaxListedViolations) {
    listed_.push_back(std::move(message));
  }
  ++count_;
}

absl::Status Violations::ToStatus() const {
  std::string message = absl::StrJoin(listed_, "; ");
  if (count_ > listed_.size()) {
    absl::StrAppend(&message, "; and ", count_ - listed_.size(),
                    " more invalid fields");
  }
  return absl::InvalidArgumentError(message);
}

const char* WorkKindName(WorkKind kind) {
  static constexpr const char* kNames[kWorkKinds] = {"circle_circle",
                                                     "circle_rect",
                                                     "circle_rotated_rect",
                                                     "rect_rect",
                                                     "sphere_sphere",
                                                     "sphere_box",
                                                     "box_box",
                                                     "closest_circle",
                                                     "closest_rect",
                                                     "closest_rotated_rect",
                                                     "closest_sphere",
                                                     "closest_box"};
  return kNames[static_cast<int>(kind)];
}

WorkKind IntersectWorkKind(ShapeKind a, ShapeKind b) {
  const auto is_ball = [](ShapeKind k) {
    return k == ShapeKind::kPoint2 || k == ShapeKind::kCircle ||
           k == ShapeKind::kPoint3 || k == ShapeKind::kSphere;
  };
  if (!is_ball(a)) std::swap(a, b);
  if (is_ball(a)) {
    switch (b) {
      case ShapeKind::kRect:
        return WorkKind::kCircleRect;
      case ShapeKind::kRotatedRect:
        return WorkKind::kCircleRotatedRect;
      case ShapeKind::kBox:
        return WorkKind::kSphereBox;
      case ShapeKind::kPoint3:
      case ShapeKind::kSphere:
        return WorkKind::kSphereSphere;
      default:
        return WorkKind::kCircleCircle;
    }
  }
  return a == ShapeKind::kBox ? WorkKind::kBoxBox : WorkKind::kRectRect;
}

WorkKind ClosestWorkKind(ShapeKind target) {
  switch (target) {
    case ShapeKind::kRect:
      return WorkKind::kClosestRect;
    case ShapeKind::kRotatedRect:
      return WorkKind::kClosestRotatedRect;
    case ShapeKind::kPoint3:
    case ShapeKind::kSphere:
      return WorkKind::kClosestSphere;
    case ShapeKind::kBox:
      return WorkKind::kClosestBox;
    default:
      return WorkKind::kClosestCircle;
  }
}

namespace {

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

const char* const kSupportedPairs =
    "supported: point|circle vs point|circle|rect|rotated_rect, rect vs rect, "
    "point3|sphere vs point3|sphere|box, box vs box";

}  // namespace

std::optional<Boundary> ParseBoundary(v1::BoundaryRule rule, Violations* v) {
  switch (rule) {
    case v1::BOUNDARY_RULE_INCLUSIVE:
      return Boundary::kInclusive;
    case v1::BOUNDARY_RULE_EXCLUSIVE:
      return Boundary::kExclusive;
    case v1::BOUNDARY_RULE_UNSPECIFIED:
      v->Add(
          "boundary is required: BOUNDARY_RULE_INCLUSIVE (touching is a hit) "
          "or BOUNDARY_RULE_EXCLUSIVE (only overlap is a hit)");
      return std::nullopt;
    default:
      v->Add(absl::StrCat("boundary has unknown value ", static_cast<int>(rule),
                          "; use BOUNDARY_RULE_INCLUSIVE or "
                          "BOUNDARY_RULE_EXCLUSIVE"));
      return std::nullopt;
  }
}

// Checks the batch size up front: an empty or oversized batch is rejected
// without looking at its items.
absl::Status CheckBatchSize(std::size_t size, const char* field,
                            const RequestLimits& limits) {
  if (size == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, " must not be empty"));
  }
  if (size > limits.max_batch) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, " has ", size, " items, over this server's limit of ",
        limits.max_batch, "; split the batch"));
  }
  return absl::OkStatus();
}

absl::StatusOr<ParsedIntersect> ParseIntersectRequest(
    const v1::IntersectRequest& request, const RequestLimits& limits) {
  if (auto s = CheckBatchSize(static_cast<std::size_t>(request.pairs_size()),
                              "pairs", limits);
      !s.ok()) {
    return s;
  }
  Violations violations;
  Parser parser(&violations);
  ParsedIntersect out;
  const std::optional<Boundary> boundary =
      ParseBoundary(request.boundary(), &violations);
  out.boundary = boundary.value_or(Boundary::kInclusive);
  out.include_relation = request.include_relation();
  out.include_separation = request.include_separation();
  out.pairs.reserve(request.pairs_size());
  for (int i = 0; i < request.pairs_size(); ++i) {
    const v1::ShapePair& pair = request.pairs(i);
    const std::string path = absl::StrCat("pairs[", i, "]");
    std::optional<Shape> a =
        parser.ParseShape(pair.has_a(), pair.a(), path + ".a");
    std::optional<Shape> b =
        parser.ParseShape(pair.has_b(), pair.b(), path + ".b");
    if (!a || !b) continue;
    const ShapeKind ka = KindOf(*a);
    const ShapeKind kb = KindOf(*b);
    if (!IsSupportedIntersectPair(ka, kb)) {
      violations.Add(
          absl::StrCat(path, ": ", KindName(ka), " vs ", KindName(kb),
                       Is3D(ka) != Is3D(kb) ? " mixes a 2D and a 3D shape"
                                            : " is not a supported pair",
                       " (", kSupportedPairs, ")"));
      continue;
    }
    if (violations.empty()) {
      ++out.counts[static_cast<int>(IntersectWorkKind(ka, kb))];
      out.pairs.push_back({*std::move(a), *std::move(b)});
    }
  }
  if (!violations.empty()) return violations.ToStatus();
  return out;
}

absl::StatusOr<ParsedClosestPoint> ParseClosestPointRequest(
    const v1::ClosestPointRequest& request, const RequestLimits& limits) {
  if (auto s = CheckBatchSize(static_cast<std::size_t>(request.queries_size()),
                              "queries", limits);
      !s.ok()) {
    return s;
  }
  Violations violations;
  Parser parser(&violations);
  ParsedClosestPoint out;
  const std::optional<Boundary> boundary =
      ParseBoundary(request.boundary(), &violations);
  out.boundary = boundary.value_or(Boundary::kInclusive);
  out.items.reserve(request.queries_size());
  for (int i = 0; i < request.queries_size(); ++i) {
    const v1::ClosestPointQuery& item = request.queries(i);
    const std::string path = absl::StrCat("queries[", i, "]");
    std::optional<Shape> q =
        parser.ParseShape(item.has_query(), item.query(), path + ".query");
    std::optional<Shape> t =
        parser.ParseShape(item.has_target(), item.target(), path + ".target");
    if (q && !IsClosestPointQuery(KindOf(*q))) {
      violations.Add(absl::StrCat(path, ".query must be a point, circle, ",
                                  "point3 or sphere, got ",
                                  KindName(KindOf(*q))));
      continue;
    }
    if (!q || !t) continue;
    if (Is3D(KindOf(*q)) != Is3D(KindOf(*t))) {
      violations.Add(absl::StrCat(path, ": query ", KindName(KindOf(*q)),
                                  " and target ", KindName(KindOf(*t)),
                                  " mix a 2D and a 3D shape"));
      continue;
    }
    if (violations.empty()) {
      ++out.counts[static_cast<int>(ClosestWorkKind(KindOf(*t)))];
      out.items.push_back({*std::move(q), *std::move(t)});
    }
  }
  if (!violations.empty()) return violations.ToStatus();
  return out;
}

namespace {

v1::Relation ToProto(Relation r) {
  switch (r) {
    case Relation::kDisjoint:
      return v1::RELATION_DISJOINT;
    case Relation::kTouching:
      return v1::RELATION_TOUCHING;
    case Relation::kOverlapping:
      return v1::RELATION_OVERLAPPING;
  }
  return v1::RELATION_UNSPECIFIED;
}

void SetVec3(const Vec3& v, v1::Vec3* out) {
  out->set_x(v.x);
  out->set_y(v.y);
  out->set_z(v.z);
}

}  // namespace

void FillIntersectResponse(const ParsedIntersect& request,
                           const std::vector<IntersectResult>& results,
                           v1::IntersectResponse* response) {
  response->Clear();
  response->mutable_results()->Reserve(static_cast<int>(results.size()));
  for (const IntersectResult& r : results) {
    v1::IntersectResult* out = response->add_results();
    out->set_hit(r.hit);
    if (request.include_relation) out->set_relation(ToProto(r.relation));
    if (request.include_separation) out->set_separation(r.separation);
  }
}

void FillClosestPointResponse(const std::vector<ClosestPointResult>& results,
                              v1::ClosestPointResponse* response) {
  response->Clear();
  response->mutable_results()->Reserve(static_cast<int>(results.size()));
  for (const ClosestPointResult& r : results) {
    v1::ClosestPointResult* out = response->add_results();
    SetVec3(r.closest_point, out->mutable_closest_point());
    SetVec3(r.surface_point, out->mutable_surface_point());
    SetVec3(r.normal, out->mutable_normal());
    out->set_signed_distance(r.signed_distance);
    out->set_gap(r.gap);
    out->set_inside(r.inside);
  }
}

}  // namespace collision::server
