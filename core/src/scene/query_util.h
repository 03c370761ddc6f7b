// Pieces the scene's queries share between the latest world (scene.cc) and
// the rewound one (history_query.cc): bounds that prune the hierarchy, the
// slab test of casts, and the orders of answers (scene.h).
#ifndef COLLISION_CORE_SRC_SCENE_QUERY_UTIL_H_
#define COLLISION_CORE_SRC_SCENE_QUERY_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "collision/core/cast.h"
#include "collision/core/scene.h"
#include "scene/bvh.h"

namespace collision {
namespace scene {

// Lower bound of the ClosestPoint gap from the ball (c, radius) to any
// shape inside the box. Outside the box: the distance to it. Inside: a
// shape E within the box holds c at most as deep as the box does (leaving
// E along any line happens no later than leaving the box), so the signed
// distance is >= minus the distance from c to the box's nearest face.
template <int kDims>
inline float GapLowerBound(const Aabb& box, const float* c, float radius) {
  float d2 = 0.0f;
  float depth = INFINITY;
  for (int a = 0; a < kDims; ++a) {
    const float below = box.lo[a] - c[a];
    const float above = c[a] - box.hi[a];
    const float d = std::max(std::max(below, above), 0.0f);
    d2 += d * d;
    depth = std::min(depth, std::min(-below, -above));
  }
  if (d2 > 0.0f) return std::sqrt(d2) - radius;
  return -std::max(depth, 0.0f) - radius;
}

// Calls body(dims) with the dimension as a compile-time constant
// (std::integral_constant<int, 2 or 3>).
template <typename Body>
void WithDims(bool flat, Body&& body) {
  if (flat) {
    body(std::integral_constant<int, 2>{});
  } else {
    body(std::integral_constant<int, 3>{});
  }
}

// A cast's segment prepared for slab tests: the inverse direction once per
// query (a multiply per axis instead of a divide), and for each axis which
// face the segment meets first, so the test needs no swap and no branch.
struct Segment {
  float origin[3];
  float inverse[3];
  bool parallel[3];  // direction component exactly 0
  bool any_parallel;
  bool increasing[3];  // direction component > 0: enters at lo, leaves at hi
  // Entry and exit planes as t = (face - offset) * inverse, where the face is
  // lo or hi by `increasing` and the offset carries the origin and the grow.
  float enter_offset[3];
  float leave_offset[3];
  float max_distance;
  float grow;  // the sweep radius plus the widening (see store.cc)
  int dims;
};

inline Segment MakeSegment(const CastQuery& c, float grow, int dims) {
  Segment s;
  const float o[3] = {c.origin.x, c.origin.y, c.origin.z};
  const float d[3] = {c.direction.x, c.direction.y, c.direction.z};
  s.any_parallel = false;
  for (int a = 0; a < 3; ++a) {
    s.origin[a] = o[a];
    s.parallel[a] = d[a] == 0.0f;
    if (a < dims) s.any_parallel = s.any_parallel || s.parallel[a];
    s.inverse[a] = s.parallel[a] ? 0.0f : 1.0f / d[a];
    s.increasing[a] = d[a] > 0.0f;
    // Entering at lo - grow (increasing) or hi + grow: (face - (o +- grow)).
    // Rounded differently from (face -+ grow) - o by far less than the
    // widening in `grow`, so the test stays conservative.
    s.enter_offset[a] = s.increasing[a] ? o[a] + grow : o[a] - grow;
    s.leave_offset[a] = s.increasing[a] ? o[a] - grow : o[a] + grow;
  }
  s.max_distance = c.max_distance;
  s.grow = grow;
  s.dims = dims;
  return s;
}

// EntryOf for a segment with a component 0 on some axis: there the
// slab is a containment test of the origin.
inline float SegmentEntryWithParallelAxes(const Aabb& box, const Segment& s) {
  float t0 = 0.0f;
  float t1 = s.max_distance;
  for (int a = 0; a < s.dims; ++a) {
    const float lo = box.lo[a] - s.grow;
    const float hi = box.hi[a] + s.grow;
    if (s.parallel[a]) {
      if (s.origin[a] < lo || s.origin[a] > hi) return INFINITY;
      continue;
    }
    float ta = (lo - s.origin[a]) * s.inverse[a];
    float tb = (hi - s.origin[a]) * s.inverse[a];
    if (ta > tb) std::swap(ta, tb);
    t0 = std::max(t0, ta);
    t1 = std::min(t1, tb);
    if (t0 > t1) return INFINITY;
  }
  return t0;
}

// Branch-free slab test over `kDims` axes (no direction component is 0).
// An empty box (lo = +inf, hi = -inf) enters at +inf and misses.
template <int kDims>
inline float SlabEntry(const Aabb& box, const Segment& s) {
  float t0 = 0.0f;
  float t1 = s.max_distance;
  for (int a = 0; a < kDims; ++a) {
    const float enter = s.increasing[a] ? box.lo[a] : box.hi[a];
    const float leave = s.increasing[a] ? box.hi[a] : box.lo[a];
    t0 = std::max(t0, (enter - s.enter_offset[a]) * s.inverse[a]);
    t1 = std::min(t1, (leave - s.leave_offset[a]) * s.inverse[a]);
  }
  return t0 <= t1 ? t0 : INFINITY;
}

// A node to visit, with the bound that orders and prunes it. Trivial, so a
// traversal stack is not zero-filled on every query.
struct Pending {
  float key;
  uint32_t node;
};

// Entry parameter of the segment into the box grown by `grow`, or +inf when
// it misses. Conservative: the box is widened by the cast's magnitude, far
// more than the rounding of these few operations, so no candidate is lost.
// Compiled for one case: `kDims` axes, or (kParallel) a segment with a
// component 0, so the hottest loop of a cast has no branch on either
// (docs/decisions/0008-cast-walk-compiled-per-case.md).
template <int kDims, bool kParallel>
inline float EntryOf(const Aabb& box, const Segment& s) {
  if constexpr (kParallel) {
    return SegmentEntryWithParallelAxes(box, s);
  } else {
    return SlabEntry<kDims>(box, s);
  }
}

// Calls body(dims, parallel) with the compile-time case of the segment
// (std::integral_constant<int, 2 or 3>, std::bool_constant).
template <typename Body>
void WithSegmentCase(const Segment& s, Body&& body) {
  if (s.any_parallel) {
    // SegmentEntryWithParallelAxes reads the dimension from the segment.
    body(std::integral_constant<int, 2>{}, std::true_type{});
  } else if (s.dims == 2) {
    body(std::integral_constant<int, 2>{}, std::false_type{});
  } else {
    body(std::integral_constant<int, 3>{}, std::false_type{});
  }
}

// Calls leaf(node) for every leaf of the tree whose key(box), a lower
// bound of what the leaf can hold (a segment's entry, a gap; +inf for a
// miss), is at most bound(), re-read as hits shrink it: depth first, the
// nearer child carried in registers and only the farther one pushed
// (pushing both and popping one at once cost a store-forwarding stall per
// node). Children that miss or start beyond bound() are dropped.
template <typename Key, typename Bound, typename Leaf>
void WalkTree(const BvhNodes& nodes, Key&& key, Bound&& bound, Leaf&& leaf) {
  if (nodes.empty()) return;
  Pending stack[kMaxDepth];
  int top = 0;
  uint32_t current = 0;
  float entry = key(nodes[0].box);
  bool have = entry != INFINITY;
  while (true) {
    if (!have) {
      if (top == 0) break;
      const Pending p = stack[--top];
      current = p.node;
      entry = p.key;
    }
    have = false;
    if (entry > bound()) continue;
    const BvhNode& node = nodes[current];
    if (node.count > 0) {
      leaf(node);
      continue;
    }
    const float t0 = key(nodes[node.first].box);
    const float t1 = key(nodes[node.first + 1].box);
    const float limit = bound();
    const bool in0 = t0 != INFINITY && t0 <= limit;
    const bool in1 = t1 != INFINITY && t1 <= limit;
    if (in0 && in1) {
      const bool first_nearer = t0 <= t1;
      stack[top++] =
          first_nearer ? Pending{t1, node.first + 1} : Pending{t0, node.first};
      current = first_nearer ? node.first : node.first + 1;
      entry = first_nearer ? t0 : t1;
      have = true;
    } else if (in0 || in1) {
      current = in0 ? node.first : node.first + 1;
      entry = in0 ? t0 : t1;
      have = true;
    }
  }
}

// WalkTree for a ball's nearest entities (key: GapLowerBound).
template <int kDims, typename Bound, typename Leaf>
void WalkNearest(const BvhNodes& nodes, const float* center, float radius,
                 Bound&& bound, Leaf&& leaf) {
  WalkTree(
      nodes,
      [center, radius](const Aabb& box) {
        return GapLowerBound<kDims>(box, center, radius);
      },
      bound, leaf);
}

// WalkTree for a cast (key: the segment's entry).
template <int kDims, bool kParallel, typename Limit, typename Leaf>
void WalkSegment(const BvhNodes& nodes, const Segment& segment, Limit&& limit,
                 Leaf&& leaf) {
  WalkTree(
      nodes,
      [&segment](const Aabb& box) {
        return EntryOf<kDims, kParallel>(box, segment);
      },
      limit, leaf);
}

// Sorts a leaf's few pending items by key (insertion sort: at most
// kLeafSize of them).
inline void SortByKey(Pending* items, uint32_t n) {
  for (uint32_t i = 1; i < n; ++i) {
    const Pending p = items[i];
    uint32_t j = i;
    for (; j > 0 && p.key < items[j - 1].key; --j) items[j] = items[j - 1];
    items[j] = p;
  }
}

inline bool IdLess(const OverlapHit& a, const OverlapHit& b) {
  return a.id < b.id;
}
inline bool GapLess(const NearestHit& a, const NearestHit& b) {
  return a.result.gap < b.result.gap ||
         (a.result.gap == b.result.gap && a.id < b.id);
}
inline bool DistanceLess(const CastHit& a, const CastHit& b) {
  return a.result.distance < b.result.distance ||
         (a.result.distance == b.result.distance && a.id < b.id);
}

// The segment a cast sweeps, grown by its radius and by the widening that
// makes the pruning conservative at any coordinate size.
inline Segment CastSegment(const CastQuery& cast, int dims) {
  const float scale = std::fabs(cast.origin.x) + std::fabs(cast.origin.y) +
                      std::fabs(cast.origin.z) + cast.max_distance +
                      cast.radius;
  return MakeSegment(cast, cast.radius + scale * kWiden + 1e-30f, dims);
}

// A cast's exact answer against one target (cast.h): a ray when the radius
// is 0, else a swept circle (2D) or sphere (3D).
inline CastResult CastAgainst(const CastQuery& cast, bool flat,
                              const Shape& target, Boundary boundary) {
  if (flat) {
    const Vec2 o{cast.origin.x, cast.origin.y};
    const Vec2 d{cast.direction.x, cast.direction.y};
    return cast.radius > 0.0f
               ? SweepCircle(o, cast.radius, d, cast.max_distance, target,
                             boundary)
               : RayCast(o, d, cast.max_distance, target, boundary);
  }
  return cast.radius > 0.0f
             ? SweepSphere(cast.origin, cast.radius, cast.direction,
                           cast.max_distance, target, boundary)
             : RayCast(cast.origin, cast.direction, cast.max_distance, target,
                       boundary);
}

// Calls visit(first, count) for every leaf of the tree whose box overlaps
// `box`. Children are tested before they are pushed, and one of two that
// overlap is visited next without a round trip through the stack.
template <typename Visit>
void ForEachOverlappingLeaf(const BvhNodes& nodes, const Aabb& box,
                            Visit&& visit) {
  if (nodes.empty()) return;
  uint32_t stack[kMaxDepth];
  int top = 0;
  uint32_t current = 0;
  bool have = Overlaps(nodes[0].box, box);
  while (true) {
    if (!have) {
      if (top == 0) break;
      current = stack[--top];
    }
    have = false;
    const BvhNode& node = nodes[current];
    if (node.count > 0) {
      visit(node.first, node.count);
      continue;
    }
    const bool in0 = Overlaps(nodes[node.first].box, box);
    const bool in1 = Overlaps(nodes[node.first + 1].box, box);
    if (in0 && in1) stack[top++] = node.first + 1;
    if (in0 || in1) {
      current = in0 ? node.first : node.first + 1;
      have = true;
    }
  }
}

}  // namespace scene
}  // namespace collision

#endif  // COLLISION_CORE_SRC_SCENE_QUERY_UTIL_H_
