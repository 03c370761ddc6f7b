// The internals of the 3D hitbox geometry (hitbox3.h) that its files
// share: vector arithmetic written for -ffp-contract=off, box frames, the
// segment-segment and segment-box closest features (hitbox3_segment.cc) and
// the box-pair separating-axis test and distance search
// (hitbox3_box_pair.cc).
#ifndef COLLISION_CORE_SRC_HITBOX3_INTERNAL_H_
#define COLLISION_CORE_SRC_HITBOX3_INTERNAL_H_

#include <cmath>

#include "collision/core/hitbox3.h"
#include "collision/core/shapes.h"

namespace collision::hitbox3_internal {

// Sums are written left to right and the library is built with
// -ffp-contract=off, so integer inputs stay exact (see exact_vec.h).
inline Vec3 Add(Vec3 a, Vec3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline Vec3 Sub(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline Vec3 Scale(Vec3 a, float s) { return {a.x * s, a.y * s, a.z * s}; }
inline Vec3 Neg(Vec3 a) { return {-a.x, -a.y, -a.z}; }
inline float Dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline Vec3 Cross(Vec3 a, Vec3 b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
inline float Get(Vec3 v, int i) { return i == 0 ? v.x : (i == 1 ? v.y : v.z); }
inline void Set(Vec3& v, int i, float value) {
  (i == 0 ? v.x : (i == 1 ? v.y : v.z)) = value;
}
inline float Clamp(float v, float lo, float hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}
inline bool Equal(Vec3 a, Vec3 b) {
  return a.x == b.x && a.y == b.y && a.z == b.z;
}
inline Vec3 Normalized(Vec3 v) { return Scale(v, 1.0f / std::sqrt(Dot(v, v))); }

// Column `col` of R: the world direction of local axis `col`.
inline Vec3 Column(const Mat3& r, int col) {
  return {r.m[col], r.m[3 + col], r.m[6 + col]};
}
inline Vec3 MulT(const Mat3& r, Vec3 v) {  // R^T v: world vector -> local
  return {Dot(Column(r, 0), v), Dot(Column(r, 1), v), Dot(Column(r, 2), v)};
}
inline Vec3 Mul(const Mat3& r, Vec3 v) {  // R v: local vector -> world
  return {r.m[0] * v.x + r.m[1] * v.y + r.m[2] * v.z,
          r.m[3] * v.x + r.m[4] * v.y + r.m[5] * v.z,
          r.m[6] * v.x + r.m[7] * v.y + r.m[8] * v.z};
}

struct Frame {
  Mat3 r;
  Vec3 center;
  Vec3 h;
};
inline Frame FrameOf(const OrientedBox& b) {
  return {RotationMatrix(b.rotation), b.center, b.half_extents};
}
inline Vec3 ToLocal(const Frame& f, Vec3 p) {
  return MulT(f.r, Sub(p, f.center));
}
inline Vec3 ToWorld(const Frame& f, Vec3 p) {
  return Add(f.center, Mul(f.r, p));
}

struct SegSeg {
  Vec3 c1, c2;  // closest points on the first and the second segment
  float d2;     // |c2 - c1|^2
};

struct SegBox {
  Vec3 seg;  // closest point of the segment (box frame)
  Vec3 box;  // closest point of the box (box frame)
  float d2;  // |seg - box|^2
};

struct Axis {
  Vec3 n;         // unit, box frame
  float overlap;  // > 0: the projections overlap by that much
  // Box pairs: which SAT axis, 0-2 a's faces, 3-5 b's faces, 6 + 3 i + j
  // a_i x b_j.
  int id = -1;
};

// Closest pair of two boxes a and b.
struct Pair {
  float d2 = INFINITY;
  Vec3 on_edges;  // world point on a
  Vec3 on_box;    // world point on b
  // Unit, world, from on_edges to on_box when d2 > 0: taken from the local
  // difference, which the world points (rounded through the frame) need
  // not reproduce when the distance is small against the coordinates.
  Vec3 dir;
};

// Two boxes and what every box-pair routine shares.
struct BoxPair {
  Frame a, b;
  float c[3][3];  // c[i][j] = a_i . b_j: b's axes in a's frame
  Vec3 t;         // b.center - a.center, world
  Vec3 ta, tb;    // t in a's frame, in b's frame
};

// ---- hitbox3_segment.cc

// Closest points of segments [p1, q1] and [p2, q2] (Ericson 5.1.9).
SegSeg ClosestSegSeg(Vec3 p1, Vec3 q1, Vec3 p2, Vec3 q2);
Vec3 ClampToBox(Vec3 p, Vec3 h);
// Closest point of the box [-h, h] to p (box frame).
SegBox PointBox(Vec3 p, Vec3 h);
// Closest points of the segment [p0, p1] and the box [-h, h] (box frame).
SegBox ClosestSegBox(Vec3 p0, Vec3 p1, Vec3 h);
// Penetration of the segment [p0, p1] into the box [-h, h] (box frame).
Axis SegmentBoxDepth(Vec3 p0, Vec3 p1, Vec3 h);
// The IntersectResult of a core shape at squared distance d2 from a ball
// of radius r (depth: how deep the core lies inside, when it does).
IntersectResult FromD2(float d2, float r, bool strictly_inside, float depth,
                       Boundary boundary);
// Any unit vector perpendicular to v (v != 0).
Vec3 Perpendicular(Vec3 v);
// v with values within 2^-22 of 0 or +-1 made exactly that.
float Snap(float v);

// ---- hitbox3_box_pair.cc

BoxPair PairOf(const OrientedBox& a, const OrientedBox& b);
// Least overlap of two boxes over the 15 separating axes; negative: the
// largest gap.
Axis ObbDepth(const BoxPair& p);
// Closest pair of two disjoint boxes, given their SAT result; `all_close`:
// also search every edge that could come within rounding of the best (for
// normals that do not depend on the argument order).
Pair ClosestBoxBox(const BoxPair& p, const Axis& sat, bool all_close);
}  // namespace collision::hitbox3_internal

#endif  // COLLISION_CORE_SRC_HITBOX3_INTERNAL_H_
