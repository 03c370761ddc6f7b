// The scene port (server/scene_port.h) from outside, with raw frames on a
// real socket: it answers exactly as SceneService.Session does, asks for
// the token, answers an oversized message alone and goes on, ends a stream
// that sends something else, refuses connections beyond its limit, cuts a
// half-sent frame at its timeout, and ends streams at a message boundary
// when the server drains or a stream reaches its age. Then the C++
// SceneSession over it, failing over from a drained replica to the next.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "collision/client/scene_session.h"
#include "collision/v1/scene.grpc.pb.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/transport/security.h"
#include "server/server.h"
#include "tests/util/local_server.h"

namespace collision {
namespace {

// A raw connection to a scene port.
class Frames {
 public:
  explicit Frames(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
    const int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    timeval t{30, 0};  // a test never waits longer for a frame
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &t, sizeof(t));
  }
  ~Frames() { close(fd_); }
  bool connected() const { return connected_; }

  bool SendRaw(const std::string& bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  static std::string Frame(const std::string& body) {
    const uint32_t n = static_cast<uint32_t>(body.size());
    std::string out = {static_cast<char>(n), static_cast<char>(n >> 8),
                       static_cast<char>(n >> 16), static_cast<char>(n >> 24)};
    return out + body;
  }
  bool Hello(const std::string& authorization = "") {
    v1::SceneHello hello;
    hello.set_authorization(authorization);
    return SendRaw(Frame(hello.SerializeAsString()));
  }
  bool Send(const v1::SceneRequest& r) {
    return SendRaw(Frame(r.SerializeAsString()));
  }
  // The next frame; false when the connection ended first.
  bool Receive(v1::SceneResponse* out) {
    unsigned char h[4];
    if (!ReadExactly(reinterpret_cast<char*>(h), 4)) return false;
    std::string body(uint32_t{h[0]} | uint32_t{h[1]} << 8 |
                         uint32_t{h[2]} << 16 | uint32_t{h[3]} << 24,
                     '\0');
    return ReadExactly(body.data(), body.size()) && out->ParseFromString(body);
  }
  // The connection's end: closed by the server after its end frame.
  bool ClosedAfter(v1::SceneResponse* end) {
    if (!Receive(end) || !end->has_end()) return false;
    char c;
    return recv(fd_, &c, 1, 0) == 0;
  }
  void HalfClose() { shutdown(fd_, SHUT_WR); }

 private:
  bool ReadExactly(char* out, std::size_t n) {
    std::size_t got = 0;
    while (got < n) {
      const ssize_t r = recv(fd_, out + got, n - got, 0);
      if (r <= 0) return false;
      got += static_cast<std::size_t>(r);
    }
    return true;
  }
  int fd_ = -1;
  bool connected_ = false;
};

std::unique_ptr<server::CollisionServer> StartWithPort(
    server::ServerOptions options = {}) {
  options.scene_port_address = "127.0.0.1:0";
  return testing::StartServer(std::move(options));
}

v1::SceneRequest Config(uint64_t sequence) {
  v1::SceneRequest r;
  r.set_sequence(sequence);
  r.mutable_config()->set_dimension(v1::DIMENSION_2D);
  r.mutable_config()->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  r.mutable_config()->set_history_ticks(8);
  return r;
}

// Tick `t` of a random world with every kind of query, some rewound.
v1::SceneRequest Tick(uint64_t sequence, uint64_t t, std::mt19937* rng) {
  std::uniform_real_distribution<float> pos(0, 40), size(0.2f, 3);
  v1::SceneRequest r;
  r.set_sequence(sequence);
  v1::SceneUpdate* u = r.mutable_update();
  u->set_tick(t);
  for (uint64_t id = 1; id <= 60; ++id) {
    v1::SceneEntity* e = u->add_upserts();
    e->set_id(id);
    if (id % 3 == 0) {
      v1::Rect* rect = e->mutable_shape()->mutable_rect();
      const float x = pos(*rng), y = pos(*rng);
      rect->mutable_min()->set_x(x);
      rect->mutable_min()->set_y(y);
      rect->mutable_max()->set_x(x + size(*rng));
      rect->mutable_max()->set_y(y + size(*rng));
    } else {
      v1::Circle* c = e->mutable_shape()->mutable_circle();
      c->mutable_center()->set_x(pos(*rng));
      c->mutable_center()->set_y(pos(*rng));
      c->set_radius(size(*rng));
    }
  }
  for (int i = 0; i < 12; ++i) {
    v1::SceneQuery* q = r.add_queries();
    if (i % 3 == 0) {
      v1::Circle* c = q->mutable_overlap()->mutable_shape()->mutable_circle();
      c->mutable_center()->set_x(pos(*rng));
      c->mutable_center()->set_y(pos(*rng));
      c->set_radius(5);
      q->set_max_hits(20);
    } else if (i % 3 == 1) {
      v1::NearestQuery* n = q->mutable_nearest();
      n->mutable_shape()->mutable_point()->set_x(pos(*rng));
      n->mutable_shape()->mutable_point()->set_y(pos(*rng));
      n->set_k(3);
    } else {
      v1::RaycastQuery* ray = q->mutable_raycast();
      ray->mutable_origin()->set_x(-1);
      ray->mutable_origin()->set_y(pos(*rng));
      ray->mutable_direction()->set_x(1);
      ray->set_max_distance(60);
      if (t > 3) {
        q->mutable_at()->set_tick(t - 2);
        q->mutable_at()->set_fraction(0.5f);
      }
    }
  }
  return r;
}

TEST(ScenePort, AnswersExactlyAsTheGrpcStream) {
  auto server = StartWithPort();
  ASSERT_NE(server, nullptr);
  ASSERT_GT(server->scene_port(), 0);
  Frames port(server->scene_port());
  ASSERT_TRUE(port.connected());
  ASSERT_TRUE(port.Hello());
  auto stub = v1::SceneService::NewStub(grpc::CreateChannel(
      server->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  auto stream = stub->Session(&context);
  std::mt19937 rng(3);
  for (uint64_t m = 1; m <= 20; ++m) {
    const v1::SceneRequest request = m == 1 ? Config(1) : Tick(m, m - 1, &rng);
    v1::SceneResponse by_grpc, by_port;
    ASSERT_TRUE(stream->Write(request));
    ASSERT_TRUE(stream->Read(&by_grpc));
    ASSERT_TRUE(port.Send(request));
    ASSERT_TRUE(port.Receive(&by_port));
    EXPECT_FALSE(by_port.has_error()) << by_port.error().message();
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(by_grpc, by_port))
        << "message " << m << "\ngrpc: " << by_grpc.ShortDebugString()
        << "\nport: " << by_port.ShortDebugString();
  }
  // A half-close ends the stream with OK after every answer.
  port.HalfClose();
  v1::SceneResponse end;
  ASSERT_TRUE(port.ClosedAfter(&end));
  EXPECT_EQ(end.end().code(), 0) << end.end().message();
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST(ScenePort, TheTokenIsRequiredInTheHello) {
  char path[] = "/tmp/scene_port_tokens.XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, "s3cret\n", 7), 7);
  close(fd);
  server::ServerOptions options;
  auto tokens = server::TokenSet::LoadFile(path);
  ASSERT_TRUE(tokens.ok());
  options.service.tokens = std::make_shared<server::TokenSet>(*tokens);
  auto server = StartWithPort(options);
  unlink(path);
  ASSERT_NE(server, nullptr);
  for (const std::string& wrong : {std::string(), std::string("Bearer nope")}) {
    Frames port(server->scene_port());
    ASSERT_TRUE(port.Hello(wrong));
    port.Send(Config(1));  // may meet the closed connection
    v1::SceneResponse end;
    ASSERT_TRUE(port.ClosedAfter(&end)) << "token '" << wrong << "'";
    EXPECT_EQ(end.end().code(), grpc::StatusCode::UNAUTHENTICATED);
  }
  Frames port(server->scene_port());
  ASSERT_TRUE(port.Hello("Bearer s3cret"));
  ASSERT_TRUE(port.Send(Config(1)));
  v1::SceneResponse opened;
  ASSERT_TRUE(port.Receive(&opened));
  EXPECT_FALSE(opened.has_error()) << opened.error().message();
  EXPECT_EQ(opened.sequence(), 1u);
}

TEST(ScenePort, AnOversizedMessageIsAnsweredAloneAndTheStreamGoesOn) {
  server::ServerOptions options;
  options.max_receive_message_bytes = 64 << 10;
  auto server = StartWithPort(options);
  ASSERT_NE(server, nullptr);
  Frames port(server->scene_port());
  ASSERT_TRUE(port.Hello());
  ASSERT_TRUE(port.Send(Config(1)));
  v1::SceneResponse r;
  ASSERT_TRUE(port.Receive(&r));
  ASSERT_FALSE(r.has_error());
  // 200k entities' worth of columns: ~1 MB, far over 64 KiB.
  v1::SceneRequest big;
  big.set_sequence(2);
  big.mutable_update()->set_tick(1);
  v1::EntityColumns* g = big.mutable_update()->add_upsert_columns();
  for (int i = 0; i < 100000; ++i) {
    g->add_ids(static_cast<uint64_t>(i + 1));
    g->mutable_circles()->add_x(static_cast<float>(i));
    g->mutable_circles()->add_y(0);
  }
  ASSERT_TRUE(port.Send(big));
  ASSERT_TRUE(port.Receive(&r));
  EXPECT_EQ(r.sequence(), 2u);
  EXPECT_EQ(r.error().code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(r.error().message().find("max_receive_message_bytes"),
            std::string::npos)
      << r.error().message();
  std::mt19937 rng(1);
  ASSERT_TRUE(port.Send(Tick(3, 1, &rng)));
  ASSERT_TRUE(port.Receive(&r));
  EXPECT_EQ(r.sequence(), 3u);
  EXPECT_FALSE(r.has_error()) << r.error().message();
  EXPECT_EQ(r.entities(), 60u);
}

TEST(ScenePort, BytesThatAreNotAMessageEndTheStream) {
  auto server = StartWithPort();
  ASSERT_NE(server, nullptr);
  {
    Frames port(server->scene_port());
    ASSERT_TRUE(port.SendRaw(Frames::Frame(std::string("\xff\xff\xff", 3))));
    v1::SceneResponse end;
    ASSERT_TRUE(port.ClosedAfter(&end));
    EXPECT_EQ(end.end().code(), grpc::StatusCode::INVALID_ARGUMENT);
  }
  Frames port(server->scene_port());
  ASSERT_TRUE(port.Hello());
  ASSERT_TRUE(port.Send(Config(1)));
  v1::SceneResponse r;
  ASSERT_TRUE(port.Receive(&r));
  ASSERT_TRUE(port.SendRaw(Frames::Frame(std::string("\x0a\xff", 2))));
  ASSERT_TRUE(port.ClosedAfter(&r));
  EXPECT_EQ(r.end().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(r.end().message().find("message 2 of the stream"),
            std::string::npos)
      << r.end().message();
}

TEST(ScenePort, ConnectionsBeyondTheLimitAreEndedAndTheOthersGoOn) {
  server::ServerOptions options;
  options.service.scenes.max_scenes = 2;
  auto server = StartWithPort(options);
  ASSERT_NE(server, nullptr);
  Frames a(server->scene_port()), b(server->scene_port());
  ASSERT_TRUE(a.Hello());
  ASSERT_TRUE(b.Hello());
  v1::SceneResponse r;
  ASSERT_TRUE(a.Send(Config(1)));
  ASSERT_TRUE(a.Receive(&r));  // both are being served now
  ASSERT_TRUE(b.Send(Config(1)));
  ASSERT_TRUE(b.Receive(&r));
  Frames c(server->scene_port());
  ASSERT_TRUE(c.ClosedAfter(&r));
  EXPECT_EQ(r.end().code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  std::mt19937 rng(2);
  ASSERT_TRUE(a.Send(Tick(2, 1, &rng)));
  ASSERT_TRUE(a.Receive(&r));
  EXPECT_FALSE(r.has_error());
}

TEST(ScenePort, AHalfSentFrameIsCutAtTheFrameTimeout) {
  server::ServerOptions options;
  options.scene_port_frame_timeout = absl::Milliseconds(300);
  auto server = StartWithPort(options);
  ASSERT_NE(server, nullptr);
  Frames port(server->scene_port());
  ASSERT_TRUE(port.Hello());
  // A frame announcing 1 MB, of which 10 bytes ever come.
  ASSERT_TRUE(port.SendRaw(std::string("\x00\x00\x10\x00", 4) +
                           std::string(10, '\x08')));
  v1::SceneResponse r;
  EXPECT_FALSE(port.Receive(&r)) << "the connection is closed, unanswered";
  // The server goes on.
  Frames next(server->scene_port());
  ASSERT_TRUE(next.Hello());
  ASSERT_TRUE(next.Send(Config(1)));
  ASSERT_TRUE(next.Receive(&r));
  EXPECT_FALSE(r.has_error());
}

TEST(ScenePort, ADrainEndsStreamsBetweenMessages) {
  auto server = StartWithPort();
  ASSERT_NE(server, nullptr);
  Frames port(server->scene_port());
  ASSERT_TRUE(port.Hello());
  ASSERT_TRUE(port.Send(Config(1)));
  v1::SceneResponse r;
  ASSERT_TRUE(port.Receive(&r));
  server->Shutdown(absl::Seconds(5));
  ASSERT_TRUE(port.ClosedAfter(&r));
  EXPECT_EQ(r.end().code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(r.end().message().find("stopping"), std::string::npos);
}

TEST(ScenePort, AStreamEndsAtItsMaximumAge) {
  server::ServerOptions options;
  // Streams live a tenth less than the connections' age and grace.
  options.max_connection_age = absl::Milliseconds(250);
  options.max_connection_age_grace = absl::Milliseconds(250);
  auto server = StartWithPort(options);
  ASSERT_NE(server, nullptr);
  Frames port(server->scene_port());
  ASSERT_TRUE(port.Hello());
  ASSERT_TRUE(port.Send(Config(1)));
  v1::SceneResponse r;
  ASSERT_TRUE(port.Receive(&r));
  ASSERT_TRUE(port.ClosedAfter(&r));
  EXPECT_EQ(r.end().code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_NE(r.end().message().find("maximum age"), std::string::npos);
}

TEST(ScenePort, TheServerRefusesItBesideTls) {
  server::ServerOptions options;
  options.scene_port_address = "127.0.0.1:0";
  options.tls.cert_chain_file = "/nonexistent/cert.pem";
  options.address = "127.0.0.1:0";
  auto server = server::CollisionServer::Start(options);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("scene port"), std::string::npos);
}

// The C++ session over the scene port: ticks answered as over gRPC, and a
// drained replica left for the next address of the list, every rewound
// query still answered from the whole history.
TEST(ScenePort, ASessionFailsOverToTheNextPort) {
  auto first = StartWithPort();
  auto second = StartWithPort();
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  auto client = client::Client::Create(first->address());
  ASSERT_TRUE(client.ok());
  client::SceneSessionOptions options;
  options.scene_port = absl::StrCat("127.0.0.1:", first->scene_port(),
                                    ",127.0.0.1:", second->scene_port());
  options.first_backoff = absl::Milliseconds(1);
  auto session =
      client::SceneSession::Open(**client, Config(0).config(), options);
  ASSERT_TRUE(session.ok()) << session.status();
  std::mt19937 rng(4), same(4);
  // The reference: an unbroken gRPC stream on the second server.
  auto stub = v1::SceneService::NewStub(grpc::CreateChannel(
      second->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  auto stream = stub->Session(&context);
  v1::SceneResponse want;
  ASSERT_TRUE(stream->Write(Config(1)) && stream->Read(&want));
  for (uint64_t t = 1; t <= 12; ++t) {
    if (t == 7) first->Shutdown(absl::Seconds(5));
    v1::SceneRequest tick = Tick(0, t, &rng);
    absl::StatusOr<v1::SceneResponse> got = (*session)->Send(tick);
    ASSERT_TRUE(got.ok()) << "tick " << t << ": " << got.status();
    v1::SceneRequest reference = Tick(t + 1, t, &same);
    ASSERT_TRUE(stream->Write(reference) && stream->Read(&want));
    got->clear_sequence();
    want.clear_sequence();
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*got, want))
        << "tick " << t << "\nsession: " << got->ShortDebugString()
        << "\nwant:    " << want.ShortDebugString();
  }
  EXPECT_EQ((*session)->reopens(), 1);
  EXPECT_TRUE((*session)->Finish().ok());
}

}  // namespace
}  // namespace collision
