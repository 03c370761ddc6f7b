// Per-call options on a real server (127.0.0.1:0): a call's own deadline
// and metadata beside the client's defaults, and cancellation of calls in
// flight or not yet made, in every call flavour.
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "collision/client/client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/util/local_server.h"
#include "tests/util/silent_listener.h"

namespace collision {
namespace {

namespace c = collision::client;

c::IntersectBatch OnePair() {
  return std::move(c::IntersectBatch().Add(c::Circle(0, 0, 1), c::Point(0, 0)));
}

TEST(CallOptions, ACallsOwnDeadlineReplacesTheClientsDefault) {
  auto server = testing::StartServer();
  ASSERT_NE(server, nullptr);
  c::ClientOptions o;
  o.timeout = absl::Nanoseconds(1);  // every call would expire at once
  o.retry.enabled = false;
  auto client = c::Client::Create(server->address(), o);
  ASSERT_TRUE(client.ok());
  EXPECT_EQ((*client)->Intersect(OnePair()).status().code(),
            absl::StatusCode::kDeadlineExceeded);
  c::CallOptions call;
  call.timeout = absl::Seconds(20);
  auto r = (*client)->Intersect(OnePair(), call);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->results(0).hit());
  EXPECT_TRUE((*client)->IntersectFuture(OnePair(), call).get().ok());
  call.timeout = -absl::Seconds(1);
  EXPECT_EQ((*client)->Intersect(OnePair(), call).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CallOptions, ACallsMetadataIsCheckedAndSent) {
  server::ServerOptions so;
  so.service.max_metadata_bytes = 1024;
  auto server = testing::StartServer(std::move(so));
  ASSERT_NE(server, nullptr);
  auto client = c::Client::Create(server->address());
  ASSERT_TRUE(client.ok());
  c::CallOptions call;
  call.metadata = {{"x-trace-id", "tick-42"}};
  EXPECT_TRUE((*client)->Intersect(OnePair(), call).ok());
  // Sent: past the server's header budget only this call is refused.
  call.metadata = {{"x-big", std::string(2000, 'a')}};
  EXPECT_EQ((*client)->Intersect(OnePair(), call).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_TRUE((*client)->Intersect(OnePair()).ok());
  // Checked like ClientOptions::metadata, and never sent.
  call.metadata = {{"Upper-Case", "x"}};
  EXPECT_EQ((*client)->Intersect(OnePair(), call).status().code(),
            absl::StatusCode::kInvalidArgument);
  std::promise<absl::Status> async_status;
  (*client)->IntersectAsync(
      OnePair(),
      [&](absl::StatusOr<v1::IntersectResponse> r) {
        async_status.set_value(r.status());
      },
      call);
  EXPECT_EQ(async_status.get_future().get().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(CallOptions, CancellationEndsCallsInFlightAndRefusesNewOnes) {
  testing::SilentListener silent;
  c::ClientOptions o;
  o.timeout = absl::Seconds(60);  // longer than the test's own timeout
  o.retry.enabled = false;
  auto client = c::Client::Create(silent.address(), o);
  ASSERT_TRUE(client.ok());
  c::CallOptions call;
  call.cancellation = std::make_shared<c::Cancellation>();
  std::vector<std::promise<absl::StatusCode>> ended(3);
  for (auto& e : ended) {
    (*client)->IntersectAsync(
        OnePair(),
        [&e](absl::StatusOr<v1::IntersectResponse> r) {
          e.set_value(r.status().code());
        },
        call);
  }
  auto future = (*client)->ClosestPointColumnsFuture(
      c::ClosestPointColumnsBatch().Add(c::Point(0, 0), c::Circle(1, 1, 1)),
      call);
  // A blocking call in flight on another thread.
  std::future<absl::StatusCode> blocking = std::async(std::launch::async, [&] {
    return (*client)->Intersect(OnePair(), call).status().code();
  });
  EXPECT_FALSE(call.cancellation->cancelled());
  call.cancellation->Cancel();
  EXPECT_TRUE(call.cancellation->cancelled());
  for (auto& e : ended) {
    EXPECT_EQ(e.get_future().get(), absl::StatusCode::kCancelled);
  }
  EXPECT_EQ(future.get().status().code(), absl::StatusCode::kCancelled);
  // Whether it had started or not when Cancel ran, it ends CANCELLED.
  EXPECT_EQ(blocking.get(), absl::StatusCode::kCancelled);
  // A call made afterwards is refused without being sent.
  EXPECT_EQ((*client)->Intersect(OnePair(), call).status().code(),
            absl::StatusCode::kCancelled);
}

TEST(CallOptions, ABatchWithAPairLeftOutFailsUnsentInEveryFlavour) {
  auto server = testing::StartServer();
  ASSERT_NE(server, nullptr);
  auto client = c::Client::Create(server->address());
  ASSERT_TRUE(client.ok());
  c::IntersectColumnsBatch bad;
  bad.AddCircleCircle(0, 0, 1, 1, 0, 1)
      .Add(c::Point(0, 0), c::Sphere(0, 0, 0, 1));
  EXPECT_EQ((*client)->IntersectColumns(bad).status(), bad.status());
  EXPECT_EQ((*client)->IntersectColumnsFuture(bad).get().status(),
            bad.status());
  std::promise<absl::Status> async_status;
  (*client)->IntersectColumnsAsync(
      bad, [&](absl::StatusOr<v1::IntersectColumnsResponse> r) {
        async_status.set_value(r.status());
      });
  EXPECT_EQ(async_status.get_future().get(), bad.status());
  // The server saw none of them.
  EXPECT_THAT(
      bad.status().message(),
      ::testing::HasSubstr("no columnar form for a point and a sphere"));
}

}  // namespace
}  // namespace collision
