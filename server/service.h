// The collision.v1.CollisionService implementation (gRPC callback API).
#ifndef COLLISION_SERVER_SERVICE_H_
#define COLLISION_SERVER_SERVICE_H_

#include "collision/v1/collision.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "server/convert.h"

namespace collision::server {

// Validates, computes and fills the response; the handlers below only wrap
// these, so they are testable without a network.
grpc::Status HandleIntersect(const v1::IntersectRequest& request,
                             v1::IntersectResponse* response,
                             const RequestLimits& limits);
grpc::Status HandleClosestPoint(const v1::ClosestPointRequest& request,
                                v1::ClosestPointResponse* response,
                                const RequestLimits& limits);

class CollisionServiceImpl final
    : public v1::CollisionService::CallbackService {
 public:
  explicit CollisionServiceImpl(RequestLimits limits) : limits_(limits) {}

  grpc::ServerUnaryReactor* Intersect(
      grpc::CallbackServerContext* context,
      const v1::IntersectRequest* request,
      v1::IntersectResponse* response) override;
  grpc::ServerUnaryReactor* ClosestPoint(
      grpc::CallbackServerContext* context,
      const v1::ClosestPointRequest* request,
      v1::ClosestPointResponse* response) override;

 private:
  const RequestLimits limits_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_SERVICE_H_
