// The C++ SceneSession against a scripted SceneService that ends streams
// with every status gRPC has, at every point of a session's life (the first
// message, between answers, the failover's replay, after an answer), stalls,
// answers out of step, and is shut down. Whatever it does, the session must
// return a status (never abort the process, never hang past its deadlines)
// and must lose no message: the fake keeps each stream's world from what it
// received, so an answer's entity count tells whether the session's
// config, snapshot, history window and message in flight all arrived.
#include <atomic>
#include <chrono>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "collision/client/scene_session.h"
#include "collision/v1/scene.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace collision {
namespace {

namespace c = collision::client;

enum class FaultKind {
  kEndBefore,   // end the stream with `code` instead of answering
  kEndAfter,    // answer, then end the stream with `code`
  kStall,       // answer nothing until the stream is cancelled
  kWrongOrder,  // answer under another sequence number
};

struct Fault {
  FaultKind kind = FaultKind::kEndBefore;
  grpc::StatusCode code = grpc::StatusCode::UNAVAILABLE;
};

// A SceneService that answers like a scene server would as far as a
// session can tell (sequence, tick, entities), except at the messages its
// script names (counted over all streams, from 1).
class ScriptedScenes final : public v1::SceneService::Service {
 public:
  void Plan(int message, Fault fault) {
    std::lock_guard<std::mutex> lock(mu_);
    script_[message] = fault;
  }
  int messages() {
    std::lock_guard<std::mutex> lock(mu_);
    return messages_;
  }
  int streams() {
    std::lock_guard<std::mutex> lock(mu_);
    return streams_;
  }

  grpc::Status Session(
      grpc::ServerContext* context,
      grpc::ServerReaderWriter<v1::SceneResponse, v1::SceneRequest>* stream)
      override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      ++streams_;
    }
    std::set<uint64_t> world;
    uint64_t tick = 0;
    bool opened = false;
    v1::SceneRequest request;
    while (stream->Read(&request)) {
      std::optional<Fault> fault;
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = script_.find(++messages_);
        if (it != script_.end()) fault = it->second;
      }
      if (fault && fault->kind == FaultKind::kEndBefore) {
        return grpc::Status(fault->code, "scripted end");
      }
      if (fault && fault->kind == FaultKind::kStall) {
        while (!context->IsCancelled()) absl::SleepFor(absl::Milliseconds(2));
        return grpc::Status(grpc::StatusCode::CANCELLED, "stalled");
      }
      v1::SceneResponse response;
      response.set_sequence(request.sequence() +
                            (fault && fault->kind == FaultKind::kWrongOrder));
      if (!opened && !request.has_config()) {
        response.mutable_error()->set_code(grpc::StatusCode::INVALID_ARGUMENT);
        response.mutable_error()->set_message("config is required first");
      } else {
        opened = true;
        if (request.has_update()) {
          const v1::SceneUpdate& u = request.update();
          if (u.snapshot()) world.clear();
          for (uint64_t id : u.removals()) world.erase(id);
          for (const v1::SceneEntity& e : u.upserts()) world.insert(e.id());
          tick = u.tick();
        }
        response.set_tick(tick);
        response.set_entities(static_cast<uint32_t>(world.size()));
      }
      if (!stream->Write(response)) return grpc::Status::OK;
      if (fault && fault->kind == FaultKind::kEndAfter) {
        return grpc::Status(fault->code, "scripted end after an answer");
      }
    }
    return grpc::Status::OK;
  }

 private:
  std::mutex mu_;
  std::map<int, Fault> script_;
  int messages_ = 0;
  int streams_ = 0;
};

class SceneSessionFaults : public ::testing::Test {
 protected:
  void SetUp() override { Restart(); }
  void TearDown() override { Stop(); }

  // A fresh scripted server (and a client of it).
  void Restart() {
    Stop();
    scenes_ = std::make_unique<ScriptedScenes>();
    grpc::ServerBuilder builder;
    builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(scenes_.get());
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    c::ClientOptions options;
    auto client = c::Client::Create(absl::StrCat("127.0.0.1:", port), options);
    ASSERT_TRUE(client.ok()) << client.status();
    client_ = *std::move(client);
  }
  void Stop() {
    if (server_) server_->Shutdown(std::chrono::system_clock::now());
    server_.reset();
  }

  // A session on a 2D scene keeping `history` ticks, quick to give up.
  absl::StatusOr<std::unique_ptr<c::SceneSession>> Open(uint32_t history = 4) {
    v1::SceneConfig config;
    config.set_dimension(v1::DIMENSION_2D);
    config.set_history_ticks(history);
    c::SceneSessionOptions options;
    options.max_reopens_per_message = 3;
    options.first_backoff = absl::Milliseconds(1);
    options.max_backoff = absl::Milliseconds(5);
    options.message_timeout = absl::Seconds(2);
    return c::SceneSession::Open(*client_, config, options);
  }

