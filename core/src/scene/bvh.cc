#include "scene/bvh.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace collision {
namespace scene {

float HalfArea(const Aabb& box) {
  if (box.lo[0] > box.hi[0]) return 0.0f;
  const float x = box.hi[0] - box.lo[0];
  const float y = box.hi[1] - box.lo[1];
  const float z = box.hi[2] - box.lo[2];
  return x * y + y * z + z * x + x + y + z;
}

void Bvh::Build(const std::vector<Aabb>& boxes, std::vector<uint32_t>* order) {
  nodes_.clear();
  const uint32_t n = static_cast<uint32_t>(boxes.size());
  order->resize(n);
  for (uint32_t i = 0; i < n; ++i) (*order)[i] = i;
  if (n == 0) return;
  // Centroids doubled (lo + hi) to save a multiply; only their order counts.
  std::vector<float> centroids(static_cast<size_t>(n) * 3);
  for (uint32_t i = 0; i < n; ++i) {
    for (int a = 0; a < 3; ++a) {
      centroids[i * 3 + a] = boxes[i].lo[a] + boxes[i].hi[a];
    }
  }
  nodes_.reserve(2 * (n / kLeafSize + 1) + 1);
  nodes_.push_back(BvhNode{});
  if (n > kLeafSize) nodes_.push_back(BvhNode{EmptyAabb(), 0, 0});  // unused
  Split(0, 0, n, 0, boxes, order, &centroids);
}

void Bvh::Split(uint32_t node, uint32_t begin, uint32_t end, int depth,
                const std::vector<Aabb>& boxes, std::vector<uint32_t>* order,
                std::vector<float>* centroids) {
  Aabb box = EmptyAabb();
  Aabb spread = EmptyAabb();
  for (uint32_t i = begin; i < end; ++i) {
    const uint32_t item = (*order)[i];
    Grow(&box, boxes[item]);
    for (int a = 0; a < 3; ++a) {
      const float c = (*centroids)[item * 3 + a];
      spread.lo[a] = std::min(spread.lo[a], c);
      spread.hi[a] = std::max(spread.hi[a], c);
    }
  }
  nodes_[node].box = box;
  if (end - begin <= kLeafSize) {
    nodes_[node].first = begin;
    nodes_[node].count = end - begin;
    return;
  }
  int axis = 0;
  for (int a = 1; a < 3; ++a) {
    if (spread.hi[a] - spread.lo[a] > spread.hi[axis] - spread.lo[axis]) {
      axis = a;
    }
  }
  // Past kMaxSahDepth levels only median splits: depth stays under
  // kMaxDepth (the traversal stacks' size) whatever the heuristic does.
  const uint32_t mid =
      depth < kMaxSahDepth
          ? SahSplit(begin, end, axis, spread, boxes, order, *centroids)
          : MedianSplit(begin, end, axis, order, *centroids);
  const uint32_t left = static_cast<uint32_t>(nodes_.size());
  assert(left % 2 == 0);  // the pair shares a cache line (bvh.h)
  nodes_.push_back(BvhNode{});
  nodes_.push_back(BvhNode{});
  nodes_[node].first = left;
  nodes_[node].count = 0;
  Split(left, begin, mid, depth + 1, boxes, order, centroids);
  Split(left + 1, mid, end, depth + 1, boxes, order, centroids);
}

uint32_t Bvh::MedianSplit(uint32_t begin, uint32_t end, int axis,
                          std::vector<uint32_t>* order,
                          const std::vector<float>& centroids) {
  const uint32_t mid = begin + (end - begin) / 2;
  const float* c = centroids.data();
  std::nth_element(order->begin() + begin, order->begin() + mid,
                   order->begin() + end, [c, axis](uint32_t a, uint32_t b) {
                     return c[a * 3 + axis] < c[b * 3 + axis];
                   });
  return mid;
}

uint32_t Bvh::SahSplit(uint32_t begin, uint32_t end, int axis,
                       const Aabb& spread, const std::vector<Aabb>& boxes,
                       std::vector<uint32_t>* order,
                       const std::vector<float>& centroids) {
  // Binned surface-area heuristic on the widest centroid axis (Wald 2007):
  // the split minimising count x half-area of both sides. Rays and small
  // queries visit far fewer nodes than in a median split's overlapping
  // siblings.
  constexpr int kBins = 16;
  const float lo = spread.lo[axis];
  const float extent = spread.hi[axis] - lo;
  const float* c = centroids.data();
  auto median = [&] { return MedianSplit(begin, end, axis, order, centroids); };
  if (!(extent > 0.0f)) return median();
  const float scale = kBins / extent;
  auto bin_of = [&](uint32_t item) {
    const int b = static_cast<int>((c[item * 3 + axis] - lo) * scale);
    return std::min(std::max(b, 0), kBins - 1);
  };
  Aabb bin_box[kBins];
  uint32_t bin_count[kBins] = {};
  for (int b = 0; b < kBins; ++b) bin_box[b] = EmptyAabb();
  for (uint32_t i = begin; i < end; ++i) {
    const uint32_t item = (*order)[i];
    const int b = bin_of(item);
    Grow(&bin_box[b], boxes[item]);
    ++bin_count[b];
  }
  // Sweep from the right for the suffix costs, then from the left.
  float right_cost[kBins];
  Aabb acc = EmptyAabb();
  uint32_t count = 0;
  for (int b = kBins - 1; b > 0; --b) {
    Grow(&acc, bin_box[b]);
    count += bin_count[b];
    right_cost[b] = HalfArea(acc) * static_cast<float>(count);
  }
  acc = EmptyAabb();
  count = 0;
  int best = -1;
  float best_cost = INFINITY;
  for (int b = 0; b < kBins - 1; ++b) {
    Grow(&acc, bin_box[b]);
    count += bin_count[b];
    if (count == 0 || count == end - begin) continue;
    const float cost =
        HalfArea(acc) * static_cast<float>(count) + right_cost[b + 1];
    if (cost < best_cost) {
      best_cost = cost;
      best = b;
    }
  }
  if (best < 0) return median();
  const auto split =
      std::partition(order->begin() + begin, order->begin() + end,
                     [&](uint32_t item) { return bin_of(item) <= best; });
  return static_cast<uint32_t>(split - order->begin());
}

float Bvh::Refit(const Aabb* item_boxes) {
  float leaf_cost = 0.0f;
  for (size_t i = nodes_.size(); i-- > 0;) {
    if (i == 1) continue;  // unused (Build)
    BvhNode& node = nodes_[i];
    if (node.count > 0) {
      Aabb box = EmptyAabb();
      for (uint32_t k = 0; k < node.count; ++k) {
        Grow(&box, item_boxes[node.first + k]);
      }
      node.box = box;
      leaf_cost += HalfArea(box);
    } else {
      Aabb box = nodes_[node.first].box;
      Grow(&box, nodes_[node.first + 1].box);
      node.box = box;
    }
  }
  return leaf_cost;
}

float Bvh::LeafCost() const {
  float cost = 0.0f;
  for (const BvhNode& node : nodes_) {
    if (node.count > 0) cost += HalfArea(node.box);
  }
  return cost;
}

}  // namespace scene
}  // namespace collision
