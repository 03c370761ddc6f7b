// End to end: a real server on 127.0.0.1, port 0, SO_REUSEPORT off, called
// through the C++ client library over loopback.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/util/local_server.h"

namespace collision {
namespace {

namespace c = collision::client;
using ::testing::HasSubstr;

using testing::StartServer;

std::unique_ptr<c::Client> Connect(const server::CollisionServer& s,
                                   c::ClientOptions options = {}) {
  auto client = c::Client::Create(s.address(), options);
  EXPECT_TRUE(client.ok()) << client.status();
  EXPECT_TRUE((*client)->WaitUntilServing(absl::Seconds(10)).ok());
  return *std::move(client);
}

class EndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = StartServer();
    ASSERT_NE(server_, nullptr);
    ASSERT_GT(server_->port(), 0);
    client_ = Connect(*server_);
  }
  std::unique_ptr<server::CollisionServer> server_;
  std::unique_ptr<c::Client> client_;
};

TEST_F(EndToEnd, HealthReportsServingForTheServerAndTheService) {
  EXPECT_TRUE(*client_->IsServing(""));
  EXPECT_TRUE(*client_->IsServing(server::kHealthServiceName));
  server_->SetServing(false);
  EXPECT_FALSE(*client_->IsServing(server::kHealthServiceName));
  absl::StatusOr<bool> unknown = client_->IsServing("no.such.Service");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(EndToEnd, EveryParametrisationAnswersThroughTheWire) {
  c::IntersectBatch batch;
  batch.WithRelation().WithSeparation();
  // Each row: a pair whose exact answer is known on integer coordinates.
  batch.Add(c::Circle(5, 5, 2), c::RectFromCornerSize(7, 0, 4, 10));  // touch
  batch.Add(c::Circle(5, 5, 2), c::RectFromMinMax(6, 0, 10, 10));     // overlap
  batch.Add(c::Circle(5, 5, 2), c::RectFromCenterHalfExtents(8, 5, 1, 1));
  batch.Add(c::Point(10, 13),
            c::RotatedRectFromPivot(4, 2, 0, 1, 10, 10, 1.57079637f));
  batch.Add(c::Point(-1, 3),
            c::RotatedRectFromPivotCosSin(4, 2, 0, 0, 0, 0, 0, 1));
  batch.Add(c::Point(2, 0),
            c::RotatedRectAboutCenter(-1, -2, 2, 4, c::DegreesToRadians(90)));
  batch.Add(c::Circle(0, 0, 2), c::Circle(5, 0, 3));
  batch.Add(c::RectFromMinMax(0, 0, 1, 1), c::RectFromMinMax(4, 5, 6, 6));
  batch.Add(c::Sphere(3, 4, 4, 3), c::BoxFromMinMax(0, 0, 0, 2, 2, 2));
  batch.Add(c::Point3(1, 1, 1), c::BoxFromCenterHalfExtents(0, 0, 0, 2, 2, 2));
  batch.Add(c::Sphere(0, 0, 0, 1), c::Point3(0, 0, 3));
  batch.Add(c::BoxFromMinMax(0, 0, 0, 2, 2, 2),
            c::BoxFromMinMax(1, 1, 1, 3, 3, 3));
  absl::StatusOr<v1::IntersectResponse> r = client_->Intersect(batch);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->results_size(), 12);
  const v1::Relation want[] = {
      v1::RELATION_TOUCHING,    v1::RELATION_OVERLAPPING,
      v1::RELATION_TOUCHING,    v1::RELATION_OVERLAPPING,
      v1::RELATION_OVERLAPPING, v1::RELATION_TOUCHING,
      v1::RELATION_TOUCHING,    v1::RELATION_DISJOINT,
      v1::RELATION_TOUCHING,    v1::RELATION_OVERLAPPING,
      v1::RELATION_DISJOINT,    v1::RELATION_OVERLAPPING};
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(r->results(i).relation(), want[i]) << i;
    EXPECT_EQ(r->results(i).hit(), want[i] != v1::RELATION_DISJOINT) << i;
  }
  EXPECT_EQ(r->results(7).separation(), 5.0f);
  EXPECT_EQ(r->results(10).separation(), 2.0f);
  EXPECT_EQ(r->results(11).separation(), -1.0f);

  batch.Exclusive();
  r = client_->Intersect(batch);
  ASSERT_TRUE(r.ok()) << r.status();
  for (int i = 0; i < 12; ++i) {
    EXPECT_EQ(r->results(i).hit(), want[i] == v1::RELATION_OVERLAPPING) << i;
  }
}

