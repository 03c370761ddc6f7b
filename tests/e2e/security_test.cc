// TLS, mutual TLS and bearer tokens on a real server (127.0.0.1:0), called
// through the C++ client library. Certificates are made at test time by
// make_test_certs.sh (openssl); nothing secret is committed.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/util/http_get.h"
#include "tests/util/local_server.h"

namespace collision {
namespace {

namespace c = collision::client;
using ::testing::HasSubstr;

class Security : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(
        absl::StrCat(::testing::TempDir(), "certs-", std::to_string(getpid())));
    const std::string cmd =
        absl::StrCat("bash ", COLLISION_CERT_SCRIPT, " ", *dir_);
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  }
  static std::string File(const std::string& name) {
    return absl::StrCat(*dir_, "/", name);
  }

  std::unique_ptr<server::CollisionServer> Start(bool mutual,
                                                 std::string token_file = "") {
    server::ServerOptions o;
    o.tls.cert_chain_file = File("server.pem");
    o.tls.private_key_file = File("server.key");
    if (mutual) o.tls.client_ca_file = File("ca.pem");
    o.token_file = std::move(token_file);
    return testing::StartServer(std::move(o));
  }

  // One Intersect call; the status code it ends with.
  static absl::StatusCode Call(const server::CollisionServer& s,
                               c::ClientOptions o) {
    o.timeout = absl::Seconds(3);
    o.retry.enabled = false;
    o.own_connection = true;
    auto client = c::Client::Create(s.address(), o);
    EXPECT_TRUE(client.ok()) << client.status();
    return (*client)
        ->Intersect(c::IntersectBatch().Add(c::Point(0, 0), c::Point(0, 0)))
        .status()
        .code();
  }

  static c::ClientOptions Tls(const std::string& cert = "") {
    c::ClientOptions o;
    o.tls.enabled = true;
    o.tls.root_ca_file = File("ca.pem");
    o.tls.server_name_override = "localhost";
    if (!cert.empty()) {
      o.tls.cert_chain_file = File(cert + ".pem");
      o.tls.private_key_file = File(cert + ".key");
    }
    return o;
  }

  static std::string* dir_;
};
std::string* Security::dir_ = nullptr;

TEST_F(Security, TlsServesTlsClientsAndRefusesPlaintext) {
  auto s = Start(/*mutual=*/false);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Call(*s, Tls()), absl::StatusCode::kOk);
  EXPECT_EQ(Call(*s, c::ClientOptions()), absl::StatusCode::kUnavailable);
  // A client that does not trust the server's CA refuses it.
  c::ClientOptions wrong_ca = Tls();
  wrong_ca.tls.root_ca_file = File("rogue-ca.pem");
  EXPECT_EQ(Call(*s, wrong_ca), absl::StatusCode::kUnavailable);
}

TEST_F(Security, MutualTlsNeedsAClientCertificateFromTheTrustedCa) {
  auto s = Start(/*mutual=*/true);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Call(*s, Tls("client")), absl::StatusCode::kOk);
  EXPECT_EQ(Call(*s, Tls()), absl::StatusCode::kUnavailable);
  EXPECT_EQ(Call(*s, Tls("rogue-client")), absl::StatusCode::kUnavailable);
}

TEST_F(Security, BearerTokensAreRequiredButHealthStaysOpen) {
  const std::string tokens = File("tokens");
  std::ofstream(tokens) << "# comment\n\nfirst-secret-token\nsecond-token\n";
  auto s = Start(/*mutual=*/false, tokens);
  ASSERT_NE(s, nullptr);
  c::ClientOptions none = Tls();
  EXPECT_EQ(Call(*s, none), absl::StatusCode::kUnauthenticated);
  c::ClientOptions wrong = Tls();
  wrong.bearer_token = "first-secret-toke";
  EXPECT_EQ(Call(*s, wrong), absl::StatusCode::kUnauthenticated);
  c::ClientOptions right = Tls();
  right.bearer_token = "second-token";
  EXPECT_EQ(Call(*s, right), absl::StatusCode::kOk);
  // Probes need no token.
  auto probe = c::Client::Create(s->address(), Tls());
  ASSERT_TRUE(probe.ok());
  EXPECT_TRUE(*(*probe)->IsServing(server::kHealthServiceName));
  // The message says what is missing without echoing anything secret.
  auto client = c::Client::Create(s->address(), wrong);
  auto r = (*client)->Intersect(
      c::IntersectBatch().Add(c::Point(0, 0), c::Point(0, 0)));
  EXPECT_EQ(r.status().message(), "invalid bearer token");
}

