#include "collision/client/columns.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"

namespace collision::client {
namespace {

// A shape's kind as the schema names it, with its article ("a point", "an
// oriented_box"), for errors: field numbers mean nothing to a caller.
std::string KindName(const v1::Shape& s) {
  if (s.kind_case() == v1::Shape::KIND_NOT_SET) return "a shape with no kind";
  const google::protobuf::FieldDescriptor* f =
      v1::Shape::descriptor()->FindFieldByNumber(s.kind_case());
  const std::string name =
      f != nullptr ? f->name() : absl::StrCat("kind ", s.kind_case());
  return absl::StrCat(name.find_first_of("aeiou") == 0 ? "an " : "a ", name);
}

void PushBall(v1::BallColumns2* c, float x, float y, float r) {
  c->add_x(x);
  c->add_y(y);
  c->add_radius(r);
}
void PushBall(v1::BallColumns3* c, float x, float y, float z, float r) {
  c->add_x(x);
  c->add_y(y);
  c->add_z(z);
  c->add_radius(r);
}
void PushRect(v1::RectColumns* c, float x0, float y0, float x1, float y1) {
  c->add_min_x(x0);
  c->add_min_y(y0);
  c->add_max_x(x1);
  c->add_max_y(y1);
}
void PushBox(v1::BoxColumns* c, const std::array<float, 6>& m) {
  c->add_min_x(m[0]);
  c->add_min_y(m[1]);
  c->add_min_z(m[2]);
  c->add_max_x(m[3]);
  c->add_max_y(m[4]);
  c->add_max_z(m[5]);
}
void PushRotated(v1::RotatedRectColumns* c, const v1::RotatedRect& r) {
  c->add_size_x(r.size().x());
  c->add_size_y(r.size().y());
  c->add_pivot_x(r.pivot().x());
  c->add_pivot_y(r.pivot().y());
  c->add_position_x(r.position().x());
  c->add_position_y(r.position().y());
  if (r.has_rotation()) {
    c->add_cos(r.rotation().cos());
    c->add_sin(r.rotation().sin());
  } else {
    c->add_angle(r.angle());
  }
}
v1::RotatedRect MakeRotated(float w, float h, float px, float py, float x,
                            float y) {
  v1::RotatedRect r;
  r.mutable_size()->set_x(w);
  r.mutable_size()->set_y(h);
  r.mutable_pivot()->set_x(px);
  r.mutable_pivot()->set_y(py);
  r.mutable_position()->set_x(x);
  r.mutable_position()->set_y(y);
  return r;
}

// A 2D ball (point or circle): centre and radius.
bool Ball2(const v1::Shape& s, float* x, float* y, float* r) {
  if (s.has_point()) {
    *x = s.point().x(), *y = s.point().y(), *r = 0;
    return true;
  }
  if (s.has_circle()) {
    *x = s.circle().center().x(), *y = s.circle().center().y();
    *r = s.circle().radius();
    return true;
  }
  return false;
}
bool Ball3(const v1::Shape& s, float* x, float* y, float* z, float* r) {
  if (s.has_point3()) {
    *x = s.point3().x(), *y = s.point3().y(), *z = s.point3().z(), *r = 0;
    return true;
  }
  if (s.has_sphere()) {
    const v1::Vec3& c = s.sphere().center();
    *x = c.x(), *y = c.y(), *z = c.z(), *r = s.sphere().radius();
    return true;
  }
  return false;
}
std::array<float, 6> BoxOf(const v1::Box& b) {
  return {b.min().x(), b.min().y(), b.min().z(),
          b.max().x(), b.max().y(), b.max().z()};
}

}  // namespace

bool BitAt(const std::string& bits, std::size_t i) {
  if (i / 8 >= bits.size()) return false;
  return (static_cast<unsigned char>(bits[i / 8]) >> (i % 8)) & 1u;
}

std::vector<bool> UnpackBits(const std::string& bits, std::size_t n) {
  std::vector<bool> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = BitAt(bits, i);
  return out;
}

std::size_t CountBits(const std::string& bits, std::size_t n) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += BitAt(bits, i);
  return count;
}

