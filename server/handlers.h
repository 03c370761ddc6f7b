// The four query handlers, independent of gRPC's reactors: validate the
// whole request, then compute it in chunks (possibly on several threads,
// stopping between chunks on deadline or cancellation), then fill the
// response.
#ifndef COLLISION_SERVER_HANDLERS_H_
#define COLLISION_SERVER_HANDLERS_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/strings/string_view.h"
#include "collision/v1/collision.pb.h"
#include "grpcpp/support/status.h"
#include "server/columns.h"
#include "server/convert.h"

namespace collision::server {

// The gRPC status of an absl::Status (the codes are the same numbers).
inline grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      std::string(s.message()));
}

struct HandlerContext {
  RequestLimits limits;
  // How chunks run; SequentialRunner() runs them inline and never stops.
  ChunkRunner run = SequentialRunner();
  // Why `run` stopped early (DEADLINE_EXCEEDED or CANCELLED).
  std::function<grpc::Status()> stopped_status = [] {
    return grpc::Status(grpc::StatusCode::CANCELLED, "cancelled");
  };
  // Receives the work done, by kind, after a successful compute.
  std::function<void(const KindCounts&)> count_work = [](const KindCounts&) {};
};

grpc::Status HandleIntersect(const v1::IntersectRequest& request,
                             v1::IntersectResponse* response,
                             const HandlerContext& context);
grpc::Status HandleClosestPoint(const v1::ClosestPointRequest& request,
                                v1::ClosestPointResponse* response,
                                const HandlerContext& context);
grpc::Status HandleIntersectColumns(const v1::IntersectColumnsRequest& request,
                                    v1::IntersectColumnsResponse* response,
                                    const HandlerContext& context);
grpc::Status HandleClosestPointColumns(
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
  virtual grpc::Status Serve(const HandlerContext& context,
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
inline grpc::Status HandleIntersect(const v1::IntersectRequest& request,
                                    v1::IntersectResponse* response,
                                    const RequestLimits& limits) {
  return HandleIntersect(request, response, HandlerContext{limits});
}
inline grpc::Status HandleClosestPoint(const v1::ClosestPointRequest& request,
                                       v1::ClosestPointResponse* response,
                                       const RequestLimits& limits) {
  return HandleClosestPoint(request, response, HandlerContext{limits});
}

}  // namespace collision::server

#endif  // COLLISION_SERVER_HANDLERS_H_
