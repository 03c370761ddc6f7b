#include "server/service.h"

#include <vector>

#include "collision/core/batch.h"

namespace collision::server {
namespace {

grpc::Status ToGrpc(const absl::Status& s) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()),
                      std::string(s.message()));
}

}  // namespace

grpc::Status HandleIntersect(const v1::IntersectRequest& request,
                             v1::IntersectResponse* response,
                             const RequestLimits& limits) {
  absl::StatusOr<ParsedIntersect> parsed =
      ParseIntersectRequest(request, limits);
  if (!parsed.ok()) return ToGrpc(parsed.status());
  std::vector<IntersectResult> results(parsed->pairs.size());
  IntersectBatch(parsed->pairs, parsed->boundary, absl::MakeSpan(results));
  FillIntersectResponse(*parsed, results, response);
  return grpc::Status::OK;
}

grpc::Status HandleClosestPoint(const v1::ClosestPointRequest& request,
                                v1::ClosestPointResponse* response,
                                const RequestLimits& limits) {
  absl::StatusOr<ParsedClosestPoint> parsed =
      ParseClosestPointRequest(request, limits);
  if (!parsed.ok()) return ToGrpc(parsed.status());
  std::vector<ClosestPointResult> results(parsed->items.size());
  ClosestPointBatch(parsed->items, parsed->boundary, absl::MakeSpan(results));
  FillClosestPointResponse(results, response);
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* CollisionServiceImpl::Intersect(
    grpc::CallbackServerContext* context, const v1::IntersectRequest* request,
    v1::IntersectResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(HandleIntersect(*request, response, limits_));
  return reactor;
}

grpc::ServerUnaryReactor* CollisionServiceImpl::ClosestPoint(
    grpc::CallbackServerContext* context,
    const v1::ClosestPointRequest* request,
    v1::ClosestPointResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(HandleClosestPoint(*request, response, limits_));
  return reactor;
}

}  // namespace collision::server
