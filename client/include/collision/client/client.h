// C++ client of collision.v1: one channel reused for every call, a deadline
// on every call, absl::Status errors carrying the server's code and message.
//
//   auto client = collision::client::Client::Create("127.0.0.1:50051");
//   if (!client.ok()) ...
//   collision::client::IntersectBatch batch;
//   batch.Add(Circle(5, 5, 2), RectFromCornerSize(6, 0, 4, 4));
//   absl::StatusOr<v1::IntersectResponse> r = (*client)->Intersect(batch);
//
// Every RPC comes in three flavours: blocking (`Intersect`), callback
// (`IntersectAsync`, the callback runs on a gRPC thread: keep it short) and
// future (`IntersectFuture`). The per-tick stream is a `QuerySession`.
#ifndef COLLISION_CLIENT_CLIENT_H_
#define COLLISION_CLIENT_CLIENT_H_

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collision/client/columns.h"
#include "collision/client/errors.h"
#include "collision/client/session.h"
#include "collision/client/shapes.h"
#include "collision/v1/collision.grpc.pb.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"

namespace collision::client {

// Retries of failed calls, done by gRPC itself from the channel's service
// config. Only UNAVAILABLE is retried (the server sheds load with it and a
// `grpc-retry-pushback-ms` trailer, which gRPC honours between attempts);
// every retry spends from a per-channel token budget (gRPC retryThrottling)
// so that a struggling server is not hammered.
struct RetryOptions {
  bool enabled = true;
  int max_attempts = 4;  // 2..5 (gRPC caps at 5); the first call counts
  absl::Duration initial_backoff = absl::Milliseconds(20);
  absl::Duration max_backoff = absl::Seconds(1);
  double backoff_multiplier = 2.0;
  // Retry budget: retries stop while tokens <= max_tokens / 2; each failure
  // costs 1 token and each success gives back token_ratio.
  int max_tokens = 100;
  double token_ratio = 0.1;
};

// TLS, from PEM files. With `enabled` and no root CA file, the system roots
// are used. A client certificate needs both cert_chain_file and
// private_key_file (mutual TLS).
struct TlsOptions {
  bool enabled = false;
  std::string root_ca_file;
  std::string cert_chain_file;
  std::string private_key_file;
  // Checks the server's certificate against this name instead of the
  // target's host (tests, IP targets).
  std::string server_name_override;
};

struct ClientOptions {
  // Deadline of every unary call, from the moment it is made.
  absl::Duration timeout = absl::Seconds(5);
  // Deadline of a whole QuerySession; infinite by default (a session lives
  // as long as the game does), end it with Finish().
  absl::Duration stream_timeout = absl::InfiniteDuration();
  // gRPC load-balancing policy: "" keeps gRPC's default (pick_first);
  // "round_robin" spreads calls over every address the target resolves to
  // (e.g. "dns:///collision.example:50051" or "ipv4:127.0.0.1:1,127.0.0.1:2").
  std::string load_balancing_policy;
  // Client-side health checking (service config healthCheckConfig): with
  // a balancing policy such as round_robin, the channel watches each
  // server's grpc.health.v1 status for this service name and stops sending
  // to a server that reports NOT_SERVING (e.g. while it drains). "" = off.
  // Servers without the health service stay in use.
  std::string health_check_service;
  // Largest response accepted, in bytes.
  int max_receive_message_bytes = 64 * 1024 * 1024;
  RetryOptions retry;
  TlsOptions tls;
  // Sent as `authorization: Bearer <token>` metadata on every call when not
  // empty (also on plaintext channels: keep those on trusted networks).
  std::string bearer_token;
  // More metadata sent on every call (tracing ids, tenant): keys of
  // lowercase letters, digits, '-', '_' and '.', not starting with
  // "grpc-" and not "authorization" (see bearer_token); values of
  // printable ASCII. Checked by Create.
  std::vector<std::pair<std::string, std::string>> metadata;
  // Gives this client its own TCP connections instead of sharing gRPC's
  // process-wide ones with other clients of the same target and options
  // (load tests that want N separate connections).
  bool own_connection = false;
};

// The pushback the server asked for in a `grpc-retry-pushback-ms` trailer
// of a failed call, if any (attached to the returned status as a payload).
std::optional<absl::Duration> RetryPushback(const absl::Status& status);
inline constexpr char kPushbackPayloadUrl[] =
    "type.collision.dev/grpc-retry-pushback-ms";

// The service config JSON the channel is created with (load balancing,
// retry policy, retry throttling, health checking); exposed for tests and
// logging.
std::string ServiceConfigJson(const ClientOptions& options);

// A finished call's status as the typed calls return it: code and message,
// and the server's pushback trailer as a payload (see RetryPushback).
absl::Status StatusFromCall(const grpc::Status& status,
                            const grpc::ClientContext& context);

template <typename Response>
using Callback = std::function<void(absl::StatusOr<Response>)>;

// Cancels the calls that carry it (CallOptions::cancellation), from any
// thread, any number of them: each ends CANCELLED as soon as gRPC notices,
// and a call made after Cancel() ends CANCELLED without being sent. A
// callback never runs inside Cancel(). E.g. one per game tick, cancelled
// when the tick's budget is spent.
class Cancellation {
 public:
  void Cancel();
  bool cancelled() const;

