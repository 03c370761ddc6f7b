// Test support for wire_test: HTTP/2 written and read by hand (frames, an
// HPACK literal encoder, a frame reader that ACKs SETTINGS), raw gRPC
// messages, and the fixture that starts a real server on 127.0.0.1:0.
#ifndef COLLISION_TESTS_E2E_WIRE_TESTING_H_
#define COLLISION_TESTS_E2E_WIRE_TESTING_H_

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/util/local_server.h"

namespace collision::wire_testing {

namespace c = collision::client;

inline constexpr char kService[] = "/collision.v1.CollisionService/";
inline constexpr absl::Duration kEndWithin = absl::Seconds(10);

// --- HTTP/2 by hand ---------------------------------------------------------

constexpr absl::string_view kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
enum FrameType : uint8_t {
  kData = 0x0,
  kHeaders = 0x1,
  kRstStream = 0x3,
  kSettings = 0x4,
  kPing = 0x6,
  kGoAway = 0x7,
  kWindowUpdate = 0x8,
};
constexpr uint8_t kEndStream = 0x1;
constexpr uint8_t kAck = 0x1;
constexpr uint8_t kEndHeaders = 0x4;

inline void AppendU32(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v >> 24));
  out->push_back(static_cast<char>(v >> 16));
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v));
}

// A frame whose header claims `length` (normally the payload's size).
inline std::string FrameClaiming(uint32_t length, uint8_t type, uint8_t flags,
                                 uint32_t stream, absl::string_view payload) {
  std::string f;
  f.push_back(static_cast<char>(length >> 16));
  f.push_back(static_cast<char>(length >> 8));
  f.push_back(static_cast<char>(length));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  AppendU32(&f, stream & 0x7fffffffu);
  f.append(payload.data(), payload.size());
  return f;
}

inline std::string Frame(uint8_t type, uint8_t flags, uint32_t stream,
                         absl::string_view payload) {
  return FrameClaiming(static_cast<uint32_t>(payload.size()), type, flags,
                       stream, payload);
}

// HPACK "literal header field without indexing, new name", no Huffman
// (RFC 7541 6.2.2); lengths here stay below 127.
inline void AppendLiteral(std::string* out, absl::string_view name,
                          absl::string_view value) {
  out->push_back('\0');
  out->push_back(static_cast<char>(name.size()));
  out->append(name.data(), name.size());
  out->push_back(static_cast<char>(value.size()));
  out->append(value.data(), value.size());
}

inline std::string RequestHeaders(absl::string_view method,
                                  absl::string_view encoding = "") {
  std::string block;
  if (!encoding.empty()) AppendLiteral(&block, "grpc-encoding", encoding);
  AppendLiteral(&block, ":method", "POST");
  AppendLiteral(&block, ":scheme", "http");
  AppendLiteral(&block, ":path", absl::StrCat(kService, method));
  AppendLiteral(&block, ":authority", "127.0.0.1");
  AppendLiteral(&block, "content-type", "application/grpc");
  AppendLiteral(&block, "te", "trailers");
  return block;
}

// A gRPC length-prefixed message: flag byte, 4-byte length, bytes.
inline std::string GrpcMessage(absl::string_view bytes, uint8_t flag = 0,
                               std::optional<uint32_t> claimed = std::nullopt) {
  std::string m(1, static_cast<char>(flag));
  AppendU32(&m, claimed.value_or(static_cast<uint32_t>(bytes.size())));
  m.append(bytes.data(), bytes.size());
  return m;
}

inline std::string ClientStart() {
  return absl::StrCat(kPreface, Frame(kSettings, 0, 0, ""));
}

// One call on stream 1: headers, then `data` in one DATA frame ending the
// stream.
inline std::string Call(absl::string_view method, absl::string_view data,
                        absl::string_view encoding = "") {
  return absl::StrCat(
      ClientStart(),
      Frame(kHeaders, kEndHeaders, 1, RequestHeaders(method, encoding)),
      Frame(kData, kEndStream, 1, data));
}

// How the server ended what we sent.
struct Ending {
  bool closed = false;        // the server closed the TCP connection
  bool goaway = false;        // ... after a GOAWAY frame
  bool reset = false;         // RST_STREAM on stream 1
  bool trailers = false;      // HEADERS + END_STREAM on stream 1
  bool timed_out = false;     // none of the above within the limit
  std::string trailer_block;  // the HPACK block of those trailers
  std::string data;           // DATA received on stream 1
  bool ended() const { return closed || goaway || reset || trailers; }
};

