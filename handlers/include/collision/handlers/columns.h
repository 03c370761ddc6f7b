// The columnar fast path's computation: the SIMD kernels run straight on a
// validated request's packed floats (wire/columns.h validates), chunk by
// chunk, possibly on several threads.
#ifndef COLLISION_HANDLERS_COLUMNS_H_
#define COLLISION_HANDLERS_COLUMNS_H_

#include <cstddef>
#include <functional>

#include "collision/v1/collision.pb.h"

namespace collision::handlers {

// Runs body(begin, end) over [0, n) in chunks, possibly on several threads;
// returns false if it stopped early (deadline or cancellation).
using ChunkRunner = std::function<bool(
    std::size_t n, const std::function<void(std::size_t, std::size_t)>& body)>;

// A ChunkRunner that runs every chunk on the calling thread, never stopping.
ChunkRunner SequentialRunner();

// Chunk size of every batch computation: a multiple of 8 so that chunks
// write whole bytes of the hit bitsets.
inline constexpr std::size_t kChunk = 8192;

// Computes a validated request. Returns false if `run` stopped early (the
// response is then incomplete and must not be sent).
bool ComputeIntersectColumns(const v1::IntersectColumnsRequest& req,
                             const ChunkRunner& run,
                             v1::IntersectColumnsResponse* response);
bool ComputeClosestPointColumns(const v1::ClosestPointColumnsRequest& req,
                                const ChunkRunner& run,
                                v1::ClosestPointColumnsResponse* response);

}  // namespace collision::handlers

#endif  // COLLISION_HANDLERS_COLUMNS_H_
