// Loopback sockets for the tick benchmarks: frames as the scene port
// carries them (a 4-byte little-endian length, then the bytes) and the
// machine's floor, a plain-TCP echo of prepared answers.
#ifndef COLLISION_SERVER_BENCH_FRAME_SOCKET_H_
#define COLLISION_SERVER_BENCH_FRAME_SOCKET_H_

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace collision::server::bench {

// A connection that carries frames: a 4-byte little-endian length and the
// bytes (the scene port's framing, also the plain-TCP floor's).
class FrameSocket {
 public:
  static std::unique_ptr<FrameSocket> Connect(int port) {
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
      close(fd);
      return nullptr;
    }
    return std::make_unique<FrameSocket>(fd);
  }
  explicit FrameSocket(int fd) : fd_(fd) {
    const int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~FrameSocket() { close(fd_); }
  bool Write(const std::string& bytes) {
    const uint32_t n = static_cast<uint32_t>(bytes.size());
    unsigned char h[4] = {static_cast<unsigned char>(n),
                          static_cast<unsigned char>(n >> 8),
                          static_cast<unsigned char>(n >> 16),
                          static_cast<unsigned char>(n >> 24)};
    iovec parts[2] = {{h, 4}, {const_cast<char*>(bytes.data()), n}};
    msghdr m{};
    m.msg_iov = parts;
    m.msg_iovlen = 2;
    std::size_t sent = 0;
    while (sent < n + 4u) {
      const ssize_t w = sendmsg(fd_, &m, MSG_NOSIGNAL);
      if (w <= 0) return false;
      sent += static_cast<std::size_t>(w);
      // Rare: a partial write; the rest goes plainly.
      if (sent < n + 4u) {
        const std::size_t body = sent - 4;
        return sent >= 4 && Send(bytes.data() + body, n - body);
      }
    }
    return true;
  }
  bool Read(std::string* bytes) {
    unsigned char h[4];
    if (!Receive(reinterpret_cast<char*>(h), 4)) return false;
    bytes->resize(uint32_t{h[0]} | uint32_t{h[1]} << 8 | uint32_t{h[2]} << 16 |
                  uint32_t{h[3]} << 24);
    return Receive(bytes->data(), bytes->size());
  }

 private:
  bool Send(const char* p, std::size_t n) {
    while (n > 0) {
      const ssize_t w = send(fd_, p, n, MSG_NOSIGNAL);
      if (w <= 0) return false;
      p += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  }
  bool Receive(char* p, std::size_t n) {
    while (n > 0) {
      const ssize_t r = recv(fd_, p, n, 0);
      if (r <= 0) return false;
      p += r;
      n -= static_cast<std::size_t>(r);
    }
    return true;
  }
  const int fd_;
};

// The machine's floor for a tick: one blocking thread that reads each
// request frame and writes back a frame as large as the service's answer
// to it, with nothing computed, on plain TCP.
class PlainTcpEcho {
 public:
  explicit PlainTcpEcho(std::vector<std::string> answers)
      : answers_(std::move(answers)) {
    listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof(a));
    listen(listener_, 1);
    socklen_t size = sizeof(a);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &size);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] {
      const int fd = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      FrameSocket peer(fd);
      std::string request;
      for (std::size_t i = 0; peer.Read(&request); ++i) {
        if (!peer.Write(answers_[i % answers_.size()])) return;
      }
    });
  }
  ~PlainTcpEcho() {
    shutdown(listener_, SHUT_RDWR);
    thread_.join();
    close(listener_);
  }
  int port() const { return port_; }

 private:
  std::vector<std::string> answers_;
  int listener_ = -1;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace collision::server::bench

#endif  // COLLISION_SERVER_BENCH_FRAME_SOCKET_H_
