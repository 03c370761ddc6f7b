// The production behaviours of a real server on 127.0.0.1:0 (SO_REUSEPORT
// off), driven through the generated stubs: columns and streaming over the
// wire, overload shedding with pushback, deadlines that stop work, a drain
// under traffic, and the metrics endpoint scraped for real.
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "collision/v1/collision.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/transport/connection_gate.h"
#include "server/server.h"
#include "tests/util/http_get.h"
#include "tests/util/local_server.h"

namespace collision {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<server::CollisionServer> Start(server::ServerOptions options) {
  options.metrics_address = "127.0.0.1:0";
  return testing::StartServer(std::move(options));
}

std::unique_ptr<v1::CollisionService::Stub> Stub(
    const server::CollisionServer& s) {
  return v1::CollisionService::NewStub(
      grpc::CreateChannel(s.address(), grpc::InsecureChannelCredentials()));
}

void Deadline(grpc::ClientContext* c, absl::Duration d = absl::Seconds(10)) {
  c->set_deadline(std::chrono::system_clock::now() +
                  absl::ToChronoMilliseconds(d));
}

std::map<std::string, double> Scrape(const server::CollisionServer& s) {
  absl::StatusOr<std::string> body =
      testing::HttpGet(s.metrics_port(), "/metrics");
  EXPECT_TRUE(body.ok()) << body.status();
  return testing::ParseSamples(body.ok() ? *body : "");
}

std::string Series(const std::string& name, const std::string& method,
                   const std::string& code = "") {
  return absl::StrCat(
      name, "{", code.empty() ? "" : absl::StrCat("grpc_code=\"", code, "\","),
      "grpc_method=\"", method,
      "\",grpc_service=\"collision.v1.CollisionService\","
      "grpc_type=\"unary\"}");
}

v1::IntersectRequest SmallPairs(int n) {
  v1::IntersectRequest r;
  r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  for (int i = 0; i < n; ++i) {
    v1::ShapePair* p = r.add_pairs();
    p->mutable_a()->mutable_circle()->mutable_center()->set_x(float(i));
    p->mutable_a()->mutable_circle()->set_radius(1);
    v1::Rect* rect = p->mutable_b()->mutable_rect();
    rect->mutable_min()->set_x(float(i) + 1);
    rect->mutable_max()->set_x(float(i) + 3);
    rect->mutable_max()->set_y(1);
    rect->mutable_min();
  }
  return r;
}

// n circle-rect pairs as columns: circle i at (i, 0) r 1, rect [i+1, i+3] x
// [0, 1] (touching), so every hit is true under the inclusive rule.
v1::IntersectColumnsRequest ColumnPairs(int n) {
  v1::IntersectColumnsRequest r;
  r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  r.set_include_relation(true);
  v1::CircleRectColumns* g = r.add_groups()->mutable_circle_rect();
  for (int i = 0; i < n; ++i) {
    g->mutable_a()->add_x(float(i));
    g->mutable_a()->add_y(0);
    g->mutable_a()->add_radius(1);
    g->mutable_b()->add_min_x(float(i) + 1);
    g->mutable_b()->add_min_y(0);
    g->mutable_b()->add_max_x(float(i) + 3);
    g->mutable_b()->add_max_y(1);
  }
  return r;
}

TEST(Service, ColumnsAnswerOverTheWire) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  auto stub = Stub(*server);
  grpc::ClientContext ctx;
  Deadline(&ctx);
  v1::IntersectColumnsResponse response;
  const int n = 20001;  // several chunks and a partial last byte
  ASSERT_TRUE(stub->IntersectColumns(&ctx, ColumnPairs(n), &response).ok());
  ASSERT_EQ(response.groups_size(), 1);
  const v1::IntersectColumnsResult& g = response.groups(0);
  EXPECT_EQ(g.count(), static_cast<uint32_t>(n));
  ASSERT_EQ(g.hit_bits().size(), static_cast<std::size_t>((n + 7) / 8));
  for (int i = 0; i < n; ++i) {
    ASSERT_TRUE((static_cast<uint8_t>(g.hit_bits()[i / 8]) >> (i % 8)) & 1)
        << i;
    ASSERT_EQ(g.relations()[i], v1::RELATION_TOUCHING) << i;
  }
  // The unused high bits of the last byte are 0.
  EXPECT_EQ(static_cast<uint8_t>(g.hit_bits().back()) >> (n % 8), 0);
}

