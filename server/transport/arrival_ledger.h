// What each connection has sent that the service has taken: its calls'
// headers and its messages, each with an allowance for HTTP/2 and TLS
// framing. What the kernel received on a connection less what it took is
// then what gRPC's transport holds for it: messages still arriving, which
// gRPC 1.51 buffers up to their announced length (4 GiB at most) before
// any check, before the call even reaches a handler (TransportShedder
// cuts the connections that hold the most).
#ifndef COLLISION_SERVER_TRANSPORT_ARRIVAL_LEDGER_H_
#define COLLISION_SERVER_TRANSPORT_ARRIVAL_LEDGER_H_

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>

#include "absl/container/flat_hash_map.h"

namespace collision::server {

class ArrivalLedger {
 public:
  // Per call: HEADERS (HPACK never encodes a header in more than its
  // literal form; `header_bytes` counts each as name + value + 32, see
  // CheckMetadata) plus the pseudo-headers, the closing frames, the
  // client's WINDOW_UPDATEs and a TLS record or two.
  static constexpr int64_t kPerCall = 256;
  // Per message: its 5-byte gRPC prefix, a 9-byte DATA frame header per
  // 16 KiB (or less) and TLS records (29 bytes per 16 KiB at most).
  static int64_t MessageAllowance(std::size_t bytes) {
    return 64 + static_cast<int64_t>(bytes / 256);
  }

  // A call began on `connection` (its peer name, see PeerName).
  void CallStarted(const std::string& connection, std::size_t header_bytes) {
    Add(connection, static_cast<int64_t>(header_bytes) + kPerCall);
  }
  // A message of `bytes` reached its handler.
  void MessageTaken(const std::string& connection, std::size_t bytes) {
    Add(connection, static_cast<int64_t>(bytes) + MessageAllowance(bytes));
  }

  // For each connection in `received` (peer name -> bytes the kernel
  // received on it): what it sent that no call has taken yet, into
  // `*unaccounted`. A connection missing from two reconciliations in a row
  // has closed and is forgotten (once could be one that opened after its
  // caller listed the connections). The allowances are generous, so a busy
  // honest connection builds up credit; it is dropped here (taken never
  // exceeds received), so that credit cannot be spent on a half-sent
  // message later.
  template <typename Received, typename Unaccounted>
  void Reconcile(const Received& received, Unaccounted* unaccounted) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = taken_.begin(); it != taken_.end();) {
      if (received.find(it->first) == received.end() &&
          ++it->second.missed >= 2) {
        taken_.erase(it++);
      } else {
        ++it;
      }
    }
    for (const auto& [connection, bytes] : received) {
      Entry& e = taken_[connection];
      e.missed = 0;
      if (e.taken > bytes) e.taken = bytes;
      (*unaccounted)[connection] = bytes - e.taken;
    }
  }

 private:
  void Add(const std::string& connection, int64_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    taken_[connection].taken += bytes;
  }

  // (std::mutex: ThreadSanitizer sees it; Debian's Abseil is not built for
  // it.)
  struct Entry {
    int64_t taken = 0;
    int missed = 0;  // reconciliations in a row that did not list it
  };
  std::mutex mu_;
  absl::flat_hash_map<std::string, Entry> taken_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_TRANSPORT_ARRIVAL_LEDGER_H_
