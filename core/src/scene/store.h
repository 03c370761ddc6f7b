// The scene's per-family entity store: struct-of-arrays columns in the
// hierarchy's leaf order, so a leaf is a contiguous run the SIMD kernels read
// directly. Slots [0, tree_size) are in the tree; [tree_size, size) is the
// unsorted tail of entities inserted since the last rebuild. A removed slot
// stays until the next rebuild with category 0 and an empty box, so it is
// never a candidate.
#ifndef COLLISION_CORE_SRC_SCENE_STORE_H_
#define COLLISION_CORE_SRC_SCENE_STORE_H_

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "collision/core/shapes.h"
#include "scene/bvh.h"

namespace collision {
namespace scene {

// Shapes that share a kernel operand: points are zero-radius balls.
// The 3D families follow the 2D ones. Capsules and oriented boxes have no
// kernels: the narrow phase answers them one entity at a time (scene.cc).
enum class Family : uint8_t {
  kBall2,
  kRect,
  kRotatedRect,
  kBall3,
  kBox,
  kCapsule3,
  kOrientedBox
};
inline constexpr int kNumFamilies = 7;
inline constexpr int kFirst3DFamily = 3;
inline constexpr size_t kMaxColumns = kMaxKindColumns;
// Families whose narrow phase is the scalar Intersect/ClosestPoint.
constexpr bool IsScalarFamily(Family f) {
  return f == Family::kCapsule3 || f == Family::kOrientedBox;
}
// Zeros kept after the last slot of every column, so that a kernel can run
// a whole vector (16 floats on AVX-512) from any slot: a leaf of 8 is run as
// 16 lanes and the extra answers ignored, which is cheaper than the kernels'
// tail path (copying the columns into padded buffers).
inline constexpr size_t kColumnPadding = 16;

// The kind each family stores (its kernels' operand).
inline constexpr ShapeKind kFamilyKind[kNumFamilies] = {
    ShapeKind::kCircle,     ShapeKind::kRect, ShapeKind::kRotatedRect,
    ShapeKind::kSphere,     ShapeKind::kBox,  ShapeKind::kCapsule3,
    ShapeKind::kOrientedBox};

namespace store_internal {
// Each kind's family, looked up once at compile time: upserts ask per
// entity.
constexpr std::array<Family, kShapeKinds> FamiliesOfKinds() {
  std::array<Family, kShapeKinds> out{};
  for (int k = 0; k < kShapeKinds; ++k) {
    for (int f = 0; f < kNumFamilies; ++f) {
      if (kFamilyKind[f] == ComputedAs(static_cast<ShapeKind>(k))) {
        out[static_cast<size_t>(k)] = static_cast<Family>(f);
      }
    }
  }
  return out;
}
inline constexpr std::array<Family, kShapeKinds> kFamilyOfKind =
    FamiliesOfKinds();
}  // namespace store_internal

constexpr Family FamilyOf(ShapeKind kind) {
  return store_internal::kFamilyOfKind[static_cast<size_t>(kind)];
}
// Columns per family, in ShapeKindInfo::columns order (shapes.h); a ball's
// radius column is 0 for points.
constexpr size_t ColumnCount(Family family) {
  return static_cast<size_t>(
      InfoOf(kFamilyKind[static_cast<int>(family)]).columns);
}

namespace store_internal {
constexpr bool EveryKindHasItsFamily() {
  for (const ShapeKindInfo& info : kShapeKindTable) {
    const Family f = FamilyOf(info.kind);
    if (kFamilyKind[static_cast<int>(f)] != info.computed_as) return false;
    if (ColumnCount(f) > kMaxColumns) return false;
  }
  return true;
}
}  // namespace store_internal
static_assert(store_internal::EveryKindHasItsFamily(),
              "kFamilyKind must hold every computed kind once, within "
              "kMaxColumns");

// The shape's column values (points as radius 0) and its bounding box,
// widened so that no pair the narrow phase could call a hit is culled by
// float rounding (see scene.cc).
// Inline: a tick's upserts call it once per moved entity.
inline void ShapeColumns(const Shape& shape, float* v) {
  switch (KindOf(shape)) {
    case ShapeKind::kPoint2: {
      const Vec2& p = std::get<Vec2>(shape);
      v[0] = p.x, v[1] = p.y, v[2] = 0.0f;
      return;
    }
    case ShapeKind::kCircle: {
      const Circle& c = std::get<Circle>(shape);
      v[0] = c.center.x, v[1] = c.center.y, v[2] = c.radius;
      return;
    }
    case ShapeKind::kRect: {
      const Rect& r = std::get<Rect>(shape);
      v[0] = r.min.x, v[1] = r.min.y, v[2] = r.max.x, v[3] = r.max.y;
      return;
    }
    case ShapeKind::kRotatedRect: {
      const RotatedRect& r = std::get<RotatedRect>(shape);
      v[0] = r.size.x, v[1] = r.size.y, v[2] = r.pivot.x, v[3] = r.pivot.y;
      v[4] = r.position.x, v[5] = r.position.y;
      v[6] = r.rotation.cos, v[7] = r.rotation.sin;
      return;
    }
    case ShapeKind::kPoint3: {
      const Vec3& p = std::get<Vec3>(shape);
      v[0] = p.x, v[1] = p.y, v[2] = p.z, v[3] = 0.0f;
      return;
    }
    case ShapeKind::kSphere: {
      const Sphere& s = std::get<Sphere>(shape);
      v[0] = s.center.x, v[1] = s.center.y, v[2] = s.center.z;
      v[3] = s.radius;
      return;
    }
    case ShapeKind::kBox: {
      const Box& b = std::get<Box>(shape);
      v[0] = b.min.x, v[1] = b.min.y, v[2] = b.min.z;
      v[3] = b.max.x, v[4] = b.max.y, v[5] = b.max.z;
      return;
    }
    case ShapeKind::kCapsule3: {
      const Capsule3& c = std::get<Capsule3>(shape);
      v[0] = c.a.x, v[1] = c.a.y, v[2] = c.a.z;
      v[3] = c.b.x, v[4] = c.b.y, v[5] = c.b.z;
      v[6] = c.radius;
      return;
    }
    case ShapeKind::kOrientedBox: {
      const OrientedBox& b = std::get<OrientedBox>(shape);
      v[0] = b.center.x, v[1] = b.center.y, v[2] = b.center.z;
      v[3] = b.half_extents.x, v[4] = b.half_extents.y;
      v[5] = b.half_extents.z;
      v[6] = b.rotation.w, v[7] = b.rotation.x, v[8] = b.rotation.y;
      v[9] = b.rotation.z;
      return;
    }
  }
}
Aabb BoundsOf(Family family, const float* values);

// The box [lo, hi] widened by eps (see kWiden in bvh.h), built in place: an
// Aabb passed through by value stalls on store forwarding
// (docs/decisions/0009-scene-update-in-leaf-order.md).
inline Aabb WidenedBox(float lx, float ly, float lz, float hx, float hy,
                       float hz, float magnitude) {
  const float eps = magnitude * kWiden + 1e-30f;
  Aabb box;
  box.lo[0] = lx - eps;
  box.lo[1] = ly - eps;
  box.lo[2] = lz - eps;
  box.hi[0] = hx + eps;
  box.hi[1] = hy + eps;
  box.hi[2] = hz + eps;
  return box;
}

// BoundsOf for a family known at compile time (all but rotated rects and
// oriented boxes), inline so that loops over one family's slots compile
// without a switch.
template <Family F>
inline Aabb BoundsAs(const float* v) {
  static_assert(F != Family::kRotatedRect && F != Family::kOrientedBox,
                "rotated rects and oriented boxes: BoundsOf");
  if constexpr (F == Family::kBall2) {
    const float m = std::fabs(v[0]) + std::fabs(v[1]) + v[2];
    return WidenedBox(v[0] - v[2], v[1] - v[2], 0.0f, v[0] + v[2], v[1] + v[2],
                      0.0f, m);
  } else if constexpr (F == Family::kRect) {
    const float m = std::max(std::max(std::fabs(v[0]), std::fabs(v[1])),
                             std::max(std::fabs(v[2]), std::fabs(v[3])));
    return WidenedBox(v[0], v[1], 0.0f, v[2], v[3], 0.0f, m);
  } else if constexpr (F == Family::kBall3) {
    const float m = std::fabs(v[0]) + std::fabs(v[1]) + std::fabs(v[2]) + v[3];
    return WidenedBox(v[0] - v[3], v[1] - v[3], v[2] - v[3], v[0] + v[3],
                      v[1] + v[3], v[2] + v[3], m);
  } else if constexpr (F == Family::kCapsule3) {
    float m = v[6];
    for (int i = 0; i < 6; ++i) m = std::max(m, std::fabs(v[i]));
    const float r = v[6];
    return WidenedBox(std::min(v[0], v[3]) - r, std::min(v[1], v[4]) - r,
                      std::min(v[2], v[5]) - r, std::max(v[0], v[3]) + r,
                      std::max(v[1], v[4]) + r, std::max(v[2], v[5]) + r,
                      m + r);
  } else {
    float m = 0.0f;
    for (int i = 0; i < 6; ++i) m = std::max(m, std::fabs(v[i]));
    return WidenedBox(v[0], v[1], v[2], v[3], v[4], v[5], m);
  }
}
// The shape stored at `values`, as the narrow phase's scalar functions take
// it (a point comes back as a zero-radius circle or sphere).
Shape ShapeFromColumns(Family family, const float* values);

struct Store {
  explicit Store(Family f) : family(f) {}

  size_t size() const { return ids.size(); }
  const float* column(size_t c, size_t slot) const {
    return columns[c].data() + slot;
  }
  size_t memory_bytes() const;

  // Writes the shape into `slot` (which exists). Returns its box.
  void Write(size_t slot, const float* values, uint32_t category);
  size_t Append(uint64_t id, const float* values, uint32_t category);
  void Kill(size_t slot);

  Family family;
  std::array<std::vector<float>, kMaxColumns> columns;
  std::vector<uint64_t> ids;
  std::vector<uint32_t> categories;  // 0 for removed slots
  std::vector<uint8_t> alive;
  std::vector<Aabb> boxes;
  Bvh tree;
  size_t tree_size = 0;
  size_t dead = 0;
  float built_cost = 0;
  bool moved = false;  // a tree slot changed since the last refit
};

}  // namespace scene
}  // namespace collision

#endif  // COLLISION_CORE_SRC_SCENE_STORE_H_