TEST(Service, StreamAnswersInOrderAndABadMessageDoesNotEndIt) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  auto stub = Stub(*server);
  grpc::ClientContext ctx;
  Deadline(&ctx);
  auto stream = stub->QueryStream(&ctx);
  for (uint64_t tick = 100; tick < 110; ++tick) {
    v1::QueryStreamRequest request;
    request.set_sequence(tick);
    if (tick == 104) {
      *request.mutable_intersect() = SmallPairs(3);
      request.mutable_intersect()
          ->mutable_pairs(1)
          ->mutable_a()
          ->mutable_circle()
          ->set_radius(-2);
    } else if (tick % 2 == 0) {
      *request.mutable_intersect_columns() = ColumnPairs(int(tick));
    } else {
      *request.mutable_intersect() = SmallPairs(int(tick));
    }
    ASSERT_TRUE(stream->Write(request));
    v1::QueryStreamResponse response;
    ASSERT_TRUE(stream->Read(&response));
    EXPECT_EQ(response.sequence(), tick);
    if (tick == 104) {
      EXPECT_EQ(response.error().code(), grpc::StatusCode::INVALID_ARGUMENT);
      EXPECT_EQ(response.error().message(),
                "pairs[1].a.circle.radius must be >= 0, got -2");
      EXPECT_EQ(response.answer_case(),
                v1::QueryStreamResponse::ANSWER_NOT_SET);
    } else if (tick % 2 == 0) {
      EXPECT_EQ(response.intersect_columns().groups(0).count(), tick);
    } else {
      EXPECT_EQ(response.intersect().results_size(), int(tick));
      EXPECT_TRUE(response.intersect().results(0).hit());
    }
  }
  // A message with no query set is an error on that message only.
  v1::QueryStreamRequest empty;
  empty.set_sequence(7);
  ASSERT_TRUE(stream->Write(empty));
  v1::QueryStreamResponse response;
  ASSERT_TRUE(stream->Read(&response));
  EXPECT_EQ(response.sequence(), 7u);
  EXPECT_THAT(response.error().message(), HasSubstr("query is required"));
  ASSERT_TRUE(stream->WritesDone());
  EXPECT_FALSE(stream->Read(&response));
  EXPECT_TRUE(stream->Finish().ok());

  // Per message, not per stream: the stream ended OK, its messages did
  // not all succeed, and each has its own latency sample.
  std::map<std::string, double> m = Scrape(*server);
  auto answered = [&](const std::string& code) {
    return m[absl::StrCat("collision_stream_messages_total{grpc_code=\"", code,
                          "\",grpc_method=\"QueryStream\"}")];
  };
  EXPECT_EQ(answered("OK"), 9);
  EXPECT_EQ(answered("INVALID_ARGUMENT"), 2);
  EXPECT_EQ(m["collision_stream_message_seconds_count{grpc_method="
              "\"QueryStream\"}"],
            11);
}

