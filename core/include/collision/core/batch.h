// Batch entry points of the core: the only calls the server makes into it.
// A batch may mix pair kinds in any order; results[i] answers items[i].
// The answers are bit-identical to calling Intersect()/ClosestPoint() per
// item: the batch is grouped by pair kind into struct-of-arrays columns and
// run through the SIMD kernels of kernels.h. Thread-safe; callers may split a
// batch into sub-spans and answer them on different threads. Each calling
// thread keeps a bounded scratch buffer (~0.2 MB) for its lifetime.
#ifndef COLLISION_CORE_BATCH_H_
#define COLLISION_CORE_BATCH_H_

#include "absl/types/span.h"
#include "collision/core/shapes.h"

namespace collision {

struct ShapePair {
  Shape a;
  Shape b;
};

struct ClosestPointItem {
  Shape query;
  Shape target;
};

// Answers every pair (each must satisfy IsSupportedIntersectPair) into
// out[i]; out.size() == pairs.size().
void IntersectBatch(absl::Span<const ShapePair> pairs, Boundary boundary,
                    absl::Span<IntersectResult> out);

// Answers every item (each must satisfy IsSupportedClosestPointPair) into
// out[i]; out.size() == items.size().
void ClosestPointBatch(absl::Span<const ClosestPointItem> items,
                       Boundary boundary, absl::Span<ClosestPointResult> out);

// Name of the Highway SIMD target the batch functions run on this CPU, chosen
// at run time: "AVX3", "AVX2", "SSE4", "SSSE3", "SCALAR", ... (see
// kernels.h).
const char* SimdTargetName();

}  // namespace collision

#endif  // COLLISION_CORE_BATCH_H_
