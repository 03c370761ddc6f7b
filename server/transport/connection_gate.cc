#include "server/transport/connection_gate.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "grpcpp/server_posix.h"

namespace collision::server {

namespace {

// How often a full pass over the open connections may run while a flood of
// connections finds the limit reached (each pass is an fstat apiece).
constexpr absl::Duration kPurgeEvery = absl::Milliseconds(10);
// How long a refused connection may take to read its GOAWAY, and how many
// may wait at once (past it, refused ones are closed at once).
constexpr absl::Duration kLinger = absl::Seconds(1);
constexpr size_t kMaxClosing = 256;
// After running out of descriptors, the listeners rest this long (the
// backlog would make poll() return at once, forever).
constexpr absl::Duration kStarvedRest = absl::Milliseconds(10);

std::string HttpFrame(uint8_t type, uint8_t flags, uint32_t stream,
                      const std::string& payload) {
  const size_t n = payload.size();
  std::string frame = {static_cast<char>((n >> 16) & 0xFF),
                       static_cast<char>((n >> 8) & 0xFF),
                       static_cast<char>(n & 0xFF),
                       static_cast<char>(type),
                       static_cast<char>(flags),
                       static_cast<char>((stream >> 24) & 0x7F),
                       static_cast<char>((stream >> 16) & 0xFF),
                       static_cast<char>((stream >> 8) & 0xFF),
                       static_cast<char>(stream & 0xFF)};
  return frame + payload;
}

constexpr char kWhy[] =
    "connection limit of this server (--max_connections) reached";
constexpr uint8_t kSettings = 0x4, kHeaders = 0x1, kGoaway = 0x7;

// GOAWAY naming the last stream the server answered, an HTTP/2 error code
// and why.
std::string Goaway(uint32_t last_stream, uint8_t error) {
  std::string payload = {static_cast<char>((last_stream >> 24) & 0x7F),
                         static_cast<char>((last_stream >> 16) & 0xFF),
                         static_cast<char>((last_stream >> 8) & 0xFF),
                         static_cast<char>(last_stream & 0xFF),
                         0,
                         0,
                         0,
                         static_cast<char>(error)};
  return HttpFrame(kGoaway, 0, 0, payload + kWhy);
}

// The answer to a refused connection's first call: trailers only,
// grpc-status 14 (UNAVAILABLE) and why, then GOAWAY (no error: that call
// was answered). HPACK without Huffman coding or the dynamic table:
// :status 200 is static entry 8, content-type's name static entry 31.
std::string RefusedCall(uint32_t stream) {
  std::string block = "\x88";
  block +=
      "\x0f\x10\x10"
      "application/grpc";  // (a hex escape stops here)
  block += std::string("\x00\x0bgrpc-status\x02", 14) + "14";
  block += std::string("\x00\x0cgrpc-message", 14) +
           static_cast<char>(sizeof kWhy - 1) + kWhy;
  return HttpFrame(kHeaders, 0x5, stream, block) + Goaway(stream, 0);
}

constexpr char kClientPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr size_t kPrefaceSize = sizeof kClientPreface - 1;  // 24

// Where each handed-over connection came from, by descriptor (descriptors
// are the process's: one table for every gate).
// (std::mutex: ThreadSanitizer sees it; Debian's Abseil is not built for it.)
std::mutex peers_mu;
absl::flat_hash_map<int, std::string>& Peers() {
  static auto* peers = new absl::flat_hash_map<int, std::string>();
  return *peers;
}

}  // namespace

std::string AddressName(const sockaddr_storage& a) {
  char text[INET6_ADDRSTRLEN] = "?";
  if (a.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(a);
    if (!IN6_IS_ADDR_V4MAPPED(&v6.sin6_addr)) {
      inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
      return absl::StrCat("ipv6:[", text, "]:", ntohs(v6.sin6_port));
    }
    // An IPv4 caller of a dual-stack socket, named as gRPC names it.
    inet_ntop(AF_INET, &v6.sin6_addr.s6_addr[12], text, sizeof text);
    return absl::StrCat("ipv4:", text, ":", ntohs(v6.sin6_port));
  }
  const auto& v4 = reinterpret_cast<const sockaddr_in&>(a);
  inet_ntop(AF_INET, &v4.sin_addr, text, sizeof text);
  return absl::StrCat("ipv4:", text, ":", ntohs(v4.sin_port));
}

namespace {

// gRPC's name for an IPv6 peer is a URI, "ipv6:%5B::1%5D:5000" (a scope,
// if any, as "%25eth0" inside the brackets): written again by AddressName,
// or empty when it is not one.
std::string Ipv6Name(absl::string_view rest) {
  if (!absl::ConsumePrefix(&rest, "ipv6:")) return "";
  const bool encoded = absl::ConsumePrefix(&rest, "%5B");
  if (!encoded && !absl::ConsumePrefix(&rest, "[")) return "";
  const size_t close = rest.rfind(encoded ? "%5D:" : "]:");
  if (close == absl::string_view::npos) return "";
  int port = 0;
  if (!absl::SimpleAtoi(rest.substr(close + (encoded ? 4 : 2)), &port)) {
    return "";
  }
  const std::string host(rest.substr(0, std::min(close, rest.find('%'))));
  sockaddr_storage a{};
  auto& v6 = reinterpret_cast<sockaddr_in6&>(a);
  v6.sin6_family = AF_INET6;
  v6.sin6_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET6, host.c_str(), &v6.sin6_addr) != 1) return "";
  return AddressName(a);
}

}  // namespace

