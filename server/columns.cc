#include "server/columns.h"

#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collision/core/kernels.h"

namespace collision::server {
namespace {

using Column = google::protobuf::RepeatedField<float>;

enum class Rule { kCoord, kLength, kAngle, kUnitPart };

bool Ok(float v, Rule rule) {
  switch (rule) {
    case Rule::kCoord:
      return std::fabs(v) <= kMaxMagnitude;
    case Rule::kLength:
      return v >= 0 && v <= kMaxMagnitude;
    case Rule::kAngle:
      return std::fabs(v) <= kMaxAngle;
    case Rule::kUnitPart:
      return std::fabs(v) <= 1.0f + kRotationUnitTolerance;
  }
  return false;
}

// Whether every element passes; the rule is a template argument so that
// the loop is a straight compare-and-accumulate the compiler can vectorise.
template <Rule R>
bool AllOk(const Column& c) {
  const float* p = c.data();
  const int n = c.size();
  int bad = 0;
  for (int i = 0; i < n; ++i) bad |= !Ok(p[i], R);
  return bad == 0;
}

bool AllOk(const Column& c, Rule rule) {
  switch (rule) {
    case Rule::kCoord:
      return AllOk<Rule::kCoord>(c);
    case Rule::kLength:
      return AllOk<Rule::kLength>(c);
    case Rule::kAngle:
      return AllOk<Rule::kAngle>(c);
    case Rule::kUnitPart:
      return AllOk<Rule::kUnitPart>(c);
  }
  return false;
}

std::string Why(float v, Rule rule) {
  if (!std::isfinite(v)) return absl::StrCat("must be finite, got ", v);
  switch (rule) {
    case Rule::kLength:
      if (v < 0) return absl::StrCat("must be >= 0, got ", v);
      [[fallthrough]];
    case Rule::kCoord:
      return absl::StrCat("must be within [-1e9, 1e9], got ", v);
    case Rule::kAngle:
      return absl::StrCat("must be within [-1e4, 1e4] radians, got ", v);
    case Rule::kUnitPart:
      return absl::StrCat("must be within [-1, 1], got ", v);
  }
  return "is invalid";
}

// Checks the columns of one group: lengths first, then every element (a
// branch-free pass; the slow pass that names indices runs only on failure).
class GroupChecker {
 public:
  GroupChecker(Violations* v, std::string path)
      : v_(v), path_(std::move(path)) {}

  // The group's pair count is the length of its first column.
  void SetCount(const Column& first) { n_ = first.size(); }
  std::size_t n() const { return static_cast<std::size_t>(n_); }

  // `name` is e.g. "a.x"; an empty column is allowed when `optional`.
  void Check(const Column& c, const std::string& name, Rule rule,
             bool optional = false) {
    if (optional && c.empty()) return;
    if (c.size() != n_) {
      v_->Add(absl::StrCat(path_, ".", name, " has ", c.size(),
                           " values, expected ", n_, optional ? " or none" : "",
                           " (the length of the group's first column)"));
      return;
    }
    if (AllOk(c, rule)) return;
    for (int i = 0; i < c.size(); ++i) {
      if (!Ok(c[i], rule)) {
        v_->Add(absl::StrCat(path_, ".", name, "[", i, "] ", Why(c[i], rule)));
      }
    }
  }

  void Ordered(const Column& lo, const Column& hi, const std::string& op,
               const char* axis) {
    if (lo.size() != n_ || hi.size() != n_) return;
    const float* l = lo.data();
    const float* h = hi.data();
    int bad = 0;
    for (int i = 0; i < n_; ++i) bad |= h[i] < l[i];
    if (bad == 0) return;
    for (int i = 0; i < n_; ++i) {
      if (hi[i] < lo[i]) {
        v_->Add(absl::StrCat(path_, ".", op, ".max_", axis, "[", i,
                             "] must be >= min_", axis, "[", i, "] (", lo[i],
                             "), got ", hi[i]));
      }
    }
  }

