// The scene's per-family entity store: struct-of-arrays columns in the
// hierarchy's leaf order, so a leaf is a contiguous run the SIMD kernels read
// directly. Slots [0, tree_size) are in the tree; [tree_size, size) is the
// unsorted tail of entities inserted since the last rebuild. A removed slot
// stays until the next rebuild with category 0 and an empty box, so it is
// never a candidate.
#ifndef COLLISION_CORE_SRC_SCENE_STORE_H_
#define COLLISION_CORE_SRC_SCENE_STORE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "collision/core/shapes.h"
#include "scene/bvh.h"

namespace collision {
namespace scene {

// Shapes that share a kernel operand: points are zero-radius balls.
enum class Family : uint8_t { kBall2, kRect, kRotatedRect, kBall3, kBox };
inline constexpr int kNumFamilies = 5;
inline constexpr size_t kMaxColumns = 8;
// Zeros kept after the last slot of every column, so that a kernel can run
// a whole vector (16 floats on AVX-512) from any slot: a leaf of 8 is run as
// 16 lanes and the extra answers ignored, which is cheaper than the kernels'
// tail path (copying the columns into padded buffers).
inline constexpr size_t kColumnPadding = 16;

Family FamilyOf(ShapeKind kind);
// Columns per family: ball2 x y r; rect min_x min_y max_x max_y; rotated
// rect size_x size_y pivot_x pivot_y position_x position_y cos sin; ball3
// x y z r; box min_x min_y min_z max_x max_y max_z.
size_t ColumnCount(Family family);

// The shape's column values (points as radius 0) and its bounding box,
// widened so that no pair the narrow phase could call a hit is culled by
// float rounding (see scene.cc).
void ShapeColumns(const Shape& shape, float* values);
Aabb BoundsOf(Family family, const float* values);
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