std::string PeerName(const std::string& grpc_peer) {
  absl::string_view rest = grpc_peer;
  int fd = -1;
  if (!absl::ConsumePrefix(&rest, "fd:") || !absl::SimpleAtoi(rest, &fd)) {
    std::string v6 = Ipv6Name(grpc_peer);
    return v6.empty() ? grpc_peer : v6;
  }
  std::lock_guard<std::mutex> lock(peers_mu);
  const auto it = Peers().find(fd);
  return it == Peers().end() ? grpc_peer : it->second;
}

absl::StatusOr<addrinfo*> ResolveForListening(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return absl::InvalidArgumentError("the address has no :port");
  }
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  const std::string port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const int gai = getaddrinfo(host.empty() ? nullptr : host.c_str(),
                              port.c_str(), &hints, &found);
  if (gai != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot resolve it: ", gai_strerror(gai)));
  }
  return found;
}

int ListeningSocket(const addrinfo& a, bool reuseport, int flags) {
  const int fd = socket(a.ai_family, a.ai_socktype | flags, a.ai_protocol);
  if (fd < 0) return -1;
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (reuseport) setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  return fd;
}

std::string BindError(int error) {
  std::string why = std::strerror(error);
  if (error == EADDRINUSE) why += " (another process listens on it)";
  return why;
}

absl::StatusOr<std::unique_ptr<ConnectionGate>> ConnectionGate::Listen(
    const std::string& address, bool reuseport) {
  absl::StatusOr<addrinfo*> resolved = ResolveForListening(address);
  if (!resolved.ok()) {
    return absl::Status(resolved.status().code(),
                        absl::StrCat("cannot listen on ", address, ": ",
                                     resolved.status().message()));
  }
  addrinfo* const found = *resolved;
  bool has_v4 = false;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    has_v4 = has_v4 || a->ai_family == AF_INET;
  }
  std::unique_ptr<ConnectionGate> gate(new ConnectionGate());
  std::string why;
  bool in_use = false;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    if (a->ai_family != AF_INET && a->ai_family != AF_INET6) continue;
    const int fd = ListeningSocket(*a, reuseport, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      why = std::strerror(errno);
      continue;
    }
    if (a->ai_family == AF_INET6) {
      // A v6 wildcard alone also takes IPv4, as gRPC's listener does.
      const int v6only = has_v4 ? 1 : 0;
      setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &v6only, sizeof v6only);
    }
    // Port 0 picks a port once; the other addresses take the same one.
    if (gate->port_ != 0) {
      const uint16_t p = htons(static_cast<uint16_t>(gate->port_));
      if (a->ai_family == AF_INET) {
        reinterpret_cast<sockaddr_in*>(a->ai_addr)->sin_port = p;
      } else {
        reinterpret_cast<sockaddr_in6*>(a->ai_addr)->sin6_port = p;
      }
    }
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN)) {
      const int error = errno;
      close(fd);
      why = BindError(error);
      if (error == EADDRINUSE) {
        in_use = true;
        break;
      }
      continue;  // an address family this host lacks, say
    }
    sockaddr_storage bound{};
    socklen_t length = sizeof bound;
    getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &length);
    gate->port_ =
        ntohs(bound.ss_family == AF_INET
                  ? reinterpret_cast<sockaddr_in*>(&bound)->sin_port
                  : reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port);
    gate->listeners_.push_back(fd);
  }
  freeaddrinfo(found);
  if (gate->listeners_.empty() || in_use) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", address, ": ", why.empty() ? "no address" : why));
  }
  if (pipe2(gate->wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    return absl::InternalError(
        absl::StrCat("cannot make a pipe: ", std::strerror(errno)));
  }
  gate->reserve_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
  return gate;
}