// RFC 7235 2.1: the auth scheme is case-insensitive.
TEST(SecurityTokens, TheBearerSchemeIsCaseInsensitiveTheTokenIsNot) {
  const server::TokenSet tokens({"Secret-1"});
  EXPECT_TRUE(tokens.Accepts("Bearer Secret-1"));
  EXPECT_TRUE(tokens.Accepts("bearer Secret-1"));
  EXPECT_TRUE(tokens.Accepts("BEARER Secret-1"));
  EXPECT_FALSE(tokens.Accepts("bearer secret-1"));
  EXPECT_FALSE(tokens.Accepts("Basic Secret-1"));
  EXPECT_FALSE(tokens.Accepts("BearerSecret-1"));
}

// Reflection is gRPC's own service and cannot check a token: a server that
// requires tokens does not serve it (a caller without a token learns
// nothing of the schema); one that does not require them does.
TEST_F(Security, ReflectionIsOffWhenTokensAreRequired) {
  const std::string tokens = File("tokens-reflection");
  std::ofstream(tokens) << "reflection-token\n";
  for (const bool with_tokens : {true, false}) {
    auto s = Start(/*mutual=*/false, with_tokens ? tokens : "");
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->reflection(), !with_tokens);
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("localhost");
    std::ifstream ca_in(File("ca.pem"));
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = std::string(std::istreambuf_iterator<char>(ca_in), {});
    auto channel = grpc::CreateCustomChannel(s->address(),
                                             grpc::SslCredentials(ssl), args);
    // ServerReflectionInfo with a list_services request (field 7, "").
    grpc::GenericStub stub(channel);
    grpc::CompletionQueue cq;
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(5));
    auto call = stub.PrepareCall(
        &ctx, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        &cq);
    void* tag = nullptr;
    bool ok = false;
    call->StartCall(reinterpret_cast<void*>(1));
    ASSERT_TRUE(cq.Next(&tag, &ok));
    grpc::Slice slice(std::string("\x3a\x00", 2));
    grpc::ByteBuffer request(&slice, 1);
    call->WriteLast(request, grpc::WriteOptions(), reinterpret_cast<void*>(2));
    ASSERT_TRUE(cq.Next(&tag, &ok));
    grpc::ByteBuffer response;
    call->Read(&response, reinterpret_cast<void*>(3));
    ASSERT_TRUE(cq.Next(&tag, &ok));
    const bool answered = ok;
    grpc::Status status;
    call->Finish(&status, reinterpret_cast<void*>(4));
    ASSERT_TRUE(cq.Next(&tag, &ok));
    cq.Shutdown();
    while (cq.Next(&tag, &ok)) {
    }
    if (with_tokens) {
      EXPECT_FALSE(answered);
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNIMPLEMENTED);
    } else {
      EXPECT_TRUE(answered);
      EXPECT_TRUE(status.ok()) << status.error_message();
      std::vector<grpc::Slice> slices;
      ASSERT_TRUE(response.Dump(&slices).ok());
      std::string bytes;
      for (const auto& sl : slices) {
        bytes.append(reinterpret_cast<const char*>(sl.begin()), sl.size());
      }
      EXPECT_NE(bytes.find("collision.v1.CollisionService"), std::string::npos);
    }
  }
}

TEST_F(Security, StreamsNeedTheTokenToo) {
  const std::string tokens = File("tokens-stream");
  std::ofstream(tokens) << "stream-token\n";
  auto s = Start(/*mutual=*/false, tokens);
  ASSERT_NE(s, nullptr);
  // (The generated stub with raw metadata, to reach QueryStream directly.)
  grpc::ChannelArguments args;
  args.SetSslTargetNameOverride("localhost");
  std::ifstream ca_in(File("ca.pem"));
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = std::string(std::istreambuf_iterator<char>(ca_in), {});
  auto stub = v1::CollisionService::NewStub(
      grpc::CreateCustomChannel(s->address(), grpc::SslCredentials(ssl), args));
  for (const char* token : {"", "stream-token"}) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() +
                     std::chrono::seconds(5));
    if (*token)
      ctx.AddMetadata("authorization", absl::StrCat("Bearer ", token));
    auto stream = stub->QueryStream(&ctx);
    v1::QueryStreamRequest request;
    request.set_sequence(1);
    request.mutable_intersect()->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    auto* p = request.mutable_intersect()->add_pairs();
    p->mutable_a()->mutable_point();
    p->mutable_b()->mutable_point();
    stream->Write(request);
    stream->WritesDone();
    v1::QueryStreamResponse response;
    const bool got = stream->Read(&response);
    const grpc::Status status = stream->Finish();
    if (*token) {
      EXPECT_TRUE(got);
      EXPECT_TRUE(status.ok()) << status.error_message();
    } else {
      EXPECT_FALSE(got);
      EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED);
    }
  }
}

