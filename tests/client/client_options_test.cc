// Client options against scripted test doubles: bearer token metadata,
// retries on UNAVAILABLE with the server's pushback, the pushback surfaced
// when retries are off, round_robin over two servers, TLS from files.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/health_check_service_interface.h"
#include "gtest/gtest.h"
#include "tests/util/test_server.h"

namespace collision {
namespace {

namespace c = collision::client;
using ::testing::HasSubstr;

// Records the `authorization` metadata and call times; fails the first
// `fail_first` calls with UNAVAILABLE and a pushback trailer.
class RecordingService : public v1::CollisionService::CallbackService {
 public:
  explicit RecordingService(int fail_first = 0, int pushback_ms = 0)
      : fail_first_(fail_first), pushback_ms_(pushback_ms) {}

  grpc::ServerUnaryReactor* Intersect(
      grpc::CallbackServerContext* context, const v1::IntersectRequest* request,
      v1::IntersectResponse* response) override {
    bool fail;
    {
      absl::MutexLock lock(&mu_);
      auto it = context->client_metadata().find("authorization");
      tokens_.push_back(
          it == context->client_metadata().end()
              ? "<none>"
              : std::string(it->second.data(), it->second.size()));
      times_.push_back(absl::Now());
      fail = static_cast<int>(times_.size()) <= fail_first_;
    }
    grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
    if (fail) {
      if (pushback_ms_ > 0) {
        context->AddTrailingMetadata("grpc-retry-pushback-ms",
                                     std::to_string(pushback_ms_));
      }
      reactor->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, "busy"));
      return reactor;
    }
    for (int i = 0; i < request->pairs_size(); ++i) {
      response->add_results()->set_hit(true);
    }
    reactor->Finish(grpc::Status::OK);
    return reactor;
  }

  std::vector<std::string> tokens() {
    absl::MutexLock lock(&mu_);
    return tokens_;
  }
  std::vector<absl::Time> times() {
    absl::MutexLock lock(&mu_);
    return times_;
  }

 private:
  const int fail_first_;
  const int pushback_ms_;
  absl::Mutex mu_;
  std::vector<std::string> tokens_;
  std::vector<absl::Time> times_;
};

c::IntersectBatch OnePair() {
  c::IntersectBatch b;
  b.Add(c::Point(0, 0), c::Point(0, 0));
  return b;
}

TEST(ClientToken, BearerTokenIsSentAsAuthorizationMetadataOnEveryCallForm) {
  RecordingService service;
  testing::TestServer server(&service);
  ASSERT_TRUE(server.ok());
  c::ClientOptions options;
  options.bearer_token = "s3cret";
  auto client = c::Client::Create(server.address(), options);
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Intersect(OnePair()).ok());
  ASSERT_TRUE((*client)->IntersectFuture(OnePair().request()).get().ok());
  EXPECT_THAT(service.tokens(),
              ::testing::ElementsAre("Bearer s3cret", "Bearer s3cret"));

  auto plain = c::Client::Create(server.address());
  ASSERT_TRUE((*plain)->Intersect(OnePair()).ok());
  EXPECT_EQ(service.tokens().back(), "<none>");
}

