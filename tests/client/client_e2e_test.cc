// The client library against a real server on 127.0.0.1:0: every RPC in
// every form (blocking, callback, future), columns agree with pairs, and a
// QuerySession keeps order and survives a rejected request.
#include <atomic>
#include <future>
#include <memory>
#include <random>

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

class ClientE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = testing::StartServer();
    ASSERT_NE(server_, nullptr);
    auto client = c::Client::Create(server_->address());
    ASSERT_TRUE(client.ok());
    client_ = *std::move(client);
    ASSERT_TRUE(client_->WaitUntilServing(absl::Seconds(10)).ok());
  }
  std::unique_ptr<server::CollisionServer> server_;
  std::unique_ptr<c::Client> client_;
};

// Random pairs of every supported kind on a small integer grid, so that
// touching cases are common.
std::vector<std::pair<v1::Shape, v1::Shape>> MixedPairs(int n) {
  std::mt19937 rng(7);
  auto v = [&] { return float(rng() % 9); };
  std::vector<std::pair<v1::Shape, v1::Shape>> out;
  for (int i = 0; i < n; ++i) {
    const float x = v(), y = v(), z = v();
    switch (i % 7) {
      case 0:
        out.emplace_back(c::Circle(x, y, v()), c::Circle(v(), v(), 1));
        break;
      case 1:
        out.emplace_back(c::Point(x, y), c::RectFromCornerSize(v(), v(), 2, 3));
        break;
      case 2:
        out.emplace_back(c::RectFromMinMax(3, 3, 5, 5), c::Circle(x, y, 1));
        break;
      case 3:
        out.emplace_back(c::Circle(x, y, 1),
                         c::RotatedRectFromPivotCosSin(4, 2, 0, 0, 4, 4, 0, 1));
        break;
      case 4:
        out.emplace_back(c::RectFromCornerSize(x, y, 2, 2),
                         c::RectFromMinMax(3, 3, 5, 5));
        break;
      case 5:
        out.emplace_back(c::Sphere(x, y, z, 2),
                         c::BoxFromMinMax(2, 2, 2, 4, 4, 4));
        break;
      default:
        out.emplace_back(c::BoxFromMinMax(x, y, z, x + 1, y + 1, z + 1),
                         c::BoxFromMinMax(3, 3, 3, 5, 5, 5));
        break;
    }
  }
  return out;
}

TEST_F(ClientE2E, ColumnsAnswerLikePairsInTheOrderAdded) {
  c::IntersectBatch pairs;
  c::IntersectColumnsBatch columns;
  pairs.WithRelation();
  columns.WithRelation();
  for (const auto& [a, b] : MixedPairs(200)) {
    pairs.Add(a, b);
    ASSERT_TRUE(columns.Add(a, b).status().ok());
  }
  auto want = client_->Intersect(pairs);
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = client_->IntersectColumns(columns);
  ASSERT_TRUE(got.ok()) << got.status();
  auto answers = columns.Unpack(*got);
  ASSERT_TRUE(answers.ok()) << answers.status();
  ASSERT_EQ(answers->size(), 200u);
  int hits = 0;
  for (int i = 0; i < 200; ++i) {
    EXPECT_EQ((*answers)[i].hit, want->results(i).hit()) << i;
    EXPECT_EQ((*answers)[i].relation, want->results(i).relation()) << i;
    hits += (*answers)[i].hit;
  }
  EXPECT_GT(hits, 10);
  EXPECT_LT(hits, 190);
}

TEST_F(ClientE2E, ClosestPointColumnsAnswerLikePairs) {
  c::ClosestPointBatch pairs;
  c::ClosestPointColumnsBatch columns;
  pairs.Add(c::Point(13, 14), c::RectFromCornerSize(0, 0, 10, 10));
  pairs.Add(c::Sphere(2, 2, 7, 1), c::BoxFromMinMax(0, 0, 0, 4, 4, 4));
  pairs.Add(c::Circle(3, 6, 1), c::RectFromCornerSize(0, 0, 10, 10));
  for (const auto& q : pairs.request().queries()) {
    ASSERT_TRUE(columns.Add(q.query(), q.target()).status().ok());
  }
  auto want = client_->ClosestPoint(pairs);
  auto got = client_->ClosestPointColumnsFuture(columns.request()).get();
  ASSERT_TRUE(want.ok() && got.ok()) << got.status();
  auto answers = columns.Unpack(*got);
  ASSERT_TRUE(answers.ok()) << answers.status();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*answers)[i].SerializeAsString(),
              want->results(i).SerializeAsString())
        << i << ": " << (*answers)[i].ShortDebugString() << " vs "
        << want->results(i).ShortDebugString();
  }
}