TEST(Service, OverloadIsShedAtOnceWithRetryPushback) {
  absl::Notification entered, release;
  std::atomic<int> computing{0};
  server::ServerOptions options;
  options.service.max_in_flight = 1;
  options.service.retry_pushback_ms = 35;
  options.service.before_compute = [&](grpc::CallbackServerContext*) {
    if (computing.fetch_add(1) == 0) {
      entered.Notify();
      release.WaitForNotification();
    }
  };
  auto server = Start(options);
  ASSERT_NE(server, nullptr);
  auto stub = Stub(*server);
  // The first call takes the only slot and is held inside the server.
  auto first = std::async(std::launch::async, [&] {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::IntersectResponse response;
    return stub->Intersect(&ctx, SmallPairs(4), &response).error_code();
  });
  entered.WaitForNotification();
  grpc::ClientContext ctx;
  Deadline(&ctx);
  v1::IntersectResponse response;
  const grpc::Status shed = stub->Intersect(&ctx, SmallPairs(4), &response);
  EXPECT_EQ(shed.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(shed.error_message(), HasSubstr("overloaded"));
  const auto& trailers = ctx.GetServerTrailingMetadata();
  auto pushback = trailers.find("grpc-retry-pushback-ms");
  ASSERT_NE(pushback, trailers.end());
  EXPECT_EQ(std::string(pushback->second.data(), pushback->second.size()),
            "35");
  release.Notify();
  EXPECT_EQ(first.get(), grpc::StatusCode::OK);
  // The slot is free again (once the answer is with the transport), and
  // the shedding was counted.
  ASSERT_TRUE(server->service().WaitUntilIdle(absl::Seconds(10)));
  grpc::ClientContext again;
  Deadline(&again);
  EXPECT_TRUE(stub->Intersect(&again, SmallPairs(4), &response).ok());
  EXPECT_EQ(Scrape(*server)["collision_rejected_total{reason=\"overloaded\"}"],
            1);
  EXPECT_TRUE(server->service().WaitUntilIdle(absl::Seconds(10)));
}

// A call cancelled by its client, or whose deadline passes, while the server
// holds it: the computation stops between chunks and nothing is computed.
TEST(Service, ACallThatEndsBeforeItsBatchIsDoneStopsComputing) {
  for (const bool cancel : {true, false}) {
    SCOPED_TRACE(cancel ? "client cancels" : "deadline passes");
    absl::Notification entered;
    server::ServerOptions options;
    options.service.before_compute = [&](grpc::CallbackServerContext* c) {
      entered.Notify();
      // Hold the call until the server itself sees it end (the client's
      // view comes first: its deadline is ahead of the server's by the
      // transit time). Bounded.
      for (int i = 0; i < 3000 && !c->IsCancelled(); ++i) {
        absl::SleepFor(absl::Milliseconds(10));
      }
    };
    auto server = Start(options);
    ASSERT_NE(server, nullptr);
    auto stub = Stub(*server);
    grpc::ClientContext ctx;
    Deadline(&ctx, cancel ? absl::Seconds(60) : absl::Seconds(5));
    v1::IntersectColumnsResponse response;
    const v1::IntersectColumnsRequest request = ColumnPairs(20000);
    auto call = std::async(std::launch::async, [&] {
      return stub->IntersectColumns(&ctx, request, &response);
    });
    // Bounded: the request reaches the server well within its deadline.
    ASSERT_TRUE(entered.WaitForNotificationWithTimeout(absl::Seconds(30)));
    if (cancel) ctx.TryCancel();
    const grpc::Status s = call.get();
    EXPECT_EQ(s.error_code(), cancel ? grpc::StatusCode::CANCELLED
                                     : grpc::StatusCode::DEADLINE_EXCEEDED);
    // The server notices before its first chunk; bounded wait for the count.
    std::map<std::string, double> m;
    const auto stopped = [&m] {
      return m["collision_rejected_total{reason=\"deadline\"}"] +
             m["collision_rejected_total{reason=\"cancelled\"}"];
    };
    for (int i = 0; i < 250 && stopped() < 1; ++i) {
      m = Scrape(*server);
      if (stopped() < 1) absl::SleepFor(absl::Milliseconds(20));
    }
    EXPECT_EQ(stopped(), 1);
    EXPECT_EQ(m["collision_pairs_total{kind=\"circle_rect\"}"], 0);
    EXPECT_TRUE(server->service().WaitUntilIdle(absl::Seconds(10)));
  }
}

TEST(Service, DrainUnderTrafficFailsNoAcceptedCall) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, unavailable{0}, raced{0}, other{0};
  std::mutex mu;
  std::vector<std::string> other_errors;
  std::vector<std::thread> clients;
  for (int t = 0; t < 4; ++t) {
    clients.emplace_back([&] {
      auto stub = Stub(*server);
      // Bounded: at most 20000 calls per client.
      for (int i = 0; i < 20000 && !stop.load(); ++i) {
        grpc::ClientContext ctx;
        Deadline(&ctx, absl::Seconds(5));
        v1::IntersectColumnsResponse response;
        const grpc::Status s =
            stub->IntersectColumns(&ctx, ColumnPairs(2000), &response);
        if (s.ok()) {
          ++ok;
        } else if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
          ++unavailable;  // refused after shutdown: never accepted
          if (unavailable.load() > 20) stop = true;
        } else if (s.error_code() == grpc::StatusCode::CANCELLED &&
                   s.error_message() == "CANCELLED") {
          // gRPC core cancels calls that reach the transport in the instant
          // of Shutdown, before the service sees them; the server-side
          // counts below prove none of them was accepted. The server is
          // going: this client stops (a retry could race again, as seen
          // under TSan's slowness).
          ++raced;
          break;
        } else {
          ++other;
          std::lock_guard<std::mutex> lock(mu);
          other_errors.push_back(
              absl::StrCat(s.error_code(), ": ", s.error_message()));
        }
      }
    });
  }
  // Let traffic flow, then drain as SIGTERM does.
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (ok.load() < 50 && absl::Now() < give_up) std::this_thread::yield();
  server->Drain(absl::Milliseconds(300), absl::Seconds(5));
  server->Wait();
  stop = true;
  for (std::thread& c : clients) c.join();
  EXPECT_EQ(other.load(), 0) << absl::StrJoin(other_errors, "\n");
  // Server side: every call that was accepted finished OK.
  std::map<std::string, double> m = Scrape(*server);
  const double started =
      m[Series("grpc_server_started_total", "IntersectColumns")];
  EXPECT_GT(started, 50);
  EXPECT_EQ(m[Series("grpc_server_handled_total", "IntersectColumns", "OK")],
            started);
  EXPECT_EQ(ok.load(), started);
  EXPECT_LE(raced.load(), 4);  // each client stops at its first
}

