// A running collision server: the service, the standard health service and
// reflection on one listening port.
#ifndef COLLISION_SERVER_SERVER_H_
#define COLLISION_SERVER_SERVER_H_

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "server/hosted_scene.h"
#include "server/observability/metrics.h"
#include "server/scene_port.h"
#include "server/service.h"
#include "server/transport/connection_gate.h"
#include "server/transport/listener_limit.h"
#include "server/transport/transport_shedder.h"

namespace collision::server {

// The name the health service reports for this service (the empty name ""
// reports the whole server the same way): the service's own full name, as
// clients and probes find it in the generated code.
inline constexpr const char* kHealthServiceName =
    v1::CollisionService::service_full_name();

struct ServerOptions {
  // host:port to listen on; port 0 picks a free port (see port()).
  std::string address = "127.0.0.1:50051";
  // Batch limit, in-flight limit, pushback, compute threads.
  // What collision_build_info reports (main.cc sets them from the build).
  std::string version = "unknown";
  std::string build_type = "unknown";
  ServiceOptions service;
  // Largest request accepted on the wire, in bytes; 0: what a request of
  // `service.limits.max_batch` items needs (MaxRequestBytes), so that the
  // two limits agree.
  int max_receive_message_bytes = 0;
  // Streams one connection may have open at once (HTTP/2
  // SETTINGS_MAX_CONCURRENT_STREAMS). gRPC clients queue calls beyond it;
  // gRPC 1.51 closes the connection of a peer that opens more.
  int max_concurrent_streams = 100;
  // Memory gRPC's transport may hold for messages still arriving, over all
  // connections: past it, the connections holding the most are cut
  // (TransportShedder). gRPC's own grpc::ResourceQuota, over everything
  // its transport allocates (socket buffers, call state; past it gRPC
  // sends idle connections GOAWAY and cancels streams), is set to twice
  // this, and at least 64 MiB above it. 0: neither.
  int64_t transport_memory_bytes = int64_t{256} << 20;
  // Connections the main port keeps open at once; one more is refused
  // while the others go on: on a plaintext port its first call is answered
  // UNAVAILABLE and GOAWAY follows (ConnectionGate), on a TLS port it is
  // closed before its handshake (ListenerLimit). -1: the process's
  // open-file limit less kFilesKeptBack, at least 16. 0: no limit (gRPC's
  // own listener, which stops accepting for good once descriptors run out:
  // the server then exits for a restart).
  int max_connections = -1;
  static constexpr int kFilesKeptBack = 256;
  // gRPC turns SO_REUSEPORT on by default, which lets a second server share a
  // busy port silently; off unless asked for.
  bool allow_reuseport = false;
  bool enable_reflection = true;
  // Connections are closed (with GOAWAY) after this age plus the grace, so
  // that clients re-resolve and spread over new replicas. Zero: never.
  absl::Duration max_connection_age = absl::Minutes(5);
  absl::Duration max_connection_age_grace = absl::Minutes(5);
  // Server keepalive pings on idle connections, and the least interval the
  // server accepts between client pings (clients pinging faster are sent
  // GOAWAY "too_many_pings").
  absl::Duration keepalive_time = absl::Minutes(1);
  absl::Duration keepalive_timeout = absl::Seconds(20);
  absl::Duration min_client_ping_interval = absl::Seconds(10);
  // Whether clients may ping while they have no call open (to keep idle
  // connections alive through NATs); off: such pings count as strikes.
  bool permit_keepalive_without_calls = false;
  // host:port of the Prometheus /metrics endpoint; port 0 picks a free port;
  // empty turns metrics off.
  std::string metrics_address;
  // TLS / mutual TLS; all empty: plaintext.
  TlsFiles tls;
  // host:port of a second, plaintext listener that serves only the standard
  // health service (the same statuses as the main port); empty: off. For
  // probes that cannot speak the main port's TLS (Kubernetes gRPC probes,
  // an image HEALTHCHECK); it exposes nothing but SERVING / NOT_SERVING.
  std::string health_address;
  // host:port of the scene port (scene_port.h): SceneService.Session
  // without gRPC, plaintext; port 0 picks a free port; empty: off. Not
  // with TLS (it would carry scenes and tokens in the clear beside it).
  std::string scene_port_address;
  // A scene port frame must arrive whole within this of its first byte, and
  // an answer be taken within it (ScenePortOptions::frame_timeout).
  absl::Duration scene_port_frame_timeout = absl::Seconds(10);
  // Bearer tokens required on every collision.v1 call; empty: none. With
  // tokens, reflection is off whatever enable_reflection says.
  std::string token_file;
  // The memory guard: when the process's resident memory passes this, the
  // server turns NOT_SERVING, drains and stops (see failed()), so that its
  // supervisor restarts it before the kernel's OOM killer would. gRPC 1.51
  // buffers a message up to its announced length (up to 4 GiB) before any
  // size check, and its ResourceQuota reclaims too slowly to bound that
  // (docs/operations.md has the measurements): this is the bound that holds
  // whatever arrives. 0: off (the default here, as the process may hold
  // more than the server, e.g. a test; collision_server's flag defaults to
  // 768 MiB).
  int64_t memory_limit_bytes = 0;
  // When the listener fails (see failed()): time between health NOT_SERVING
  // and shutdown, and the time in-flight calls then get. (Past the memory
  // limit there is no grace: every connection is cut at once.)
  absl::Duration failure_grace = absl::Seconds(2);
  absl::Duration failure_deadline = absl::Seconds(10);
};

// The largest request the server takes on the wire when its receive limit
// follows max_batch: `max_batch` of the largest items in their ordinary
// (canonical) encoding, plus the request's own fields.
int MaxRequestBytes(const wire::RequestLimits& limits);

class CollisionServer {
 public:
  // Binds and starts serving; fails if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<CollisionServer>> Start(
      const ServerOptions& options);
  ~CollisionServer();