TEST_F(ClientE2E, CallbackAndFutureCallsCarryAnswersAndErrors) {
  // std::promise, not absl::Notification: Debian's absl is not built for
  // ThreadSanitizer, which runs this test.
  std::promise<absl::StatusOr<v1::IntersectResponse>> answered;
  auto request = std::make_shared<const v1::IntersectRequest>(
      c::IntersectBatch()
          .Add(c::Circle(5, 5, 2), c::RectFromCornerSize(7, 0, 4, 10))
          .request());
  client_->IntersectAsync(request,
                          [&](absl::StatusOr<v1::IntersectResponse> r) {
                            answered.set_value(std::move(r));
                          });
  absl::StatusOr<v1::IntersectResponse> from_callback =
      answered.get_future().get();
  ASSERT_TRUE(from_callback.ok()) << from_callback.status();
  EXPECT_TRUE(from_callback->results(0).hit());

  v1::ClosestPointRequest bad;  // no boundary, no queries
  auto f = client_->ClosestPointFuture(bad);
  EXPECT_EQ(f.get().status().code(), absl::StatusCode::kInvalidArgument);
}

// The fields at fault arrive through a real socket in the standard
// grpc-status-details-bin trailer (unary) and in StreamError (streams), and
// a thousand faults still fit gRPC's default 8 KiB metadata limit.
TEST_F(ClientE2E, RejectedRequestsNameTheFieldsAtFault) {
  c::IntersectBatch bad;
  bad.Add(c::Point(0, 0), c::Circle(0, 0, 1));
  bad.Add(c::Point(0, 0), c::Circle(0, 0, -1));
  absl::StatusOr<v1::IntersectResponse> r = client_->Intersect(bad);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  std::vector<c::FieldViolation> v = c::FieldViolations(r.status());
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].field, "pairs[1].b.circle.radius");
  EXPECT_EQ(v[0].description, "must be >= 0, got -1");

  c::IntersectBatch many;
  for (int i = 0; i < 1000; ++i) many.Add(c::Circle(0, 0, -1), c::Point(0, 0));
  r = client_->Intersect(many);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument)
      << r.status();
  EXPECT_THAT(std::string(r.status().message()),
              ::testing::HasSubstr("and 990 more invalid fields"));
  v = c::FieldViolations(r.status());
  ASSERT_GE(v.size(), 2u);
  EXPECT_EQ(v.front().field, "pairs[0].a.circle.radius");
  EXPECT_EQ(v.back().field, "");
  EXPECT_EQ(v.back().description, absl::StrCat("and ", 1000 - (v.size() - 1),
                                               " more invalid fields"));

  auto session = client_->OpenSession();
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Send(7, bad.request()).ok());
  auto reply = (*session)->Receive();
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->status.code(), absl::StatusCode::kInvalidArgument);
  v = c::FieldViolations(reply->status);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].field, "pairs[1].b.circle.radius");
  EXPECT_EQ(reply->response.error().bad_request().field_violations_size(), 1);
  EXPECT_TRUE((*session)->Finish().ok());
}

