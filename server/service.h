// The collision.v1.CollisionService implementation (gRPC callback API).
//
// Reactions stay short: every request is admitted (or shed) on gRPC's
// thread and computed on our WorkerPool, large batches in chunks across all
// cores, checking the call's deadline and cancellation between chunks.
#ifndef COLLISION_SERVER_SERVICE_H_
#define COLLISION_SERVER_SERVICE_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "collision/v1/collision.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "server/handlers.h"
#include "server/metrics.h"
#include "server/raw_messages.h"
#include "server/security.h"
#include "server/worker_pool.h"

namespace collision::server {

struct ServiceOptions {
  RequestLimits limits;
  // Requests (unary calls and stream messages) admitted at once, computing
  // or waiting for a worker. Beyond it a request is answered at once with
  // UNAVAILABLE and a `grpc-retry-pushback-ms` trailer: never an unbounded
  // queue.
  int max_in_flight = 64;
  // The pushback sent with an overload rejection, in milliseconds.
  int retry_pushback_ms = 20;
  // Compute threads; 0 = one per hardware thread.
  std::size_t worker_threads = 0;
  // Requests of at most this many items are computed right on gRPC's
  // callback thread (a few microseconds): handing them to the pool would
  // cost two thread wake-ups, several times the work itself.
  std::size_t inline_max_items = 2048;
  // When set, every collision.v1 call must carry one of these bearer tokens
  // (see security.h); the health service stays open.
  std::shared_ptr<const TokenSet> tokens;
  // Test seam: runs on the worker right before each admitted request is
  // computed (tests block here to hold a slot or let a deadline pass).
  std::function<void(grpc::CallbackServerContext*)> before_compute;
};

// Every method is gRPC's "raw" variant (bytes in, bytes out; see
// raw_messages.h for why): the messages are collision.v1's all the same.
using RawCollisionService =
    v1::CollisionService::WithRawCallbackMethod_Intersect<
        v1::CollisionService::WithRawCallbackMethod_ClosestPoint<
            v1::CollisionService::WithRawCallbackMethod_IntersectColumns<
                v1::CollisionService::WithRawCallbackMethod_ClosestPointColumns<
                    v1::CollisionService::WithRawCallbackMethod_QueryStream<
                        v1::CollisionService::Service>>>>>;

class CollisionServiceImpl final : public RawCollisionService {
 public:
  // `metrics` must outlive the service.
  CollisionServiceImpl(const ServiceOptions& options, Metrics* metrics);

  // The typed synchronous overloads are never called (they abort).
  using RawCollisionService::ClosestPoint;
  using RawCollisionService::ClosestPointColumns;
  using RawCollisionService::Intersect;
  using RawCollisionService::IntersectColumns;
  using RawCollisionService::QueryStream;

  // Request: a collision.v1.IntersectRequest; response: IntersectResponse.
  grpc::ServerUnaryReactor* Intersect(grpc::CallbackServerContext* context,
                                      const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ClosestPoint(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* IntersectColumns(
      grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
      grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ClosestPointColumns(
      grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
      grpc::ByteBuffer* response) override;
  // Messages: collision.v1.QueryStreamRequest in, QueryStreamResponse out.
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* QueryStream(
      grpc::CallbackServerContext* context) override;

  int in_flight() const { return in_flight_.load(); }
  const ServiceOptions& options() const { return options_; }

 private:
  friend class QueryStreamReactor;

  // Takes an in-flight slot; false (and nothing taken) when full.
  bool Admit();
  void Release();
  grpc::Status Overloaded() const;
  // OK, or UNAUTHENTICATED when tokens are required and the call has none
  // of them.
  grpc::Status Authenticate(grpc::CallbackServerContext* context) const;
  HandlerContext MakeContext(grpc::CallbackServerContext* context);
  template <typename Request, typename Response, typename Handler>
  grpc::ServerUnaryReactor* Unary(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* request,
                                  grpc::ByteBuffer* response,
                                  const char* method, Handler handler);

  const ServiceOptions options_;
  Metrics* const metrics_;
  std::atomic<int> in_flight_{0};
  // Declared last: destroyed first, so queued work finishes while the rest
  // of the service is still alive.
  WorkerPool pool_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_SERVICE_H_