// The value of a header the server sent as a non-Huffman literal, if any.
// (gRPC's HPACK encoder writes grpc-status this way on a fresh connection.)
inline std::optional<std::string> LiteralValue(const std::string& block,
                                               absl::string_view name) {
  const std::size_t at = block.find(name.data(), 0, name.size());
  if (at == std::string::npos || at + name.size() >= block.size()) {
    return std::nullopt;
  }
  const auto len = static_cast<uint8_t>(block[at + name.size()]);
  if ((len & 0x80) != 0 || at + name.size() + 1 + len > block.size()) {
    return std::nullopt;  // Huffman-coded or long: not needed here
  }
  return block.substr(at + name.size() + 1, len);
}

class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = fd_ >= 0 && connect(fd_, reinterpret_cast<sockaddr*>(&addr),
                                     sizeof(addr)) == 0;
    const int one = 1;
    if (connected_)
      setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  }
  ~RawConnection() {
    if (fd_ >= 0) close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return connected_; }

  // False when the server has already closed the connection.
  bool Send(absl::string_view bytes) {
    while (!bytes.empty()) {
      const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }
  void HalfClose() { shutdown(fd_, SHUT_WR); }
  // Drops the connection at once (RST), as a crashed client would.
  void Abort() {
    const linger l{1, 0};
    setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
    close(fd_);
    fd_ = -1;
  }

  void SetNonBlocking() {
    fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) | O_NONBLOCK);
  }

  // On a non-blocking connection: sends all of `bytes` before `until`,
  // reading (and dropping) what the server sends meanwhile so that neither
  // side blocks. False when the server closed the connection or time ran
  // out first.
  bool SendBefore(absl::string_view bytes, absl::Time until) {
    while (!bytes.empty()) {
      const ssize_t n = send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n > 0) {
        bytes.remove_prefix(static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) return false;
      const absl::Duration left = until - absl::Now();
      if (left <= absl::ZeroDuration()) return false;
      pollfd pfd{fd_, POLLOUT | POLLIN, 0};
      poll(&pfd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
      if ((pfd.revents & POLLIN) != 0 && !Discard()) return false;
      if ((pfd.revents & (POLLERR | POLLHUP)) != 0) return false;
    }
    return true;
  }

  // Waits up to `time` for bytes from the server and appends them to `out`;
  // false when the server closed the connection.
  bool ReceiveSome(std::string* out, absl::Duration time) {
    pollfd pfd{fd_, POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(absl::ToInt64Milliseconds(time)) + 1) <=
        0) {
      return true;
    }
    char chunk[65536];
    const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n > 0) out->append(chunk, static_cast<std::size_t>(n));
    return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
  }

  // Reads and drops what the server sends for `time` (or until it closes).
  void DrainFor(absl::Duration time) {
    const absl::Time until = absl::Now() + time;
    for (absl::Duration left = time; left > absl::ZeroDuration();
         left = until - absl::Now()) {
      pollfd pfd{fd_, POLLIN, 0};
      if (poll(&pfd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1) >
              0 &&
          !Discard()) {
        return;
      }
    }
  }

  // Reads frames for `time`, acknowledging the server's SETTINGS.
  void AckSettingsFor(absl::Duration time) {
    ReadFrames(absl::Now() + time, /*until_closed=*/true);
  }

  // Reads frames (acknowledging SETTINGS) until the server closes the
  // connection or sends GOAWAY, or `limit` passes.
  Ending ReadUntilClosed(absl::Duration limit = kEndWithin) {
    return ReadFrames(absl::Now() + limit, /*until_closed=*/true);
  }

  // Reads frames until the server closes the connection, sends GOAWAY, or
  // ends stream 1, or `limit` passes. Answers the server's SETTINGS with an
  // ACK, as a client must.
  Ending ReadUntilEnd(absl::Duration limit = kEndWithin) {
    return ReadFrames(absl::Now() + limit, /*until_closed=*/false);
  }

 private:
  // False when the server closed the connection.
  bool Discard() {
    char chunk[65536];
    const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
  }

  Ending ReadFrames(absl::Time until, bool until_closed) {
    Ending e;
    std::string buffer;
    bool preface_checked = false;
    while (true) {
      // Parse whatever complete frames are buffered.
      std::size_t at = 0;
      while (buffer.size() - at >= 9) {
        const auto* p = reinterpret_cast<const uint8_t*>(buffer.data() + at);
        const uint32_t length = (p[0] << 16) | (p[1] << 8) | p[2];
        if (buffer.size() - at < 9 + length) break;
        const uint8_t type = p[3];
        const uint8_t flags = p[4];
        const uint32_t stream =
            ((p[5] << 24) | (p[6] << 16) | (p[7] << 8) | p[8]) & 0x7fffffffu;
        const std::string payload = buffer.substr(at + 9, length);
        at += 9 + length;
        preface_checked = true;
        if (type == kSettings && (flags & kAck) == 0) {
          Send(Frame(kSettings, kAck, 0, ""));
        } else if (type == kGoAway) {
          e.goaway = true;
        } else if (type == kData && stream == 1) {
          e.data += payload;
        } else if (type == kRstStream && stream == 1) {
          e.reset = true;
        } else if (type == kHeaders && stream == 1 &&
                   (flags & kEndStream) != 0) {
          e.trailers = true;
          e.trailer_block = payload;
        }
      }
      buffer.erase(0, at);
      (void)preface_checked;
      if (until_closed ? (e.closed || e.goaway) : e.ended()) return e;
      const absl::Duration left = until - absl::Now();
      if (left <= absl::ZeroDuration()) {
        e.timed_out = true;
        return e;
      }
      pollfd pfd{fd_, POLLIN, 0};
      const int ready =
          poll(&pfd, 1, static_cast<int>(absl::ToInt64Milliseconds(left)) + 1);
      if (ready <= 0) continue;
      char chunk[16384];
      const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) continue;
      if (n <= 0) {
        e.closed = true;
        return e;
      }
      buffer.append(chunk, static_cast<std::size_t>(n));
    }
  }

  int fd_ = -1;
  bool connected_ = false;
};