ConnectionGate::~ConnectionGate() {
  Stop();
  for (int fd : listeners_) close(fd);
  for (int fd : wake_) {
    if (fd >= 0) close(fd);
  }
  if (reserve_fd_ >= 0) close(reserve_fd_);
  for (const Closing& c : closing_) close(c.fd);
}

void ConnectionGate::Start(grpc::Server* server, int max_connections,
                           Metrics* metrics) {
  server_ = server;
  metrics_ = metrics;
  max_connections_ = static_cast<size_t>(std::max(1, max_connections));
  thread_ = std::thread([this] { Run(); });
}

void ConnectionGate::Stop() {
  if (stopped_.exchange(true)) return;
  if (thread_.joinable()) {
    const char byte = 0;
    (void)!write(wake_[1], &byte, 1);
    thread_.join();
  }
  for (int fd : listeners_) close(fd);
  listeners_.clear();
}

void ConnectionGate::Run() {
  std::vector<pollfd> polled;
  absl::Time starved_until = absl::InfinitePast();
  while (true) {
    const absl::Time now = absl::Now();
    polled.clear();
    polled.push_back({wake_[0], POLLIN, 0});
    const bool listening = now >= starved_until;
    if (listening) {
      for (int fd : listeners_) polled.push_back({fd, POLLIN, 0});
    }
    const size_t first_closing = polled.size();
    for (const Closing& c : closing_) polled.push_back({c.fd, POLLIN, 0});
    // Wake at least every second: open connections are recounted then, so
    // the gauge falls as they close.
    int timeout_ms = listening ? 1000
                               : 1 + static_cast<int>(absl::ToInt64Milliseconds(
                                         starved_until - now));
    if (!closing_.empty()) timeout_ms = std::min(timeout_ms, 100);
    const int ready = poll(polled.data(), polled.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) return;
    if (polled[0].revents != 0) return;  // Stop()
    if (ready == 0) Purge(/*force=*/true);
    for (size_t i = 1; i < first_closing; ++i) {
      if (polled[i].revents == 0) continue;
      if (!AcceptFrom(polled[i].fd)) {
        starved_until = absl::Now() + kStarvedRest;
      }
    }
    // Refused connections: their first call answered, closed once the peer
    // goes (or after their second).
    for (size_t i = first_closing; i < polled.size(); ++i) {
      if (polled[i].revents == 0) continue;
      Closing& c = closing_[i - first_closing];
      if (!ReadRefused(&c)) c.deadline = absl::InfinitePast();
    }
    DrainClosing(absl::Now());
  }
}

bool ConnectionGate::AcceptFrom(int listener) {
  for (int i = 0; i < 64; ++i) {
    sockaddr_storage from{};
    socklen_t length = sizeof from;
    const int fd = accept4(listener, reinterpret_cast<sockaddr*>(&from),
                           &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      Admit(fd, AddressName(from));
      continue;
    }
    if (errno == EINTR || errno == ECONNABORTED || errno == EPROTO) continue;
    if ((errno == EMFILE || errno == ENFILE) && !closing_.empty()) {
      // Refused connections still reading their GOAWAY hold descriptors:
      // they go first.
      for (const Closing& c : closing_) close(c.fd);
      closing_.clear();
      continue;
    }
    if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
        errno == ENOMEM) {
      // Out of descriptors below the connection limit (they went elsewhere):
      // refuse one waiting connection with the descriptor kept for it, so
      // that its client hears of it, and rest the listeners a moment.
      Purge(/*force=*/true);
      if (reserve_fd_ >= 0) {
        close(reserve_fd_);
        const int refused =
            accept4(listener, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (refused >= 0) {
          const std::string bytes = HttpFrame(kSettings, 0, 0, "") +
                                    Goaway(0, 0x7);  // REFUSED_STREAM
          (void)!send(refused, bytes.data(), bytes.size(),
                      MSG_NOSIGNAL | MSG_DONTWAIT);
          close(refused);
          metrics_->Rejected("connection_limit");
        }
        reserve_fd_ = open("/dev/null", O_RDONLY | O_CLOEXEC);
      }
      return false;
    }
    return true;  // EAGAIN: nothing more waiting
  }
  return true;
}