  void Ball2(const v1::BallColumns2& b, const std::string& op) {
    Check(b.x(), op + ".x", Rule::kCoord);
    Check(b.y(), op + ".y", Rule::kCoord);
    Check(b.radius(), op + ".radius", Rule::kLength, /*optional=*/true);
  }
  void Ball3(const v1::BallColumns3& b, const std::string& op) {
    Check(b.x(), op + ".x", Rule::kCoord);
    Check(b.y(), op + ".y", Rule::kCoord);
    Check(b.z(), op + ".z", Rule::kCoord);
    Check(b.radius(), op + ".radius", Rule::kLength, /*optional=*/true);
  }
  void Rect(const v1::RectColumns& r, const std::string& op) {
    Check(r.min_x(), op + ".min_x", Rule::kCoord);
    Check(r.min_y(), op + ".min_y", Rule::kCoord);
    Check(r.max_x(), op + ".max_x", Rule::kCoord);
    Check(r.max_y(), op + ".max_y", Rule::kCoord);
    Ordered(r.min_x(), r.max_x(), op, "x");
    Ordered(r.min_y(), r.max_y(), op, "y");
  }
  void Box(const v1::BoxColumns& b, const std::string& op) {
    Check(b.min_x(), op + ".min_x", Rule::kCoord);
    Check(b.min_y(), op + ".min_y", Rule::kCoord);
    Check(b.min_z(), op + ".min_z", Rule::kCoord);
    Check(b.max_x(), op + ".max_x", Rule::kCoord);
    Check(b.max_y(), op + ".max_y", Rule::kCoord);
    Check(b.max_z(), op + ".max_z", Rule::kCoord);
    Ordered(b.min_x(), b.max_x(), op, "x");
    Ordered(b.min_y(), b.max_y(), op, "y");
    Ordered(b.min_z(), b.max_z(), op, "z");
  }
  void Rotated(const v1::RotatedRectColumns& r, const std::string& op) {
    Check(r.size_x(), op + ".size_x", Rule::kLength);
    Check(r.size_y(), op + ".size_y", Rule::kLength);
    Check(r.pivot_x(), op + ".pivot_x", Rule::kCoord);
    Check(r.pivot_y(), op + ".pivot_y", Rule::kCoord);
    Check(r.position_x(), op + ".position_x", Rule::kCoord);
    Check(r.position_y(), op + ".position_y", Rule::kCoord);
    const bool has_angle = !r.angle().empty();
    const bool has_cos_sin = !r.cos().empty() || !r.sin().empty();
    if (has_angle == has_cos_sin) {
      if (n_ == 0) return;
      v_->Add(absl::StrCat(path_, ".", op,
                           " must give the orientation either as angle or as "
                           "cos and sin, not ",
                           has_angle ? "both" : "neither"));
      return;
    }
    if (has_angle) {
      Check(r.angle(), op + ".angle", Rule::kAngle);
      return;
    }
    Check(r.cos(), op + ".cos", Rule::kUnitPart);
    Check(r.sin(), op + ".sin", Rule::kUnitPart);
    if (r.cos().size() != n_ || r.sin().size() != n_) return;
    for (int i = 0; i < n_; ++i) {
      const double c = r.cos(i), s = r.sin(i);
      if (!(std::fabs(c * c + s * s - 1.0) <= kRotationUnitTolerance)) {
        v_->Add(absl::StrCat(path_, ".", op, " (cos[", i, "], sin[", i,
                             "]) must have unit length, got (", c, ", ", s,
                             ")"));
      }
    }
  }

