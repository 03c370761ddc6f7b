// The circle-rect pairs both systems are given, and the requests that carry
// them to the service. Coordinates are float32 (what the service takes);
// PostgreSQL gets the same values widened to float8, exactly.
#ifndef COLLISION_TOOLS_PEERS_PAIRS_H_
#define COLLISION_TOOLS_PEERS_PAIRS_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"
#include "collision/v1/collision.pb.h"

namespace collision::peers {

// A circle (centre x, y, radius r) and an axis-aligned rectangle
// [min_x, max_x] x [min_y, max_y].
struct CircleRectPair {
  float x = 0;
  float y = 0;
  float r = 0;
  float min_x = 0;
  float min_y = 0;
  float max_x = 0;
  float max_y = 0;
};

// n pairs from `seed` (same seed, same pairs): about 70% random around the
// rectangle (roughly a third hit), 25% with the radius within a few float32
// ulps of the exact distance (where float32 and float8 may disagree) and 5%
// touching exactly (integer coordinates: an inclusive hit in both).
std::vector<CircleRectPair> MakePairs(uint64_t seed, int n);

// Squared distance from the centre to the rectangle, in double (exact for
// float inputs but for the final rounding), minus r^2: <= 0 is a hit.
double MarginDouble(const CircleRectPair& p);

// The requests, boundary inclusive (PostGIS's ST_DWithin is `<=` too).
v1::IntersectRequest MakeIntersect(absl::Span<const CircleRectPair> pairs);
v1::IntersectColumnsRequest MakeIntersectColumns(
    absl::Span<const CircleRectPair> pairs);
// Queries are the circles (closest point to the centre, gap to the circle).
v1::ClosestPointRequest MakeClosestPoint(
    absl::Span<const CircleRectPair> pairs);
v1::ClosestPointColumnsRequest MakeClosestPointColumns(
    absl::Span<const CircleRectPair> pairs);

}  // namespace collision::peers

#endif  // COLLISION_TOOLS_PEERS_PAIRS_H_