 private:
  friend class Client;
  friend struct CancellationAccess;  // client.cc: the calls' completions
  // false (and nothing attached) once cancelled.
  bool Attach(grpc::ClientContext* context);
  void Detach(grpc::ClientContext* context);

  mutable std::mutex mu_;
  bool cancelled_ = false;
  std::vector<grpc::ClientContext*> live_;  // calls in flight
};

// What one call changes of the client's defaults.
struct CallOptions {
  // This call's deadline, from when it is made; zero: ClientOptions::timeout.
  absl::Duration timeout = absl::ZeroDuration();
  // Sent with this call after ClientOptions::metadata (same rules; a bad key
  // or value fails the call with INVALID_ARGUMENT, unsent).
  std::vector<std::pair<std::string, std::string>> metadata;
  std::shared_ptr<Cancellation> cancellation;
};

struct PendingCalls;  // client.cc

class Client {
 public:
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Creates the channel (it connects lazily, on the first call). Fails on an
  // empty target, invalid options, or TLS files that cannot be read.
  static absl::StatusOr<std::unique_ptr<Client>> Create(
      const std::string& target, const ClientOptions& options = {});

  // ---- Blocking calls ----
  // Every call takes an optional CallOptions (deadline, metadata,
  // cancellation); a batch whose status() is not OK fails with it, unsent.
  absl::StatusOr<v1::IntersectResponse> Intersect(
      const v1::IntersectRequest& request, const CallOptions& call = {}) const;
  absl::StatusOr<v1::IntersectResponse> Intersect(
      const IntersectBatch& batch, const CallOptions& call = {}) const {
    return Intersect(batch.request(), call);
  }
  absl::StatusOr<v1::ClosestPointResponse> ClosestPoint(
      const v1::ClosestPointRequest& request,
      const CallOptions& call = {}) const;
  absl::StatusOr<v1::ClosestPointResponse> ClosestPoint(
      const ClosestPointBatch& batch, const CallOptions& call = {}) const {
    return ClosestPoint(batch.request(), call);
  }
  absl::StatusOr<v1::IntersectColumnsResponse> IntersectColumns(
      const v1::IntersectColumnsRequest& request,
      const CallOptions& call = {}) const;
  absl::StatusOr<v1::IntersectColumnsResponse> IntersectColumns(
      const IntersectColumnsBatch& batch, const CallOptions& call = {}) const {
    if (!batch.status().ok()) return batch.status();
    return IntersectColumns(batch.request(), call);
  }
  absl::StatusOr<v1::ClosestPointColumnsResponse> ClosestPointColumns(
      const v1::ClosestPointColumnsRequest& request,
      const CallOptions& call = {}) const;
  absl::StatusOr<v1::ClosestPointColumnsResponse> ClosestPointColumns(
      const ClosestPointColumnsBatch& batch,
      const CallOptions& call = {}) const {
    if (!batch.status().ok()) return batch.status();
    return ClosestPointColumns(batch.request(), call);
  }

