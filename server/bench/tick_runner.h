// One scene's messages through the server's scene path, in process, as
// SceneSession handles them: parse on an arena, validate, apply to the
// scene, answer, serialize, then record the tick in the history after the
// answer (unless a rewound query needs it first). Shared by the tick
// benchmarks so that each measures the same path.
#ifndef COLLISION_SERVER_BENCH_TICK_RUNNER_H_
#define COLLISION_SERVER_BENCH_TICK_RUNNER_H_

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "collision/handlers/scene.h"
#include "collision/v1/scene.pb.h"
#include "collision/wire/scene_request.h"
#include "google/protobuf/arena.h"
#include "server/scene_recorder.h"

namespace collision::server::bench {

class TickRunner {
 public:
  // Microseconds spent, summed over the messages handled since Reset().
  struct Times {
    double answer = 0;   // from the bytes to the encoded answer
    double update = 0;   // the scene's update (not the history's)
    double queries = 0;  // AnswerSceneQueries
    double record = 0;   // SceneRecorder::Record
  };

  explicit TickRunner(v1::Dimension dimension) {
    v1::SceneConfig config;
    config.set_dimension(dimension);
    config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
    settings_ = *wire::ParseSceneConfig(config, limits_);
    scene_.emplace(settings_.dimension);
    // One second of history at 64 Hz, as a scene keeps by default.
    history_.emplace(settings_.dimension, settings_.history_ticks,
                     limits_.history_bytes);
  }

  // Handles one encoded SceneRequest whose ticks (the update's and every
  // query's moment) are shifted by `offset`, so that a list of ticks can
  // be replayed as a longer match. `recorder` may be null.
  absl::Status Handle(const std::string& bytes, uint64_t offset,
                      SceneRecorder* recorder) {
    const auto start = Clock::now();
    google::protobuf::Arena arena;
    auto* request =
        google::protobuf::Arena::CreateMessage<v1::SceneRequest>(&arena);
    auto* response =
        google::protobuf::Arena::CreateMessage<v1::SceneResponse>(&arena);
    request->ParseFromString(bytes);
    request->mutable_update()->set_tick(request->update().tick() + offset);
    for (v1::SceneQuery& q : *request->mutable_queries()) {
      if (q.has_at()) q.mutable_at()->set_tick(q.at().tick() + offset);
    }
    absl::StatusOr<wire::ParsedSceneMessage> parsed = wire::ParseSceneMessage(
        *request, settings_, tick_, *scene_, limits_, false);
    if (!parsed.ok()) return parsed.status();
    const bool record_later = !handlers::RecordUpdateFirst(*parsed, *history_);
    const auto update_start = Clock::now();
    handlers::ApplyToScene(parsed->update, &*scene_);
    times_.update += Since(update_start);
    handlers::ApplyToHistory(parsed->update, &*history_, record_later);
    tick_ = parsed->update.tick;
    const auto queries_start = Clock::now();
    handlers::AnswerSceneQueries(parsed->queries, *scene_, &*history_, tick_,
                                 limits_, response);
    times_.queries += Since(queries_start);
    if (recorder != nullptr) {
      const auto record_start = Clock::now();
      recorder->Record(*request, *response);
      times_.record += Since(record_start);
    }
    response->SerializeToString(&out_);
    times_.answer += Since(start);
    if (record_later) history_->Commit(*tick_);
    for (const auto& r : response->results()) hits_ += r.hits_size();
    return absl::OkStatus();
  }

  // The next of `ticks`, replayed in a cycle as one longer match: their
  // numbers go on with the cycle. Before the timed ticks, Warm() plays the
  // cycle twice, as a match that has run for a while (the history full: its
  // first second allocates as it fills).
  absl::Status Next(const std::vector<std::string>& ticks,
                    SceneRecorder* recorder) {
    const uint64_t n = ticks.size();
    absl::Status s = Handle(ticks[handled_ % n], handled_ / n * n, recorder);
    if (s.ok()) ++handled_;
    return s;
  }
  absl::Status Warm(const std::vector<std::string>& ticks,
                    SceneRecorder* recorder) {
    for (size_t t = 0; t < 2 * ticks.size(); ++t) {
      absl::Status s = Next(ticks, recorder);
      if (!s.ok()) return s;
    }
    Reset();
    return absl::OkStatus();
  }

  void Reset() {
    times_ = Times{};
    hits_ = 0;
  }
  const Times& times() const { return times_; }
  int64_t hits() const { return hits_; }
  bool started() const { return tick_.has_value(); }
  const std::string& last_answer() const { return out_; }
  const SceneHistory& history() const { return *history_; }

 private:
  using Clock = std::chrono::steady_clock;
  static double Since(Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t).count();
  }

  wire::SceneLimits limits_;
  wire::SceneSettings settings_;
  std::optional<Scene> scene_;
  std::optional<SceneHistory> history_;
  std::optional<uint64_t> tick_;
  uint64_t handled_ = 0;  // by Next()
  Times times_;
  int64_t hits_ = 0;
  std::string out_;
};

}  // namespace collision::server::bench

#endif  // COLLISION_SERVER_BENCH_TICK_RUNNER_H_
