// Malformed bytes on the wire to a live server (127.0.0.1:0, SO_REUSEPORT
// off), at every layer a caller can get wrong:
// - TCP / HTTP/2: not HTTP/2 at all, random bytes, oversized and lying
//   frames, a corrupt header block, random frame sequences, clients that
//   vanish mid-message or abandon streams;
// - gRPC framing: a length prefix claiming 4 GiB, a compressed flag with no
//   encoding, a message cut short;
// - protobuf: corrupt, truncated and bit-flipped request messages inside
//   well-formed calls, on every method and on the stream.
// The server must end each bad call or connection (never hang), never answer
// garbage with OK, give corrupt messages INVALID_ARGUMENT naming the message
// type (a message that happens to parse gets exactly the in-process answer),
// and keep serving health checks and correct answers afterwards.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "collision/client/columns.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/codegen/client_unary_call.h"
#include "grpcpp/impl/codegen/sync_stream.h"
#include "gtest/gtest.h"
#include "server/handlers.h"
#include "server/server.h"

namespace collision {
namespace {

namespace c = collision::client;
using ::testing::HasSubstr;

constexpr char kService[] = "/collision.v1.CollisionService/";
constexpr absl::Duration kEndWithin = absl::Seconds(10);

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

void AppendU32(std::string* out, uint32_t v) {
  out->push_back(static_cast<char>(v >> 24));
  out->push_back(static_cast<char>(v >> 16));
  out->push_back(static_cast<char>(v >> 8));
  out->push_back(static_cast<char>(v));
}

// A frame whose header claims `length` (normally the payload's size).
std::string FrameClaiming(uint32_t length, uint8_t type, uint8_t flags,
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

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream,
                  absl::string_view payload) {
  return FrameClaiming(static_cast<uint32_t>(payload.size()), type, flags,
                       stream, payload);
}

// HPACK "literal header field without indexing, new name", no Huffman
// (RFC 7541 6.2.2); lengths here stay below 127.
void AppendLiteral(std::string* out, absl::string_view name,
                   absl::string_view value) {
  out->push_back('\0');
  out->push_back(static_cast<char>(name.size()));
  out->append(name.data(), name.size());
  out->push_back(static_cast<char>(value.size()));
  out->append(value.data(), value.size());
}

std::string RequestHeaders(absl::string_view method,
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
std::string GrpcMessage(absl::string_view bytes, uint8_t flag = 0,
                        std::optional<uint32_t> claimed = std::nullopt) {
  std::string m(1, static_cast<char>(flag));
  AppendU32(&m, claimed.value_or(static_cast<uint32_t>(bytes.size())));
  m.append(bytes.data(), bytes.size());
  return m;
}

std::string ClientStart() {
  return absl::StrCat(kPreface, Frame(kSettings, 0, 0, ""));
}

// One call on stream 1: headers, then `data` in one DATA frame ending the
// stream.
std::string Call(absl::string_view method, absl::string_view data,
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
std::optional<std::string> LiteralValue(const std::string& block,
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

  // Reads frames until the server closes the connection, sends GOAWAY, or
  // ends stream 1, or `limit` passes. Answers the server's SETTINGS with an
  // ACK, as a client must.
  Ending ReadUntilEnd(absl::Duration limit = kEndWithin) {
    Ending e;
    const absl::Time until = absl::Now() + limit;
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
      if (e.ended()) return e;
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
      if (n <= 0) {
        e.closed = true;
        return e;
      }
      buffer.append(chunk, static_cast<std::size_t>(n));
    }
  }

 private:
  int fd_ = -1;
  bool connected_ = false;
};

std::string RandomBytes(std::mt19937_64& rng, std::size_t n) {
  std::string s(n, '\0');
  for (char& ch : s) ch = static_cast<char>(rng());
  return s;
}

// --- The server under test --------------------------------------------------

class Wire : public ::testing::Test {
 protected:
  void SetUp() override {
    server::ServerOptions o;
    o.address = "127.0.0.1:0";
    o.allow_reuseport = false;
    o.max_receive_message_bytes = 1 << 20;
    auto s = server::CollisionServer::Start(o);
    ASSERT_TRUE(s.ok()) << s.status();
    server_ = *std::move(s);
    limits_ = o.service.limits;
    channel_ = grpc::CreateChannel(server_->address(),
                                   grpc::InsecureChannelCredentials());
  }

  // The server still reports SERVING and answers a real query correctly,
  // on a fresh connection.
  void ExpectStillServing() {
    c::ClientOptions o;
    o.own_connection = true;
    o.retry.enabled = false;
    o.timeout = absl::Seconds(10);
    auto client = c::Client::Create(server_->address(), o);
    ASSERT_TRUE(client.ok()) << client.status();
    absl::StatusOr<bool> serving =
        (*client)->IsServing(server::kHealthServiceName);
    ASSERT_TRUE(serving.ok()) << serving.status();
    EXPECT_TRUE(*serving);
    auto r = (*client)->Intersect(
        c::IntersectBatch()
            .Add(c::Circle(0, 0, 1), c::Circle(2, 0, 1))       // touching
            .Add(c::Circle(0, 0, 1), c::Circle(2.5f, 0, 1)));  // apart
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->results_size(), 2);
    EXPECT_TRUE(r->results(0).hit());
    EXPECT_FALSE(r->results(1).hit());
    EXPECT_EQ(server_->service().in_flight(), 0);
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

  std::unique_ptr<server::CollisionServer> server_;
  server::RequestLimits limits_;
  std::shared_ptr<grpc::Channel> channel_;
};

// --- Below gRPC: TCP and HTTP/2 --------------------------------------------

TEST_F(Wire, Http1RequestIsRefusedAndTheConnectionClosed) {
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  conn.Send(
      "GET /collision.v1.CollisionService/Intersect HTTP/1.1\r\n"
      "Host: 127.0.0.1\r\n\r\n");
  const Ending e = conn.ReadUntilEnd();
  EXPECT_TRUE(e.closed || e.goaway) << "the server kept a non-HTTP/2 peer";
  ExpectStillServing();
}

TEST_F(Wire, RandomBytesInsteadOfThePrefaceCloseTheConnection) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 20; ++i) {
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    conn.Send(RandomBytes(rng, 1 + rng() % 65536));
    const Ending e = conn.ReadUntilEnd();
    EXPECT_TRUE(e.closed || e.goaway) << i;
  }
  ExpectStillServing();
}

TEST_F(Wire, FrameLongerThanTheMaxFrameSizeEndsTheConnection) {
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  // 16 MiB - 1 claimed, 16 bytes sent: far above the 16 KiB SETTINGS_MAX_
  // FRAME_SIZE the server advertises; a FRAME_SIZE_ERROR, not a wait.
  conn.Send(
      absl::StrCat(ClientStart(),
                   Frame(kHeaders, kEndHeaders, 1, RequestHeaders("Intersect")),
                   FrameClaiming(0xffffff, kData, 0, 1, "0123456789abcdef")));
  const Ending e = conn.ReadUntilEnd();
  EXPECT_TRUE(e.closed || e.goaway || e.reset) << "no error for a huge frame";
  ExpectStillServing();
}

TEST_F(Wire, CorruptHeaderBlockEndsTheConnection) {
  std::mt19937_64 rng(11);
  for (int i = 0; i < 10; ++i) {
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    conn.Send(
        absl::StrCat(ClientStart(), Frame(kHeaders, kEndHeaders | kEndStream, 1,
                                          RandomBytes(rng, 1 + rng() % 200))));
    const Ending e = conn.ReadUntilEnd();
    EXPECT_TRUE(e.ended()) << i
                           << ": nothing ended after a corrupt HPACK block";
    EXPECT_FALSE(e.trailers &&
                 LiteralValue(e.trailer_block, "grpc-status") == "0")
        << i << ": a corrupt header block was answered with OK";
  }
  ExpectStillServing();
}

TEST_F(Wire, RandomFrameSequencesNeverHangOrHurtTheServer) {
  std::mt19937_64 rng(2026);
  const std::string headers = RequestHeaders("Intersect");
  for (int i = 0; i < 150; ++i) {
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    std::string bytes(ClientStart());
    const int frames = 1 + static_cast<int>(rng() % 8);
    for (int f = 0; f < frames; ++f) {
      const auto type = static_cast<uint8_t>(rng() % 11);
      const auto flags = static_cast<uint8_t>(rng());
      const uint32_t stream = rng() % 3 == 0 ? 0 : 1 + 2 * (rng() % 3);
      // Half the HEADERS frames carry a valid block, so that streams open
      // and DATA, RST_STREAM and WINDOW_UPDATE reach live streams.
      const std::string payload = type == kHeaders && rng() % 2 == 0
                                      ? headers
                                      : RandomBytes(rng, rng() % 64);
      bytes += Frame(type, flags, stream, payload);
    }
    conn.Send(bytes);
    conn.HalfClose();  // whatever state that left, the server must let go
    const Ending e = conn.ReadUntilEnd();
    EXPECT_FALSE(e.timed_out) << "connection " << i << " hung";
    if (i % 50 == 49) ExpectStillServing();
  }
  ExpectStillServing();
}

TEST_F(Wire, ClientsVanishingMidMessageOrAbandoningStreamsCostNothing) {
  c::IntersectBatch big;
  for (int i = 0; i < 5000; ++i) {
    big.Add(c::Circle(static_cast<float>(i), 0, 1), c::Circle(0, 0, 1));
  }
  const std::string message = GrpcMessage(big.request().SerializeAsString());
  for (int i = 0; i < 20; ++i) {
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    std::string bytes = ClientStart();
    // Stream 1: half a real request; streams 3..: opened and never fed.
    bytes += Frame(kHeaders, kEndHeaders, 1, RequestHeaders("Intersect"));
    bytes += Frame(kData, 0, 1, absl::string_view(message).substr(0, 8000));
    for (uint32_t s = 3; s < 3 + 2 * 50; s += 2) {
      bytes += Frame(kHeaders, kEndHeaders, s, RequestHeaders("ClosestPoint"));
    }
    conn.Send(bytes);
    if (i % 2 == 0) {
      conn.Abort();  // RST, like a crashed process
    } else {
      conn.HalfClose();
      EXPECT_FALSE(conn.ReadUntilEnd().timed_out) << i;
    }
  }
  ExpectStillServing();
}

// --- gRPC framing
// -------------------------------------------------------------

TEST_F(Wire, LengthPrefixClaimingFourGibibytesIsRefusedNotAwaited) {
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  conn.Send(Call("Intersect", GrpcMessage("\x0a\x00", 0, 0xffffffffu)));
  const Ending e = conn.ReadUntilEnd();
  ASSERT_TRUE(e.ended()) << "the server waited for 4 GiB";
  EXPECT_FALSE(e.trailers &&
               LiteralValue(e.trailer_block, "grpc-status") == "0");
  ExpectStillServing();
}

TEST_F(Wire, CompressedFlagWithGarbageIsAnErrorAndWithoutEncodingIsExact) {
  v1::IntersectRequest valid =
      c::IntersectBatch().Add(c::Circle(0, 0, 1), c::Circle(2, 0, 1)).request();
  {
    // Declared gzip, but the bytes are a plain protobuf: never OK.
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    conn.Send(
        Call("Intersect", GrpcMessage(valid.SerializeAsString(), 1), "gzip"));
    const Ending e = conn.ReadUntilEnd();
    ASSERT_TRUE(e.ended());
    EXPECT_FALSE(e.trailers &&
                 LiteralValue(e.trailer_block, "grpc-status") == "0");
  }
  {
    // The flag set with no encoding declared: gRPC 1.51 reads the bytes as
    // they are. Whatever it does, an OK must carry the true answer.
    RawConnection conn(server_->port());
    ASSERT_TRUE(conn.connected());
    conn.Send(Call("Intersect", GrpcMessage(valid.SerializeAsString(), 1)));
    const Ending e = conn.ReadUntilEnd();
    ASSERT_TRUE(e.ended());
    if (e.trailers && LiteralValue(e.trailer_block, "grpc-status") == "0") {
      ASSERT_GT(e.data.size(), 5u);
      v1::IntersectResponse r;
      ASSERT_TRUE(r.ParseFromString(e.data.substr(5)));
      ASSERT_EQ(r.results_size(), 1);
      EXPECT_TRUE(r.results(0).hit());
    }
  }
  ExpectStillServing();
}

TEST_F(Wire, MessageCutShortByEndOfStreamIsAnError) {
  v1::IntersectRequest valid =
      c::IntersectBatch().Add(c::Point(0, 0), c::Point(0, 0)).request();
  const std::string bytes = valid.SerializeAsString();
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  // The prefix promises the whole message; half of it arrives, then
  // END_STREAM.
  conn.Send(
      Call("Intersect", GrpcMessage(bytes.substr(0, bytes.size() / 2), 0,
                                    static_cast<uint32_t>(bytes.size()))));
  const Ending e = conn.ReadUntilEnd();
  ASSERT_TRUE(e.ended());
  EXPECT_FALSE(e.trailers &&
               LiteralValue(e.trailer_block, "grpc-status") == "0");
  ExpectStillServing();
}

TEST_F(Wire, GarbageMessageInAHandWrittenCallGetsInvalidArgument) {
  RawConnection conn(server_->port());
  ASSERT_TRUE(conn.connected());
  // Field 1 (pairs, length-delimited) claiming 100 bytes, with 3 present.
  conn.Send(
      Call("Intersect", GrpcMessage(std::string("\x0a\x64\x01\x02\x03", 5))));
  const Ending e = conn.ReadUntilEnd();
  ASSERT_TRUE(e.trailers) << "closed=" << e.closed << " reset=" << e.reset;
  EXPECT_EQ(LiteralValue(e.trailer_block, "grpc-status"), "3");
  ExpectStillServing();
}

// --- Protobuf: corrupt messages in well-formed calls -------------------------

// Valid requests of each method, serialized, to corrupt.
struct Seed {
  std::string method;
  std::string bytes;
};

std::vector<Seed> Seeds() {
  c::IntersectBatch pairs;
  pairs.WithRelation().WithSeparation();
  pairs.Add(c::Circle(0, 0, 2), c::RectFromMinMax(1, 1, 4, 4));
  pairs.Add(c::Point(3, 4), c::RotatedRectFromPivot(4, 2, 0, 1, 3, 3, 0.5f));
  pairs.Add(c::Sphere(1, 2, 3, 1), c::BoxFromMinMax(0, 0, 0, 1, 1, 1));
  c::ClosestPointBatch queries;
  queries.Add(c::Point(13, 14), c::RectFromCornerSize(0, 0, 10, 10));
  queries.Add(c::Sphere(2, 2, 7, 1), c::BoxFromMinMax(0, 0, 0, 4, 4, 4));
  c::IntersectColumnsBatch columns;
  (void)columns.Add(c::Circle(0, 0, 1), c::Circle(1, 1, 1));
  (void)columns.Add(c::Circle(5, 0, 1), c::Circle(1, 1, 1));
  c::ClosestPointColumnsBatch closest_columns;
  (void)closest_columns.Add(c::Point(3, 3), c::RectFromMinMax(0, 0, 1, 1));
  (void)closest_columns.Add(c::Point(-3, 3), c::RectFromMinMax(0, 0, 1, 1));
  return {
      {"Intersect", pairs.request().SerializeAsString()},
      {"ClosestPoint", queries.request().SerializeAsString()},
      {"IntersectColumns", columns.request().SerializeAsString()},
      {"ClosestPointColumns", closest_columns.request().SerializeAsString()}};
}

std::string Corrupt(std::mt19937_64& rng, const std::string& valid) {
  std::string s = valid;
  switch (rng() % 5) {
    case 0:  // truncated
      s.resize(rng() % (s.size() + 1));
      break;
    case 1:  // a few bits flipped
      for (int k = 0, n = 1 + static_cast<int>(rng() % 4); k < n; ++k) {
        s[rng() % s.size()] ^= static_cast<char>(1u << (rng() % 8));
      }
      break;
    case 2:  // random bytes spliced in
      s.insert(rng() % (s.size() + 1), RandomBytes(rng, 1 + rng() % 16));
      break;
    case 3:  // all random
      s = RandomBytes(rng, rng() % 256);
      break;
    default:  // a valid message followed by garbage
      s += RandomBytes(rng, 1 + rng() % 16);
      break;
  }
  return s;
}

// What the in-process handler answers for `bytes` sent to `method`, with the
// serialized response when OK; nullopt when the bytes do not parse.
template <typename Request, typename Response, typename Handler>
std::optional<std::pair<grpc::Status, std::string>> InProcess(
    const std::string& bytes, const server::RequestLimits& limits,
    Handler handler) {
  Request request;
  if (!request.ParseFromString(bytes)) return std::nullopt;
  Response response;
  const grpc::Status s = handler(request, &response, limits);
  return std::make_pair(s, s.ok() ? response.SerializeAsString() : "");
}

std::optional<std::pair<grpc::Status, std::string>> Expected(
    const std::string& method, const std::string& bytes,
    const server::RequestLimits& limits) {
  auto limited = [](auto handle) {
    return [handle](const auto& q, auto* r, const server::RequestLimits& l) {
      return handle(q, r, server::HandlerContext{l});
    };
  };
  if (method == "Intersect") {
    return InProcess<v1::IntersectRequest, v1::IntersectResponse>(
        bytes, limits, limited([](const auto& q, auto* r, const auto& c) {
          return server::HandleIntersect(q, r, c);
        }));
  }
  if (method == "ClosestPoint") {
    return InProcess<v1::ClosestPointRequest, v1::ClosestPointResponse>(
        bytes, limits, limited([](const auto& q, auto* r, const auto& c) {
          return server::HandleClosestPoint(q, r, c);
        }));
  }
  if (method == "IntersectColumns") {
    return InProcess<v1::IntersectColumnsRequest, v1::IntersectColumnsResponse>(
        bytes, limits, limited([](const auto& q, auto* r, const auto& c) {
          return server::HandleIntersectColumns(q, r, c);
        }));
  }
  return InProcess<v1::ClosestPointColumnsRequest,
                   v1::ClosestPointColumnsResponse>(
      bytes, limits, limited([](const auto& q, auto* r, const auto& c) {
        return server::HandleClosestPointColumns(q, r, c);
      }));
}

std::string Flatten(const grpc::ByteBuffer& buffer) {
  std::vector<grpc::Slice> slices;
  std::string out;
  if (!buffer.Dump(&slices).ok()) return out;
  for (const grpc::Slice& s : slices) {
    out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  return out;
}

TEST_F(Wire, CorruptMessagesOnEveryMethodGetInvalidArgumentOrTheTrueAnswer) {
  std::mt19937_64 rng(99);
  int unparsable = 0, parsed = 0;
  for (const Seed& seed : Seeds()) {
    for (int i = 0; i < 120; ++i) {
      const std::string bytes =
          i == 0 ? std::string() : Corrupt(rng, seed.bytes);
      grpc::ByteBuffer response;
      const grpc::Status got = RawUnary(seed.method, bytes, &response);
      const auto want = Expected(seed.method, bytes, limits_);
      const std::string what = absl::StrCat(seed.method, " #", i);
      if (!want.has_value()) {
        ++unparsable;
        EXPECT_EQ(got.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
            << what << ": " << got.error_message();
        EXPECT_THAT(got.error_message(),
                    HasSubstr(absl::StrCat("not a valid collision.v1.",
                                           seed.method, "Request")))
            << what;
        continue;
      }
      ++parsed;
      EXPECT_EQ(got.error_code(), want->first.error_code())
          << what << ": " << got.error_message();
      EXPECT_EQ(got.error_message(), want->first.error_message()) << what;
      if (got.ok() && want->first.ok()) {
        // Same answer as the handler in process (compared as messages: the
        // byte order of a serialization is not a contract).
        v1::IntersectResponse a, b;
        v1::ClosestPointResponse ca, cb;
        v1::IntersectColumnsResponse ia, ib;
        v1::ClosestPointColumnsResponse pa, pb;
        google::protobuf::Message* got_message = &a;
        google::protobuf::Message* want_message = &b;
        if (seed.method == "ClosestPoint")
          got_message = &ca, want_message = &cb;
        if (seed.method == "IntersectColumns")
          got_message = &ia, want_message = &ib;
        if (seed.method == "ClosestPointColumns")
          got_message = &pa, want_message = &pb;
        ASSERT_TRUE(got_message->ParseFromString(Flatten(response))) << what;
        ASSERT_TRUE(want_message->ParseFromString(want->second)) << what;
        EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
            *got_message, *want_message))
            << what;
      }
    }
  }
  // Both branches were exercised for real.
  EXPECT_GT(unparsable, 50);
  EXPECT_GT(parsed, 50);
  ExpectStillServing();
}

TEST_F(Wire, CorruptMessageOnTheStreamEndsItWithInvalidArgument) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  const std::string path = absl::StrCat(kService, "QueryStream");
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
      stream(grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer,
                                                       grpc::ByteBuffer>::
                 Create(channel_.get(),
                        grpc::internal::RpcMethod(
                            path.c_str(), nullptr,
                            grpc::internal::RpcMethod::BIDI_STREAMING),
                        &context));
  v1::QueryStreamRequest good;
  good.set_sequence(7);
  *good.mutable_intersect() =
      c::IntersectBatch().Add(c::Circle(0, 0, 1), c::Circle(2, 0, 1)).request();
  auto send = [&](const std::string& bytes) {
    grpc::Slice slice(bytes);
    grpc::ByteBuffer b(&slice, 1);
    return stream->Write(b);
  };
  // A good message is answered...
  ASSERT_TRUE(send(good.SerializeAsString()));
  grpc::ByteBuffer reply;
  ASSERT_TRUE(stream->Read(&reply));
  v1::QueryStreamResponse first;
  ASSERT_TRUE(first.ParseFromString(Flatten(reply)));
  EXPECT_EQ(first.sequence(), 7u);
  ASSERT_EQ(first.intersect().results_size(), 1);
  EXPECT_TRUE(first.intersect().results(0).hit());
  // ... a corrupt one (a length running past the end) ends the stream with
  // INVALID_ARGUMENT, never a silent OK.
  send(std::string("\x08\x09\x12\x7f\x01", 5));
  stream->WritesDone();
  EXPECT_FALSE(stream->Read(&reply));
  const grpc::Status s = stream->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT)
      << s.error_message();
  EXPECT_THAT(s.error_message(),
              HasSubstr("message 2 of the stream is not a valid "
                        "collision.v1.QueryStreamRequest"));
  ExpectStillServing();
}

}  // namespace
}  // namespace collision