inline std::string RandomBytes(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, '\0');
  for (char& ch : s) ch = static_cast<char>(rng());
  return s;
}

inline std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

// --- The server under test --------------------------------------------------

// A client of `target` on a connection of its own, after checking that its
// health service says SERVING.
inline std::unique_ptr<c::Client> ExpectHealthServing(
    const std::string& target) {
  c::ClientOptions o;
  o.own_connection = true;
  o.retry.enabled = false;
  o.timeout = absl::Seconds(10);
  auto client = c::Client::Create(target, o);
  EXPECT_TRUE(client.ok()) << client.status();
  if (!client.ok()) return nullptr;
  absl::StatusOr<bool> serving =
      (*client)->IsServing(server::kHealthServiceName);
  EXPECT_TRUE(serving.ok()) << serving.status();
  EXPECT_TRUE(serving.ok() && *serving);
  return *std::move(client);
}

class Wire : public ::testing::Test {
 public:
  void SetUp() override {
    server::ServerOptions o;
    o.max_receive_message_bytes = 1 << 20;
    server_ = testing::StartServer(o);
    ASSERT_NE(server_, nullptr);
    limits_ = o.service.limits;
    channel_ = grpc::CreateChannel(server_->address(),
                                   grpc::InsecureChannelCredentials());
  }

  // The server still reports SERVING and answers a real query correctly,
  // on a fresh connection.
  void ExpectStillServing() {
    // What the attack left settles first (bounded): calls of vanished
    // clients end when gRPC notices, and until then their answers count as
    // pending (a caller arriving meanwhile would be shed with a pushback).
    ASSERT_TRUE(server_->service().WaitUntilIdle(absl::Seconds(10)));
    std::unique_ptr<c::Client> client = ExpectHealthServing(server_->address());
    ASSERT_NE(client, nullptr);
    auto r = client->Intersect(
        c::IntersectBatch()
            .Add(c::Circle(0, 0, 1), c::Circle(2, 0, 1))       // touching
            .Add(c::Circle(0, 0, 1), c::Circle(2.5f, 0, 1)));  // apart
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->results_size(), 2);
    EXPECT_TRUE(r->results(0).hit());
    EXPECT_FALSE(r->results(1).hit());
    EXPECT_TRUE(server_->service().WaitUntilIdle(absl::Seconds(10)));
  }

  // Sends raw bytes as one unary call to `method`; the status it ends with.
  grpc::Status RawUnary(const std::string& method, const std::string& bytes,
                        grpc::ByteBuffer* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    grpc::Slice slice(bytes);
    grpc::ByteBuffer request(&slice, 1);
    const std::string path = absl::StrCat(kService, method);
    return grpc::internal::BlockingUnaryCall<grpc::ByteBuffer,
                                             grpc::ByteBuffer>(
        channel_.get(),
        grpc::internal::RpcMethod(path.c_str(), nullptr,
                                  grpc::internal::RpcMethod::NORMAL_RPC),
        &context, request, response);
  }

  const wire::RequestLimits& limits() const { return limits_; }

 protected:
  std::unique_ptr<server::CollisionServer> server_;
  wire::RequestLimits limits_;
  std::shared_ptr<grpc::Channel> channel_;
};

}  // namespace collision::wire_testing

#endif  // COLLISION_TESTS_E2E_WIRE_TESTING_H_
