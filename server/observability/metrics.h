// Service metrics, exported in the Prometheus text format on their own port.
// Names follow grpc-prometheus (grpc_server_started_total,
// grpc_server_handled_total{grpc_code}, grpc_server_handling_seconds, ...)
// plus the service's own collision_* series.
#ifndef COLLISION_SERVER_OBSERVABILITY_METRICS_H_
#define COLLISION_SERVER_OBSERVABILITY_METRICS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/support/status.h"

namespace collision::server {

// What the service reports; every method is thread-safe and cheap (no
// allocation, no lock on the hot path after the first use of a label set).
class Metrics {
 public:
  virtual ~Metrics() = default;

  // A call (or one message of a stream) started. `method` is the bare RPC
  // name ("Intersect", "IntersectColumns", "QueryStream", ...); `type` is
  // "unary" or "bidi_stream".
  virtual void CallStarted(const std::string& method,
                           const std::string& type) = 0;
  // A call finished with `code` after `seconds`.
  virtual void CallHandled(const std::string& method, const std::string& type,
                           grpc::StatusCode code, double seconds) = 0;
  // Messages received and sent on a call.
  virtual void MessageReceived(const std::string& method,
                               const std::string& type) = 0;
  virtual void MessageSent(const std::string& method,
                           const std::string& type) = 0;
  // One message of a stream answered (its answer handed to the transport):
  // `code` is the message's own status (OK, or the error in its answer),
  // `seconds` the time from reading it to handing its answer on. A
  // stream's CallHandled covers its whole life; this is its per-tick view.
  virtual void StreamMessageHandled(const std::string& method,
                                    grpc::StatusCode code, double seconds) = 0;
  // Pair tests (or closest-point queries) computed, by pair kind
  // ("circle_rect", "sphere_box", ... see WorkKindName in
  // collision/wire/convert.h).
  virtual void PairsProcessed(const std::string& kind, uint64_t count) = 0;
  // A request rejected before compute, by reason: "invalid_argument",
  // "overloaded", "deadline", "cancelled", "no_message" (a unary call that
  // ended without its request), "unauthenticated", "metadata_too_large",
  // "connection_limit" (a connection refused, see ConnectionGate).
  virtual void Rejected(const std::string& reason) = 0;
  // Requests being computed right now.
  virtual void SetInFlight(int64_t in_flight) = 0;
  // Connections open on the main port, as counted by ConnectionGate.
  virtual void SetConnections(int64_t open) = 0;
  // Bytes the main port's connections sent that no call has taken yet
  // (messages still arriving), as TransportShedder last read them.
  virtual void SetTransportHeld(int64_t bytes) = 0;
  // Scenes (SceneService.Session streams with a scene) opened (+1) or
  // closed (-1), and the change in their total entity count.
  virtual void ScenesChanged(int64_t scenes_delta, int64_t entities_delta) = 0;
  // Scene queries answered, by kind: "overlap", "nearest", "raycast",
  // "sweep".
  virtual void SceneQueries(const std::string& kind, uint64_t count) = 0;
  // Time to apply and answer one scene message (update and queries).
  virtual void SceneMessageHandled(double seconds) = 0;
  // Rewound scene queries (with `at`) answered, and how many of them were
  // clamped to the oldest tick kept.
  virtual void SceneRewoundQueries(uint64_t count, uint64_t clamped) = 0;
  // The change in the memory all scene histories hold.
  virtual void SceneHistoryChanged(int64_t bytes_delta) = 0;
  // The change in the memory all scenes hold (entities, index, history) and
  // in what they reserved when they opened.
  virtual void SceneMemoryChanged(int64_t held_delta,
                                  int64_t reserved_delta) = 0;
};

// A Metrics that records nothing (when no metrics address is configured).
std::unique_ptr<Metrics> MakeNullMetrics();

struct PrometheusOptions {
  // host:port for the HTTP /metrics endpoint; port 0 picks a free port.
  std::string address = "127.0.0.1:9464";
  // Reported as collision_simd_info{target="..."} 1.
  std::string simd_target;
  // Reported as collision_build_info{version, build_type, simd_target} 1.
  std::string version = "unknown";
  std::string build_type = "unknown";
};

// Prometheus-backed metrics with their HTTP exposer.
class PrometheusMetrics : public Metrics {
 public:
  static absl::StatusOr<std::unique_ptr<PrometheusMetrics>> Start(
      const PrometheusOptions& options);
  // The bound port of the /metrics endpoint.
  virtual int port() const = 0;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_OBSERVABILITY_METRICS_H_