// A TLS port keeps gRPC's own listener (gRPC 1.51 takes connections from
// outside only without TLS): there the limit closes a connection over it
// before its handshake, and the open ones go on.
TEST_F(Security, TlsConnectionsBeyondTheLimitAreClosedAndTheOthersGoOn) {
  server::ServerOptions o;
  o.tls.cert_chain_file = File("server.pem");
  o.tls.private_key_file = File("server.key");
  o.max_connections = 8;
  o.metrics_address = "127.0.0.1:0";
  auto s = testing::StartServer(std::move(o));
  ASSERT_NE(s, nullptr);
  const auto metric = [&](const std::string& sample) {
    auto value = testing::MetricSample(s->metrics_port(), sample);
    EXPECT_TRUE(value.ok()) << value.status();
    return value.ok() ? *value : -1.0;
  };
  const auto wait_for = [&](const std::string& sample, auto done) {
    const absl::Time until = absl::Now() + absl::Seconds(20);
    while (!done(metric(sample)) && absl::Now() < until) {
      absl::SleepFor(absl::Milliseconds(20));
    }
    return done(metric(sample));
  };
  const std::string kRejected =
      "collision_rejected_total{reason=\"connection_limit\"}";
  c::ClientOptions honest_options = Tls();
  honest_options.own_connection = true;
  honest_options.retry.enabled = false;
  honest_options.timeout = absl::Seconds(5);
  auto honest = c::Client::Create(s->address(), honest_options);
  ASSERT_TRUE(honest.ok()) << honest.status();
  const auto batch = c::IntersectBatch().Add(c::Point(0, 0), c::Point(0, 0));
  ASSERT_TRUE((*honest)->Intersect(batch).ok());

  // 40 connections that never begin their handshake: 7 fill the limit
  // beside the honest one, the other 33 are closed by the server.
  constexpr int kFlood = 40, kKept = 7;
  std::vector<int> flood;
  for (int i = 0; i < kFlood; ++i) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    ASSERT_GE(fd, 0);
    flood.push_back(fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(s->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  }
  ASSERT_TRUE(wait_for(kRejected, [](double v) { return v >= kFlood - kKept; }))
      << metric(kRejected);
  EXPECT_EQ(metric(kRejected), kFlood - kKept);
  EXPECT_EQ(metric("collision_connections"), kKept + 1);
  // (Each refusal is counted after its shutdown: every refused socket has
  // its end of stream by now.)
  int closed = 0;
  for (int fd : flood) {
    char byte;
    if (recv(fd, &byte, 1, MSG_DONTWAIT) == 0) ++closed;
  }
  EXPECT_EQ(closed, kFlood - kKept);
  // A new client cannot connect; the honest one goes on.
  EXPECT_EQ(Call(*s, Tls()), absl::StatusCode::kUnavailable);
  EXPECT_TRUE((*honest)->Intersect(batch).ok());

  // Once the flood has gone, new clients are served again, and the gauge
  // falls (recounted every second).
  for (int fd : flood) close(fd);
  const absl::Time until = absl::Now() + absl::Seconds(20);
  absl::StatusCode code = Call(*s, Tls());
  while (code != absl::StatusCode::kOk && absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(20));
    code = Call(*s, Tls());
  }
  EXPECT_EQ(code, absl::StatusCode::kOk);
  EXPECT_TRUE(wait_for("collision_connections", [](double v) {
    return v >= 1 && v <= 2;
  })) << metric("collision_connections");
  EXPECT_TRUE((*honest)->Intersect(batch).ok());
}

TEST(SecurityConfig, BadFilesAreClearErrors) {
  server::ServerOptions o;
  o.address = "127.0.0.1:0";
  o.tls.cert_chain_file = "/nonexistent/server.pem";
  o.tls.private_key_file = "/nonexistent/server.key";
  auto s = server::CollisionServer::Start(o);
  EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.status().message(), HasSubstr("/nonexistent/server.pem"));
  server::ServerOptions t;
  t.address = "127.0.0.1:0";
  t.token_file = "/nonexistent/tokens";
  EXPECT_THAT(server::CollisionServer::Start(t).status().message(),
              HasSubstr("cannot read token file"));
  server::ServerOptions ca_only;
  ca_only.address = "127.0.0.1:0";
  ca_only.tls.client_ca_file = "/tmp/ca.pem";
  EXPECT_THAT(server::CollisionServer::Start(ca_only).status().message(),
              HasSubstr("a client CA needs TLS"));
}

}  // namespace
}  // namespace collision
