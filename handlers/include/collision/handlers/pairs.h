// The four query handlers, independent of gRPC: validate the whole request,
// then compute it in chunks (possibly on several threads, stopping between
// chunks on deadline or cancellation), then fill the response. They return
// absl::Status; the server maps it to gRPC's status in one place.
#ifndef COLLISION_HANDLERS_PAIRS_H_
#define COLLISION_HANDLERS_PAIRS_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "collision/handlers/columns.h"
#include "collision/v1/collision.pb.h"
#include "collision/wire/convert.h"

namespace collision::handlers {

using wire::KindCounts;
using wire::RequestLimits;

struct HandlerContext {
  RequestLimits limits;
  // How chunks run; SequentialRunner() runs them inline and never stops.
  ChunkRunner run = SequentialRunner();
  // Why `run` stopped early (DEADLINE_EXCEEDED or CANCELLED).
  std::function<absl::Status()> stopped_status = [] {
    return absl::CancelledError("cancelled");
  };
  // Receives the work done, by kind, after a successful compute.
  std::function<void(const KindCounts&)> count_work = [](const KindCounts&) {};
};

absl::Status HandleIntersect(const v1::IntersectRequest& request,
                             v1::IntersectResponse* response,
                             const HandlerContext& context);
absl::Status HandleClosestPoint(const v1::ClosestPointRequest& request,
                                v1::ClosestPointResponse* response,
                                const HandlerContext& context);
absl::Status HandleIntersectColumns(const v1::IntersectColumnsRequest& request,
                                    v1::IntersectColumnsResponse* response,
                                    const HandlerContext& context);
absl::Status HandleClosestPointColumns(
    const v1::ClosestPointColumnsRequest& request,
    v1::ClosestPointColumnsResponse* response, const HandlerContext& context);

// A per-pair request decoded straight from its bytes (pair_wire.h), served
// like HandleIntersect / HandleClosestPoint serve the parsed message: the
// same answers, work counts and response bytes.
class DecodedRequest {
 public:
  virtual ~DecodedRequest() = default;
  virtual std::size_t items() const = 0;
  // Computes the answers and appends the response's encoding to `response`.
  virtual absl::Status Serve(const HandlerContext& context,
                             std::string* response) = 0;
};
// nullptr when the bytes are not in the plain encoding pair_wire.h takes:
// parse the message and call the handler instead.
std::unique_ptr<DecodedRequest> DecodeIntersect(absl::string_view bytes,
                                                const RequestLimits& limits);
std::unique_ptr<DecodedRequest> DecodeClosestPoint(absl::string_view bytes,
                                                   const RequestLimits& limits);

// A QueryStream message whose query is Intersect or ClosestPoint, decoded
// from its bytes; it serves the whole QueryStreamResponse (sequence and
// answer). nullptr: parse the message instead.
std::unique_ptr<DecodedRequest> DecodeQueryStreamMessage(
    absl::string_view bytes, const RequestLimits& limits);

// Single-threaded versions with only limits, for tests and tools.
inline absl::Status HandleIntersect(const v1::IntersectRequest& request,
                                    v1::IntersectResponse* response,
                                    const RequestLimits& limits) {
  return HandleIntersect(request, response, HandlerContext{limits});
}
inline absl::Status HandleClosestPoint(const v1::ClosestPointRequest& request,
                                       v1::ClosestPointResponse* response,
                                       const RequestLimits& limits) {
  return HandleClosestPoint(request, response, HandlerContext{limits});
}

}  // namespace collision::handlers

#endif  // COLLISION_HANDLERS_PAIRS_H_
