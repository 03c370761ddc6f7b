// Bounding volume hierarchy over axis-aligned boxes: the scene's broadphase.
//
// A flat binary tree in one array: node 0 is the root; an internal node's
// children are the consecutive nodes `first` and `first + 1`; a leaf covers
// items [first, first + count) of the order Build() returned. Children are
// allocated after their parent, so walking the array backwards visits every
// child before its parent (what Refit() relies on). Node 1 is unused when
// the root has children: children then start at even indices of an array
// aligned to a cache line, so that the two a walk tests together are one
// line (64 bytes), one miss in a tree that is not cached.
//
// Built top-down on the axis with the widest centroid spread, split where
// a binned surface-area heuristic says (16 bins; the median when the
// centroids coincide): O(n log n), cheap enough to rebuild often.
#ifndef COLLISION_CORE_SRC_SCENE_BVH_H_
#define COLLISION_CORE_SRC_SCENE_BVH_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <vector>

namespace collision {
namespace scene {

// Closed box [lo, hi] per axis; 2D boxes have lo.z = hi.z = 0. An empty box
// (lo > hi) overlaps nothing.
struct Aabb {
  float lo[3];
  float hi[3];
};

inline Aabb EmptyAabb() {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  return Aabb{{kInf, kInf, kInf}, {-kInf, -kInf, -kInf}};
}

// Every pairwise answer is computed in float from the shapes' coordinates,
// so the narrow phase can call a pair a hit (or a graze) up to a few ulps of
// the coordinates' magnitude beyond the exact geometry. Entity and query
// boxes are widened by 2^-18 of that magnitude (ulps are 2^-23 relative),
// far more than any kernel's rounding, so the broadphase only ever adds
// candidates.
inline constexpr float kWiden = 1.0f / (1 << 18);
// Inline: the history grows a span's box per changed entity
// (docs/decisions/0009-scene-update-in-leaf-order.md).
inline void Grow(Aabb* box, const Aabb& other) {
  for (int a = 0; a < 3; ++a) {
    box->lo[a] = std::min(box->lo[a], other.lo[a]);
    box->hi[a] = std::max(box->hi[a], other.hi[a]);
  }
}
inline bool Overlaps(const Aabb& a, const Aabb& b) {
  return a.lo[0] <= b.hi[0] && b.lo[0] <= a.hi[0] && a.lo[1] <= b.hi[1] &&
         b.lo[1] <= a.hi[1] && a.lo[2] <= b.hi[2] && b.lo[2] <= a.hi[2];
}
// Half the surface area (3D) or the half perimeter (2D: z extent 0), the
// cost measure of a box.
float HalfArea(const Aabb& box);

// Items per leaf: one vector of the SIMD kernels on AVX2 (8 floats), so a
// leaf is one kernel iteration.
inline constexpr uint32_t kLeafSize = 8;

// Deepest tree: 32 levels of heuristic splits, then median splits (at most
// 32 more levels for 2^32 items), so traversal stacks of kMaxDepth entries
// never overflow (a binary traversal holds at most depth + 1).
inline constexpr int kMaxSahDepth = 32;
inline constexpr int kMaxDepth = 66;

struct BvhNode {
  Aabb box;
  uint32_t first = 0;  // internal: index of the first child; leaf: item
  uint32_t count = 0;  // 0: internal node; > 0: leaf with `count` items
};

// Storage aligned to a cache line (see above).
template <typename T>
struct CacheLineAllocator {
  using value_type = T;
  static constexpr std::align_val_t kAlign{64};
  CacheLineAllocator() = default;
  template <typename U>
  CacheLineAllocator(const CacheLineAllocator<U>&) {}  // NOLINT: rebinding
  T* allocate(size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), kAlign));
  }
  void deallocate(T* p, size_t) { ::operator delete(p, kAlign); }
  friend bool operator==(const CacheLineAllocator&, const CacheLineAllocator&) {
    return true;
  }
  friend bool operator!=(const CacheLineAllocator&, const CacheLineAllocator&) {
    return false;
  }
};
using BvhNodes = std::vector<BvhNode, CacheLineAllocator<BvhNode>>;

class Bvh {
 public:
  // Builds over the boxes; `order` receives the leaf order (order[i] is the
  // index into `boxes` of leaf item i). An empty input gives an empty tree.
  void Build(const std::vector<Aabb>& boxes, std::vector<uint32_t>* order);
  // Recomputes every node's box from the items' boxes, given in leaf order.
  // Returns the new LeafCost().
  float Refit(const Aabb* item_boxes);
  // Sum of HalfArea over the leaves: grows as refits loosen the tree.
  float LeafCost() const;

  bool empty() const { return nodes_.empty(); }
  const BvhNodes& nodes() const { return nodes_; }
  size_t memory_bytes() const { return nodes_.capacity() * sizeof(BvhNode); }

 private:
  void Split(uint32_t node, uint32_t begin, uint32_t end, int depth,
             const std::vector<Aabb>& boxes, std::vector<uint32_t>* order,
             std::vector<float>* centroids);
  uint32_t MedianSplit(uint32_t begin, uint32_t end, int axis,
                       std::vector<uint32_t>* order,
                       const std::vector<float>& centroids);
  uint32_t SahSplit(uint32_t begin, uint32_t end, int axis, const Aabb& spread,
                    const std::vector<Aabb>& boxes,
                    std::vector<uint32_t>* order,
                    const std::vector<float>& centroids);
  BvhNodes nodes_;
};

}  // namespace scene
}  // namespace collision

#endif  // COLLISION_CORE_SRC_SCENE_BVH_H_