// ---- IntersectColumnsBatch ------------------------------------------------

v1::IntersectColumnsRequest IntersectColumnsBatch::MakeDefault() {
  v1::IntersectColumnsRequest r;
  r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  return r;
}

v1::IntersectColumnGroup* IntersectColumnsBatch::Group(Kind kind) {
  if (group_of_kind_[kind] < 0) {
    group_of_kind_[kind] = request_.groups_size();
    group_size_.push_back(0);
    request_.add_groups();
  }
  return request_.mutable_groups(group_of_kind_[kind]);
}

void IntersectColumnsBatch::Note(Kind kind) {
  const int g = group_of_kind_[kind];
  where_.emplace_back(g, group_size_[g]++);
}

IntersectColumnsBatch& IntersectColumnsBatch::AddCircleCircle(
    float ax, float ay, float ar, float bx, float by, float br) {
  auto* g = Group(kCC)->mutable_circle_circle();
  PushBall(g->mutable_a(), ax, ay, ar);
  PushBall(g->mutable_b(), bx, by, br);
  Note(kCC);
  return *this;
}

IntersectColumnsBatch& IntersectColumnsBatch::AddCircleRect(
    float x, float y, float r, float min_x, float min_y, float max_x,
    float max_y) {
  auto* g = Group(kCR)->mutable_circle_rect();
  PushBall(g->mutable_a(), x, y, r);
  PushRect(g->mutable_b(), min_x, min_y, max_x, max_y);
  Note(kCR);
  return *this;
}

IntersectColumnsBatch& IntersectColumnsBatch::AddCircleRotatedRect(
    float x, float y, float r, float width, float height, float pivot_x,
    float pivot_y, float position_x, float position_y, float angle) {
  v1::RotatedRect rr =
      MakeRotated(width, height, pivot_x, pivot_y, position_x, position_y);
  rr.set_angle(angle);
  auto* g = Group(kCRRAngle)->mutable_circle_rotated_rect();
  PushBall(g->mutable_a(), x, y, r);
  PushRotated(g->mutable_b(), rr);
  Note(kCRRAngle);
  return *this;
}

IntersectColumnsBatch& IntersectColumnsBatch::AddCircleRotatedRectCosSin(
    float x, float y, float r, float width, float height, float pivot_x,
    float pivot_y, float position_x, float position_y, float cos, float sin) {
  v1::RotatedRect rr =
      MakeRotated(width, height, pivot_x, pivot_y, position_x, position_y);
  rr.mutable_rotation()->set_cos(cos);
  rr.mutable_rotation()->set_sin(sin);
  auto* g = Group(kCRRCosSin)->mutable_circle_rotated_rect();
  PushBall(g->mutable_a(), x, y, r);
  PushRotated(g->mutable_b(), rr);
  Note(kCRRCosSin);
  return *this;
}

IntersectColumnsBatch& IntersectColumnsBatch::AddRectRect(
    float a_min_x, float a_min_y, float a_max_x, float a_max_y, float b_min_x,
    float b_min_y, float b_max_x, float b_max_y) {
  auto* g = Group(kRR)->mutable_rect_rect();
  PushRect(g->mutable_a(), a_min_x, a_min_y, a_max_x, a_max_y);
  PushRect(g->mutable_b(), b_min_x, b_min_y, b_max_x, b_max_y);
  Note(kRR);
  return *this;
}

IntersectColumnsBatch& IntersectColumnsBatch::AddSphereSphere(
    float ax, float ay, float az, float ar, float bx, float by, float bz,
    float br) {
  auto* g = Group(kSS)->mutable_sphere_sphere();
  PushBall(g->mutable_a(), ax, ay, az, ar);
  PushBall(g->mutable_b(), bx, by, bz, br);
  Note(kSS);
  return *this;
}

