// Enforces --transport_memory_bytes on messages still arriving. gRPC 1.51
// buffers a message up to its announced length (4 GiB at most) before any
// size check, before authentication, before a handler sees the call; its
// ResourceQuota reclaims one stream at a time, far too slowly to stop a
// sender (docs/decisions/0021-transport-shedder.md). Here the server reads,
// for each connection of the main port, what the kernel received on it
// (TCP_INFO) less what its calls took (ArrivalLedger): what gRPC holds for
// it. When the total passes the budget, the connections holding the most
// are cut (shutdown(2): gRPC sees the connection end and frees its
// buffers) until it is back under half the budget; the others go on, and
// the memory goes back to the system (malloc_trim).
#ifndef COLLISION_SERVER_TRANSPORT_TRANSPORT_SHEDDER_H_
#define COLLISION_SERVER_TRANSPORT_TRANSPORT_SHEDDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/time/time.h"
#include "server/transport/arrival_ledger.h"
#include "server/observability/metrics.h"

namespace collision::server {

class TransportShedder {
 public:
  // What a connection must hold to be cut: more than the frames the
  // ledger has no allowance for (SETTINGS, PINGs, GOAWAY), a TLS
  // handshake, calls outside collision.v1 (health, reflection). Below it a
  // connection still counts towards the total: 20,000 connections holding
  // a little each are as many bytes as one holding much.
  static constexpr int64_t kLeastCut = 16 << 10;

  // Connections of the main port `port`; `ledger` and `metrics` outlive
  // the shedder. `budget_bytes` > 0.
  TransportShedder(int port, int64_t budget_bytes, ArrivalLedger* ledger,
                   Metrics* metrics)
      : port_(port),
        budget_(budget_bytes),
        ledger_(ledger),
        metrics_(metrics) {}

  // Called every few milliseconds by the server's watch loop with the
  // process's resident memory: reads the connections (often while
  // `resident_bytes` is at least the budget, since the transport cannot
  // hold more than the process; every second otherwise, to forget closed
  // connections) and cuts what it must.
  void Check(absl::Time now, int64_t resident_bytes);

  struct Holding {
    int fd;
    std::string peer;
    int64_t held;  // bytes it sent that no call has taken
  };
  // Every connection of the port with what it holds (a few system calls
  // each).
  std::vector<Holding> Read();

 private:
  void CutLargest(std::vector<Holding> holdings, int64_t total);

  const int port_;
  const int64_t budget_;
  ArrivalLedger* const ledger_;
  Metrics* const metrics_;
  absl::Time last_read_ = absl::InfinitePast();
  absl::Duration read_took_;
  absl::Time trim_at_ = absl::InfiniteFuture();
  // The most the connections have held since memory was last given back.
  int64_t held_high_ = 0;
  // Connections cut and not yet closed by gRPC: not cut (or counted) again.
  absl::flat_hash_set<std::string> cut_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_TRANSPORT_TRANSPORT_SHEDDER_H_
