// The connection limit of a main port whose listener is gRPC's own: a TLS
// port (gRPC 1.51 takes connections from outside only without TLS, so
// ConnectionGate cannot take them). gRPC asks the socket mutator in its
// channel arguments about every connection it accepts, before reading
// anything from it; a connection over the limit is shut down there, so
// that gRPC's TLS handshake ends at once and closes it. Its client sees
// the connection fail (UNAVAILABLE: "Socket closed" or "Connection reset")
// before any call is sent, which retry policies and round_robin treat as
// a replica to avoid. The connections already open go on.
#ifndef COLLISION_SERVER_TRANSPORT_LISTENER_LIMIT_H_
#define COLLISION_SERVER_TRANSPORT_LISTENER_LIMIT_H_

#include <cstddef>
#include <memory>
#include <mutex>

#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "server/observability/metrics.h"
#include "server/transport/open_sockets.h"

namespace collision::server {

class ListenerLimit {
 public:
  // At most `max_connections` open at once on the port of the builder this
  // limit is installed on; `metrics` (which must outlive the server) counts
  // refusals (rejected{reason="connection_limit"}) and open connections.
  ListenerLimit(size_t max_connections, Metrics* metrics)
      : max_connections_(max_connections), metrics_(metrics) {}

  // Makes `builder`'s listener ask `limit` about every connection it
  // accepts (gRPC keeps a reference for as long as it needs one).
  static void Install(std::shared_ptr<ListenerLimit> limit,
                      grpc::ServerBuilder* builder);

  // Whether gRPC may keep the connection it just accepted on `fd`; shuts
  // it down when not. Called on gRPC's threads.
  bool Admit(int fd);
  // Remembers one of the port's listening sockets (gRPC's).
  void AddListener(int fd);
  // Forgets the connections that have closed: the gauge falls as they go.
  // (Also done, at most every 10 ms, when a new connection finds the limit
  // reached.)
  void Recount();

 private:
  void ForgetClosed(absl::Time now);
  // Accepts and closes every connection waiting on the listeners. A
  // connection gRPC accepted keeps its descriptor until gRPC has read its
  // end and closed it, which happens only once gRPC's accept loop has
  // taken everything waiting: refused one by one, a flood would run the
  // process out of descriptors inside one loop, and an accept that fails
  // for want of them stops gRPC 1.51's listener for good. Past the limit
  // the waiting ones are refused here instead, and gRPC's next accept
  // finds none.
  void RefuseWaiting();

  const size_t max_connections_;
  Metrics* const metrics_;
  std::mutex mu_;
  OpenSockets open_;       // under mu_
  OpenSockets listeners_;  // under mu_
  absl::Time last_forget_ = absl::InfinitePast();
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_TRANSPORT_LISTENER_LIMIT_H_
