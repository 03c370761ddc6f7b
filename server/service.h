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
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "absl/time/time.h"
#include "collision/handlers/pairs.h"
#include "collision/v1/collision.grpc.pb.h"
#include "collision/wire/scene_request.h"
#include "grpcpp/grpcpp.h"
#include "server/observability/event_log.h"
#include "server/observability/metrics.h"
#include "server/raw_messages.h"
#include "server/scene_budget.h"
#include "server/scene_recorder.h"
#include "server/status.h"
#include "server/transport/arrival_ledger.h"
#include "server/transport/security.h"
#include "server/worker_pool.h"

namespace collision::server {

class UnaryCall;

struct ServiceOptions {
  wire::RequestLimits limits;
  // Requests (unary calls and stream messages) admitted at once, computing
  // or waiting for a worker. Beyond it a request is answered at once with
  // UNAVAILABLE and a `grpc-retry-pushback-ms` trailer: never an unbounded
  // queue.
  int max_in_flight = 64;
  // When > 0: once more than half of max_in_flight is taken, one
  // connection may hold at most this many slots, so that a caller that
  // stops reading its answers (whose slots stay taken) cannot take the
  // whole server from the others. Off by default: behind a balancer every
  // caller arrives over a few upstream connections, and one busy honest
  // connection would be shed with no one else to protect.
  int max_in_flight_per_connection = 0;
  // Encoded request bytes admitted at once (parsing turns them into a few
  // times as much memory). A request that would pass it is shed like one
  // over max_in_flight, unless nothing else is in flight.
  int64_t max_in_flight_bytes = int64_t{64} << 20;
  // Largest request metadata (headers: names, values and HPACK's 32 bytes
  // per entry) a call may carry; a call over it alone is rejected with
  // RESOURCE_EXHAUSTED.
  int max_metadata_bytes = 8 * 1024;
  // The pushback sent with an overload rejection, in milliseconds.
  int retry_pushback_ms = 20;
  // Compute threads; 0 = one per hardware thread.
  std::size_t worker_threads = 0;
  // Requests of at most this many items are computed right on gRPC's
  // callback thread (a few microseconds): handing them to the pool would
  // cost two thread wake-ups, several times the work itself.
  std::size_t inline_max_items = 2048;
  // Intersect and ClosestPoint requests in the plain encoding are decoded
  // straight from their bytes (collision/wire/pair_wire.h) instead of being
  // parsed into messages first: the same answers and response bytes, ~15x less
  // CPU. Off only to compare the two paths.
  bool decode_pairs_from_bytes = true;
  // When set, every collision.v1 call must carry one of these bearer tokens
  // (see security.h); the health service stays open.
  std::shared_ptr<const TokenSet> tokens;
  // A QueryStream older than this is ended by the server at the next
  // message boundary (or at once when it is idle) with UNAVAILABLE and the
  // trailer `collision-stream-end: max-age`: every message read so far has
  // been answered, nothing is cut mid-message, and the client reopens it
  // (the C++ QuerySession does, resending what had no answer). The server
  // sets it below the connection's age + grace, so that the transport never
  // cuts a stream first. Zero: never.
  absl::Duration max_stream_age = absl::ZeroDuration();
  // Limits of SceneService.Session streams (collision/wire/scene_request.h).
  wire::SceneLimits scenes;
  // Scene recordings (scene_recorder.h): where, which scenes, how large.
  SceneRecordOptions record;
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
  // What each connection's calls took (TransportShedder reads it).
  ArrivalLedger* arrivals() { return &arrivals_; }
  // Waits (up to `timeout`) until no request holds an in-flight slot and no
  // unary answer waits for the transport (gRPC may finish a call a moment
  // after its caller has the answer, or later when the caller vanished).
  // For tests.
  bool WaitUntilIdle(absl::Duration timeout) const;
  // Writes the summaries of refusal floods whose interval has passed
  // (`force`: whatever was counted, as the server stops).
  void FlushLogs(absl::Time now, bool force = false) const {
    overload_log_.Flush(now, force);
    auth_log_.Flush(now, force);
  }
  const ServiceOptions& options() const { return options_; }

 private:
  template <typename Session>
  friend class StreamReactor;
  friend class UnaryCall;
  friend struct QueryStreamSession;
  friend class HostedScene;
  friend class ScenePort;

  // Takes an in-flight slot for a request of `bytes` encoded bytes; false
  // (and nothing taken) when full, or when more than 4 x max_in_flight
  // unary answers (or more than max_in_flight_bytes of them) wait for the
  // transport. A stream message's slot is held until its answer is taken by
  // the transport; a unary call's until its answer is handed to gRPC, and
  // the answer then counts as pending until the call is done.
  // `connection` names the caller's connection (its peer address).
  // `*why`, when shed, is the answer to give.
  bool Admit(std::size_t bytes, const std::string& connection,
             grpc::Status* why);
  void Release(std::size_t bytes, const std::string& connection);

  // The call lifecycle, written once for unary calls and stream messages:
  //   CheckCaller       when the call starts (token, then metadata size);
  //   Slot::Take        per message, before it is parsed (Admit);
  //   ComputesInline    on the receiving thread, or SubmitCompute to the pool;
  //   Slot::Release     once its answer is handed on.
  //
  // OK, or the answer to a call that may not be served at all. (`slot`:
  // the call's, which has measured its headers.)
  class Slot;
  grpc::Status CheckCaller(grpc::CallbackServerContext* context,
                           const Slot& slot) const;