TEST(ClientToken, TokenWithALineBreakIsRejected) {
  c::ClientOptions options;
  options.bearer_token = "a\r\nb";
  EXPECT_EQ(c::Client::Create("127.0.0.1:1", options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ClientRetry, UnavailableIsRetriedAfterTheServersPushback) {
  RecordingService service(/*fail_first=*/2, /*pushback_ms=*/60);
  testing::TestServer server(&service);
  ASSERT_TRUE(server.ok());
  auto client = c::Client::Create(server.address());
  ASSERT_TRUE(client.ok());
  absl::StatusOr<v1::IntersectResponse> r = (*client)->Intersect(OnePair());
  ASSERT_TRUE(r.ok()) << r.status();
  const std::vector<absl::Time> t = service.times();
  ASSERT_EQ(t.size(), 3u);
  // gRPC waits the pushback (not its own 20 ms initial backoff).
  EXPECT_GE(t[1] - t[0], absl::Milliseconds(55));
  EXPECT_GE(t[2] - t[1], absl::Milliseconds(55));
}

TEST(ClientRetry, WithoutRetriesTheCallerSeesUnavailableAndThePushback) {
  RecordingService service(/*fail_first=*/1, /*pushback_ms=*/70);
  testing::TestServer server(&service);
  ASSERT_TRUE(server.ok());
  c::ClientOptions options;
  options.retry.enabled = false;
  auto client = c::Client::Create(server.address(), options);
  ASSERT_TRUE(client.ok());
  absl::StatusOr<v1::IntersectResponse> r = (*client)->Intersect(OnePair());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
  std::optional<absl::Duration> pushback = c::RetryPushback(r.status());
  ASSERT_TRUE(pushback.has_value());
  EXPECT_EQ(*pushback, absl::Milliseconds(70));
  EXPECT_EQ(service.times().size(), 1u);
}

TEST(ClientRetry, ServiceConfigCarriesPolicyThrottlingAndBalancer) {
  c::ClientOptions options;
  options.load_balancing_policy = "round_robin";
  const std::string json = c::ServiceConfigJson(options);
  EXPECT_THAT(json, HasSubstr(R"("loadBalancingConfig":[{"round_robin":{}}])"));
  EXPECT_THAT(json, HasSubstr(R"("retryableStatusCodes":["UNAVAILABLE"])"));
  EXPECT_THAT(json, HasSubstr(R"("maxAttempts":4)"));
  EXPECT_THAT(json, HasSubstr(R"("retryThrottling":{"maxTokens":100)"));
  options.retry.max_attempts = 1;
  EXPECT_EQ(c::Client::Create("127.0.0.1:1", options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ClientBalancing, RoundRobinSpreadsCallsOverEveryAddress) {
  RecordingService a, b;
  testing::TestServer sa(&a), sb(&b);
  ASSERT_TRUE(sa.ok() && sb.ok());
  c::ClientOptions options;
  options.load_balancing_policy = "round_robin";
  auto client = c::Client::Create(
      absl::StrCat("ipv4:127.0.0.1:", sa.port(), ",127.0.0.1:", sb.port()),
      options);
  ASSERT_TRUE(client.ok());
  // round_robin sends to the addresses it has connected so far: until the
  // second connection is up (later under a sanitizer on a busy machine),
  // every call goes to the first. Count from the moment both have answered
  // (a bounded number of calls, not a time).
  int warm_up = 0;
  for (; warm_up < 5000 && (a.times().empty() || b.times().empty());
       ++warm_up) {
    ASSERT_TRUE((*client)->Intersect(OnePair()).ok());
  }
  ASSERT_FALSE(a.times().empty() || b.times().empty())
      << "one address never answered in " << warm_up << " calls";
  const size_t a0 = a.times().size(), b0 = b.times().size();
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE((*client)->Intersect(OnePair()).ok());
  EXPECT_GE(a.times().size() - a0, 5u);
  EXPECT_GE(b.times().size() - b0, 5u);
  EXPECT_EQ(a.times().size() - a0 + b.times().size() - b0, 20u);
}

TEST(ClientBalancing, HealthCheckingSkipsAServerThatIsNotServing) {
  constexpr char kService[] = "collision.v1.CollisionService";
  grpc::EnableDefaultHealthCheckService(true);
  RecordingService a, b;
  testing::TestServer sa(&a), sb(&b);
  grpc::EnableDefaultHealthCheckService(false);
  ASSERT_TRUE(sa.ok() && sb.ok());
  ASSERT_NE(sa.server()->GetHealthCheckService(), nullptr);
  sa.server()->GetHealthCheckService()->SetServingStatus(kService, false);
  sb.server()->GetHealthCheckService()->SetServingStatus(kService, true);
  c::ClientOptions options;
  options.load_balancing_policy = "round_robin";
  options.health_check_service = kService;
  EXPECT_THAT(c::ServiceConfigJson(options),
              HasSubstr(R"("healthCheckConfig":{"serviceName":")"));
  auto client = c::Client::Create(
      absl::StrCat("ipv4:127.0.0.1:", sa.port(), ",127.0.0.1:", sb.port()),
      options);
  ASSERT_TRUE(client.ok());
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE((*client)->Intersect(OnePair()).ok());
  EXPECT_EQ(a.times().size(), 0u);
  EXPECT_EQ(b.times().size(), 20u);
}

TEST(ClientTls, MissingFilesFailClearlyAtCreate) {
  c::ClientOptions options;
  options.tls.enabled = true;
  options.tls.root_ca_file = "/nonexistent/ca.pem";
  absl::Status s = c::Client::Create("127.0.0.1:1", options).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("tls.root_ca_file"));
  EXPECT_THAT(s.message(), HasSubstr("/nonexistent/ca.pem"));

  options.tls.root_ca_file.clear();
  options.tls.cert_chain_file = "/nonexistent/cert.pem";
  s = c::Client::Create("127.0.0.1:1", options).status();
  EXPECT_THAT(s.message(), HasSubstr("go together"));
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ClientTls, TalksToATlsServerTrustingTheGivenCa) {
  const std::string dir = ::testing::TempDir() + "/client_tls";
  const std::string cmd = absl::StrCat(
      "mkdir -p ", dir, " && openssl req -x509 -newkey rsa:2048 -nodes -days 1",
      " -subj /CN=collision.test -addext subjectAltName=DNS:collision.test",
      " -keyout ", dir, "/key.pem -out ", dir, "/cert.pem 2>/dev/null");
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "openssl failed: " << cmd;
  grpc::SslServerCredentialsOptions ssl;
  ssl.pem_key_cert_pairs.push_back(
      {ReadAll(dir + "/key.pem"), ReadAll(dir + "/cert.pem")});
  RecordingService service;
  testing::TestServer server(&service, grpc::SslServerCredentials(ssl));
  ASSERT_TRUE(server.ok());

  c::ClientOptions options;
  options.timeout = absl::Seconds(10);
  options.tls.enabled = true;
  options.tls.root_ca_file = dir + "/cert.pem";
  options.tls.server_name_override = "collision.test";
  options.bearer_token = "over-tls";
  auto client = c::Client::Create(server.address(), options);
  ASSERT_TRUE(client.ok()) << client.status();
  absl::StatusOr<v1::IntersectResponse> r = (*client)->Intersect(OnePair());
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(service.tokens().back(), "Bearer over-tls");

  // A plaintext client cannot talk to it.
  c::ClientOptions plain;
  plain.timeout = absl::Seconds(2);
  plain.retry.enabled = false;
  auto insecure = c::Client::Create(server.address(), plain);
  EXPECT_FALSE((*insecure)->Intersect(OnePair()).ok());
}

}  // namespace
}  // namespace collision
