// Validation and conversion of collision.v1.SceneService messages into the
// core's Scene calls, and of the answers back. Like convert.h: every check
// happens before anything is applied, a bad field is INVALID_ARGUMENT with
// its path ("update.upserts[3].shape.circle.radius must be >= 0, got -1"),
// a limit is RESOURCE_EXHAUSTED naming it, and a rejected message changes
// nothing.
#ifndef COLLISION_WIRE_SCENE_REQUEST_H_
#define COLLISION_WIRE_SCENE_REQUEST_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "collision/core/scene.h"
#include "collision/core/scene_history.h"
#include "collision/v1/scene.pb.h"

namespace collision::wire {

struct SceneLimits {
  // Entities one scene may hold (a config may ask for fewer).
  std::size_t max_entities = 100000;
  // Scenes (open SceneService.Session streams) at once on this server.
  std::size_t max_scenes = 256;
  // Queries in one message.
  std::size_t max_queries = 10000;
  // Hits one query may return (its max_hits, or nearest's k, at most this).
  std::size_t max_hits = 1000;
  // Ticks of history a scene may keep (config.history_ticks).
  std::size_t max_history_ticks = 1024;
  // Memory a scene's history may hold (within the scene's own budget);
  // past it the oldest ticks go first.
  std::size_t history_bytes = std::size_t{64} << 20;
  // Memory all scenes on this server may reserve together (SceneSettings::
  // memory_bytes each): a scene that does not fit is refused when it opens.
  std::size_t memory_bytes = std::size_t{384} << 20;
  // Memory one scene may hold: its entities, their index and its history.
  // A scene reserves the least of this and what its entity limit and
  // history could come to (SceneBytesAtMost) when it opens; its entity
  // limit is lowered to what the reservation holds (SceneBytesAtLeast).
  std::size_t scene_memory_bytes = std::size_t{64} << 20;
  // Hits one message's answers may carry over all its queries; the query
  // that would pass it and every later one get a RESOURCE_EXHAUSTED error.
  std::size_t max_message_hits = 100000;
  // CPU time one message's queries may take (the update is bounded by the
  // entity limit); past it the remaining queries get a RESOURCE_EXHAUSTED
  // error instead of an answer.
  absl::Duration message_cpu = absl::Milliseconds(100);
};

struct SceneSettings {
  SceneDimension dimension = SceneDimension::k2D;
  Boundary boundary = Boundary::kInclusive;
  std::size_t max_entities = 0;  // the config's, the server's or the memory's
  uint32_t history_ticks = 1;    // 1: no rewind
  std::size_t memory_bytes = 0;  // what the scene reserves on the server
};

absl::StatusOr<SceneSettings> ParseSceneConfig(const v1::SceneConfig& config,
                                               const SceneLimits& limits);

struct SceneUpsert {
  uint64_t id = 0;
  Shape shape;
  uint32_t category = 1;
};

// A group of upsert_columns as Scene::UpsertColumns takes it (validated;
// rotated rects' angles already turned into cos and sin; circles without
// radii are points).
struct SceneColumnUpserts {
  ShapeKind kind = ShapeKind::kCircle;
  std::vector<uint64_t> ids;
  std::vector<uint32_t> categories;           // one per id, or empty: all 1
  // The first ColumnsOf(kind).
  std::array<std::vector<float>, kMaxKindColumns> columns;

  std::size_t size() const { return ids.size(); }
  uint32_t category(std::size_t i) const {
    return categories.empty() ? 1u : categories[i];
  }
  Shape shape(std::size_t i) const;  // row i as a Shape
};

struct ParsedSceneUpdate {
  bool present = false;
  uint64_t tick = 0;
  bool snapshot = false;
  std::vector<uint64_t> removals;
  std::vector<SceneUpsert> upserts;                // the per-entity ones
  std::vector<SceneColumnUpserts> column_upserts;  // then these

  std::size_t upsert_count() const;
};

enum class SceneQueryKind { kOverlap, kNearest, kCast };

struct ParsedSceneQuery {
  SceneQueryKind kind = SceneQueryKind::kOverlap;
  Shape shape;  // overlap, nearest
  bool include_relation = false;
  bool include_separation = false;
  std::size_t k = 0;      // nearest
  float max_gap = 0;      // nearest
  CastQuery cast;         // raycast (radius 0), sweep
  bool all_hits = false;  // casts
  EntityFilter filter;
  std::size_t max_hits = 0;
  Boundary boundary = Boundary::kInclusive;
  bool rewound = false;  // `at` was given
  SceneMoment at;
};

struct ParsedSceneMessage {
  ParsedSceneUpdate update;
  std::vector<ParsedSceneQuery> queries;
};

// Validates a message against the scene as it stands (config applied):
// its dimension, its last tick, which ids exist, and how many entities the
// update would leave. `config_allowed`: the first message, whose config
// has been applied already; later ones may not carry one.
absl::StatusOr<ParsedSceneMessage> ParseSceneMessage(
    const v1::SceneRequest& request, const SceneSettings& settings,
    std::optional<uint64_t> last_tick, const Scene& scene,
    const SceneLimits& limits, bool config_allowed);

}  // namespace collision::wire

#endif  // COLLISION_WIRE_SCENE_REQUEST_H_
