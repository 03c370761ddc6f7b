#include "server/transport/transport_shedder.h"

#include <linux/tcp.h>
#include <malloc.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "server/transport/connection_gate.h"
#include "server/observability/event_log.h"
#include "server/observability/open_descriptors.h"

namespace collision::server {

namespace {

// While memory is at the budget: read at least this often (a sender at
// loopback speed adds only a few MB between two reads), but never spend
// more than a third of the time reading
// (docs/decisions/0021-transport-shedder.md).
constexpr absl::Duration kReadUnderPressure = absl::Milliseconds(10);
constexpr absl::Duration kReadOtherwise = absl::Seconds(1);
// gRPC frees a cut connection's buffers on its own threads, soon after
// it sees the connection end; the memory is given back after this.
constexpr absl::Duration kTrimAfter = absl::Milliseconds(20);
// A fall in what connections hold worth giving back to the system (a
// trim walks the heap: docs/decisions/0021-transport-shedder.md).
constexpr int64_t kTrimDrop = int64_t{8} << 20;

// The socket calls as raw system calls, for the reason OpenSockets gives:
// the descriptors are gRPC's, which it may close (and a new connection
// take over) at any moment; the peer's address is checked again before a
// cut, so a number that changed hands is left alone.
int SockName(int fd, sockaddr_storage* a) {
  socklen_t n = sizeof *a;
  return static_cast<int>(
      syscall(SYS_getsockname, fd, reinterpret_cast<sockaddr*>(a), &n));
}
int PeerAddress(int fd, sockaddr_storage* a) {
  socklen_t n = sizeof *a;
  return static_cast<int>(
      syscall(SYS_getpeername, fd, reinterpret_cast<sockaddr*>(a), &n));
}

int Port(const sockaddr_storage& a) {
  if (a.ss_family == AF_INET) {
    return ntohs(reinterpret_cast<const sockaddr_in&>(a).sin_port);
  }
  if (a.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6&>(a).sin6_port);
  }
  return -1;
}

// Bytes the kernel received on the TCP socket `fd`, -1 when unknown.
int64_t BytesReceived(int fd) {
  tcp_info info{};
  socklen_t n = sizeof info;
  if (syscall(SYS_getsockopt, fd, IPPROTO_TCP, TCP_INFO, &info, &n) != 0 ||
      n < offsetof(tcp_info, tcpi_bytes_received) +
              sizeof info.tcpi_bytes_received) {
    return -1;
  }
  return static_cast<int64_t>(info.tcpi_bytes_received);
}

}  // namespace

std::vector<TransportShedder::Holding> TransportShedder::Read() {
  struct Connection {
    int fd;
    std::string peer;
    int64_t received;
  };
  std::vector<Connection> connections;
  for (const int fd : OpenDescriptors()) {
    sockaddr_storage local{}, peer{};
    // A listening socket has no peer; other ports are not the main port's.
    if (SockName(fd, &local) != 0 || Port(local) != port_ ||
        PeerAddress(fd, &peer) != 0) {
      continue;
    }
    const int64_t received = BytesReceived(fd);
    if (received < 0) continue;
    connections.push_back({fd, AddressName(peer), received});
  }

  absl::flat_hash_map<std::string, int64_t> received, unaccounted;
  for (const Connection& c : connections) received[c.peer] = c.received;
  ledger_->Reconcile(received, &unaccounted);
  absl::erase_if(cut_, [&](const std::string& peer) {
    return received.find(peer) == received.end();
  });
  std::vector<Holding> holdings;
  for (const Connection& c : connections) {
    const int64_t held = unaccounted[c.peer];
    if (held > 0 && !cut_.contains(c.peer)) {
      holdings.push_back({c.fd, c.peer, held});
    }
  }
  return holdings;
}

void TransportShedder::Check(absl::Time now, int64_t resident_bytes) {
  if (now >= trim_at_) {
    malloc_trim(0);  // milliseconds: docs/decisions/0021-transport-shedder.md
    trim_at_ = absl::InfiniteFuture();
  }
  const absl::Duration every =
      resident_bytes >= budget_ ? std::max(kReadUnderPressure, 2 * read_took_)
                                : kReadOtherwise;
  if (now - last_read_ < every) return;
  last_read_ = now;
  std::vector<Holding> holdings = Read();
  read_took_ = absl::Now() - now;
  int64_t total = 0;
  for (const Holding& h : holdings) total += h.held;
  // Connections that held a lot and closed leave the memory with malloc,
  // which keeps it: given back once they have let go of kTrimDrop, at
  // once or bit by bit.
  held_high_ = std::max(held_high_, total);
  if (total + kTrimDrop < held_high_) {
    trim_at_ = std::min(trim_at_, now);
    held_high_ = total;
  }
  metrics_->SetTransportHeld(total);
  if (total > budget_) CutLargest(std::move(holdings), total);
}

void TransportShedder::CutLargest(std::vector<Holding> holdings,
                                  int64_t total) {
  std::sort(holdings.begin(), holdings.end(),
            [](const Holding& a, const Holding& b) { return a.held > b.held; });
  const int64_t before = total;
  int cut = 0;
  int64_t freed = 0;
  const Holding* largest = nullptr;
  for (const Holding& h : holdings) {
    if (total <= budget_ / 2 || h.held <= kLeastCut) break;
    sockaddr_storage peer{};
    if (PeerAddress(h.fd, &peer) != 0 || AddressName(peer) != h.peer) {
      continue;  // closed meanwhile (its number may be another's now)
    }
    syscall(SYS_shutdown, h.fd, SHUT_RDWR);
    cut_.insert(h.peer);
    metrics_->Rejected("transport_memory");
    total -= h.held;
    freed += h.held;
    if (largest == nullptr) largest = &h;
    ++cut;
  }
  if (cut == 0) return;
  trim_at_ = absl::Now() + kTrimAfter;
  held_high_ = total;
  EventLog::Global().Write(
      LogLevel::kWarning, "transport_memory",
      absl::StrCat("cut ", cut, " connection(s) holding ", freed >> 20,
                   " MiB of messages still arriving (the most: ", largest->peer,
                   ", ", largest->held >> 20, " MiB); connections held ",
                   before >> 20, " MiB, over --transport_memory_bytes (",
                   budget_ >> 20, " MiB)"));
}

}  // namespace collision::server