// A game loop polls for its replies: TryReceive / ReceiveFor return the
// next reply when it is there and nullopt otherwise, in order, mixed with
// the blocking Receive, and the session finishes as before.
TEST_F(ClientE2E, ASessionCanBePolledFromAGameLoop) {
  auto session = client_->OpenSession();
  ASSERT_TRUE(session.ok());
  EXPECT_EQ((*session)->TryReceive().status().code(),
            absl::StatusCode::kFailedPrecondition);  // nothing outstanding
  c::IntersectBatch hit;
  hit.Add(c::Circle(5, 5, 2), c::RectFromCornerSize(7, 0, 4, 10));
  c::IntersectBatch bad;
  bad.Add(c::Point(0, 0), c::Circle(0, 0, -1));
  for (uint64_t tick = 1; tick <= 3; ++tick) {
    ASSERT_TRUE(
        (*session)->Send(tick, tick == 2 ? bad.request() : hit.request()).ok());
  }
  // Poll until the first reply is in (bounded: each wait is 10 ms, and the
  // test's own timeout bounds the loop).
  std::optional<c::StreamReply> first;
  for (int polls = 0; !first.has_value(); ++polls) {
    absl::StatusOr<std::optional<c::StreamReply>> r =
        polls % 2 ? (*session)->TryReceive()
                  : (*session)->ReceiveFor(absl::Milliseconds(10));
    ASSERT_TRUE(r.ok()) << r.status();
    first = *std::move(r);
  }
  EXPECT_EQ(first->sequence, 1u);
  EXPECT_TRUE(first->response.intersect().results(0).hit());
  auto second = (*session)->ReceiveFor(absl::Seconds(20));
  ASSERT_TRUE(second.ok() && second->has_value());
  EXPECT_EQ((*second)->sequence, 2u);
  EXPECT_EQ(c::FieldViolations((*second)->status).size(), 1u);
  auto third = (*session)->Receive();  // the blocking form reads the queue
  ASSERT_TRUE(third.ok()) << third.status();
  EXPECT_EQ(third->sequence, 3u);
  EXPECT_EQ((*session)->TryReceive().status().code(),
            absl::StatusCode::kFailedPrecondition);
  // Outstanding at Finish: read by the session's reader, then discarded.
  ASSERT_TRUE((*session)->Send(4, hit.request()).ok());
  EXPECT_TRUE((*session)->Finish().ok());
}

// Nothing arrives from a server that never speaks: polls say "not yet"
// without blocking past their timeout, and destroying the session ends its
// reader (the test's timeout would catch a hang).
TEST(QuerySessionPoll, ASilentServerGivesNotYetAndTheSessionStillEnds) {
  testing::SilentListener silent;
  c::ClientOptions o;
  o.retry.enabled = false;
  auto client = c::Client::Create(silent.address(), o);
  ASSERT_TRUE(client.ok());
  auto session = (*client)->OpenSession();
  ASSERT_TRUE(session.ok());
  ASSERT_TRUE(
      (*session)
          ->Send(
              1,
              c::IntersectBatch().Add(c::Point(0, 0), c::Point(0, 0)).request())
          .ok());
  for (int i = 0; i < 3; ++i) {
    auto r = (*session)->ReceiveFor(absl::Milliseconds(20));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_FALSE(r->has_value());
  }
  auto polled = (*session)->TryReceive();
  ASSERT_TRUE(polled.ok());
  EXPECT_FALSE(polled->has_value());
  EXPECT_EQ((*session)->outstanding(), 1);
  session->reset();  // cancels the stream; the reader thread is joined
}

// Destroying the Client with callback calls in flight waits for them, so the
// last channel reference is dropped on this thread and never on the gRPC
// thread running a callback (which crashed collision_load at exit).
TEST_F(ClientE2E, DestroyingTheClientWaitsForItsCallbackCalls) {
  constexpr int kCalls = 64;
  std::atomic<int> finished{0};
  auto request = std::make_shared<const v1::IntersectRequest>(
      c::IntersectBatch()
          .Add(c::Circle(5, 5, 2), c::RectFromCornerSize(7, 0, 4, 10))
          .request());
  for (int i = 0; i < kCalls; ++i) {
    client_->IntersectAsync(
        request, [&finished](absl::StatusOr<v1::IntersectResponse> r) {
          EXPECT_TRUE(r.ok()) << r.status();
          finished.fetch_add(1);
        });
  }
  client_.reset();
  EXPECT_EQ(finished.load(), kCalls);
}

