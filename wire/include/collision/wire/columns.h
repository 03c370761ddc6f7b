// The columnar fast path's validation: IntersectColumnsRequest /
// ClosestPointColumnsRequest checked in place (no copy of the columns);
// collision/handlers/columns.h then runs the SIMD kernels straight on the
// parsed packed floats.
#ifndef COLLISION_WIRE_COLUMNS_H_
#define COLLISION_WIRE_COLUMNS_H_

#include <cstddef>

#include "absl/status/status.h"
#include "collision/v1/collision.pb.h"
#include "collision/wire/convert.h"

namespace collision::wire {

// Number of items (pairs or queries) a request carries, from the length of
// each group's first column; cheap, and meaningful before validation.
std::size_t ItemCount(const v1::IntersectColumnsRequest& req);
std::size_t ItemCount(const v1::ClosestPointColumnsRequest& req);
// The same for one group.
std::size_t IntersectGroupSize(const v1::IntersectColumnGroup& g);
std::size_t ClosestGroupSize(const v1::ClosestPointColumnGroup& g);

// Checks the whole request (every column and element) before computing:
// OK, or INVALID_ARGUMENT listing the violations. On success `counts`
// holds the pairs (or queries) per kind.
absl::Status ValidateIntersectColumns(const v1::IntersectColumnsRequest& req,
                                      const RequestLimits& limits,
                                      KindCounts* counts);
absl::Status ValidateClosestPointColumns(
    const v1::ClosestPointColumnsRequest& req, const RequestLimits& limits,
    KindCounts* counts);

}  // namespace collision::wire

#endif  // COLLISION_WIRE_COLUMNS_H_
