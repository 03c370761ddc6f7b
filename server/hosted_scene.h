// collision.v1.SceneService: one scene per Session stream (see scene.proto).
// The stream's life (admission, arenas, order, maximum age) is the shared
// StreamReactor's, or the scene port's; HostedScene is what each message does
// to the scene. (The client's SceneSession is the other end of the stream.)
#ifndef COLLISION_SERVER_HOSTED_SCENE_H_
#define COLLISION_SERVER_HOSTED_SCENE_H_

#include <memory>
#include <optional>

#include "collision/core/scene.h"
#include "collision/core/scene_history.h"
#include "collision/v1/scene.grpc.pb.h"
#include "collision/wire/scene_request.h"
#include "grpcpp/grpcpp.h"
#include "server/scene_recorder.h"
#include "server/service.h"

namespace collision::server {

class HostedScene {
 public:
  using Request = v1::SceneRequest;
  using Response = v1::SceneResponse;
  static constexpr char kMethod[] = "SceneSession";

  HostedScene(CollisionServiceImpl* service,
              grpc::CallbackServerContext* context);
  ~HostedScene();
  HostedScene(const HostedScene&) = delete;
  HostedScene& operator=(const HostedScene&) = delete;

  grpc::Status Precheck(const grpc::ByteBuffer& bytes);
  // The same over a message's bytes in one piece (the scene port's frame).
  grpc::Status PrecheckBytes(absl::string_view bytes);
  // A game's tick is applied on gRPC's thread, in order (the scene is the
  // stream's own state, and a hand-off would cost more than the tick's
  // work); a message of many queries goes to the worker pool, so that one
  // scene's costly messages (up to --scene_message_cpu each) never hold the
  // callback threads that health checks and every other call wait for.
  static constexpr int kInlineMaxQueries = 1024;
  bool ComputeInline(const Request& request) const {
    return service_->ComputesInline(0) &&
           request.queries_size() <= kInlineMaxQueries;
  }
  // Scene messages are always parsed.
  std::shared_ptr<handlers::DecodedRequest> Decode(
      const grpc::ByteBuffer&) const {
    return nullptr;
  }
  grpc::Status Process(const Request& request, Response* response,
                       grpc::CallbackServerContext* context);
  // The name of the file this scene is recorded to; empty when it is not.
  std::string recording() const {
    return recorder_ ? recorder_->name() : std::string();
  }
  // The answer has been handed to the transport: the history records the
  // tick whose recording Process left for later.
  void AfterAnswer();
  // The stream is over: the scene is freed and its slot given back.
  void Ended() { Close(); }
  static void ClearAnswer(Response* response) {
    response->clear_results();
    response->clear_tick();
    response->clear_entities();
  }

 private:
  grpc::Status Handle(const Request& request, Response* response);
  grpc::Status Open(const v1::SceneConfig& config);
  void StartRecording(const v1::SceneConfig& config);
  void Close();
  // The history's share of the scene's reservation once a scene of up to
  // `entities_at_most` entities is counted (and scene_history_bytes).
  std::size_t HistoryBudget(std::size_t entities_at_most) const;
  void ReportMemory();

  // A scene that held this much gives its pages back to the system when it
  // closes.
  static constexpr int64_t kTrimAfterBytes = int64_t{4} << 20;

  CollisionServiceImpl* const service_;
  const wire::SceneLimits& limits_;
  std::optional<wire::SceneSettings> settings_;
  std::optional<Scene> scene_;
  std::optional<SceneHistory> history_;  // when config keeps > 1 tick
  std::optional<uint64_t> tick_;
  // Staged in the history, to be committed by AfterAnswer.
  std::optional<uint64_t> unrecorded_tick_;
  std::unique_ptr<SceneRecorder> recorder_;  // when this scene is recorded
  int64_t history_bytes_ = 0;                // last reported to the metrics
  int64_t held_bytes_ = 0;                   // scene and history, last reported
};

using RawSceneService =
    v1::SceneService::WithRawCallbackMethod_Session<v1::SceneService::Service>;

class SceneServiceImpl final : public RawSceneService {
 public:
  // `collision` (admission, limits, metrics, tokens) must outlive this.
  explicit SceneServiceImpl(CollisionServiceImpl* collision)
      : collision_(collision) {}
  using RawSceneService::Session;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* Session(
      grpc::CallbackServerContext* context) override;

 private:
  CollisionServiceImpl* const collision_;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_HOSTED_SCENE_H_