  // Tick `t`: entity t arrives, entity t - 3 leaves.
  static v1::SceneRequest Tick(uint64_t t) {
    v1::SceneRequest r;
    v1::SceneUpdate* u = r.mutable_update();
    u->set_tick(t);
    v1::SceneEntity* e = u->add_upserts();
    e->set_id(t);
    e->mutable_shape()->mutable_circle()->set_radius(1);
    if (t > 3) u->add_removals(t - 3);
    return r;
  }
  static uint32_t EntitiesAfter(uint64_t t) { return t < 3 ? t : 3; }

  std::unique_ptr<ScriptedScenes> scenes_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<c::Client> client_;
};

const std::vector<grpc::StatusCode>& EveryErrorCode() {
  static const auto* codes =
      new std::vector<grpc::StatusCode>{grpc::StatusCode::CANCELLED,
                                        grpc::StatusCode::UNKNOWN,
                                        grpc::StatusCode::INVALID_ARGUMENT,
                                        grpc::StatusCode::DEADLINE_EXCEEDED,
                                        grpc::StatusCode::NOT_FOUND,
                                        grpc::StatusCode::ALREADY_EXISTS,
                                        grpc::StatusCode::PERMISSION_DENIED,
                                        grpc::StatusCode::RESOURCE_EXHAUSTED,
                                        grpc::StatusCode::FAILED_PRECONDITION,
                                        grpc::StatusCode::ABORTED,
                                        grpc::StatusCode::OUT_OF_RANGE,
                                        grpc::StatusCode::UNIMPLEMENTED,
                                        grpc::StatusCode::INTERNAL,
                                        grpc::StatusCode::UNAVAILABLE,
                                        grpc::StatusCode::DATA_LOSS,
                                        grpc::StatusCode::UNAUTHENTICATED};
  return *codes;
}

// The statuses a session takes for a broken stream and retries (the
// message is answered on a new stream; the caller sees nothing).
bool Transparent(grpc::StatusCode code) {
  return code == grpc::StatusCode::UNAVAILABLE ||
         code == grpc::StatusCode::ABORTED ||
         code == grpc::StatusCode::CANCELLED;
}

// Message 1 opens the scene, messages 2..4 are ticks 1..3; the stream ends
// with `code` instead of answering tick 3. Then ticks 4 and 5 must be
// answered against the whole world (the failed tick included only when the
// session retried it).
TEST_F(SceneSessionFaults, AStreamEndedWithAnyStatusBetweenAnswersIsAStatus) {
  for (grpc::StatusCode code : EveryErrorCode()) {
    SCOPED_TRACE(absl::StrCat("status ", code));
    Restart();
    scenes_->Plan(4, Fault{FaultKind::kEndBefore, code});
    auto session = Open();
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_TRUE((*session)->Send(Tick(1)).ok());
    ASSERT_TRUE((*session)->Send(Tick(2)).ok());
    absl::StatusOr<v1::SceneResponse> third = (*session)->Send(Tick(3));
    if (Transparent(code)) {
      ASSERT_TRUE(third.ok()) << third.status();
      EXPECT_EQ(third->entities(), 3u);
      EXPECT_EQ((*session)->reopens(), 1);
    } else {
      ASSERT_FALSE(third.ok());
      EXPECT_EQ(static_cast<int>(third.status().code()), static_cast<int>(code))
          << third.status();
    }
    // The scene goes on: the next message reopens it from what the server
    // acknowledged (ticks 1-2, plus 3 when it was retried).
    for (uint64_t t = 4; t <= 5; ++t) {
      absl::StatusOr<v1::SceneResponse> next = (*session)->Send(Tick(t));
      ASSERT_TRUE(next.ok()) << next.status();
      EXPECT_EQ(next->tick(), t);
      // Entity t-3 is removed (when it exists) and t added: without tick
      // 3, entity 3 never came and 1, 2 leave at ticks 4, 5.
      const uint32_t want = Transparent(code) ? 3u : 2u;
      EXPECT_EQ(next->entities(), want) << "tick " << t;
    }
    EXPECT_TRUE((*session)->Finish().ok());
    EXPECT_TRUE((*session)->Finish().ok());  // idempotent
  }
}