TEST(Service, MetricsCountCallsPairsAndRejections) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  auto stub = Stub(*server);
  for (int i = 0; i < 3; ++i) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::IntersectResponse response;
    ASSERT_TRUE(stub->Intersect(&ctx, SmallPairs(10), &response).ok());
  }
  grpc::ClientContext bad;
  Deadline(&bad);
  v1::IntersectResponse response;
  EXPECT_FALSE(stub->Intersect(&bad, v1::IntersectRequest(), &response).ok());
  // A call is counted handled in its OnDone, once the transport has its
  // answer, which may come a moment after the client has it: wait (bounded)
  // for the server's own count.
  std::map<std::string, double> m = Scrape(*server);
  for (const absl::Time until = absl::Now() + absl::Seconds(10);
       m[Series("grpc_server_handled_total", "Intersect", "OK")] +
               m[Series("grpc_server_handled_total", "Intersect",
                        "INVALID_ARGUMENT")] <
           4 &&
       absl::Now() < until;
       m = Scrape(*server)) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ(m[Series("grpc_server_started_total", "Intersect")], 4);
  EXPECT_EQ(m[Series("grpc_server_handled_total", "Intersect", "OK")], 3);
  EXPECT_EQ(
      m[Series("grpc_server_handled_total", "Intersect", "INVALID_ARGUMENT")],
      1);
  EXPECT_EQ(m["collision_pairs_total{kind=\"circle_rect\"}"], 30);
  EXPECT_EQ(m["collision_rejected_total{reason=\"invalid_argument\"}"], 1);
  EXPECT_EQ(m["collision_in_flight"], 0);
  EXPECT_EQ(
      m[absl::StrCat("collision_simd_info{target=\"", SimdTargetName(), "\"}")],
      1);
}

// The client's TCP connections, as the server sees them (peer addresses).
class PeerLog {
 public:
  void Record(grpc::CallbackServerContext* c) {
    std::lock_guard<std::mutex> lock(mu_);
    // By address: gRPC names a connection the server accepted itself
    // "fd:N", and a new connection may get a closed one's descriptor.
    peers_.insert(server::PeerName(c->peer()));
  }
  std::size_t distinct() {
    std::lock_guard<std::mutex> lock(mu_);
    return peers_.size();
  }

 private:
  std::mutex mu_;
  std::set<std::string> peers_;
};

// A second server on a port the first one holds says why it cannot
// listen, not only that it cannot.
TEST(Service, APortInUseIsNamedAsTheReason) {
  server::ServerOptions options;
  options.address = "127.0.0.1:0";
  options.allow_reuseport = false;
  auto first = server::CollisionServer::Start(options);
  ASSERT_TRUE(first.ok()) << first.status();
  options.address = (*first)->address();
  auto second = server::CollisionServer::Start(options);
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(
      second.status().message(),
      ::testing::HasSubstr(absl::StrCat("cannot listen on ", options.address,
                                        ": Address already in use")));
}