  // ---- Callback calls ----
  // `done` runs exactly once, on a gRPC thread, after the call ends; a call
  // that fails before being sent (bad CallOptions metadata, already
  // cancelled, a batch with a bad status) runs it at once on the calling
  // thread. The request is shared, not copied: it
  // must not change until `done` runs; the batch forms copy it. Destroying
  // the Client waits for every callback call to finish (so do not destroy it
  // from inside `done`).
  void IntersectAsync(std::shared_ptr<const v1::IntersectRequest> request,
                      Callback<v1::IntersectResponse> done,
                      const CallOptions& call = {}) const;
  void IntersectAsync(const IntersectBatch& batch,
                      Callback<v1::IntersectResponse> done,
                      const CallOptions& call = {}) const;
  void ClosestPointAsync(std::shared_ptr<const v1::ClosestPointRequest> request,
                         Callback<v1::ClosestPointResponse> done,
                         const CallOptions& call = {}) const;
  void ClosestPointAsync(const ClosestPointBatch& batch,
                         Callback<v1::ClosestPointResponse> done,
                         const CallOptions& call = {}) const;
  void IntersectColumnsAsync(
      std::shared_ptr<const v1::IntersectColumnsRequest> request,
      Callback<v1::IntersectColumnsResponse> done,
      const CallOptions& call = {}) const;
  void IntersectColumnsAsync(const IntersectColumnsBatch& batch,
                             Callback<v1::IntersectColumnsResponse> done,
                             const CallOptions& call = {}) const;
  void ClosestPointColumnsAsync(
      std::shared_ptr<const v1::ClosestPointColumnsRequest> request,
      Callback<v1::ClosestPointColumnsResponse> done,
      const CallOptions& call = {}) const;
  void ClosestPointColumnsAsync(const ClosestPointColumnsBatch& batch,
                                Callback<v1::ClosestPointColumnsResponse> done,
                                const CallOptions& call = {}) const;

  // ---- Driving the channel yourself ----
  // For callers that make calls on channel() with their own stub and
  // completion queue (collision_load sends requests serialised once through
  // grpc::GenericStub): sets the deadline (options().timeout) and the token
  // every typed call carries. StatusFromCall (below) turns the outcome into
  // the same absl::Status the typed calls return.
  void PrepareContext(grpc::ClientContext* context) const {
    Prepare(context, options_.timeout);
  }
  // The full path of one of collision.v1's RPCs ("Intersect" ->
  // "/collision.v1.CollisionService/Intersect").
  static std::string MethodPath(const std::string& rpc) {
    return "/collision.v1.CollisionService/" + rpc;
  }

  // ---- Future calls ---- (the request is copied)
  std::future<absl::StatusOr<v1::IntersectResponse>> IntersectFuture(
      v1::IntersectRequest request, const CallOptions& call = {}) const;
  std::future<absl::StatusOr<v1::IntersectResponse>> IntersectFuture(
      const IntersectBatch& batch, const CallOptions& call = {}) const;
  std::future<absl::StatusOr<v1::ClosestPointResponse>> ClosestPointFuture(
      v1::ClosestPointRequest request, const CallOptions& call = {}) const;
  std::future<absl::StatusOr<v1::ClosestPointResponse>> ClosestPointFuture(
      const ClosestPointBatch& batch, const CallOptions& call = {}) const;
  std::future<absl::StatusOr<v1::IntersectColumnsResponse>>
  IntersectColumnsFuture(v1::IntersectColumnsRequest request,
                         const CallOptions& call = {}) const;
  std::future<absl::StatusOr<v1::IntersectColumnsResponse>>
  IntersectColumnsFuture(const IntersectColumnsBatch& batch,
                         const CallOptions& call = {}) const;
  std::future<absl::StatusOr<v1::ClosestPointColumnsResponse>>
  ClosestPointColumnsFuture(v1::ClosestPointColumnsRequest request,
                            const CallOptions& call = {}) const;
  std::future<absl::StatusOr<v1::ClosestPointColumnsResponse>>
  ClosestPointColumnsFuture(const ClosestPointColumnsBatch& batch,
                            const CallOptions& call = {}) const;

  // ---- Streaming ----
  // Opens a QueryStream session (see session.h).
  absl::StatusOr<std::unique_ptr<QuerySession>> OpenSession(
      const SessionOptions& options = {}) const;

  // One standard health check of `service` ("" = the whole server): true
  // when SERVING.
  absl::StatusOr<bool> IsServing(const std::string& service = "") const;
  // Polls the health service until it reports SERVING or `timeout` passes
  // (DEADLINE_EXCEEDED, with the last error seen).
  absl::Status WaitUntilServing(absl::Duration timeout) const;

  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }
  const ClientOptions& options() const { return options_; }

 private:
  friend class SceneSession;  // prepares its streams' contexts
  friend class QuerySession;
  Client(std::shared_ptr<grpc::Channel> channel, const ClientOptions& options);
  // Deadline and bearer token.
  void Prepare(grpc::ClientContext* context, absl::Duration timeout) const;
  // The same for one call with its options; fails on bad metadata.
  absl::Status PrepareCall(grpc::ClientContext* context,
                           const CallOptions& call) const;

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<v1::CollisionService::Stub> stub_;
  std::unique_ptr<grpc::health::v1::Health::Stub> health_;
  // Callback calls not yet finished (client.cc), shared with them.
  std::shared_ptr<PendingCalls> pending_;
};

}  // namespace collision::client

#endif  // COLLISION_CLIENT_CLIENT_H_