  int port() const { return port_; }
  // Connections the main port keeps open at once; 0: not bounded (TLS, or
  // --max_connections=0).
  int max_connections() const { return max_connections_; }
  // Port of the /metrics endpoint, 0 when metrics are off.
  int metrics_port() const { return metrics_port_; }
  // Port of the health-only listener, 0 when it is off.
  int health_port() const { return health_port_; }
  // Port of the scene port, 0 when it is off.
  int scene_port() const {
    return scene_port_ != nullptr ? scene_port_->port() : 0;
  }
  CollisionServiceImpl& service() { return *service_; }
  // "host:port" with the bound port, for clients.
  const std::string& address() const { return address_; }
  const ServerOptions& options() const { return options_; }
  // Whether reflection is served (never when tokens are required).
  bool reflection() const { return reflection_; }

  // Sets the health status of both "" and kHealthServiceName.
  void SetServing(bool serving);
  // Stops accepting calls and waits up to `deadline` for in-flight calls,
  // then cancels what is left. Idempotent.
  void Shutdown(absl::Duration deadline);
  // The graceful stop a SIGTERM triggers: health NOT_SERVING (so balancers
  // and health-checking clients move away), wait `grace`, then Shutdown
  // giving in-flight calls up to `deadline`.
  void Drain(absl::Duration grace, absl::Duration deadline);
  // Blocks until the server has shut down.
  void Wait();
  // Whether the server stopped on its own because it cannot go on: its
  // listening socket failed (gRPC 1.51 stops accepting for good after
  // accept4 fails, e.g. with EMFILE), or its memory passed
  // memory_limit_bytes. It then turned health NOT_SERVING and drained; the
  // process should exit non-zero so that its supervisor restarts it.
  bool failed() const { return failed_.load(); }
  // The receive limit in force (see max_receive_message_bytes).
  int max_receive_message_bytes() const { return max_receive_message_bytes_; }

 private:
  CollisionServer(const ServerOptions& options);
  // Watches for a failed listener and for the memory limit (see failed()).
  void Watch();
  void StopWatching();
  // Logs why, turns NOT_SERVING, drains: the server stops.
  void Fail(const std::string& why, absl::Duration grace,
            absl::Duration deadline);

  ServerOptions options_;
  std::unique_ptr<Metrics> metrics_;
  int metrics_port_ = 0;
  std::unique_ptr<CollisionServiceImpl> service_;
  std::unique_ptr<SceneServiceImpl> scene_service_;  // uses service_
  std::unique_ptr<ScenePort> scene_port_;            // uses service_
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  // Before health_server_: it must outlive the server that calls it.
  std::unique_ptr<grpc::CallbackGenericService> health_fallback_;
  std::unique_ptr<grpc::Server> health_server_;  // see health_address
  int health_port_ = 0;
  std::string address_;
  int max_receive_message_bytes_ = 0;
  bool reflection_ = false;
  std::atomic<bool> failed_{false};
  std::atomic<bool> watch_stop_{false};
  // The main port's listener when it is plaintext and connections are
  // bounded (else gRPC's own).
  std::unique_ptr<ConnectionGate> gate_;
  int max_connections_ = 0;  // what the gate or the listener limit enforces
  // The bound on gRPC's own listener (TLS), shared with the socket mutator
  // gRPC holds.
  std::shared_ptr<ListenerLimit> listener_limit_;
  // Holds messages still arriving to transport_memory_bytes (the watch
  // loop's alone).
  std::unique_ptr<TransportShedder> shedder_;
  std::thread watch_;
  std::array<int, 4> reserve_fds_{-1, -1, -1, -1};
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_SERVER_H_