IntersectColumnsBatch& IntersectColumnsBatch::AddSphereBox(
    float x, float y, float z, float r, float min_x, float min_y, float min_z,
    float max_x, float max_y, float max_z) {
  auto* g = Group(kSB)->mutable_sphere_box();
  PushBall(g->mutable_a(), x, y, z, r);
  PushBox(g->mutable_b(), {min_x, min_y, min_z, max_x, max_y, max_z});
  Note(kSB);
  return *this;
}

IntersectColumnsBatch& IntersectColumnsBatch::AddBoxBox(
    float a_min_x, float a_min_y, float a_min_z, float a_max_x, float a_max_y,
    float a_max_z, float b_min_x, float b_min_y, float b_min_z, float b_max_x,
    float b_max_y, float b_max_z) {
  AddBoxes({a_min_x, a_min_y, a_min_z, a_max_x, a_max_y, a_max_z},
           {b_min_x, b_min_y, b_min_z, b_max_x, b_max_y, b_max_z});
  return *this;
}

void IntersectColumnsBatch::AddBoxes(const std::array<float, 6>& a,
                                     const std::array<float, 6>& b) {
  auto* g = Group(kBB)->mutable_box_box();
  PushBox(g->mutable_a(), a);
  PushBox(g->mutable_b(), b);
  Note(kBB);
}

IntersectColumnsBatch& IntersectColumnsBatch::Add(const v1::Shape& a,
                                                  const v1::Shape& b) {
  absl::Status s = AddShapes(a, b);
  if (status_.ok()) status_ = std::move(s);
  return *this;
}

absl::Status IntersectColumnsBatch::AddShapes(const v1::Shape& a,
                                              const v1::Shape& b) {
  float ax, ay, az, ar, bx, by, bz, br;
  // Intersect is symmetric: put the ball (or the first rect/box) first.
  for (int swap = 0; swap < 2; ++swap) {
    const v1::Shape& p = swap ? b : a;
    const v1::Shape& q = swap ? a : b;
    if (Ball2(p, &ax, &ay, &ar)) {
      if (Ball2(q, &bx, &by, &br)) {
        AddCircleCircle(ax, ay, ar, bx, by, br);
        return absl::OkStatus();
      }
      if (q.has_rect()) {
        const v1::Rect& r = q.rect();
        AddCircleRect(ax, ay, ar, r.min().x(), r.min().y(), r.max().x(),
                      r.max().y());
        return absl::OkStatus();
      }
      if (q.has_rotated_rect()) {
        const v1::RotatedRect& r = q.rotated_rect();
        const Kind kind = r.has_rotation() ? kCRRCosSin : kCRRAngle;
        auto* g = Group(kind)->mutable_circle_rotated_rect();
        PushBall(g->mutable_a(), ax, ay, ar);
        PushRotated(g->mutable_b(), r);
        Note(kind);
        return absl::OkStatus();
      }
    }
    if (Ball3(p, &ax, &ay, &az, &ar)) {
      if (Ball3(q, &bx, &by, &bz, &br)) {
        AddSphereSphere(ax, ay, az, ar, bx, by, bz, br);
        return absl::OkStatus();
      }
      if (q.has_box()) {
        const std::array<float, 6> m = BoxOf(q.box());
        AddSphereBox(ax, ay, az, ar, m[0], m[1], m[2], m[3], m[4], m[5]);
        return absl::OkStatus();
      }
    }
  }
  if (a.has_rect() && b.has_rect()) {
    const v1::Rect &p = a.rect(), &q = b.rect();
    AddRectRect(p.min().x(), p.min().y(), p.max().x(), p.max().y(), q.min().x(),
                q.min().y(), q.max().x(), q.max().y());
    return absl::OkStatus();
  }
  if (a.has_box() && b.has_box()) {
    AddBoxes(BoxOf(a.box()), BoxOf(b.box()));
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("pair ", where_.size(), ": no columnar form for ",
                   KindName(a), " and ", KindName(b),
                   " (columns take a circle or point with a circle, rect or "
                   "rotated rect; rect with rect; sphere or point3 with "
                   "sphere or box; box with box; capsule3 and oriented_box "
                   "pairs: per-pair Intersect)"));
}

