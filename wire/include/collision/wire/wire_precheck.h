// Bounds a request's size on its encoded bytes, before protobuf builds any
// object from them.
//
// Parsing amplifies: a ShapePair encoded in two bytes (an empty message)
// becomes a ~50-byte object, so a 64 MiB request of empty pairs once took
// 1.9 GB to parse before the batch limit rejected it. Here the repeated items
// of a request (pairs, queries, column groups; those of a QueryStream
// message's query) are counted by skipping over their bytes, at the cost of
// reading one tag per item, and the count stops once it passes the batch
// limit: refusing a request costs at most the limit's worth of reading,
// whatever was sent.
//
// Protobuf only (no gRPC): the caller wraps its bytes in a
// ZeroCopyInputStream.
#ifndef COLLISION_WIRE_WIRE_PRECHECK_H_
#define COLLISION_WIRE_WIRE_PRECHECK_H_

#include <cstdint>

#include "absl/status/status.h"
#include "collision/v1/collision.pb.h"
#include "collision/wire/convert.h"
#include "google/protobuf/io/zero_copy_stream.h"

namespace collision::wire {

// The request messages the service receives.
enum class RequestMessage {
  kIntersect,            // IntersectRequest: pairs
  kClosestPoint,         // ClosestPointRequest: queries
  kIntersectColumns,     // IntersectColumnsRequest: groups
  kClosestPointColumns,  // ClosestPointColumnsRequest: groups
  kQueryStream,          // QueryStreamRequest: those of its query
};

template <typename Request>
constexpr RequestMessage kRequestMessage = RequestMessage::kQueryStream;
template <>
inline constexpr RequestMessage kRequestMessage<v1::IntersectRequest> =
    RequestMessage::kIntersect;
template <>
inline constexpr RequestMessage kRequestMessage<v1::ClosestPointRequest> =
    RequestMessage::kClosestPoint;
template <>
inline constexpr RequestMessage kRequestMessage<v1::IntersectColumnsRequest> =
    RequestMessage::kIntersectColumns;
template <>
inline constexpr RequestMessage
    kRequestMessage<v1::ClosestPointColumnsRequest> =
        RequestMessage::kClosestPointColumns;

// INVALID_ARGUMENT when the encoded request holds more items than
// `limits.max_batch` (a column request: more groups; each group holds at
// least one pair, so more groups than that cannot be a valid batch): "pairs
// has more than this server's limit of N items; split the batch" (how many
// more is not counted). OK otherwise, also for bytes that are not a valid
// encoding before the limit is passed: the parse that follows reports those.
absl::Status PrecheckRequestSize(
    google::protobuf::io::ZeroCopyInputStream* bytes, RequestMessage message,
    const RequestLimits& limits);

// RESOURCE_EXHAUSTED when an encoded SceneRequest holds more upserts and
// column groups than `max_upserts` or more queries than `max_queries`
// (counted up to one past the limit, as PrecheckRequestSize does); OK
// otherwise (and for bytes that do not parse: the parse reports them).
absl::Status PrecheckSceneRequest(
    google::protobuf::io::ZeroCopyInputStream* bytes, uint64_t max_upserts,
    uint64_t max_queries);

// The `sequence` of an encoded QueryStreamRequest (or SceneRequest) as the
// parse would read it (its last occurrence), without parsing the query; 0 when
// absent or when the bytes end before it can be read.
uint64_t PeekStreamSequence(google::protobuf::io::ZeroCopyInputStream* bytes);

}  // namespace collision::wire

#endif  // COLLISION_WIRE_WIRE_PRECHECK_H_
