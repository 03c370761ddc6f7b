#include "scene/store.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "collision/core/hitbox3.h"
#include "collision/core/scalar.h"

namespace collision {
namespace scene {
Shape ShapeFromColumns(Family family, const float* v) {
  switch (family) {
    case Family::kBall2:
      return Circle{{v[0], v[1]}, v[2]};
    case Family::kRect:
      return Rect{{v[0], v[1]}, {v[2], v[3]}};
    case Family::kRotatedRect:
      return RotatedRect{
          {v[0], v[1]}, {v[2], v[3]}, {v[4], v[5]}, {v[6], v[7]}};
    case Family::kBall3:
      return Sphere{{v[0], v[1], v[2]}, v[3]};
    case Family::kBox:
      return Box{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
    case Family::kCapsule3:
      return Capsule3{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}, v[6]};
    case Family::kOrientedBox:
      return OrientedBox{
          {v[0], v[1], v[2]}, {v[3], v[4], v[5]}, {v[6], v[7], v[8], v[9]}};
  }
  return Vec2{};
}

Aabb BoundsOf(Family family, const float* v) {
  switch (family) {
    case Family::kBall2:
      return BoundsAs<Family::kBall2>(v);
    case Family::kRect:
      return BoundsAs<Family::kRect>(v);
    case Family::kRotatedRect: {
      const RotatedRect r = std::get<RotatedRect>(ShapeFromColumns(family, v));
      const Rect local = LocalBounds(r);
      float lx = INFINITY, ly = INFINITY, hx = -INFINITY, hy = -INFINITY;
      const Vec2 corners[4] = {local.min,
                               {local.max.x, local.min.y},
                               local.max,
                               {local.min.x, local.max.y}};
      for (const Vec2& c : corners) {
        const Vec2 w = ToWorldPoint(r, c);
        lx = std::min(lx, w.x);
        ly = std::min(ly, w.y);
        hx = std::max(hx, w.x);
        hy = std::max(hy, w.y);
      }
      const float m = std::fabs(v[4]) + std::fabs(v[5]) + std::fabs(v[0]) +
                      std::fabs(v[1]) + std::fabs(v[2]) + std::fabs(v[3]);
      return WidenedBox(lx, ly, 0.0f, hx, hy, 0.0f, m);
    }
    case Family::kBall3:
      return BoundsAs<Family::kBall3>(v);
    case Family::kBox:
      return BoundsAs<Family::kBox>(v);
    case Family::kCapsule3:
      return BoundsAs<Family::kCapsule3>(v);
    case Family::kOrientedBox: {
      // centre +- |R| h per axis, R as hitbox3 computes it (snapped).
      const Mat3 r = RotationMatrix(Quat{v[6], v[7], v[8], v[9]});
      float ext[3];
      float m = 0.0f;
      for (int row = 0; row < 3; ++row) {
        ext[row] = std::fabs(r.m[3 * row]) * v[3] +
                   std::fabs(r.m[3 * row + 1]) * v[4] +
                   std::fabs(r.m[3 * row + 2]) * v[5];
        m = std::max(m, std::fabs(v[row]) + ext[row]);
      }
      return WidenedBox(v[0] - ext[0], v[1] - ext[1], v[2] - ext[2],
                        v[0] + ext[0], v[1] + ext[1], v[2] + ext[2], m);
    }
  }
  return EmptyAabb();
}

size_t Store::memory_bytes() const {
  size_t bytes = ids.capacity() * sizeof(uint64_t) +
                 categories.capacity() * sizeof(uint32_t) + alive.capacity() +
                 boxes.capacity() * sizeof(Aabb) + tree.memory_bytes();
  for (const auto& c : columns) bytes += c.capacity() * sizeof(float);
  return bytes;
}

void Store::Write(size_t slot, const float* values, uint32_t category) {
  const size_t n = ColumnCount(family);
  for (size_t c = 0; c < n; ++c) columns[c][slot] = values[c];
  categories[slot] = category;
  boxes[slot] = BoundsOf(family, values);
  if (slot < tree_size) moved = true;
}

size_t Store::Append(uint64_t id, const float* values, uint32_t category) {
  const size_t slot = ids.size();
  const size_t n = ColumnCount(family);
  for (size_t c = 0; c < n; ++c) {
    // Keep kColumnPadding zeros after the last slot (see store.h).
    columns[c].resize(slot + 1 + kColumnPadding, 0.0f);
    columns[c][slot] = values[c];
  }
  ids.push_back(id);
  categories.push_back(category);
  alive.push_back(1);
  boxes.push_back(BoundsOf(family, values));
  return slot;
}

void Store::Kill(size_t slot) {
  assert(alive[slot]);
  alive[slot] = 0;
  categories[slot] = 0;
  boxes[slot] = EmptyAabb();
  ++dead;
  if (slot < tree_size) moved = true;
}

}  // namespace scene
}  // namespace collision
