// A running collision server: the service, the standard health service and
// reflection on one listening port.
#ifndef COLLISION_SERVER_SERVER_H_
#define COLLISION_SERVER_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "server/metrics.h"
#include "server/service.h"

namespace collision::server {

// The name the health service reports for this service (the empty name ""
// reports the whole server the same way).
inline constexpr char kHealthServiceName[] = "collision.v1.CollisionService";

struct ServerOptions {
  // host:port to listen on; port 0 picks a free port (see port()).
  std::string address = "127.0.0.1:50051";
  // Batch limit, in-flight limit, pushback, compute threads.
  ServiceOptions service;
  // Largest request accepted on the wire, in bytes.
  int max_receive_message_bytes = 64 * 1024 * 1024;
  // gRPC turns SO_REUSEPORT on by default, which lets a second server share a
  // busy port silently; off unless asked for.
  bool allow_reuseport = false;
  bool enable_reflection = true;
  // Connections are closed (with GOAWAY) after this age plus the grace, so
  // that clients re-resolve and spread over new replicas. Zero: never.
  absl::Duration max_connection_age = absl::Minutes(5);
  absl::Duration max_connection_age_grace = absl::Seconds(30);
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
  // Bearer tokens required on every collision.v1 call; empty: none.
  std::string token_file;
};

class CollisionServer {
 public:
  // Binds and starts serving; fails if the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<CollisionServer>> Start(
      const ServerOptions& options);
  ~CollisionServer();

  int port() const { return port_; }
  // Port of the /metrics endpoint, 0 when metrics are off.
  int metrics_port() const { return metrics_port_; }
  CollisionServiceImpl& service() { return *service_; }
  // "host:port" with the bound port, for clients.
  const std::string& address() const { return address_; }
  const ServerOptions& options() const { return options_; }

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

 private:
  CollisionServer(const ServerOptions& options);

  ServerOptions options_;
  std::unique_ptr<Metrics> metrics_;
  int metrics_port_ = 0;
  std::unique_ptr<CollisionServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  int port_ = 0;
  std::string address_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_SERVER_H_
