// The main port's listener when it is plaintext: this server accepts its
// connections itself and hands each to gRPC (AddInsecureChannelFromFd),
// refusing those beyond a limit. gRPC 1.51 has no connection limit of its
// own, and its listener stops accepting for good once accept4 fails for
// want of descriptors; here a connection over the limit is refused and the
// ones already open go on. (gRPC 1.51 takes connections this way only
// without TLS: a TLS port keeps gRPC's listener, see docs/operations.md.)
#ifndef COLLISION_SERVER_TRANSPORT_CONNECTION_GATE_H_
#define COLLISION_SERVER_TRANSPORT_CONNECTION_GATE_H_

#include <netdb.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "server/observability/metrics.h"
#include "server/transport/open_sockets.h"

namespace collision::server {

// Listening on `address` (host:port, [v6 host]:port, an empty host for
// any): the addresses it resolves to (freed with freeaddrinfo), or why not
// ("the address has no :port", "cannot resolve it: ...").
absl::StatusOr<addrinfo*> ResolveForListening(const std::string& address);
// A TCP socket for `a` with SO_REUSEADDR, and SO_REUSEPORT when asked (as
// gRPC's listener sets them); `flags` adds SOCK_* flags. -1 with errno set.
int ListeningSocket(const addrinfo& a, bool reuseport, int flags);
// A failed bind's errno in words (EADDRINUSE: another process has it).
std::string BindError(int error);

// A connection's peer as this server names it everywhere (logs, the
// per-connection share, ArrivalLedger): "ipv4:127.0.0.1:5000",
// "ipv6:[::1]:5000" (as AddressName writes it). gRPC names a connection a
// gate handed over "fd:N", here translated to the address it came from,
// and one it accepted itself "ipv6:%5B::1%5D:5000" for IPv6, here
// written again; any other name unchanged.
std::string PeerName(const std::string& grpc_peer);
// The name gRPC gives a connection from `a` (an IPv4 caller of a
// dual-stack socket, ::ffff:a.b.c.d, as ipv4:a.b.c.d:port).
std::string AddressName(const sockaddr_storage& a);

class ConnectionGate {
 public:
  // Binds and listens on every address `address` (host:port, port 0 for a
  // free one) resolves to.
  static absl::StatusOr<std::unique_ptr<ConnectionGate>> Listen(
      const std::string& address, bool reuseport);
  ~ConnectionGate();
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;

  int port() const { return port_; }
  // Hands accepted connections to `server` (started, with no listening port
  // of its own), at most `max_connections` open at once; `metrics` counts
  // refusals (rejected{reason="connection_limit"}) and open connections.
  void Start(grpc::Server* server, int max_connections, Metrics* metrics);
  // Stops accepting and closes the listening sockets; connections already
  // handed over stay with gRPC.
  void Stop();

 private:
  struct Closing {
    int fd = -1;
    absl::Time deadline;
    std::string in;         // what the peer sent, until its first call
    bool answered = false;  // its first call answered, GOAWAY sent
  };

  ConnectionGate() = default;
  void Run();
  // Accepts what waits on `listener`; false when out of descriptors.
  bool AcceptFrom(int listener);
  void Admit(int fd, const std::string& address);
  // Forgets connections gRPC has closed (at most once per kPurgeEvery).
  void Purge(bool force);
  // The server's SETTINGS; the connection's first call is then answered
  // UNAVAILABLE ("connection limit ... reached") and GOAWAY follows, or,
  // when none comes within a second, GOAWAY REFUSED_STREAM (nothing was
  // processed: retry elsewhere). Closed once the peer goes.
  void Refuse(int fd);
  // Reads what a refused connection sent and answers it; false once the
  // peer has gone.
  bool ReadRefused(Closing* c);
  void DrainClosing(absl::Time now);

  std::vector<int> listeners_;
  int port_ = 0;
  int wake_[2] = {-1, -1};  // a pipe: Stop() writes, Run() returns
  int reserve_fd_ = -1;     // given up to accept (and refuse) when out
  grpc::Server* server_ = nullptr;
  Metrics* metrics_ = nullptr;
  size_t max_connections_ = 0;
  OpenSockets open_;  // the accepting thread's alone
  std::vector<Closing> closing_;
  absl::Time last_purge_ = absl::InfinitePast();
  std::thread thread_;
  std::atomic<bool> stopped_{false};
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_TRANSPORT_CONNECTION_GATE_H_