// The stream ends with a status right after an answer: the next Send finds
// it gone, and must neither abort (a second Finish) nor lose the message.
TEST_F(SceneSessionFaults, AStreamEndedAfterItsAnswerIsReopenedForTheNext) {
  for (grpc::StatusCode code : EveryErrorCode()) {
    SCOPED_TRACE(absl::StrCat("status ", code));
    Restart();
    scenes_->Plan(3, Fault{FaultKind::kEndAfter, code});
    auto session = Open();
    ASSERT_TRUE(session.ok()) << session.status();
    ASSERT_TRUE((*session)->Send(Tick(1)).ok());
    ASSERT_TRUE((*session)->Send(Tick(2)).ok());  // then the stream ends
    absl::StatusOr<v1::SceneResponse> third = (*session)->Send(Tick(3));
    if (Transparent(code)) {
      ASSERT_TRUE(third.ok()) << third.status();
      EXPECT_EQ(third->entities(), 3u);
    } else {
      // The write may still succeed: the message in hand then carries the
      // stream's status; either way the one after it is answered.
      if (!third.ok()) {
        EXPECT_EQ(static_cast<int>(third.status().code()),
                  static_cast<int>(code));
      }
    }
    absl::StatusOr<v1::SceneResponse> fourth = (*session)->Send(Tick(4));
    ASSERT_TRUE(fourth.ok()) << fourth.status();
    EXPECT_EQ(fourth->tick(), 4u);
    (*session)->Finish().IgnoreError();
  }
}

// The failover's own messages fail: the snapshot (the reopening's first
// message) or a window update being replayed. Retryable statuses are
// retried; the others are returned, and the next Send tries again.
TEST_F(SceneSessionFaults, FaultsDuringTheReopenAreRetriedOrReturned) {
  for (int fault_at : {5, 6}) {  // 5: snapshot + config; 6: a window update
    for (grpc::StatusCode code : EveryErrorCode()) {
      SCOPED_TRACE(absl::StrCat("status ", code, " at message ", fault_at));
      Restart();
      // Message 4 (tick 3) breaks the stream; the reopening is message 5,
      // the replayed ticks 6 on.
      scenes_->Plan(
          4, Fault{FaultKind::kEndBefore, grpc::StatusCode::UNAVAILABLE});
      scenes_->Plan(fault_at, Fault{FaultKind::kEndBefore, code});
      auto session = Open(/*history=*/8);
      ASSERT_TRUE(session.ok()) << session.status();
      ASSERT_TRUE((*session)->Send(Tick(1)).ok());
      ASSERT_TRUE((*session)->Send(Tick(2)).ok());
      absl::StatusOr<v1::SceneResponse> third = (*session)->Send(Tick(3));
      const bool retried =
          Transparent(code) || code == grpc::StatusCode::RESOURCE_EXHAUSTED;
      if (retried) {
        ASSERT_TRUE(third.ok()) << third.status();
        EXPECT_EQ(third->entities(), 3u);
      } else {
        ASSERT_FALSE(third.ok());
        EXPECT_EQ(static_cast<int>(third.status().code()),
                  static_cast<int>(code));
        // Tick 3 was never answered: send it again.
        third = (*session)->Send(Tick(3));
        ASSERT_TRUE(third.ok()) << third.status();
        EXPECT_EQ(third->entities(), 3u);
      }
      absl::StatusOr<v1::SceneResponse> fourth = (*session)->Send(Tick(4));
      ASSERT_TRUE(fourth.ok()) << fourth.status();
      EXPECT_EQ(fourth->entities(), 3u);
      (*session)->Finish().IgnoreError();
    }
  }
}

TEST_F(SceneSessionFaults, OpeningFailsWithTheServersStatusOrRetries) {
  for (grpc::StatusCode code : EveryErrorCode()) {
    SCOPED_TRACE(absl::StrCat("status ", code));
    Restart();
    scenes_->Plan(1, Fault{FaultKind::kEndBefore, code});
    auto session = Open();
    const bool retried =
        Transparent(code) || code == grpc::StatusCode::RESOURCE_EXHAUSTED;
    if (retried) {
      ASSERT_TRUE(session.ok()) << session.status();
      EXPECT_EQ(scenes_->streams(), 2);
      ASSERT_TRUE((*session)->Send(Tick(1)).ok());
    } else {
      ASSERT_FALSE(session.ok());
      EXPECT_EQ(static_cast<int>(session.status().code()),
                static_cast<int>(code));
    }
  }
}

// A server that stops answering: the message fails at its deadline (not
// the stream's, which is infinite), and the next one is answered.
TEST_F(SceneSessionFaults, AStalledAnswerFailsAtTheMessageTimeout) {
  scenes_->Plan(3, Fault{FaultKind::kStall, grpc::StatusCode::OK});
  auto session = Open();
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Send(Tick(1)).ok());
  absl::StatusOr<v1::SceneResponse> second = (*session)->Send(Tick(2));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kDeadlineExceeded)
      << second.status();
  absl::StatusOr<v1::SceneResponse> again = (*session)->Send(Tick(2));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->entities(), 2u);
}

