#include "collision/client/shapes.h"

#include <cmath>
#include <utility>

namespace collision::client {
namespace {

void Set(v1::Vec2* v, float x, float y) {
  v->set_x(x);
  v->set_y(y);
}

void Set(v1::Vec3* v, float x, float y, float z) {
  v->set_x(x);
  v->set_y(y);
  v->set_z(z);
}

v1::RotatedRect* RotatedBase(v1::Shape* s, float width, float height,
                             float pivot_x, float pivot_y, float position_x,
                             float position_y) {
  v1::RotatedRect* r = s->mutable_rotated_rect();
  Set(r->mutable_size(), width, height);
  Set(r->mutable_pivot(), pivot_x, pivot_y);
  Set(r->mutable_position(), position_x, position_y);
  return r;
}

}  // namespace

float DegreesToRadians(float degrees) {
  return static_cast<float>(double{degrees} * (3.14159265358979323846 / 180.0));
}

v1::Shape Point(float x, float y) {
  v1::Shape s;
  Set(s.mutable_point(), x, y);
  return s;
}

v1::Shape Circle(float center_x, float center_y, float radius) {
  v1::Shape s;
  Set(s.mutable_circle()->mutable_center(), center_x, center_y);
  s.mutable_circle()->set_radius(radius);
  return s;
}

v1::Shape RectFromMinMax(float min_x, float min_y, float max_x, float max_y) {
  v1::Shape s;
  Set(s.mutable_rect()->mutable_min(), min_x, min_y);
  Set(s.mutable_rect()->mutable_max(), max_x, max_y);
  return s;
}

v1::Shape RectFromCornerSize(float x, float y, float width, float height) {
  return RectFromMinMax(x, y, x + width, y + height);
}

v1::Shape RectFromCenterHalfExtents(float center_x, float center_y,
                                    float half_width, float half_height) {
  return RectFromMinMax(center_x - half_width, center_y - half_height,
                        center_x + half_width, center_y + half_height);
}

v1::Shape RotatedRectFromPivot(float width, float height, float pivot_x,
                               float pivot_y, float position_x,
                               float position_y, float angle_radians) {
  v1::Shape s;
  RotatedBase(&s, width, height, pivot_x, pivot_y, position_x, position_y)
      ->set_angle(angle_radians);
  return s;
}

v1::Shape RotatedRectFromPivotCosSin(float width, float height, float pivot_x,
                                     float pivot_y, float position_x,
                                     float position_y, float cos, float sin) {
  v1::Shape s;
  v1::Rotation* r =
      RotatedBase(&s, width, height, pivot_x, pivot_y, position_x, position_y)
          ->mutable_rotation();
  r->set_cos(cos);
  r->set_sin(sin);
  return s;
}

v1::Shape RotatedRectAboutCenter(float x, float y, float width, float height,
                                 float angle_radians) {
  const float half_w = width * 0.5f;
  const float half_h = height * 0.5f;
  return RotatedRectFromPivot(width, height, half_w, half_h, x + half_w,
                              y + half_h, angle_radians);
}

v1::Shape Point3(float x, float y, float z) {
  v1::Shape s;
  Set(s.mutable_point3(), x, y, z);
  return s;
}

v1::Shape Sphere(float center_x, float center_y, float center_z, float radius) {
  v1::Shape s;
  Set(s.mutable_sphere()->mutable_center(), center_x, center_y, center_z);
  s.mutable_sphere()->set_radius(radius);
  return s;
}

v1::Shape BoxFromMinMax(float min_x, float min_y, float min_z, float max_x,
                        float max_y, float max_z) {
  v1::Shape s;
  Set(s.mutable_box()->mutable_min(), min_x, min_y, min_z);
  Set(s.mutable_box()->mutable_max(), max_x, max_y, max_z);
  return s;
}

v1::Shape BoxFromCenterHalfExtents(float center_x, float center_y,
                                   float center_z, float half_x, float half_y,
                                   float half_z) {
  return BoxFromMinMax(center_x - half_x, center_y - half_y, center_z - half_z,
                       center_x + half_x, center_y + half_y, center_z + half_z);
}

v1::Shape Capsule3(float a_x, float a_y, float a_z, float b_x, float b_y,
                   float b_z, float radius) {
  v1::Shape s;
  Set(s.mutable_capsule3()->mutable_a(), a_x, a_y, a_z);
  Set(s.mutable_capsule3()->mutable_b(), b_x, b_y, b_z);
  s.mutable_capsule3()->set_radius(radius);
  return s;
}

v1::Shape OrientedBox(float center_x, float center_y, float center_z,
                      float half_x, float half_y, float half_z, float qw,
                      float qx, float qy, float qz) {
  v1::Shape s;
  v1::OrientedBox* b = s.mutable_oriented_box();
  Set(b->mutable_center(), center_x, center_y, center_z);
  Set(b->mutable_half_extents(), half_x, half_y, half_z);
  b->mutable_rotation()->set_w(qw);
  b->mutable_rotation()->set_x(qx);
  b->mutable_rotation()->set_y(qy);
  b->mutable_rotation()->set_z(qz);
  return s;
}

v1::Shape OrientedBoxAxisAngle(float center_x, float center_y, float center_z,
                               float half_x, float half_y, float half_z,
                               float axis_x, float axis_y, float axis_z,
                               float angle_radians) {
  // In double, so that the float quaternion is the rounded exact one.
  const double len =
      std::sqrt(double{axis_x} * axis_x + double{axis_y} * axis_y +
                double{axis_z} * axis_z);
  double w = 1, x = 0, y = 0, z = 0;
  if (len > 0 && std::isfinite(len)) {
    const double half = double{angle_radians} / 2;
    const double k = std::sin(half) / len;
    w = std::cos(half), x = axis_x * k, y = axis_y * k, z = axis_z * k;
  }
  return OrientedBox(center_x, center_y, center_z, half_x, half_y, half_z,
                     static_cast<float>(w), static_cast<float>(x),
                     static_cast<float>(y), static_cast<float>(z));
}

v1::IntersectRequest IntersectBatch::MakeDefault() {
  v1::IntersectRequest r;
  r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  return r;
}

IntersectBatch& IntersectBatch::Add(v1::Shape a, v1::Shape b) {
  v1::ShapePair* pair = request_.add_pairs();
  *pair->mutable_a() = std::move(a);
  *pair->mutable_b() = std::move(b);
  return *this;
}

IntersectBatch& IntersectBatch::Inclusive() {
  request_.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  return *this;
}

IntersectBatch& IntersectBatch::Exclusive() {
  request_.set_boundary(v1::BOUNDARY_RULE_EXCLUSIVE);
  return *this;
}

IntersectBatch& IntersectBatch::WithRelation(bool on) {
  request_.set_include_relation(on);
  return *this;
}

IntersectBatch& IntersectBatch::WithSeparation(bool on) {
  request_.set_include_separation(on);
  return *this;
}

v1::ClosestPointRequest ClosestPointBatch::MakeDefault() {
  v1::ClosestPointRequest r;
  r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  return r;
}

ClosestPointBatch& ClosestPointBatch::Add(v1::Shape query, v1::Shape target) {
  v1::ClosestPointQuery* q = request_.add_queries();
  *q->mutable_query() = std::move(query);
  *q->mutable_target() = std::move(target);
  return *this;
}

ClosestPointBatch& ClosestPointBatch::Inclusive() {
  request_.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  return *this;
}

ClosestPointBatch& ClosestPointBatch::Exclusive() {
  request_.set_boundary(v1::BOUNDARY_RULE_EXCLUSIVE);
  return *this;
}

}  // namespace collision::client
