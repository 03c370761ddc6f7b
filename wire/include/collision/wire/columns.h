// The columnar fast path: validates IntersectColumnsRequest /
// ClosestPointColumnsRequest in place (no copy of the columns) and runs the
// SIMD kernels straight on the parsed packed floats, chunk by chunk.
#ifndef COLLISION_WIRE_COLUMNS_H_
#define COLLISION_WIRE_COLUMNS_H_

#include <cstddef>
#include <functional>

#include "absl/status/status.h"
#include "collision/v1/collision.pb.h"
#include "collision/wire/convert.h"

namespace collision::wire {

// Runs body(begin, end) over [0, n) in chunks, possibly on several threads;
// returns false if it stopped early (deadline or cancellation).
using ChunkRunner = std::function<bool(
    std::size_t n, const std::function<void(std::size_t, std::size_t)>& body)>;

// A ChunkRunner that runs every chunk on the calling thread, never stopping.
ChunkRunner SequentialRunner();

// Chunk size of every batch computation: a multiple of 8 so that chunks
// write whole bytes of the hit bitsets.
inline constexpr std::size_t kChunk = 8192;

// Number of items (pairs or queries) a request carries, from the length of
// each group's first column; cheap, and meaningful before validation.
std::size_t ItemCount(const v1::IntersectColumnsRequest& req);
std::size_t ItemCount(const v1::ClosestPointColumnsRequest& req);

// Checks the whole request (every column and element) before computing:
// OK, or INVALID_ARGUMENT listing the violations. On success `counts`
// holds the pairs (or queries) per kind.
absl::Status ValidateIntersectColumns(const v1::IntersectColumnsRequest& req,
                                      const RequestLimits& limits,
                                      KindCounts* counts);
absl::Status ValidateClosestPointColumns(
    const v1::ClosestPointColumnsRequest& req, const RequestLimits& limits,
    KindCounts* counts);

// Computes a validated request. Returns false if `run` stopped early (the
// response is then incomplete and must not be sent).
bool ComputeIntersectColumns(const v1::IntersectColumnsRequest& req,
                             const ChunkRunner& run,
                             v1::IntersectColumnsResponse* response);
bool ComputeClosestPointColumns(const v1::ClosestPointColumnsRequest& req,
                                const ChunkRunner& run,
                                v1::ClosestPointColumnsResponse* response);

}  // namespace collision::wire

#endif  // COLLISION_WIRE_COLUMNS_H_
