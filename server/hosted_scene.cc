#include "server/hosted_scene.h"

#include <malloc.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/handlers/pairs.h"
#include "collision/handlers/scene.h"
#include "collision/wire/wire_precheck.h"
#include "common/tsan_handoff.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "server/stream_reactor.h"

namespace collision::server {
namespace {

const char* QueryKindName(const wire::ParsedSceneQuery& q) {
  switch (q.kind) {
    case wire::SceneQueryKind::kOverlap:
      return "overlap";
    case wire::SceneQueryKind::kNearest:
      return "nearest";
    case wire::SceneQueryKind::kCast:
      return q.cast.radius > 0.0f ? "sweep" : "raycast";
  }
  return "overlap";
}

}  // namespace

HostedScene::HostedScene(CollisionServiceImpl* service,
                         grpc::CallbackServerContext*)
    : service_(service), limits_(service->options_.scenes) {}

HostedScene::~HostedScene() { Close(); }

grpc::Status HostedScene::Precheck(const grpc::ByteBuffer& bytes) {
  const uint64_t max_entities =
      settings_ ? settings_->max_entities : limits_.max_entities;
  return ToGrpc(ReadBytes(bytes, [&](auto* in) {
    return wire::PrecheckSceneRequest(in, max_entities, limits_.max_queries);
  }));
}

grpc::Status HostedScene::PrecheckBytes(absl::string_view bytes) {
  const uint64_t max_entities =
      settings_ ? settings_->max_entities : limits_.max_entities;
  google::protobuf::io::ArrayInputStream in(bytes.data(),
                                            static_cast<int>(bytes.size()));
  return ToGrpc(
      wire::PrecheckSceneRequest(&in, max_entities, limits_.max_queries));
}

grpc::Status HostedScene::Open(const v1::SceneConfig& config) {
  absl::StatusOr<wire::SceneSettings> settings =
      wire::ParseSceneConfig(config, limits_);
  if (!settings.ok()) return ToGrpc(settings.status());
  if (absl::Status s = service_->scene_budget_.Reserve(settings->memory_bytes);
      !s.ok()) {
    service_->metrics_->Rejected("scene_budget");
    return ToGrpc(s);
  }
  settings_ = *settings;
  scene_.emplace(settings_->dimension);
  if (settings_->history_ticks > 1) {
    history_.emplace(settings_->dimension, settings_->history_ticks,
                     HistoryBudget(0));
  }
  service_->metrics_->ScenesChanged(1, 0);
  service_->metrics_->SceneMemoryChanged(
      0, static_cast<int64_t>(settings_->memory_bytes));
  return grpc::Status::OK;
}

void HostedScene::StartRecording(const v1::SceneConfig& config) {
  const SceneRecordOptions& record = service_->options_.record;
  if (record.dir.empty() || !(record.all || config.record())) return;
  absl::StatusOr<std::unique_ptr<SceneRecorder>> recorder =
      SceneRecorder::Create(record, limits_);
  if (!recorder.ok()) {
    EventLog::Global().Write(LogLevel::kWarning, "scene_record",
                             recorder.status().message());
    return;
  }
  recorder_ = *std::move(recorder);
}

void HostedScene::Close() {
  if (!scene_) return;
  recorder_.reset();
  const int64_t entities = static_cast<int64_t>(scene_->size());
  scene_.reset();
  history_.reset();
  // A scene's memory is many small blocks (a ring per entity); glibc keeps
  // freed ones for reuse unless asked to give the pages back. Before the
  // metrics say the scene is gone, so that they never run ahead of memory.
  if (held_bytes_ >= kTrimAfterBytes) malloc_trim(0);
  service_->metrics_->ScenesChanged(-1, -entities);
  service_->metrics_->SceneHistoryChanged(-history_bytes_);
  service_->metrics_->SceneMemoryChanged(
      -held_bytes_, -static_cast<int64_t>(settings_->memory_bytes));
  service_->scene_budget_.Release(settings_->memory_bytes);
  history_bytes_ = 0;
  held_bytes_ = 0;
  settings_.reset();
  tick_.reset();
}

std::size_t HostedScene::HistoryBudget(std::size_t entities_at_most) const {
  const std::size_t scene_bytes = std::max(
      scene_->Stats().memory_bytes,
      SceneBytesAtLeast(std::min(entities_at_most, settings_->max_entities),
                        /*history=*/false));
  const std::size_t left = settings_->memory_bytes > scene_bytes
                               ? settings_->memory_bytes - scene_bytes
                               : 0;
  return std::min(limits_.history_bytes, left);
}

grpc::Status HostedScene::Process(const Request& request, Response* response,
                                  grpc::CallbackServerContext*) {
  const grpc::Status status = Handle(request, response);
  if (recorder_ != nullptr) {
    if (status.ok()) {
      // Without the transport's numbering (restored: it is sent).
      const uint64_t sequence = response->sequence();
      response->clear_sequence();
      recorder_->Record(request, *response);
      response->set_sequence(sequence);
    } else {
      // What the client is answered (stream_reactor.h, scene_port.cc).
      Response rejected;
      ToStreamError(status, rejected.mutable_error());
      recorder_->Record(request, rejected);
    }
  }
  return status;
}

grpc::Status HostedScene::Handle(const Request& request, Response* response) {
  const absl::Time start = absl::Now();
  const bool first = !scene_.has_value();
  if (first) {
    if (!request.has_config()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          "config is required in the first message of the "
                          "stream (dimension and boundary rule)");
    }
    if (grpc::Status s = Open(request.config()); !s.ok()) return s;
  }
  absl::StatusOr<wire::ParsedSceneMessage> parsed = wire::ParseSceneMessage(
      request, *settings_, tick_, *scene_, limits_, /*config_allowed=*/first);
  if (!parsed.ok()) {
    if (first) Close();  // a rejected first message opens nothing
    return ToGrpc(parsed.status());
  }
  // Recorded from the message that opened the scene: a rejected first
  // message leaves no file behind.
  if (first) StartRecording(request.config());
  const int64_t before = static_cast<int64_t>(scene_->size());
  SceneHistory* history = history_ ? &*history_ : nullptr;
  if (history != nullptr && parsed->update.present) {
    // What the scene's reservation leaves the history once the entities
    // this update may bring are counted.
    history->SetMemoryBudget(
        HistoryBudget((parsed->update.snapshot ? 0 : scene_->size()) +
                      parsed->update.upsert_count()));
  }
  // The history records the tick after the answer has left (AfterAnswer)
  // unless a rewound query of this message needs it.
  const bool record_later = history != nullptr && parsed->update.present &&
                            !handlers::RecordUpdateFirst(*parsed, *history);
  handlers::ApplySceneUpdate(parsed->update, &*scene_, history, record_later);
  if (record_later) unrecorded_tick_ = parsed->update.tick;
  if (parsed->update.present) tick_ = parsed->update.tick;
  handlers::AnswerSceneQueries(parsed->queries, *scene_, history, tick_,
                               limits_, response);
  response->set_tick(tick_.value_or(0));
  response->set_entities(static_cast<uint32_t>(scene_->size()));
  if (first) {
    v1::SceneGrant* grant = response->mutable_scene();
    grant->set_history_ticks(settings_->history_ticks);
    grant->set_max_entities(static_cast<uint32_t>(settings_->max_entities));
    grant->set_memory_bytes(settings_->memory_bytes);
    if (recorder_ != nullptr) grant->set_recording(recorder_->name());
  }

