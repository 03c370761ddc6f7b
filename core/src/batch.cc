#include "collision/core/batch.h"

#include <cassert>

#include "collision/core/scalar.h"

namespace collision {

void IntersectBatch(absl::Span<const ShapePair> pairs, Boundary boundary,
                    absl::Span<IntersectResult> out) {
  assert(out.size() == pairs.size());
  for (size_t i = 0; i < pairs.size(); ++i) {
    out[i] = Intersect(pairs[i].a, pairs[i].b, boundary);
  }
}

void ClosestPointBatch(absl::Span<const ClosestPointItem> items,
                       Boundary boundary, absl::Span<ClosestPointResult> out) {
  assert(out.size() == items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    out[i] = ClosestPoint(items[i].query, items[i].target, boundary);
  }
}

const char* SimdTargetName() { return "scalar"; }

}  // namespace collision