TEST(Service, MaxConnectionAgeMovesClientsToNewConnectionsWithoutErrors) {
  PeerLog peers;
  server::ServerOptions options;
  options.max_connection_age = absl::Milliseconds(300);
  options.max_connection_age_grace = absl::Milliseconds(300);
  options.service.before_compute = [&](grpc::CallbackServerContext* c) {
    peers.Record(c);
  };
  auto server = Start(options);
  ASSERT_NE(server, nullptr);
  // The channel as the C++ client configures it (its retry policy): a call
  // racing the GOAWAY of an aged connection is failed UNAVAILABLE "enter
  // idle" by gRPC 1.51 before it is sent, and is retried (seen ~1 run in 4
  // under TSan with a raw channel).
  grpc::ChannelArguments args;
  args.SetServiceConfigJSON(client::ServiceConfigJson({}));
  auto stub = v1::CollisionService::NewStub(grpc::CreateCustomChannel(
      server->address(), grpc::InsecureChannelCredentials(), args));
  // Calls for at least ~4 connection ages; bounded in count and time.
  const absl::Time end = absl::Now() + absl::Milliseconds(1500);
  int calls = 0;
  while ((absl::Now() < end || peers.distinct() < 2) && calls < 5000) {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    ctx.set_wait_for_ready(true);  // ride over the reconnect
    v1::IntersectResponse response;
    const grpc::Status s = stub->Intersect(&ctx, SmallPairs(8), &response);
    ASSERT_TRUE(s.ok()) << s.error_message();
    ++calls;
    absl::SleepFor(absl::Milliseconds(5));  // pacing, not readiness
  }
  EXPECT_GE(peers.distinct(), 2u) << calls << " calls on one connection";
}

// A client pinging far more often than --min_client_ping_interval allows is
// sent GOAWAY (too_many_pings) and must reconnect; a permissive server keeps
// the same connection.
TEST(Service, KeepaliveEnforcementClosesConnectionsThatPingTooOften) {
  for (const bool enforce : {true, false}) {
    SCOPED_TRACE(enforce ? "enforced" : "permissive");
    PeerLog peers;
    server::ServerOptions options;
    options.min_client_ping_interval =
        enforce ? absl::Seconds(10) : absl::Milliseconds(1);
    options.permit_keepalive_without_calls = !enforce;
    options.service.before_compute = [&](grpc::CallbackServerContext* c) {
      peers.Record(c);
    };
    auto server = Start(options);
    ASSERT_NE(server, nullptr);
    grpc::ChannelArguments args;
    args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, 20);
    args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
    args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
    args.SetInt(GRPC_ARG_HTTP2_MIN_SENT_PING_INTERVAL_WITHOUT_DATA_MS, 10);
    auto channel = grpc::CreateCustomChannel(
        server->address(), grpc::InsecureChannelCredentials(), args);
    auto stub = v1::CollisionService::NewStub(channel);
    const auto call = [&] {
      grpc::ClientContext ctx;
      Deadline(&ctx);
      ctx.set_wait_for_ready(true);
      v1::IntersectResponse response;
      return stub->Intersect(&ctx, SmallPairs(4), &response).ok();
    };
    ASSERT_TRUE(call());
    ASSERT_EQ(channel->GetState(false), GRPC_CHANNEL_READY);
    // Idle while the client pings: gRPC spaces a client's pings at least
    // 1 s apart, so the third (past the server's two ping strikes) comes
    // after 2-3 s, later under TSan. Enforced: wait for the GOAWAY to move
    // the channel out of READY (bounded); permissive: nothing may happen in
    // 3.5 s, three pings' time.
    if (enforce) {
      EXPECT_TRUE(channel->WaitForStateChange(
          GRPC_CHANNEL_READY,
          std::chrono::system_clock::now() + std::chrono::seconds(30)))
          << "still on the first connection after 30 s of pings";
    } else {
      EXPECT_FALSE(channel->WaitForStateChange(
          GRPC_CHANNEL_READY,
          std::chrono::system_clock::now() + std::chrono::milliseconds(3500)));
    }
    ASSERT_TRUE(call());
    EXPECT_EQ(peers.distinct(), enforce ? 2u : 1u);
  }
}

}  // namespace
}  // namespace collision