  Metrics* metrics = service_->metrics_;
  metrics->ScenesChanged(0, static_cast<int64_t>(scene_->size()) - before);
  uint64_t rewound = 0, clamped = 0;
  for (int i = 0; i < response->results_size(); ++i) {
    const wire::ParsedSceneQuery& q =
        parsed->queries[static_cast<std::size_t>(i)];
    metrics->SceneQueries(QueryKindName(q), 1);
    rewound += q.rewound;
    clamped += response->results(i).clamped();
  }
  if (rewound > 0) metrics->SceneRewoundQueries(rewound, clamped);
  if (parsed->update.present && !record_later) ReportMemory();
  metrics->SceneMessageHandled(absl::ToDoubleSeconds(absl::Now() - start));
  return grpc::Status::OK;
}

void HostedScene::AfterAnswer() {
  if (!unrecorded_tick_.has_value()) return;
  history_->Commit(*unrecorded_tick_);
  unrecorded_tick_.reset();
  ReportMemory();
}

void HostedScene::ReportMemory() {
  int64_t held = static_cast<int64_t>(scene_->Stats().memory_bytes);
  if (history_) {
    const int64_t bytes = static_cast<int64_t>(history_->Stats().memory_bytes);
    service_->metrics_->SceneHistoryChanged(bytes - history_bytes_);
    history_bytes_ = bytes;
    held += bytes;
  }
  service_->metrics_->SceneMemoryChanged(held - held_bytes_, 0);
  held_bytes_ = held;
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
SceneServiceImpl::Session(grpc::CallbackServerContext* context) {
  TakeOver(this);  // handed to gRPC's threads in CollisionServer::Start
  return new StreamReactor<HostedScene>(collision_, context);
}

}  // namespace collision::server
