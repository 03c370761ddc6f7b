// A server on 127.0.0.1:0 that completes the HTTP/2 handshake (its empty
// SETTINGS and the ack of the client's) and then never answers: a gRPC
// channel to it is READY, and every call or stream on it waits until its
// deadline or its cancellation. For tests of waiting and cancelling that
// must not depend on a real server's speed.
#ifndef COLLISION_TESTS_UTIL_SILENT_LISTENER_H_
#define COLLISION_TESTS_UTIL_SILENT_LISTENER_H_

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace collision::testing {

class SilentListener {
 public:
  SilentListener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof(a);
    if (bind(fd_, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
        listen(fd_, 16) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      ADD_FAILURE() << "cannot listen on loopback";
    }
    port_ = ntohs(a.sin_port);
    accepter_ = std::thread([this] { Accept(); });
  }
  ~SilentListener() {
    stop_.store(true);
    accepter_.join();
    for (int c : connections_) close(c);
    close(fd_);
  }
  SilentListener(const SilentListener&) = delete;
  SilentListener& operator=(const SilentListener&) = delete;

  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  void Accept() {
    // An empty SETTINGS frame, then a SETTINGS ack (flag 1): 9-byte headers.
    static constexpr unsigned char kHandshake[] = {0, 0, 0, 4, 0, 0, 0, 0, 0,
                                                   0, 0, 0, 4, 1, 0, 0, 0, 0};
    while (!stop_.load()) {
      pollfd p{fd_, POLLIN, 0};
      if (poll(&p, 1, 20) <= 0) continue;  // re-checks stop_ every 20 ms
      const int c = accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (c < 0) continue;
      if (write(c, kHandshake, sizeof(kHandshake)) != sizeof(kHandshake)) {
        ADD_FAILURE() << "cannot write the HTTP/2 handshake";
      }
      connections_.push_back(c);  // read by nobody, closed at the end
    }
  }

  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::vector<int> connections_;  // the accepting thread's until it joins
  std::thread accepter_;
};

}  // namespace collision::testing

#endif  // COLLISION_TESTS_UTIL_SILENT_LISTENER_H_