TEST_F(SceneSessionFaults, AnAnswerOutOfStepIsAnErrorAndTheSessionRecovers) {
  scenes_->Plan(3, Fault{FaultKind::kWrongOrder, grpc::StatusCode::OK});
  auto session = Open();
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Send(Tick(1)).ok());
  absl::StatusOr<v1::SceneResponse> second = (*session)->Send(Tick(2));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kInternal);
  absl::StatusOr<v1::SceneResponse> again = (*session)->Send(Tick(2));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->entities(), 2u);
}

// The replica goes away for good: Send gives up after its reopenings with
// UNAVAILABLE, in bounded time, and Finish still returns.
TEST_F(SceneSessionFaults, AServerGoneForGoodIsUnavailableNotAHang) {
  auto session = Open();
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Send(Tick(1)).ok());
  Stop();
  absl::StatusOr<v1::SceneResponse> next = (*session)->Send(Tick(2));
  ASSERT_FALSE(next.ok());
  EXPECT_EQ(next.status().code(), absl::StatusCode::kUnavailable)
      << next.status();
  (*session)->Finish().IgnoreError();
  absl::StatusOr<v1::SceneResponse> after = (*session)->Send(Tick(3));
  EXPECT_EQ(after.status().code(), absl::StatusCode::kFailedPrecondition);
}

// Ticks handed over without waiting (SendAsync), a stream broken in the
// middle of them: every answer arrives, in order, each against the whole
// world (the failover replays what had no answer).
TEST_F(SceneSessionFaults,
       HandedOverMessagesAreAnsweredInOrderThroughAFailover) {
  scenes_->Plan(5, Fault{FaultKind::kEndBefore, grpc::StatusCode::UNAVAILABLE});
  auto session = Open();
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<std::future<absl::StatusOr<v1::SceneResponse>>> answers;
  for (uint64_t t = 1; t <= 10; ++t) {
    answers.push_back((*session)->SendAsync(Tick(t)));
  }
  for (uint64_t t = 1; t <= 10; ++t) {
    absl::StatusOr<v1::SceneResponse> a = answers[t - 1].get();
    ASSERT_TRUE(a.ok()) << "tick " << t << ": " << a.status();
    EXPECT_EQ(a->tick(), t);
    EXPECT_EQ(a->entities(), EntitiesAfter(t));
  }
  EXPECT_EQ((*session)->reopens(), 1);
  EXPECT_EQ((*session)->in_flight(), 0u);
  // A blocking Send after them goes on from the same world.
  absl::StatusOr<v1::SceneResponse> next = (*session)->Send(Tick(11));
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->entities(), 3u);
  EXPECT_TRUE((*session)->Finish().ok());
}

// A server that answers nothing: the message is handed over all the same
// (the caller is not held), and fails at its deadline; the next one sent
// behind it is answered on a new stream.
TEST_F(SceneSessionFaults, AHandedOverMessageNeverHoldsTheCaller) {
  scenes_->Plan(3, Fault{FaultKind::kStall, grpc::StatusCode::OK});
  auto session = Open();
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_TRUE((*session)->Send(Tick(1)).ok());
  auto stalled = (*session)->SendAsync(Tick(2));
  // The server holds message 3 until the stream is cancelled: the future
  // cannot be ready before the session's message timeout.
  EXPECT_EQ(stalled.wait_for(std::chrono::milliseconds(0)),
            std::future_status::timeout);
  EXPECT_EQ((*session)->in_flight(), 1u);
  auto after = (*session)->SendAsync(Tick(2));
  EXPECT_EQ(stalled.get().status().code(), absl::StatusCode::kDeadlineExceeded);
  absl::StatusOr<v1::SceneResponse> resent = after.get();
  ASSERT_TRUE(resent.ok()) << resent.status();
  EXPECT_EQ(resent->entities(), 2u);
}

// Destroying a session with messages still handed over ends them
// (CANCELLED), never a hang or an abort.
TEST_F(SceneSessionFaults, DestroyingTheSessionCancelsWhatItHolds) {
  scenes_->Plan(3, Fault{FaultKind::kStall, grpc::StatusCode::OK});
  std::vector<std::future<absl::StatusOr<v1::SceneResponse>>> answers;
  {
    auto session = Open();
    ASSERT_TRUE(session.ok()) << session.status();
    for (uint64_t t = 1; t <= 4; ++t) {
      answers.push_back((*session)->SendAsync(Tick(t)));
    }
    ASSERT_TRUE(answers[0].get().ok());
    // Tick 2 is stalled at the server; ticks 3 and 4 wait behind it.
  }
  for (std::size_t i = 1; i < answers.size(); ++i) {
    absl::StatusOr<v1::SceneResponse> a = answers[i].get();
    EXPECT_EQ(a.status().code(), absl::StatusCode::kCancelled)
        << "tick " << i + 1 << ": " << a.status();
  }
}

}  // namespace
}  // namespace collision