IntersectColumnsBatch& IntersectColumnsBatch::Inclusive() {
  request_.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  return *this;
}
IntersectColumnsBatch& IntersectColumnsBatch::Exclusive() {
  request_.set_boundary(v1::BOUNDARY_RULE_EXCLUSIVE);
  return *this;
}
IntersectColumnsBatch& IntersectColumnsBatch::WithRelation(bool on) {
  request_.set_include_relation(on);
  return *this;
}
IntersectColumnsBatch& IntersectColumnsBatch::WithSeparation(bool on) {
  request_.set_include_separation(on);
  return *this;
}

absl::StatusOr<std::vector<IntersectAnswer>> IntersectColumnsBatch::Unpack(
    const v1::IntersectColumnsResponse& response) const {
  if (response.groups_size() != request_.groups_size()) {
    return absl::InternalError(
        absl::StrCat("response has ", response.groups_size(),
                     " groups, request has ", request_.groups_size()));
  }
  for (int g = 0; g < response.groups_size(); ++g) {
    const v1::IntersectColumnsResult& r = response.groups(g);
    const auto n = static_cast<std::size_t>(group_size_[g]);
    if (r.count() != n || r.hit_bits().size() < (n + 7) / 8 ||
        (request_.include_relation() && r.relations().size() < n) ||
        (request_.include_separation() &&
         static_cast<std::size_t>(r.separations_size()) < n)) {
      return absl::InternalError(
          absl::StrCat("response groups[", g, "] does not hold ", n,
                       " answers (count ", r.count(), ")"));
    }
  }
  std::vector<IntersectAnswer> out(where_.size());
  for (std::size_t i = 0; i < where_.size(); ++i) {
    const auto [g, j] = where_[i];
    const v1::IntersectColumnsResult& r = response.groups(g);
    out[i].hit = BitAt(r.hit_bits(), j);
    if (request_.include_relation()) {
      out[i].relation = static_cast<v1::Relation>(r.relations()[j]);
    }
    if (request_.include_separation()) out[i].separation = r.separations(j);
  }
  return out;
}

// ---- ClosestPointColumnsBatch ---------------------------------------------

v1::ClosestPointColumnsRequest ClosestPointColumnsBatch::MakeDefault() {
  v1::ClosestPointColumnsRequest r;
  r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  return r;
}

v1::ClosestPointColumnGroup* ClosestPointColumnsBatch::Group(Kind kind) {
  if (group_of_kind_[kind] < 0) {
    group_of_kind_[kind] = request_.groups_size();
    group_size_.push_back(0);
    request_.add_groups();
  }
  return request_.mutable_groups(group_of_kind_[kind]);
}

ClosestPointColumnsBatch& ClosestPointColumnsBatch::Add(
    const v1::Shape& query, const v1::Shape& target) {
  absl::Status s = AddShapes(query, target);
  if (status_.ok()) status_ = std::move(s);
  return *this;
}