// A session outliving its streams: the server ends every stream at its
// maximum age (0.54 s here); the session reopens and resends what was not
// answered, so every reply arrives, in order, with no error, pipelined or
// not. Bounded: at most 10 s, stops after 3 reopenings.
TEST(QuerySessionReopen, ALongSessionOutlivesItsStreams) {
  server::ServerOptions options;
  options.address = "127.0.0.1:0";
  options.allow_reuseport = false;
  options.max_connection_age = absl::Milliseconds(600);
  options.max_connection_age_grace = absl::Milliseconds(600);
  auto s = server::CollisionServer::Start(options);
  ASSERT_TRUE(s.ok()) << s.status();
  auto client = c::Client::Create((*s)->address());
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->WaitUntilServing(absl::Seconds(10)).ok());
  auto session = (*client)->OpenSession();
  ASSERT_TRUE(session.ok());
  c::IntersectBatch batch;
  batch.Add(c::Circle(0, 0, 1), c::Point(1, 0));
  uint64_t next = 1, answered = 0;
  const absl::Time until = absl::Now() + absl::Seconds(10);
  while ((*session)->reopens() < 3 && absl::Now() < until) {
    // Three in flight at a time, so some are unanswered when a stream ends.
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE((*session)->Send(next++, batch.request()).ok());
    }
    for (int i = 0; i < 3; ++i) {
      auto reply = (*session)->Receive();
      ASSERT_TRUE(reply.ok()) << reply.status();
      ASSERT_TRUE(reply->status.ok()) << reply->status;
      ASSERT_EQ(reply->sequence, ++answered);
      ASSERT_TRUE(reply->response.intersect().results(0).hit());
    }
    absl::SleepFor(absl::Milliseconds(5));  // pacing, not readiness
  }
  EXPECT_GE((*session)->reopens(), 1);
  EXPECT_EQ((*session)->outstanding(), 0);
  EXPECT_TRUE((*session)->Finish().ok());

  // Without reopening, the stream's end is the caller's to see.
  c::SessionOptions once;
  once.reopen = false;
  auto plain = (*client)->OpenSession(once);
  ASSERT_TRUE(plain.ok());
  absl::Status ended;
  for (uint64_t seq = 1; ended.ok() && absl::Now() < until + absl::Seconds(5);
       ++seq) {
    ended = (*plain)->Send(seq, batch.request());
    if (!ended.ok()) break;
    ended = (*plain)->Receive().status();
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(ended.code(), absl::StatusCode::kUnavailable) << ended;
}

TEST_F(ClientE2E, SessionAnswersInOrderAndSurvivesARejectedRequest) {
  auto session = client_->OpenSession();
  ASSERT_TRUE(session.ok());
  c::IntersectBatch good;
  good.Add(c::Circle(5, 5, 2), c::RectFromCornerSize(7, 0, 4, 10));
  c::IntersectBatch bad;
  bad.Add(c::Point(0, 0), c::Circle(0, 0, -1));
  c::IntersectColumnsBatch columns;
  columns.AddCircleCircle(0, 0, 1, 2, 0, 1);
  // Pipelined: three sends, then three receives.
  ASSERT_TRUE((*session)->Send(10, good.request()).ok());
  ASSERT_TRUE((*session)->Send(11, bad.request()).ok());
  ASSERT_TRUE((*session)->Send(12, columns.request()).ok());
  EXPECT_EQ((*session)->outstanding(), 3);
  auto r10 = (*session)->Receive();
  ASSERT_TRUE(r10.ok()) << r10.status();
  EXPECT_EQ(r10->sequence, 10u);
  EXPECT_TRUE(r10->status.ok());
  EXPECT_TRUE(r10->response.intersect().results(0).hit());
  auto r11 = (*session)->Receive();
  ASSERT_TRUE(r11.ok()) << r11.status();
  EXPECT_EQ(r11->sequence, 11u);
  EXPECT_EQ(r11->status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r11->status.message()),
              ::testing::HasSubstr("radius"));
  auto r12 = (*session)->Receive();
  ASSERT_TRUE(r12.ok()) << r12.status();
  EXPECT_EQ(r12->sequence, 12u);
  EXPECT_TRUE(
      c::BitAt(r12->response.intersect_columns().groups(0).hit_bits(), 0));
  EXPECT_EQ((*session)->Receive().status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE((*session)->Finish().ok());
  EXPECT_FALSE((*session)->Send(13, good.request()).ok());
}

}  // namespace
}  // namespace collision