  // One message's in-flight slot on one connection. Released at most once;
  // the owner releases it (a destructor could run on a thread gRPC has
  // already let go of).
  class Slot {
   public:
    // One per call: the call's headers count as taken from its connection
    // (ArrivalLedger).
    Slot(CollisionServiceImpl* service, grpc::CallbackServerContext* context);
    // The call's request headers by HPACK's accounting (RFC 7541 4.1):
    // name + value + 32 per entry.
    std::size_t header_bytes() const { return header_bytes_; }
    // A message of `bytes` reached the call (admitted or not).
    void Arrived(std::size_t bytes) {
      service_->arrivals_.MessageTaken(connection_, bytes);
    }
    // False, with the answer in `*why`, when the server sheds the message.
    bool Take(std::size_t bytes, grpc::Status* why) {
      held_ = service_->Admit(bytes, connection_, why);
      bytes_ = held_ ? bytes : 0;
      return held_;
    }
    void Release() {
      if (!held_) return;
      held_ = false;
      service_->Release(bytes_, connection_);
    }

   private:
    CollisionServiceImpl* const service_;
    const std::string connection_;
    const std::size_t header_bytes_;
    std::size_t bytes_ = 0;
    bool held_ = false;
  };

  // Whether a message of `items` items is computed on the thread that
  // received it (a hand-off to the pool costs more than small work) rather
  // than on the worker pool. A test hook (before_compute) sends all to the
  // pool.
  bool ComputesInline(std::size_t items) const {
    return !options_.before_compute && items <= options_.inline_max_items;
  }
  // Runs `work` on the worker pool, after the test hook when one is set.
  template <typename Work>
  void SubmitCompute(grpc::CallbackServerContext* context, Work work) {
    pool_.Submit([this, context, work] {
      if (options_.before_compute) options_.before_compute(context);
      work();
    });
  }
  // OK, or RESOURCE_EXHAUSTED when the call's metadata (`bytes`, see
  // Slot::header_bytes) is over the limit.
  grpc::Status CheckMetadata(std::size_t bytes) const;
  grpc::Status Overloaded() const;
  int PerConnectionShare() const;
  // CANCELLED or DEADLINE_EXCEEDED for a call that ended or expired before
  // its answer (counted under that reason).
  grpc::Status Stopped(grpc::CallbackServerContext* context,
                       const char* when) const;
  // Bounds the request's item count on its bytes, before parsing
  // (collision/wire/wire_precheck.h); INVALID_ARGUMENT (counted) when over the
  // limit.
  template <typename Request>
  grpc::Status Precheck(const grpc::ByteBuffer& bytes) const;
  // OK, or UNAUTHENTICATED when tokens are required and the call has none
  // of them.
  grpc::Status Authenticate(grpc::CallbackServerContext* context) const;
  // The same for a caller that is not a gRPC call (the scene port): its
  // "Bearer <token>", if any, and its connection's name for the logs.
  grpc::Status AuthenticateBearer(
      std::optional<absl::string_view> authorization,
      const std::string& peer) const;
  handlers::HandlerContext MakeContext(grpc::CallbackServerContext* context);
  // Serves a request decoded straight from its bytes
  // (collision/wire/pair_wire.h).
  void ServeDecoded(grpc::CallbackServerContext* context,
                    std::shared_ptr<handlers::DecodedRequest> decoded,
                    grpc::ByteBuffer* response_bytes, UnaryCall* reactor);
  // `decode`: DecodeIntersect or DecodeClosestPoint for the per-pair
  // methods, tried before the message is parsed; nullptr for the others.
  template <typename Request, typename Response, typename Handler,
            typename Decode = std::nullptr_t>
  grpc::ServerUnaryReactor* Unary(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* request,
                                  grpc::ByteBuffer* response,
                                  const char* method, Handler handler,
                                  Decode decode = nullptr);

  const ServiceOptions options_;
  Metrics* const metrics_;
  // One line a second at most for floods of refusals (event_log.h).
  mutable Burst overload_log_{&EventLog::Global(), LogLevel::kWarning,
                              "overload", "calls refused"};
  mutable Burst auth_log_{&EventLog::Global(), LogLevel::kWarning,
                          "authentication", "calls refused"};
  std::atomic<int> in_flight_{0};
  // SceneSession streams' scenes and the memory they reserved.
  SceneBudget scene_budget_{options_.scenes.max_scenes,
                            options_.scenes.memory_bytes};
  std::atomic<int64_t> in_flight_bytes_{0};
  // Unary answers handed to gRPC and not yet taken by the transport (until
  // the call's OnDone): a backlog inside gRPC, or callers that do not read.
  std::atomic<int> pending_answers_{0};
  std::atomic<int64_t> pending_answer_bytes_{0};
  // Slots held per connection (peer address), for the per-connection share.
  std::mutex connections_mu_;
  std::unordered_map<std::string, int> connection_slots_;
  ArrivalLedger arrivals_;
  // Declared last: destroyed first, so queued work finishes while the rest
  // of the service is still alive.
  WorkerPool pool_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_SERVICE_H_