absl::Status ClosestPointColumnsBatch::AddShapes(const v1::Shape& query,
                                                 const v1::Shape& target) {
  float x, y, z, r;
  Kind kind;
  if (Ball2(query, &x, &y, &r)) {
    float tx, ty, tr;
    if (Ball2(target, &tx, &ty, &tr)) {
      kind = kCircle;
      PushBall(Group(kind)->mutable_circles(), tx, ty, tr);
    } else if (target.has_rect()) {
      kind = kRect;
      const v1::Rect& t = target.rect();
      PushRect(Group(kind)->mutable_rects(), t.min().x(), t.min().y(),
               t.max().x(), t.max().y());
    } else if (target.has_rotated_rect()) {
      kind = target.rotated_rect().has_rotation() ? kRRCosSin : kRRAngle;
      PushRotated(Group(kind)->mutable_rotated_rects(), target.rotated_rect());
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "query ", where_.size(), ": a 2D query and ", KindName(target),
          " target; 2D targets are circles, points, rects and "
          "rotated rects"));
    }
    PushBall(Group(kind)->mutable_queries2(), x, y, r);
  } else if (Ball3(query, &x, &y, &z, &r)) {
    float tx, ty, tz, tr;
    if (Ball3(target, &tx, &ty, &tz, &tr)) {
      kind = kSphere;
      PushBall(Group(kind)->mutable_spheres(), tx, ty, tz, tr);
    } else if (target.has_box()) {
      kind = kBox;
      PushBox(Group(kind)->mutable_boxes(), BoxOf(target.box()));
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "query ", where_.size(), ": a 3D query and ", KindName(target),
          " target; the columns' 3D targets are spheres, point3s and boxes "
          "(capsule3 and oriented_box targets: per-pair ClosestPoint)"));
    }
    PushBall(Group(kind)->mutable_queries3(), x, y, z, r);
  } else {
    return absl::InvalidArgumentError(absl::StrCat("query ", where_.size(),
                                                   ": must be a point, circle, "
                                                   "point3 or sphere, got ",
                                                   KindName(query)));
  }
  const int g = group_of_kind_[kind];
  where_.emplace_back(g, group_size_[g]++);
  return absl::OkStatus();
}

ClosestPointColumnsBatch& ClosestPointColumnsBatch::Inclusive() {
  request_.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  return *this;
}
ClosestPointColumnsBatch& ClosestPointColumnsBatch::Exclusive() {
  request_.set_boundary(v1::BOUNDARY_RULE_EXCLUSIVE);
  return *this;
}

absl::StatusOr<std::vector<v1::ClosestPointResult>>
ClosestPointColumnsBatch::Unpack(
    const v1::ClosestPointColumnsResponse& response) const {
  if (response.groups_size() != request_.groups_size()) {
    return absl::InternalError(
        absl::StrCat("response has ", response.groups_size(),
                     " groups, request has ", request_.groups_size()));
  }
  for (int g = 0; g < response.groups_size(); ++g) {
    const v1::ClosestPointColumnsResult& r = response.groups(g);
    const int n = group_size_[g];
    const bool is3 = request_.groups(g).has_queries3();
    const bool short3 =
        is3 && (r.closest_z_size() < n || r.surface_z_size() < n ||
                r.normal_z_size() < n);
    if (static_cast<int>(r.count()) != n || r.closest_x_size() < n ||
        r.closest_y_size() < n || r.surface_x_size() < n ||
        r.surface_y_size() < n || r.normal_x_size() < n ||
        r.normal_y_size() < n || r.signed_distance_size() < n ||
        r.gap_size() < n ||
        r.inside_bits().size() < static_cast<std::size_t>(n + 7) / 8 ||
        short3) {
      return absl::InternalError(absl::StrCat(
          "response groups[", g, "] does not hold ", n, " answers"));
    }
  }
  std::vector<v1::ClosestPointResult> out(where_.size());
  for (std::size_t i = 0; i < where_.size(); ++i) {
    const auto [g, j] = where_[i];
    const v1::ClosestPointColumnsResult& r = response.groups(g);
    const bool is3 = request_.groups(g).has_queries3();
    v1::ClosestPointResult& o = out[i];
    o.mutable_closest_point()->set_x(r.closest_x(j));
    o.mutable_closest_point()->set_y(r.closest_y(j));
    o.mutable_surface_point()->set_x(r.surface_x(j));
    o.mutable_surface_point()->set_y(r.surface_y(j));
    o.mutable_normal()->set_x(r.normal_x(j));
    o.mutable_normal()->set_y(r.normal_y(j));
    if (is3) {
      o.mutable_closest_point()->set_z(r.closest_z(j));
      o.mutable_surface_point()->set_z(r.surface_z(j));
      o.mutable_normal()->set_z(r.normal_z(j));
    }
    o.set_signed_distance(r.signed_distance(j));
    o.set_gap(r.gap(j));
    o.set_inside(BitAt(r.inside_bits(), j));
  }
  return out;
}

}  // namespace collision::client
