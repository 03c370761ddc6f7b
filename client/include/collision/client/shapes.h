// Builders for collision.v1 shapes in every parametrisation the seeds use,
// so callers never convert by hand. The wire carries one canonical form per
// shape (see proto/collision/v1/collision.proto); these compute it in float,
// exactly as the seeds' own formulas would (x + w, c - h, ...).
#ifndef COLLISION_CLIENT_SHAPES_H_
#define COLLISION_CLIENT_SHAPES_H_

#include "collision/v1/collision.pb.h"

namespace collision::client {

// Degrees to radians (float). The service only takes radians.
float DegreesToRadians(float degrees);

v1::Shape Point(float x, float y);
v1::Shape Circle(float center_x, float center_y, float radius);

// Axis-aligned rectangles.
v1::Shape RectFromMinMax(float min_x, float min_y, float max_x, float max_y);
// Corner + size (seeds 000, 001): (x, y) is the top-left corner on a y-down
// screen, the bottom-left in a y-up frame; max = (x + width, y + height).
v1::Shape RectFromCornerSize(float x, float y, float width, float height);
// Centre + half-extents (seed 002): min = c - h, max = c + h.
v1::Shape RectFromCenterHalfExtents(float center_x, float center_y,
                                    float half_width, float half_height);

// Rotated rectangles (see RotatedRect in the proto for the frame).
// Seed 003: size, pivot offset from the min corner, pivot position, angle in
// radians (counter-clockwise in a y-up frame).
v1::Shape RotatedRectFromPivot(float width, float height, float pivot_x,
                               float pivot_y, float position_x,
                               float position_y, float angle_radians);
// Same with an exact rotation given as (cos, sin), e.g. (0, 1) for a quarter
// turn.
v1::Shape RotatedRectFromPivotCosSin(float width, float height, float pivot_x,
                                     float pivot_y, float position_x,
                                     float position_y, float cos, float sin);
// A rectangle given by its unrotated corner + size, rotated by
// angle_radians about its centre. Seed 004 writes its angle with the
// opposite sign: pass -theta for seed 004's theta.
v1::Shape RotatedRectAboutCenter(float x, float y, float width, float height,
                                 float angle_radians);

v1::Shape Point3(float x, float y, float z);
v1::Shape Sphere(float center_x, float center_y, float center_z, float radius);
v1::Shape BoxFromMinMax(float min_x, float min_y, float min_z, float max_x,
                        float max_y, float max_z);
// Centre + half-extents (seed 002).
v1::Shape BoxFromCenterHalfExtents(float center_x, float center_y,
                                   float center_z, float half_x, float half_y,
                                   float half_z);
// Every point within `radius` of the segment from a to b (a hitbox limb).
v1::Shape Capsule3(float a_x, float a_y, float a_z, float b_x, float b_y,
                   float b_z, float radius);
// A box turned by the unit quaternion (w, x, y, z) about its centre; the
// server rejects a quaternion whose squared length is not within 1e-5 of 1.
v1::Shape OrientedBox(float center_x, float center_y, float center_z,
                      float half_x, float half_y, float half_z, float qw,
                      float qx, float qy, float qz);
// The same turned by angle_radians about the axis (axis_x, axis_y, axis_z),
// counter-clockwise looking down the axis (right-handed); the axis need
// not be unit length. A zero axis gives the unturned box.
v1::Shape OrientedBoxAxisAngle(float center_x, float center_y, float center_z,
                               float half_x, float half_y, float half_z,
                               float axis_x, float axis_y, float axis_z,
                               float angle_radians);

// Builds an IntersectRequest pair by pair. Defaults: inclusive boundary
// (touching is a hit), no relation, no separation.
class IntersectBatch {
 public:
  IntersectBatch& Add(v1::Shape a, v1::Shape b);
  IntersectBatch& Inclusive();
  IntersectBatch& Exclusive();
  IntersectBatch& WithRelation(bool on = true);
  IntersectBatch& WithSeparation(bool on = true);
  int size() const { return request_.pairs_size(); }
  const v1::IntersectRequest& request() const { return request_; }

 private:
  v1::IntersectRequest request_ = MakeDefault();
  static v1::IntersectRequest MakeDefault();
};

// Builds a ClosestPointRequest. Default: inclusive boundary.
class ClosestPointBatch {
 public:
  ClosestPointBatch& Add(v1::Shape query, v1::Shape target);
  ClosestPointBatch& Inclusive();
  ClosestPointBatch& Exclusive();
  int size() const { return request_.queries_size(); }
  const v1::ClosestPointRequest& request() const { return request_; }

 private:
  v1::ClosestPointRequest request_ = MakeDefault();
  static v1::ClosestPointRequest MakeDefault();
};

}  // namespace collision::client

#endif  // COLLISION_CLIENT_SHAPES_H_