void ConnectionGate::Admit(int fd, const std::string& address) {
  if (open_.size() >= max_connections_) Purge(/*force=*/false);
  if (open_.size() >= max_connections_) {
    metrics_->Rejected("connection_limit");
    Refuse(fd);
    return;
  }
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  open_.Add(fd);
  metrics_->SetConnections(static_cast<int64_t>(open_.size()));
  {
    std::lock_guard<std::mutex> lock(peers_mu);
    Peers()[fd] = address;
  }
  grpc::AddInsecureChannelFromFd(server_, fd);
}

void ConnectionGate::Purge(bool force) {
  const absl::Time now = absl::Now();
  if (!force && now - last_purge_ < kPurgeEvery) return;
  last_purge_ = now;
  std::lock_guard<std::mutex> lock(peers_mu);
  open_.Forget([](int fd) ABSL_EXCLUSIVE_LOCKS_REQUIRED(peers_mu) {
    Peers().erase(fd);
  });
  metrics_->SetConnections(static_cast<int64_t>(open_.size()));
}

void ConnectionGate::Refuse(int fd) {
  const std::string settings = HttpFrame(kSettings, 0, 0, "");
  (void)!send(fd, settings.data(), settings.size(),
              MSG_NOSIGNAL | MSG_DONTWAIT);
  if (closing_.size() >= kMaxClosing) {
    const std::string goaway = Goaway(0, 0x7);  // REFUSED_STREAM
    (void)!send(fd, goaway.data(), goaway.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    close(fd);
    return;
  }
  Closing& refused = closing_.emplace_back();
  refused.fd = fd;
  refused.deadline = absl::Now() + kLinger;
}

bool ConnectionGate::ReadRefused(Closing* c) {
  char chunk[4096];
  const ssize_t got = read(c->fd, chunk, sizeof chunk);
  if (got < 0 && (errno == EAGAIN || errno == EINTR)) return true;
  if (got <= 0) return false;    // the peer went
  if (c->answered) return true;  // its answer is out: wait for it to go
  c->in.append(chunk, static_cast<size_t>(got));
  auto answer = [&](const std::string& bytes) {
    (void)!send(c->fd, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    shutdown(c->fd, SHUT_WR);
    c->answered = true;
    c->in.clear();
    return true;
  };
  if (c->in.size() < kPrefaceSize) {
    if (c->in.compare(0, c->in.size(), kClientPreface, c->in.size()) != 0) {
      return answer(Goaway(0, 0x1));  // not HTTP/2: PROTOCOL_ERROR
    }
    return true;
  }
  if (c->in.compare(0, kPrefaceSize, kClientPreface) != 0) {
    return answer(Goaway(0, 0x1));
  }
  // The client's frames, until its first call: that call is answered
  // UNAVAILABLE with why, so its caller hears it at once.
  size_t at = kPrefaceSize;
  while (c->in.size() - at >= 9) {
    const auto* p = reinterpret_cast<const uint8_t*>(c->in.data() + at);
    const size_t length = (size_t{p[0]} << 16) | (size_t{p[1]} << 8) | p[2];
    const uint32_t stream = ((uint32_t{p[5]} & 0x7F) << 24) |
                            (uint32_t{p[6]} << 16) | (uint32_t{p[7]} << 8) |
                            p[8];
    if (p[3] == kHeaders && stream % 2 == 1) return answer(RefusedCall(stream));
    if (c->in.size() - at < 9 + length) break;
    if (p[3] == kSettings && (p[4] & 0x1) == 0) {
      const std::string ack = HttpFrame(kSettings, 0x1, 0, "");
      (void)!send(c->fd, ack.data(), ack.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    at += 9 + length;
  }
  if (c->in.size() > 16384) return answer(Goaway(0, 0x7));
  return true;
}

void ConnectionGate::DrainClosing(absl::Time now) {
  auto done = [now](const Closing& c) {
    if (c.deadline > now) return false;
    if (!c.answered) {  // no call within its second: refused as a whole
      const std::string goaway = Goaway(0, 0x7);  // REFUSED_STREAM
      (void)!send(c.fd, goaway.data(), goaway.size(),
                  MSG_NOSIGNAL | MSG_DONTWAIT);
    }
    close(c.fd);
    return true;
  };
  closing_.erase(std::remove_if(closing_.begin(), closing_.end(), done),
                 closing_.end());
}

}  // namespace collision::server
