// Admission of scenes: how many are open and how much memory they have
// reserved on this server. A scene reserves, when it opens, what it could
// come to hold (wire::SceneSettings::memory_bytes) and holds no more than
// that for its whole life (its entity limit and its history's budget come
// from it), so a scene admitted is a scene that can run: the last one is
// refused at the door instead of the server running out in the middle of
// every match.
#ifndef COLLISION_SERVER_SCENE_BUDGET_H_
#define COLLISION_SERVER_SCENE_BUDGET_H_

#include <cstddef>
#include <mutex>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace collision::server {

class SceneBudget {
 public:
  SceneBudget(std::size_t max_scenes, std::size_t max_bytes)
      : max_scenes_(max_scenes), max_bytes_(max_bytes) {}

  // Reserves a scene of `bytes`, or says which limit refuses it
  // (RESOURCE_EXHAUSTED).
  absl::Status Reserve(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    if (scenes_ >= max_scenes_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "this server hosts its limit of ", max_scenes_,
          " scenes (max_scenes); open the scene on another replica or later"));
    }
    if (bytes > max_bytes_ - reserved_) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "this scene reserves ", bytes, " bytes and this server's ", scenes_,
          " scenes hold ", reserved_, " of its ", max_bytes_,
          " bytes for scenes (scenes_memory_bytes); open it on another "
          "replica or later, or ask for fewer entities (config.max_entities) "
          "or a shorter history"));
    }
    ++scenes_;
    reserved_ += bytes;
    return absl::OkStatus();
  }
  void Release(std::size_t bytes) {
    std::lock_guard<std::mutex> lock(mu_);
    --scenes_;
    reserved_ -= bytes;
  }
  std::size_t reserved() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reserved_;
  }

 private:
  const std::size_t max_scenes_;
  const std::size_t max_bytes_;
  mutable std::mutex mu_;
  std::size_t scenes_ = 0;
  std::size_t reserved_ = 0;
};

}  // namespace collision::server

#endif  // COLLISION_SERVER_SCENE_BUDGET_H_
