// C++ client of collision.v1: one channel reused for every call, a deadline
// on every call, absl::Status errors carrying the server's code and message.
//
//   auto client = collision::client::Client::Create("127.0.0.1:50051");
//   if (!client.ok()) ...
//   collision::client::IntersectBatch batch;
//   batch.Add(Circle(5, 5, 2), RectFromCornerSize(6, 0, 4, 4));
//   absl::StatusOr<v1::IntersectResponse> r = (*client)->Intersect(batch);
#ifndef COLLISION_CLIENT_CLIENT_H_
#define COLLISION_CLIENT_CLIENT_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collision/client/shapes.h"
#include "collision/v1/collision.grpc.pb.h"
#include "grpcpp/channel.h"
#include "grpc/health/v1/health.grpc.pb.h"

namespace collision::client {

struct ClientOptions {
  // Deadline of every call, from the moment it is made.
  absl::Duration timeout = absl::Seconds(5);
  // gRPC load-balancing policy: "" keeps gRPC's default (pick_first);
  // "round_robin" spreads calls over every address the target resolves to
  // (e.g. "dns:///collision.example:50051" or "ipv4:127.0.0.1:1,127.0.0.1:2").
  std::string load_balancing_policy;
  // Largest response accepted, in bytes.
  int max_receive_message_bytes = 64 * 1024 * 1024;
};

class Client {
 public:
  // Creates the channel (it connects lazily, on the first call). Fails on an
  // empty target or invalid options.
  static absl::StatusOr<std::unique_ptr<Client>> Create(
      const std::string& target, const ClientOptions& options = {});

  absl::StatusOr<v1::IntersectResponse> Intersect(
      const v1::IntersectRequest& request) const;
  absl::StatusOr<v1::IntersectResponse> Intersect(
      const IntersectBatch& batch) const {
    return Intersect(batch.request());
  }
  absl::StatusOr<v1::ClosestPointResponse> ClosestPoint(
      const v1::ClosestPointRequest& request) const;
  absl::StatusOr<v1::ClosestPointResponse> ClosestPoint(
      const ClosestPointBatch& batch) const {
    return ClosestPoint(batch.request());
  }

  // One standard health check of `service` ("" = the whole server): true
  // when SERVING.
  absl::StatusOr<bool> IsServing(const std::string& service = "") const;
  // Polls the health service until it reports SERVING or `timeout` passes
  // (DEADLINE_EXCEEDED, with the last error seen).
  absl::Status WaitUntilServing(absl::Duration timeout) const;

  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }

 private:
  Client(std::shared_ptr<grpc::Channel> channel, const ClientOptions& options);

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::CollisionService::Stub> stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
};

}  // namespace collision::client

#endif  // COLLISION_CLIENT_CLIENT_H_
