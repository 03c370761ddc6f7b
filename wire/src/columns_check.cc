// Validation of the columnar requests: every column and element is checked
// before any compute, with a branch-free pass first and a slow pass that
// names the column and index only when something is wrong.
#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "collision/wire/columns.h"
#include "collision/wire/field_rules.h"

namespace collision::wire {
namespace {

using Column = google::protobuf::RepeatedField<float>;

using Rule = FieldRule;

// Whether every element passes; the rule is a template argument so that
// the loop is a straight compare-and-accumulate the compiler can vectorise.
template <Rule R>
bool AllOk(const Column& c) {
  const float* p = c.data();
  const int n = c.size();
  int bad = 0;
  for (int i = 0; i < n; ++i) bad |= !Passes(p[i], R);
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
      v_->Add(absl::StrCat(path_, ".", name),
              absl::StrCat("has ", c.size(), " values, expected ", n_,
                           optional ? " or none" : "",
                           " (the length of the group's first column)"));
      return;
    }
    if (AllOk(c, rule)) return;
    for (int i = 0; i < c.size(); ++i) {
      if (!Passes(c[i], rule)) {
        v_->Add(absl::StrCat(path_, ".", name, "[", i, "]"),
                WhyNot(c[i], rule));
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
        v_->Add(absl::StrCat(path_, ".", op, ".max_", axis, "[", i, "]"),
                absl::StrCat("must be >= min_", axis, "[", i, "] (", lo[i],
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
      // An empty group needs no orientation; both forms at once is an error
      // whatever the length (their elements would go unchecked).
      if (n_ == 0 && !has_angle) return;
      v_->Add(absl::StrCat(path_, ".", op),
              absl::StrCat("must give the orientation either as angle or as "
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
      const float c = r.cos(i), s = r.sin(i);
      if (!IsUnitRotation(c, s)) {
        v_->Add(absl::StrCat(path_, ".", op, " (cos[", i, "], sin[", i, "])"),
                absl::StrCat("must have unit length, got (", c, ", ", s, ")"));
      }
    }
  }

 private:
  Violations* v_;
  std::string path_;
  int n_ = 0;
};

// Validates one Intersect group.
void CheckIntersectGroup(const v1::IntersectColumnGroup& g,
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
      v->Add(path,
             "has no pair kind set: set one of circle_circle, circle_rect, "
             "circle_rotated_rect, rect_rect, sphere_sphere, sphere_box, "
             "box_box");
      return;
  }
  (*counts)[static_cast<int>(kind)] += c.n();
}

void CheckClosestGroup(const v1::ClosestPointColumnGroup& g,
                       const std::string& path, Violations* v,
                       KindCounts* counts) {
  const bool three_d =
      g.targets_case() == v1::ClosestPointColumnGroup::kSpheres ||
      g.targets_case() == v1::ClosestPointColumnGroup::kBoxes;
  if (g.targets_case() == v1::ClosestPointColumnGroup::TARGETS_NOT_SET) {
    v->Add(path,
           "has no targets set: set one of circles, rects, rotated_rects, "
           "spheres, boxes");
    return;
  }
  GroupChecker c(v, path);
  if (three_d) {
    if (g.has_queries2() && !g.queries2().x().empty()) {
      v->Add(path + ".queries2", "must be empty for 3D targets; use queries3");
      return;  // the targets' lengths would only echo this mistake
    }
    c.SetCount(g.queries3().x());
    c.Ball3(g.queries3(), "queries3");
  } else {
    if (g.has_queries3() && !g.queries3().x().empty()) {
      v->Add(path + ".queries3", "must be empty for 2D targets; use queries2");
      return;  // the targets' lengths would only echo this mistake
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
}

}  // namespace

namespace {

// The queries a closest-point request claims: a group's queries in either
// dimension (a group with queries of the wrong dimension is then reported
// as such, not as empty).
std::size_t ClaimedItems(const v1::ClosestPointColumnsRequest& req) {
  std::size_t n = 0;
  for (const auto& g : req.groups()) {
    n += static_cast<std::size_t>(
        std::max(g.queries2().x_size(), g.queries3().x_size()));
  }
  return n;
}

}  // namespace

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

std::size_t ClosestGroupSize(const v1::ClosestPointColumnGroup& g) {
  const bool three_d =
      g.targets_case() == v1::ClosestPointColumnGroup::kSpheres ||
      g.targets_case() == v1::ClosestPointColumnGroup::kBoxes;
  return three_d ? g.queries3().x_size() : g.queries2().x_size();
}

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

absl::Status ValidateIntersectColumns(const v1::IntersectColumnsRequest& req,
                                      const RequestLimits& limits,
                                      KindCounts* counts) {
  // The batch size first, from the column lengths, as the per-pair parser
  // (and the precheck on its bytes) checks its item count before looking at
  // any item: an oversized batch costs no element checks.
  if (absl::Status s = CheckBatchSize(ItemCount(req), "groups", limits);
      !s.ok()) {
    return s;
  }
  Violations v;
  ParseBoundary(req.boundary(), &v);
  for (int g = 0; g < req.groups_size(); ++g) {
    CheckIntersectGroup(req.groups(g), absl::StrCat("groups[", g, "]"), &v,
                        counts);
  }
  if (!v.empty()) return v.ToStatus();
  return absl::OkStatus();
}

absl::Status ValidateClosestPointColumns(
    const v1::ClosestPointColumnsRequest& req, const RequestLimits& limits,
    KindCounts* counts) {
  if (absl::Status s = CheckBatchSize(ClaimedItems(req), "groups", limits);
      !s.ok()) {
    return s;
  }
  Violations v;
  ParseBoundary(req.boundary(), &v, BoundaryUse::kInside);
  for (int g = 0; g < req.groups_size(); ++g) {
    CheckClosestGroup(req.groups(g), absl::StrCat("groups[", g, "]"), &v,
                      counts);
  }
  if (!v.empty()) return v.ToStatus();
  return absl::OkStatus();
}

}  // namespace collision::wire