TEST_F(EndToEnd, ClosestPointAnswersThroughTheWire) {
  c::ClosestPointBatch batch;
  batch.Add(c::Point(13, 14), c::RectFromCornerSize(0, 0, 10, 10));
  batch.Add(c::Circle(3, 6, 1), c::RectFromCornerSize(0, 0, 10, 10));
  batch.Add(c::Sphere(2, 2, 7, 1), c::BoxFromMinMax(0, 0, 0, 4, 4, 4));
  batch.Exclusive();
  absl::StatusOr<v1::ClosestPointResponse> r = client_->ClosestPoint(batch);
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->results_size(), 3);
  EXPECT_EQ(r->results(0).closest_point().x(), 10);
  EXPECT_EQ(r->results(0).closest_point().y(), 10);
  EXPECT_FLOAT_EQ(r->results(0).normal().x(), 0.6f);
  EXPECT_EQ(r->results(0).signed_distance(), 5);
  EXPECT_FALSE(r->results(0).inside());
  EXPECT_EQ(r->results(1).surface_point().x(), 0);
  EXPECT_EQ(r->results(1).normal().x(), -1);
  EXPECT_EQ(r->results(1).signed_distance(), -3);
  EXPECT_EQ(r->results(1).gap(), -4);
  EXPECT_TRUE(r->results(1).inside());
  EXPECT_EQ(r->results(2).closest_point().z(), 4);
  EXPECT_EQ(r->results(2).normal().z(), 1);
  EXPECT_EQ(r->results(2).gap(), 2);
}

TEST_F(EndToEnd, InvalidInputGetsInvalidArgumentWithTheFieldPath) {
  c::IntersectBatch batch;
  batch.Add(c::Point(0, 0), c::Point(0, 0));
  batch.Add(c::Point(0, 0), c::Circle(0, 0, -1));
  absl::StatusOr<v1::IntersectResponse> r = client_->Intersect(batch);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(),
            "pairs[1].b.circle.radius must be >= 0, got -1");

  c::ClosestPointBatch cp;
  cp.Add(c::Sphere(0, 0, 0, 1), c::RectFromMinMax(0, 0, 1, 1));
  absl::StatusOr<v1::ClosestPointResponse> r2 = client_->ClosestPoint(cp);
  EXPECT_EQ(r2.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r2.status().message(), HasSubstr("queries[0]"));
}

TEST(EndToEndLimits, BatchOverTheLimitAndOversizedMessagesAreRejected) {
  server::ServerOptions options;
  options.service.limits.max_batch = 100;
  options.max_receive_message_bytes = 4096;
  auto server = StartServer(options);
  ASSERT_NE(server, nullptr);
  auto client = Connect(*server);
  c::IntersectBatch over;
  for (int i = 0; i < 101; ++i) over.Add(c::Point(0, 0), c::Point(1, 1));
  absl::StatusOr<v1::IntersectResponse> r = client->Intersect(over);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(),
              HasSubstr("more than this server's limit of 100 items"));

  c::IntersectBatch huge;
  for (int i = 0; i < 300; ++i) {
    huge.Add(c::RotatedRectFromPivot(1, 1, 0, 0, 0, 0, 0.5f),
             c::Circle(1, 1, 1));
  }
  ASSERT_GT(huge.request().ByteSizeLong(), 4096u);
  r = client->Intersect(huge);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kResourceExhausted);
}

TEST(EndToEndDeadline, ASilentPeerCannotHangACall) {
  // A socket that accepts TCP connections (the kernel's backlog) but never
  // speaks HTTP/2: only the call's deadline can end the call.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  ASSERT_EQ(listen(fd, 16), 0);
  socklen_t len = sizeof(addr);
  ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  c::ClientOptions options;
  options.timeout = absl::Milliseconds(300);
  auto client = c::Client::Create(
      absl::StrCat("127.0.0.1:", ntohs(addr.sin_port)), options);
  ASSERT_TRUE(client.ok());
  const absl::Time start = absl::Now();
  absl::StatusOr<v1::IntersectResponse> r = (*client)->Intersect(
      c::IntersectBatch().Add(c::Point(0, 0), c::Point(0, 0)));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(250));
  close(fd);
}

TEST(EndToEndLifecycle, StoppedServerIsUnavailableAndPortZeroIsNotShared) {
  auto first = StartServer();
  ASSERT_NE(first, nullptr);
  // With SO_REUSEPORT off, a second server cannot bind the same port.
  server::ServerOptions same;
  same.address = first->address();
  EXPECT_FALSE(server::CollisionServer::Start(same).ok());

  const std::string address = first->address();
  first->Shutdown(absl::Seconds(1));
  first->Wait();
  first.reset();
  c::ClientOptions options;
  options.timeout = absl::Seconds(2);
  auto client = c::Client::Create(address, options);
  ASSERT_TRUE(client.ok());
  absl::StatusOr<v1::IntersectResponse> r = (*client)->Intersect(
      c::IntersectBatch().Add(c::Point(0, 0), c::Point(0, 0)));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kUnavailable);
}

TEST(ClientCreate, RejectsEmptyTargetAndNonPositiveTimeout) {
  EXPECT_EQ(c::Client::Create("").status().code(),
            absl::StatusCode::kInvalidArgument);
  c::ClientOptions options;
  options.timeout = absl::ZeroDuration();
  EXPECT_EQ(c::Client::Create("127.0.0.1:1", options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace collision