 private:
  Violations* v_;
  std::string path_;
  int n_ = 0;
};

// Validates one Intersect group; returns its pair count.
std::size_t CheckIntersectGroup(const v1::IntersectColumnGroup& g,
                                const std::string& path, Violations* v,
                                KindCounts* counts) {
  GroupChecker c(v, path);
  WorkKind kind;
  switch (g.pairs_case()) {
    case v1::IntersectColumnGroup::kCircleCircle:
      c = GroupChecker(v, path + ".circle_circle");
      c.SetCount(g.circle_circle().a().x());
      c.Ball2(g.circle_circle().a(), "a");
      c.Ball2(g.circle_circle().b(), "b");
      kind = WorkKind::kCircleCircle;
      break;
    case v1::IntersectColumnGroup::kCircleRect:
      c = GroupChecker(v, path + ".circle_rect");
      c.SetCount(g.circle_rect().a().x());
      c.Ball2(g.circle_rect().a(), "a");
      c.Rect(g.circle_rect().b(), "b");
      kind = WorkKind::kCircleRect;
      break;
    case v1::IntersectColumnGroup::kCircleRotatedRect:
      c = GroupChecker(v, path + ".circle_rotated_rect");
      c.SetCount(g.circle_rotated_rect().a().x());
      c.Ball2(g.circle_rotated_rect().a(), "a");
      c.Rotated(g.circle_rotated_rect().b(), "b");
      kind = WorkKind::kCircleRotatedRect;
      break;
    case v1::IntersectColumnGroup::kRectRect:
      c = GroupChecker(v, path + ".rect_rect");
      c.SetCount(g.rect_rect().a().min_x());
      c.Rect(g.rect_rect().a(), "a");
      c.Rect(g.rect_rect().b(), "b");
      kind = WorkKind::kRectRect;
      break;
    case v1::IntersectColumnGroup::kSphereSphere:
      c = GroupChecker(v, path + ".sphere_sphere");
      c.SetCount(g.sphere_sphere().a().x());
      c.Ball3(g.sphere_sphere().a(), "a");
      c.Ball3(g.sphere_sphere().b(), "b");
      kind = WorkKind::kSphereSphere;
      break;
    case v1::IntersectColumnGroup::kSphereBox:
      c = GroupChecker(v, path + ".sphere_box");
      c.SetCount(g.sphere_box().a().x());
      c.Ball3(g.sphere_box().a(), "a");
      c.Box(g.sphere_box().b(), "b");
      kind = WorkKind::kSphereBox;
      break;
    case v1::IntersectColumnGroup::kBoxBox:
      c = GroupChecker(v, path + ".box_box");
      c.SetCount(g.box_box().a().min_x());
      c.Box(g.box_box().a(), "a");
      c.Box(g.box_box().b(), "b");
      kind = WorkKind::kBoxBox;
      break;
    case v1::IntersectColumnGroup::PAIRS_NOT_SET:
    default:
      v->Add(absl::StrCat(path,
                          " has no pair kind set: set one of "
                          "circle_circle, circle_rect, "
                          "circle_rotated_rect, rect_rect, "
                          "sphere_sphere, sphere_box, box_box"));
      return 0;
  }
  (*counts)[static_cast<int>(kind)] += c.n();
  return c.n();
}

std::size_t CheckClosestGroup(const v1::ClosestPointColumnGroup& g,
                              const std::string& path, Violations* v,
                              KindCounts* counts) {
  const bool three_d =
      g.targets_case() == v1::ClosestPointColumnGroup::kSpheres ||
      g.targets_case() == v1::ClosestPointColumnGroup::kBoxes;
  if (g.targets_case() == v1::ClosestPointColumnGroup::TARGETS_NOT_SET) {
    v->Add(absl::StrCat(path, " has no targets set: set one of circles, ",
                        "rects, rotated_rects, spheres, boxes"));
    return 0;
  }
  GroupChecker c(v, path);
  if (three_d) {
    if (g.has_queries2() && !g.queries2().x().empty()) {
      v->Add(absl::StrCat(path, ".queries2 must be empty for 3D targets; ",
                          "use queries3"));
    }
    c.SetCount(g.queries3().x());
    c.Ball3(g.queries3(), "queries3");
  } else {
    if (g.has_queries3() && !g.queries3().x().empty()) {
      v->Add(absl::StrCat(path, ".queries3 must be empty for 2D targets; ",
                          "use queries2"));
    }
    c.SetCount(g.queries2().x());
    c.Ball2(g.queries2(), "queries2");
  }
  WorkKind kind = WorkKind::kClosestCircle;
  switch (g.targets_case()) {
    case v1::ClosestPointColumnGroup::kCircles:
      c.Ball2(g.circles(), "circles");
      break;
    case v1::ClosestPointColumnGroup::kRects:
      c.Rect(g.rects(), "rects");
      kind = WorkKind::kClosestRect;
      break;
    case v1::ClosestPointColumnGroup::kRotatedRects:
      c.Rotated(g.rotated_rects(), "rotated_rects");
      kind = WorkKind::kClosestRotatedRect;
      break;
    case v1::ClosestPointColumnGroup::kSpheres:
      c.Ball3(g.spheres(), "spheres");
      kind = WorkKind::kClosestSphere;
      break;
    default:
      c.Box(g.boxes(), "boxes");
      kind = WorkKind::kClosestBox;
      break;
  }
  (*counts)[static_cast<int>(kind)] += c.n();
  return c.n();
}

}  // namespace

ChunkRunner SequentialRunner() {
  return [](std::size_t n,
            const std::function<void(std::size_t, std::size_t)>& body) {
    for (std::size_t begin = 0; begin < n; begin += kChunk) {
      body(begin, std::min(n, begin + kChunk));
    }
    return true;
  };
}

absl::Status ValidateIntersectColumns(const v1::IntersectColumnsRequest& req,
                                      const RequestLimits& limits,
                                      KindCounts* counts) {
  Violations v;
  ParseBoundary(req.boundary(), &v);
  std::size_t total = 0;
  for (int g = 0; g < req.groups_size(); ++g) {
    total += CheckIntersectGroup(req.groups(g), absl::StrCat("groups[", g, "]"),
                                 &v, counts);
  }
  if (!v.empty()) return v.ToStatus();
  return CheckBatchSize(total, "groups", limits);
}

absl::Status ValidateClosestPointColumns(
    const v1::ClosestPointColumnsRequest& req, const RequestLimits& limits,
    KindCounts* counts) {
  Violations v;
  ParseBoundary(req.boundary(), &v);
  std::size_t total = 0;
  for (int g = 0; g < req.groups_size(); ++g) {
    total += CheckClosestGroup(req.groups(g), absl::StrCat("groups[", g, "]"),
                               &v, counts);
  }
  if (!v.empty()) return v.ToStatus();
  return CheckBatchSize(total, "groups", limits);
}

namespace {

// Pointer to element `offset` of a column; a zero column when it is empty
// (radius of points).
const float* At(const Column& c, std::size_t offset, const float* zeros) {
  return c.empty() ? zeros : c.data() + offset;
}

simd::BallColumns2 Ball2(const v1::BallColumns2& b, std::size_t o,
                         const float* zeros) {
  return {At(b.x(), o, zeros), At(b.y(), o, zeros), At(b.radius(), o, zeros)};
}
simd::BallColumns3 Ball3(const v1::BallColumns3& b, std::size_t o,
                         const float* zeros) {
  return {At(b.x(), o, zeros), At(b.y(), o, zeros), At(b.z(), o, zeros),
          At(b.radius(), o, zeros)};
}
simd::RectColumns Rect(const v1::RectColumns& r, std::size_t o,
                       const float* z) {
  return {At(r.min_x(), o, z), At(r.min_y(), o, z), At(r.max_x(), o, z),
          At(r.max_y(), o, z)};
}
simd::BoxColumns Box(const v1::BoxColumns& b, std::size_t o, const float* z) {
  return {At(b.min_x(), o, z), At(b.min_y(), o, z), At(b.min_z(), o, z),
          At(b.max_x(), o, z), At(b.max_y(), o, z), At(b.max_z(), o, z)};
}
simd::RotatedRectColumns Rotated(const v1::RotatedRectColumns& r, std::size_t o,
                                 const float* z) {
  return {At(r.size_x(), o, z),     At(r.size_y(), o, z),
          At(r.pivot_x(), o, z),    At(r.pivot_y(), o, z),
          At(r.position_x(), o, z), At(r.position_y(), o, z),
          At(r.cos(), o, z),        At(r.sin(), o, z)};
}
simd::RotatedRectAngleColumns RotatedAngle(const v1::RotatedRectColumns& r,
                                           std::size_t o, const float* z) {
  return {At(r.size_x(), o, z),     At(r.size_y(), o, z),
          At(r.pivot_x(), o, z),    At(r.pivot_y(), o, z),
          At(r.position_x(), o, z), At(r.position_y(), o, z),
          At(r.angle(), o, z)};
}

// kChunk zeros: the radius column of points, one chunk at a time.
const float* Zeros() {
  static const std::vector<float>* zeros = new std::vector<float>(kChunk, 0.0f);
  return zeros->data();
}

std::size_t IntersectGroupSize(const v1::IntersectColumnGroup& g) {
  switch (g.pairs_case()) {
    case v1::IntersectColumnGroup::kCircleCircle:
      return g.circle_circle().a().x_size();
    case v1::IntersectColumnGroup::kCircleRect:
      return g.circle_rect().a().x_size();
    case v1::IntersectColumnGroup::kCircleRotatedRect:
      return g.circle_rotated_rect().a().x_size();
    case v1::IntersectColumnGroup::kRectRect:
      return g.rect_rect().a().min_x_size();
    case v1::IntersectColumnGroup::kSphereSphere:
      return g.sphere_sphere().a().x_size();
    case v1::IntersectColumnGroup::kSphereBox:
      return g.sphere_box().a().x_size();
    case v1::IntersectColumnGroup::kBoxBox:
      return g.box_box().a().min_x_size();
    default:
      return 0;
  }
}

// One chunk [o, o + m) of a validated Intersect group.
void IntersectChunk(const v1::IntersectColumnGroup& g, std::size_t o,
                    std::size_t m, Boundary boundary,
                    const simd::IntersectOutputs& out) {
  const float* z = Zeros();
  switch (g.pairs_case()) {
    case v1::IntersectColumnGroup::kCircleCircle:
      simd::IntersectCircleCircle(Ball2(g.circle_circle().a(), o, z),
                                  Ball2(g.circle_circle().b(), o, z), m,
                                  boundary, out);
      break;
    case v1::IntersectColumnGroup::kCircleRect:
      simd::IntersectCircleRect(Ball2(g.circle_rect().a(), o, z),
                                Rect(g.circle_rect().b(), o, z), m, boundary,
                                out);
      break;
    case v1::IntersectColumnGroup::kCircleRotatedRect: {
      const auto& r = g.circle_rotated_rect();
      if (!r.b().angle().empty()) {
        simd::IntersectCircleRotatedRectAngle(
            Ball2(r.a(), o, z), RotatedAngle(r.b(), o, z), m, boundary, out);
      } else {
        simd::IntersectCircleRotatedRect(
            Ball2(r.a(), o, z), Rotated(r.b(), o, z), m, boundary, out);
      }
      break;
    }
    case v1::IntersectColumnGroup::kRectRect:
      simd::IntersectRectRect(Rect(g.rect_rect().a(), o, z),
                              Rect(g.rect_rect().b(), o, z), m, boundary, out);
      break;
    case v1::IntersectColumnGroup::kSphereSphere:
      simd::IntersectSphereSphere(Ball3(g.sphere_sphere().a(), o, z),
                                  Ball3(g.sphere_sphere().b(), o, z), m,
                                  boundary, out);
      break;
    case v1::IntersectColumnGroup::kSphereBox:
      simd::IntersectSphereBox(Ball3(g.sphere_box().a(), o, z),
                               Box(g.sphere_box().b(), o, z), m, boundary, out);
      break;
    case v1::IntersectColumnGroup::kBoxBox:
      simd::IntersectBoxBox(Box(g.box_box().a(), o, z),
                            Box(g.box_box().b(), o, z), m, boundary, out);
      break;
    default:
      break;
  }
}

std::size_t ClosestGroupSize(const v1::ClosestPointColumnGroup& g) {
  const bool three_d =
      g.targets_case() == v1::ClosestPointColumnGroup::kSpheres ||
      g.targets_case() == v1::ClosestPointColumnGroup::kBoxes;
  return three_d ? g.queries3().x_size() : g.queries2().x_size();
}

void ClosestChunk(const v1::ClosestPointColumnGroup& g, std::size_t o,
                  std::size_t m, Boundary boundary,
                  const simd::ClosestPointOutputs& out) {
  const float* z = Zeros();
  switch (g.targets_case()) {
    case v1::ClosestPointColumnGroup::kCircles:
      simd::ClosestPointOnCircle(Ball2(g.queries2(), o, z),
                                 Ball2(g.circles(), o, z), m, boundary, out);
      break;
    case v1::ClosestPointColumnGroup::kRects:
      simd::ClosestPointOnRect(Ball2(g.queries2(), o, z), Rect(g.rects(), o, z),
                               m, boundary, out);
      break;
    case v1::ClosestPointColumnGroup::kRotatedRects: {
      const v1::RotatedRectColumns& r = g.rotated_rects();
      if (!r.angle().empty()) {
        // The ClosestPoint kernels take (cos, sin): turn this chunk's angles
        // into a rotation first (the same function the angle kernels use).
        thread_local std::vector<float> cs(2 * kChunk);
        simd::RotationFromAngleColumns(r.angle().data() + o, m, cs.data(),
                                       cs.data() + kChunk);
        simd::RotatedRectColumns cols = Rotated(r, o, z);
        cols.cos = cs.data();
        cols.sin = cs.data() + kChunk;
        simd::ClosestPointOnRotatedRect(Ball2(g.queries2(), o, z), cols, m,
                                        boundary, out);
      } else {
        simd::ClosestPointOnRotatedRect(Ball2(g.queries2(), o, z),
                                        Rotated(r, o, z), m, boundary, out);
      }
      break;
    }
    case v1::ClosestPointColumnGroup::kSpheres:
      simd::ClosestPointOnSphere(Ball3(g.queries3(), o, z),
                                 Ball3(g.spheres(), o, z), m, boundary, out);
      break;
    case v1::ClosestPointColumnGroup::kBoxes:
      simd::ClosestPointOnBox(Ball3(g.queries3(), o, z), Box(g.boxes(), o, z),
                              m, boundary, out);
      break;
    default:
      break;
  }
}

Boundary BoundaryOf(v1::BoundaryRule rule) {
  return rule == v1::BOUNDARY_RULE_EXCLUSIVE ? Boundary::kExclusive
                                             : Boundary::kInclusive;
}

float* Sized(Column* c, std::size_t n) {
  c->Resize(static_cast<int>(n), 0.0f);
  return c->mutable_data();
}

}  // namespace

std::size_t ItemCount(const v1::IntersectColumnsRequest& req) {
  std::size_t n = 0;
  for (const auto& g : req.groups()) n += IntersectGroupSize(g);
  return n;
}

std::size_t ItemCount(const v1::ClosestPointColumnsRequest& req) {
  std::size_t n = 0;
  for (const auto& g : req.groups()) n += ClosestGroupSize(g);
  return n;
}

bool ComputeIntersectColumns(const v1::IntersectColumnsRequest& req,
                             const ChunkRunner& run,
                             v1::IntersectColumnsResponse* response) {
  response->Clear();
  const Boundary boundary = BoundaryOf(req.boundary());
  for (const v1::IntersectColumnGroup& g : req.groups()) {
    const std::size_t n = IntersectGroupSize(g);
    v1::IntersectColumnsResult* r = response->add_groups();
    r->set_count(static_cast<uint32_t>(n));
    std::string* bits = r->mutable_hit_bits();
    bits->resize((n + 7) / 8);
    std::string* relations =
        req.include_relation() ? r->mutable_relations() : nullptr;
    if (relations != nullptr) relations->resize(n);
    float* separations =
        req.include_separation() ? Sized(r->mutable_separations(), n) : nullptr;
    const bool done = run(n, [&](std::size_t begin, std::size_t end) {
      simd::IntersectOutputs out;
      out.hit_bits = reinterpret_cast<uint8_t*>(bits->data()) + begin / 8;
      uint8_t* rel = nullptr;
      if (relations != nullptr) {
        rel = reinterpret_cast<uint8_t*>(relations->data()) + begin;
        out.relation = reinterpret_cast<Relation*>(rel);
      }
      if (separations != nullptr) out.separation = separations + begin;
      IntersectChunk(g, begin, end - begin, boundary, out);
      // Core relations are 0..2; the wire's are 1..3 (0 = unspecified).
      if (rel != nullptr) {
        for (std::size_t i = 0; i < end - begin; ++i) ++rel[i];
      }
    });
    if (!done) return false;
  }
  return true;
}

bool ComputeClosestPointColumns(const v1::ClosestPointColumnsRequest& req,
                                const ChunkRunner& run,
                                v1::ClosestPointColumnsResponse* response) {
  response->Clear();
  const Boundary boundary = BoundaryOf(req.boundary());
  for (const v1::ClosestPointColumnGroup& g : req.groups()) {
    const std::size_t n = ClosestGroupSize(g);
    const bool three_d =
        g.targets_case() == v1::ClosestPointColumnGroup::kSpheres ||
        g.targets_case() == v1::ClosestPointColumnGroup::kBoxes;
    v1::ClosestPointColumnsResult* r = response->add_groups();
    r->set_count(static_cast<uint32_t>(n));
    simd::ClosestPointOutputs all;
    all.closest_x = Sized(r->mutable_closest_x(), n);
    all.closest_y = Sized(r->mutable_closest_y(), n);
    all.surface_x = Sized(r->mutable_surface_x(), n);
    all.surface_y = Sized(r->mutable_surface_y(), n);
    all.normal_x = Sized(r->mutable_normal_x(), n);
    all.normal_y = Sized(r->mutable_normal_y(), n);
    if (three_d) {
      all.closest_z = Sized(r->mutable_closest_z(), n);
      all.surface_z = Sized(r->mutable_surface_z(), n);
      all.normal_z = Sized(r->mutable_normal_z(), n);
    }
    all.signed_distance = Sized(r->mutable_signed_distance(), n);
    all.gap = Sized(r->mutable_gap(), n);
    std::string* bits = r->mutable_inside_bits();
    bits->resize((n + 7) / 8);
    const bool done = run(n, [&](std::size_t begin, std::size_t end) {
      const auto at = [begin](float* p) { return p ? p + begin : nullptr; };
      simd::ClosestPointOutputs out;
      out.closest_x = at(all.closest_x);
      out.closest_y = at(all.closest_y);
      out.closest_z = at(all.closest_z);
      out.surface_x = at(all.surface_x);
      out.surface_y = at(all.surface_y);
      out.surface_z = at(all.surface_z);
      out.normal_x = at(all.normal_x);
      out.normal_y = at(all.normal_y);
      out.normal_z = at(all.normal_z);
      out.signed_distance = at(all.signed_distance);
      out.gap = at(all.gap);
      thread_local std::vector<uint8_t> inside(kChunk);
      out.inside = inside.data();
      const std::size_t m = end - begin;
      ClosestChunk(g, begin, m, boundary, out);
      // Pack the inside flags; chunks start on a byte boundary.
      uint8_t* dst = reinterpret_cast<uint8_t*>(bits->data()) + begin / 8;
      for (std::size_t i = 0; i < m; i += 8) {
        uint8_t byte = 0;
        for (std::size_t j = 0; j < 8 && i + j < m; ++j) {
          byte = static_cast<uint8_t>(byte | (inside[i + j] ? 1u : 0u) << j);
        }
        dst[i / 8] = byte;
      }
    });
    if (!done) return false;
  }
  return true;
}

}  // namespace collision::server
