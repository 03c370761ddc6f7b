// The per-pair requests (Intersect, ClosestPoint) decoded straight from
// their bytes into core items, and their responses encoded straight into
// bytes: no protobuf message is built on the way. Parsing the messages cost
// several times more than computing the answers (collision_wire_bench).
//
// The decoder takes only the plain encoding every protobuf writer produces
// for a valid request: known fields of the right wire types, each message
// field at most once, one shape per Shape, every value valid. Anything else
// (an invalid value, a missing field, an unknown or repeated message field,
// an empty or oversized batch, broken bytes) returns false, and the caller
// parses the message as before: that path's validation and error texts stay
// the only ones, and answers are the same either way (tests/wire/
// pair_wire_test.cc holds both paths to identical bytes).
//
// gRPC-free: the service hands in the request's bytes and sends the output.
#ifndef COLLISION_WIRE_PAIR_WIRE_H_
#define COLLISION_WIRE_PAIR_WIRE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "collision/wire/convert.h"

namespace collision::wire {

// An IntersectRequest's bytes as ParseIntersectRequest would give them;
// false: take the message path.
bool DecodeIntersectRequest(absl::string_view bytes,
                            const RequestLimits& limits, ParsedIntersect* out);
// A ClosestPointRequest's bytes as ParseClosestPointRequest would give
// them; false: take the message path.
bool DecodeClosestPointRequest(absl::string_view bytes,
                               const RequestLimits& limits,
                               ParsedClosestPoint* out);

// A QueryStreamRequest whose query is a per-pair request: its sequence,
// which query field (2 intersect, 3 closest_point) and that request's
// bytes (pointing into the message's). False for any other message, which
// the message path then handles.
struct StreamQuery {
  uint64_t sequence = 0;
  int field = 0;
  absl::string_view request;
};
bool SplitQueryStreamRequest(absl::string_view bytes, StreamQuery* out);

// Appends the QueryStreamResponse answering `query` with `answer`, the
// encoded IntersectResponse / ClosestPointResponse, as protobuf would
// serialize it (sequence, then the answer field matching the query's).
void EncodeQueryStreamAnswer(const StreamQuery& query, absl::string_view answer,
                             std::string* out);

// The serialized IntersectResponse / ClosestPointResponse that
// FillIntersectResponse / FillClosestPointResponse and protobuf's
// serializer would produce, byte for byte, appended to `out`.
void EncodeIntersectResponse(const ParsedIntersect& request,
                             const std::vector<IntersectResult>& results,
                             std::string* out);
void EncodeClosestPointResponse(const std::vector<ClosestPointResult>& results,
                                std::string* out);

}  // namespace collision::wire

#endif  // COLLISION_WIRE_PAIR_WIRE_H_
