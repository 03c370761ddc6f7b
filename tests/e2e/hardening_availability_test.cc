// Attacks on availability and accounting, on the shipped collision_server:
// a burst of small calls, oversized headers beside an open stream, a
// stream outliving its connection's age, calls that end before their
// message, file descriptors running out. The first two also measure an
// honest caller's latency through the attack.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/e2e/hardening_testing.h"

namespace collision::hardening_testing {
namespace {

TEST_F(Hardening, ABurstOfSmallCallsIsShedAndHealthStillAnswers) {
  ASSERT_NO_FATAL_FAILURE(
      StartServer({"--metrics_address=127.0.0.1:0", "--max_in_flight=4"}));
  ASSERT_NO_FATAL_FAILURE(MeasureHonestCallerUnloaded());
  // What was shed before the burst (on a busy machine the honest caller's
  // warm-up may be, see HonestCaller), counted as it happens.
  const char kOverloaded[] = "collision_rejected_total{reason=\"overloaded\"}";
  const double shed_before = Metric(kOverloaded);
  constexpr int kConnections = 20, kCallsEach = 100;
  std::vector<std::unique_ptr<v1::CollisionService::Stub>> stubs;
  for (int c = 0; c < kConnections; ++c) {
    stubs.push_back(v1::CollisionService::NewStub(grpc::CreateCustomChannel(
        server_->target(), grpc::InsecureChannelCredentials(),
        FreshConnection())));
  }
  v1::IntersectRequest request;
  request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  for (int i = 0; i < 10; ++i) {
    v1::ShapePair* pair = request.add_pairs();
    pair->mutable_a()->mutable_circle()->set_radius(1);
    pair->mutable_a()->mutable_circle()->mutable_center();
    pair->mutable_b()->mutable_point()->set_x(static_cast<float>(i));
  }
  struct Call {
    grpc::ClientContext context;
    v1::IntersectResponse response;
  };
  std::atomic<int> ok{0}, shed{0}, pushback{0}, other{0};
  absl::Mutex mu;
  int pending = kConnections * kCallsEach;
  // An honest caller through the burst: shed like anyone while four calls
  // are in flight (and retried after the pushback), but never failed.
  honest_->Start();
  for (auto& stub : stubs) {
    for (int i = 0; i < kCallsEach; ++i) {
      auto* call = new Call;
      call->context.set_deadline(std::chrono::system_clock::now() +
                                 std::chrono::seconds(30));
      stub->async()->Intersect(
          &call->context, &request, &call->response, [&, call](grpc::Status s) {
            if (s.ok()) {
              ++ok;
            } else if (s.error_code() == grpc::StatusCode::UNAVAILABLE) {
              ++shed;
              const auto& t = call->context.GetServerTrailingMetadata();
              if (t.find("grpc-retry-pushback-ms") != t.end()) ++pushback;
            } else {
              ++other;
            }
            delete call;
            absl::MutexLock lock(&mu);
            --pending;
          });
    }
  }
  // Health, on a connection of its own, answers while the burst is on.
  ExpectHealthServing(server_->target());
  {
    absl::MutexLock lock(&mu);
    ASSERT_TRUE(
        mu.AwaitWithTimeout(absl::Condition(
                                +[](int* p) { return *p == 0; }, &pending),
                            absl::Seconds(60)));
  }
  const Latencies honest = honest_->Stop();
  ExpectHonestCallerServed(absl::StrCat("burst of ", kConnections * kCallsEach,
                                        " 10-pair calls, --max_in_flight=4"),
                           honest, Shedding::kAllowed);
  std::printf(
      "[ measured ] burst of %d 10-pair calls, --max_in_flight=4: "
      "%d ok, %d shed\n",
      kConnections * kCallsEach, ok.load(), shed.load());
  EXPECT_GT(ok.load(), 0);
  EXPECT_GT(shed.load(), 0);
  EXPECT_EQ(pushback.load(), shed.load());
  EXPECT_EQ(other.load(), 0);
  EXPECT_EQ(Metric(kOverloaded) - shed_before, shed.load() + honest.shed);
  ExpectServesAnHonestCaller();  // and once the burst is over, all is well
}

TEST_F(Hardening, OversizedMetadataRejectsItsCallAloneNotTheConnection) {
  ASSERT_NO_FATAL_FAILURE(StartServer());
  ASSERT_NO_FATAL_FAILURE(MeasureHonestCallerUnloaded());
  // A stream open on the connection.
  grpc::ClientContext stream_context;
  auto stream = stub_->QueryStream(&stream_context);
  v1::QueryStreamRequest tick;
  tick.mutable_intersect()->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  v1::ShapePair* pair = tick.mutable_intersect()->add_pairs();
  pair->mutable_a()->mutable_point();
  pair->mutable_b()->mutable_point();
  tick.set_sequence(1);
  v1::QueryStreamResponse answer;
  ASSERT_TRUE(ExchangeRetryingWhileShed(stream.get(), tick, &answer));
  // Calls with a 9,000-byte header on the same channel (connection), 200
  // one after another (one is too short to time a caller by), an honest
  // caller on another connection meanwhile.
  honest_->Start();
  for (int i = 0; i < 200; ++i) {
    grpc::ClientContext context;
    context.AddMetadata("x-big", std::string(9000, 'a'));
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    v1::IntersectResponse response;
    const grpc::Status s =
        stub_->Intersect(&context, tick.intersect(), &response);
    ASSERT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << i;
    ASSERT_THAT(s.error_message(),
                HasSubstr("over this server's limit of 8192 bytes"));
  }
  // The stream is untouched.
  tick.set_sequence(2);
  ASSERT_TRUE(ExchangeRetryingWhileShed(stream.get(), tick, &answer));
  EXPECT_EQ(answer.sequence(), 2u);
  EXPECT_EQ(answer.intersect().results_size(), 1) << answer.error().message();
  ExpectHonestCallerServed(
      "200 calls with a 9,000-byte header beside an open stream",
      honest_->Stop(), Shedding::kNeverForCapacity);
  stream->WritesDone();
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(Hardening, AStreamEndsBetweenTwoMessagesBeforeItsConnectionAges) {
  // Streams end at 0.9 s (the shorter of age and grace, less a tenth),
  // before the transport would cut them at the connection's age + grace.
  ASSERT_NO_FATAL_FAILURE(StartServer(
      {"--max_connection_age=2s", "--max_connection_age_grace=1s"}));
  grpc::ClientContext context;
  auto stream = stub_->QueryStream(&context);
  v1::QueryStreamRequest tick;
  tick.mutable_intersect()->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  v1::ShapePair* pair = tick.mutable_intersect()->add_pairs();
  pair->mutable_a()->mutable_circle()->set_radius(1);
  pair->mutable_a()->mutable_circle()->mutable_center();
  pair->mutable_b()->mutable_point()->set_x(1);
  // Ticks until the server ends the stream (bounded: 10 s at ~100 Hz).
  uint64_t answered = 0;
  const absl::Time until = absl::Now() + absl::Seconds(10);
  while (absl::Now() < until) {
    tick.set_sequence(answered + 1);
    if (!stream->Write(tick)) break;
    v1::QueryStreamResponse answer;
    if (!stream->Read(&answer)) break;
    ASSERT_EQ(answer.sequence(), answered + 1);  // in order, none skipped
    ASSERT_EQ(answer.intersect().results_size(), 1);
    ASSERT_TRUE(answer.intersect().results(0).hit());
    ++answered;
    absl::SleepFor(absl::Milliseconds(10));
  }
  const grpc::Status s = stream->Finish();
  EXPECT_GT(answered, 0u);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(s.error_message(), HasSubstr("maximum age"));
  const auto& trailers = context.GetServerTrailingMetadata();
  const auto end = trailers.find("collision-stream-end");
  ASSERT_NE(end, trailers.end());
  EXPECT_EQ(std::string(end->second.data(), end->second.size()), "max-age");
}

TEST_F(Hardening, CallsThatEndBeforeTheirMessageAreCountedForWhatTheyAre) {
  ASSERT_NO_FATAL_FAILURE(StartServer({"--metrics_address=127.0.0.1:0"}));
  // Half-closed with no message at all.
  {
    RawConnection connection(server_->port());
    ASSERT_TRUE(connection.Send(
        absl::StrCat(ClientStart(), Frame(kHeaders, kEndHeaders | kEndStream, 1,
                                          RequestHeaders("Intersect")))));
    const Ending ending = connection.ReadUntilEnd();
    ASSERT_TRUE(ending.trailers);
    EXPECT_EQ(LiteralValue(ending.trailer_block, "grpc-status"), "3");
  }
  EXPECT_TRUE(
      MetricReaches("collision_rejected_total{reason=\"no_message\"}", 1));
  // Cancelled by the client halfway through the upload.
  {
    RawConnection connection(server_->port());
    const std::string request = EmptyPairs(1000);
    ASSERT_TRUE(connection.Send(absl::StrCat(
        ClientStart(),
        Frame(kHeaders, kEndHeaders, 1, RequestHeaders("Intersect")),
        Frame(kData, 0, 1, GrpcMessage(request).substr(0, 100)))));
    std::string cancel;
    AppendU32(&cancel, 0x8);  // CANCEL
    ASSERT_TRUE(connection.Send(Frame(kRstStream, 0, 1, cancel)));
    connection.DrainFor(absl::Milliseconds(100));
  }
  EXPECT_TRUE(
      MetricReaches("collision_rejected_total{reason=\"cancelled\"}", 1))
      << testing::HttpGet(server_->metrics_port(), "/metrics").value_or("");
  // Its deadline passes during the upload.
  {
    RawConnection connection(server_->port());
    std::string headers = RequestHeaders("Intersect");
    AppendLiteral(&headers, "grpc-timeout", "50m");
    ASSERT_TRUE(connection.Send(absl::StrCat(
        ClientStart(), Frame(kHeaders, kEndHeaders, 1, headers),
        Frame(kData, 0, 1, GrpcMessage(EmptyPairs(10)).substr(0, 8)))));
    const Ending ending = connection.ReadUntilEnd();
    EXPECT_TRUE(ending.ended());
  }
  EXPECT_TRUE(
      MetricReaches("collision_rejected_total{reason=\"deadline\"}", 1));
  // None of them was an invalid request.
  EXPECT_EQ(Metric("collision_rejected_total{reason=\"invalid_argument\"}"), 0);
  ExpectServesAnHonestCaller();
}

TEST_F(Hardening, ConnectionsBeyondTheLimitAreRefusedAndTheOthersGoOn) {
  // 64 descriptors, at most 16 connections: without the limit the flood
  // below runs the process out of descriptors (the test after this one).
  ASSERT_NO_FATAL_FAILURE(StartServer(
      {"--metrics_address=127.0.0.1:0", "--max_connections=16"}, 64));
  ASSERT_NO_FATAL_FAILURE(MeasureHonestCallerUnloaded());
  constexpr int kFlood = 80;
  std::vector<std::unique_ptr<RawConnection>> flood;
  honest_->Start();
  for (int i = 0; i < kFlood; ++i) {
    flood.push_back(std::make_unique<RawConnection>(server_->port()));
    ASSERT_TRUE(flood.back()->connected());
  }
  // The honest caller's connection and at most 15 of the flood are kept;
  // every other one is refused.
  EXPECT_TRUE(MetricReaches(
      "collision_rejected_total{reason=\"connection_limit\"}", kFlood - 15))
      << server_->log();
  EXPECT_EQ(Metric("collision_connections"), 16);
  // A gRPC client that connects now is refused: its call is answered
  // UNAVAILABLE, naming the limit, at once.
  {
    auto stub = v1::CollisionService::NewStub(grpc::CreateCustomChannel(
        server_->target(), grpc::InsecureChannelCredentials(),
        FreshConnection()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(30));
    v1::IntersectResponse response;
    const grpc::Status s =
        stub->Intersect(&context, v1::IntersectRequest(), &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE)
        << s.error_code() << " " << s.error_message();
    EXPECT_THAT(s.error_message(), HasSubstr("--max_connections"));
  }
  // The last one (accepted after the others filled the limit) hears why.
  const Ending refused = flood.back()->ReadUntilClosed();
  EXPECT_TRUE(refused.goaway) << "closed " << refused.closed;
  // The kept connections go on: the honest caller on its own.
  ASSERT_NO_FATAL_FAILURE(
      ExpectHonestCallerServed("80 connections against --max_connections=16",
                               honest_->Stop(), Shedding::kNeverForCapacity));
  // Once the flood is gone, new connections are taken again.
  flood.clear();
  const absl::Time until = absl::Now() + absl::Seconds(30);
  while (Metric("collision_connections") > 2 && absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_LE(Metric("collision_connections"), 2);
  ASSERT_NO_FATAL_FAILURE(ExpectServesAnHonestCaller());
  EXPECT_THAT(server_->log(), ::testing::Not(HasSubstr("stopped accepting")));
}

TEST_F(Hardening, AListenerOutOfFileDescriptorsMakesTheServerExitForARestart) {
  // 64 descriptors: gRPC's own take ~20; the rest go to connections. With
  // no connection limit, gRPC's own listener (as with TLS).
  ASSERT_NO_FATAL_FAILURE(
      StartServer({"--drain_grace=0s", "--max_connections=0"}, 64));
  std::vector<std::unique_ptr<RawConnection>> connections;
  for (int i = 0; i < 80; ++i) {
    connections.push_back(std::make_unique<RawConnection>(server_->port()));
  }
  // gRPC 1.51 never accepts on that socket again: the server says so,
  // turns NOT_SERVING, drains and exits 1.
  EXPECT_EQ(server_->WaitExit(absl::Seconds(30)), 1) << server_->log();
  const std::string log = server_->log();
  EXPECT_THAT(log, HasSubstr("Failed accept4"));
  EXPECT_THAT(log, HasSubstr("the listening socket stopped accepting"));
  EXPECT_THAT(log, HasSubstr("exit status 1"));
}

TEST_F(Hardening, ATlsPortKeepsItsConnectionsBelowTheDescriptorLimit) {
  // The default flags under 64 descriptors, with TLS: gRPC keeps the
  // listener, and the limit (the 64 less 256, at least 16) closes the
  // connections over it before their handshake, so descriptors never run
  // out and the listener never stops (the test before this one).
  const std::string certs = absl::StrCat(dir_, "/certs");
  ASSERT_EQ(
      std::system(
          absl::StrCat("bash ", COLLISION_CERT_SCRIPT, " ", certs).c_str()),
      0);
  ASSERT_NO_FATAL_FAILURE(
      StartServer({"--metrics_address=127.0.0.1:0",
                   absl::StrCat("--tls_cert=", certs, "/server.pem"),
                   absl::StrCat("--tls_key=", certs, "/server.key")},
                  64));
  EXPECT_THAT(server_->log(), HasSubstr("max_connections=16"));
  std::ifstream ca_in(absl::StrCat(certs, "/ca.pem"));
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = std::string(std::istreambuf_iterator<char>(ca_in), {});
  // A stub on a TLS connection of its own, and one call's status.
  const auto connect = [&] {
    grpc::ChannelArguments args = FreshConnection();
    args.SetSslTargetNameOverride("localhost");
    return v1::CollisionService::NewStub(grpc::CreateCustomChannel(
        server_->target(), grpc::SslCredentials(ssl), args));
  };
  const auto call = [&](v1::CollisionService::Stub* stub) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    v1::IntersectRequest request;
    request.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    request.add_pairs()->mutable_a()->mutable_point();
    request.mutable_pairs(0)->mutable_b()->mutable_point();
    v1::IntersectResponse response;
    return stub->Intersect(&context, request, &response).error_code();
  };
  auto honest = connect();
  ASSERT_EQ(call(honest.get()), grpc::StatusCode::OK) << server_->log();
  // 15 of them fill the limit beside the honest caller; 65 are refused.
  std::vector<std::unique_ptr<RawConnection>> flood;
  for (int i = 0; i < 80; ++i) {
    flood.push_back(std::make_unique<RawConnection>(server_->port()));
    ASSERT_TRUE(flood.back()->connected());
  }
  EXPECT_TRUE(MetricReaches(
      "collision_rejected_total{reason=\"connection_limit\"}", 80 - 15))
      << server_->log();
  EXPECT_EQ(call(connect().get()), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(call(honest.get()), grpc::StatusCode::OK);
  // Once the flood has gone the port takes connections again: it never
  // ran out of descriptors.
  flood.clear();
  const absl::Time until = absl::Now() + absl::Seconds(20);
  grpc::StatusCode code = call(connect().get());
  while (code != grpc::StatusCode::OK && absl::Now() < until) {
    absl::SleepFor(absl::Milliseconds(20));
    code = call(connect().get());
  }
  EXPECT_EQ(code, grpc::StatusCode::OK) << server_->log();
  EXPECT_THAT(server_->log(), ::testing::Not(HasSubstr("Failed accept4")));
  EXPECT_THAT(server_->log(), ::testing::Not(HasSubstr("stopped accepting")));
}

}  // namespace
}  // namespace collision::hardening_testing
