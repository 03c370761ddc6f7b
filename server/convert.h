// Validation and conversion of collision.v1 requests into core types, and of
// core results back into responses. This is the only layer that sees both the
// wire types and the core.
//
// Every check happens before any compute. A rejected request yields
// INVALID_ARGUMENT whose message lists the offending items by field path,
// e.g. "pairs[17].b.circle.radius must be >= 0, got -1"; at most
// kMaxListedViolations are listed, followed by how many more there were.
#ifndef COLLISION_SERVER_CONVERT_H_
#define COLLISION_SERVER_CONVERT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "collision/core/batch.h"
#include "collision/v1/collision.pb.h"

namespace collision::server {

inline constexpr int kMaxListedViolations = 10;

struct RequestLimits {
  // Largest number of pairs or queries in one request.
  std::size_t max_batch = 100000;
};

struct ParsedIntersect {
  std::vector<ShapePair> pairs;
  Boundary boundary = Boundary::kInclusive;
  bool include_relation = false;
  bool include_separation = false;
};

struct ParsedClosestPoint {
  std::vector<ClosestPointItem> items;
  Boundary boundary = Boundary::kInclusive;
};

absl::StatusOr<ParsedIntersect> ParseIntersectRequest(
    const v1::IntersectRequest& request, const RequestLimits& limits);

absl::StatusOr<ParsedClosestPoint> ParseClosestPointRequest(
    const v1::ClosestPointRequest& request, const RequestLimits& limits);

// Writes results into `response` (which is cleared first).
void FillIntersectResponse(const ParsedIntersect& request,
                           const std::vector<IntersectResult>& results,
                           v1::IntersectResponse* response);
void FillClosestPointResponse(const std::vector<ClosestPointResult>& results,
                              v1::ClosestPointResponse* response);

}  // namespace collision::server

#endif  // COLLISION_SERVER_CONVERT_H_
