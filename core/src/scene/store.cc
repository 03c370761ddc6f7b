#include "scene/store.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "collision/core/scalar.h"

namespace collision {
namespace scene {
namespace {

// Every pairwise answer is computed in float from these coordinates, so the
// narrow phase can call a pair a hit (or a graze) up to a few ulps of the
// coordinates' magnitude beyond the exact geometry. Boxes are widened by
// 2^-18 of that magnitude (ulps are 2^-23 relative), far more than any
// kernel's rounding, so the broadphase only ever adds candidates.
constexpr float kWiden = 1.0f / (1 << 18);

// The box [lo, hi] widened by eps (see kWiden), built in place: an Aabb
// passed through by value cost ~20 ns a call in store-forwarding stalls.
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

}  // namespace

Family FamilyOf(ShapeKind kind) {
  switch (kind) {
    case ShapeKind::kPoint2:
    case ShapeKind::kCircle:
      return Family::kBall2;
    case ShapeKind::kRect:
      return Family::kRect;
    case ShapeKind::kRotatedRect:
      return Family::kRotatedRect;
    case ShapeKind::kPoint3:
    case ShapeKind::kSphere:
      return Family::kBall3;
    case ShapeKind::kBox:
      return Family::kBox;
  }
  return Family::kBall2;
}

size_t ColumnCount(Family family) {
  switch (family) {
    case Family::kBall2:
      return 3;
    case Family::kRect:
    case Family::kBall3:
      return 4;
    case Family::kRotatedRect:
      return 8;
    case Family::kBox:
      return 6;
  }
  return 0;
}

void ShapeColumns(const Shape& shape, float* v) {
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
  }
}

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
  }
  return Vec2{};
}

Aabb BoundsOf(Family family, const float* v) {
  switch (family) {
    case Family::kBall2: {
      const float m = std::fabs(v[0]) + std::fabs(v[1]) + v[2];
      return WidenedBox(v[0] - v[2], v[1] - v[2], 0.0f, v[0] + v[2],
                        v[1] + v[2], 0.0f, m);
    }
    case Family::kRect: {
      const float m = std::max(std::max(std::fabs(v[0]), std::fabs(v[1])),
                               std::max(std::fabs(v[2]), std::fabs(v[3])));
      return WidenedBox(v[0], v[1], 0.0f, v[2], v[3], 0.0f, m);
    }
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
    case Family::kBall3: {
      const float m =
          std::fabs(v[0]) + std::fabs(v[1]) + std::fabs(v[2]) + v[3];
      return WidenedBox(v[0] - v[3], v[1] - v[3], v[2] - v[3], v[0] + v[3],
                        v[1] + v[3], v[2] + v[3], m);
    }
    case Family::kBox: {
      float m = 0.0f;
      for (int i = 0; i < 6; ++i) m = std::max(m, std::fabs(v[i]));
      return WidenedBox(v[0], v[1], v[2], v[3], v[4], v[5], m);
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
