#include "server/scene_session.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/wire/handlers.h"
#include "collision/wire/wire_precheck.h"
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

SceneSession::SceneSession(CollisionServiceImpl* service,
                           grpc::CallbackServerContext*)
    : service_(service), limits_(service->options_.scenes) {}

SceneSession::~SceneSession() { Close(); }

grpc::Status SceneSession::Precheck(const grpc::ByteBuffer& bytes) {
  const uint64_t max_entities =
      settings_ ? settings_->max_entities : limits_.max_entities;
  return ToGrpc(ReadBytes(bytes, [&](auto* in) {
    return wire::PrecheckSceneRequest(in, max_entities, limits_.max_queries);
  }));
}

grpc::Status SceneSession::Open(const v1::SceneConfig& config) {
  absl::StatusOr<wire::SceneSettings> settings =
      wire::ParseSceneConfig(config, limits_);
  if (!settings.ok()) return ToGrpc(settings.status());
  if (service_->open_scenes_.fetch_add(1) >= limits_.max_scenes) {
    service_->open_scenes_.fetch_sub(1);
    return grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("this server hosts its limit of ", limits_.max_scenes,
                     " scenes; open the scene on another replica or later"));
  }
  settings_ = *settings;
  scene_.emplace(settings_->dimension);
  if (settings_->history_ticks > 1) {
    history_.emplace(settings_->dimension, settings_->history_ticks,
                     limits_.history_bytes);
  }
  service_->metrics_->ScenesChanged(1, 0);
  return grpc::Status::OK;
}

void SceneSession::Close() {
  if (!scene_) return;
  service_->metrics_->ScenesChanged(-1, -static_cast<int64_t>(scene_->size()));
  service_->metrics_->SceneHistoryChanged(-history_bytes_);
  history_bytes_ = 0;
  scene_.reset();
  history_.reset();
  settings_.reset();
  tick_.reset();
  service_->open_scenes_.fetch_sub(1);
}

grpc::Status SceneSession::Process(const Request& request, Response* response,
                                   grpc::CallbackServerContext*) {
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
  const int64_t before = static_cast<int64_t>(scene_->size());
  SceneHistory* history = history_ ? &*history_ : nullptr;
  // The history records the tick after the answer has left (AfterAnswer)
  // unless a rewound query of this message needs it.
  const bool record_later = history != nullptr && parsed->update.present &&
                            !wire::RecordUpdateFirst(*parsed, *history);
  wire::ApplySceneUpdate(parsed->update, &*scene_, history, record_later);
  if (record_later) unrecorded_tick_ = parsed->update.tick;
  if (parsed->update.present) tick_ = parsed->update.tick;
  wire::AnswerSceneQueries(parsed->queries, *scene_, history, tick_, response);
  response->set_tick(tick_.value_or(0));
  response->set_entities(static_cast<uint32_t>(scene_->size()));

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
  if (history_ && parsed->update.present && !record_later) {
    ReportHistoryBytes();
  }
  metrics->SceneMessageHandled(absl::ToDoubleSeconds(absl::Now() - start));
  return grpc::Status::OK;
}

void SceneSession::AfterAnswer() {
  if (!unrecorded_tick_.has_value()) return;
  history_->Commit(*unrecorded_tick_);
  unrecorded_tick_.reset();
  ReportHistoryBytes();
}

void SceneSession::ReportHistoryBytes() {
  const int64_t bytes = static_cast<int64_t>(history_->Stats().memory_bytes);
  service_->metrics_->SceneHistoryChanged(bytes - history_bytes_);
  history_bytes_ = bytes;
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
SceneServiceImpl::Session(grpc::CallbackServerContext* context) {
  return new StreamReactor<SceneSession>(collision_, context);
}

}  // namespace collision::server
