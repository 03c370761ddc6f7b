// A scene's recent past: the world as it was at any moment of the last H
// ticks, for lag-compensated queries ("what did this shot hit, as the
// shooter saw it?").
//
// Model (docs/scenes.md, "Rewind"):
// - Ticks are the caller's numbers, strictly increasing. The world at tick
//   t is the world after the last commit with tick <= t (ticks the caller
//   skipped repeat the state before them).
// - The history keeps the ticks [latest - H + 1, latest] (H >= 1), fewer
//   when its memory budget runs out (the oldest go first).
// - A moment is (tick, fraction), fraction in [0, 1). At fraction 0 an
//   entity has exactly its stored pose at `tick`. Between `tick` and
//   `tick + 1` each entity that exists at both, with the same shape family
//   (a point is a ball of radius 0), is interpolated column by column:
//   value = a if a == b, else (1 - fraction) * a + fraction * b, for a at
//   `tick` and b at `tick + 1` (centres, radii, corners, sizes, pivots,
//   positions), then max corners = max(max, min) against rounding. A
//   rotated rect's (cos, sin) the same way, then divided by its length
//   (the shorter arc) unless it did not change; exactly opposite turns
//   (cos a * cos b + sin a * sin b <= -1 + 1e-6) turn counter-clockwise:
//   angle = atan2(sin a, cos a) + fraction * pi. The category is the one at
//   `tick`. An entity that does not exist at `tick` is never hit at (tick,
//   fraction); one removed (or changed to another family) at `tick + 1`
//   keeps its pose at `tick`.
// - Answers follow scene.h exactly (orders, truncation, filters), each hit
//   being the pairwise answer against the entity's pose at that moment, so a
//   query at (t, 0) equals the same query against a Scene holding tick t's
//   world.
//
// Memory grows with what changed: a pose is stored per entity per tick it
// changed (older poses are dropped a span at a time), plus a time index
// (below). Not thread-safe for writes;
// concurrent const queries are safe.
//
// Engine: ticks are grouped into spans of at most kSpanTicks; each span has
// a hierarchy over every entity's box grown over all its poses in the span,
// so a rewound query walks one hierarchy and computes the interpolated pose
// of candidates only. A rotated rect's box is the disc around its position
// through its farthest corner, which contains every rotation in between.
#ifndef COLLISION_CORE_SCENE_HISTORY_H_
#define COLLISION_CORE_SCENE_HISTORY_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "collision/core/scene.h"

namespace collision {

struct SceneMoment {
  uint64_t tick = 0;
  float fraction = 0;  // in [0, 1)
};

enum class MomentResolution {
  kExact,    // answered at the moment asked
  kClamped,  // older than the history: answered at (oldest, 0)
  kFuture,   // after the latest tick (or at it with a fraction > 0)
  kNoTicks,  // nothing committed yet
};

struct SceneHistoryStats {
  uint64_t oldest = 0;
  uint64_t latest = 0;
  size_t entities = 0;      // tracked, including ones removed in the window
  size_t poses = 0;         // stored poses
  size_t spans = 0;         // time-index spans
  size_t memory_bytes = 0;  // heap held, approximately
  size_t index_bytes = 0;   // of which the time index
};

// Memory a scene of `entities` entities may come to hold: the Scene itself
// plus, for `history_ticks` > 1, a SceneHistory with no budget whose every
// entity changes at every tick (its rings hold the whole window). An upper
// bound (tested against Stats), for admitting a scene before it exists.
size_t SceneBytesAtMost(size_t entities, uint32_t history_ticks);
// The least a scene of `entities` entities needs to keep working: the Scene
// and, with a history, two poses and two spans' items per entity (below
// that the budget leaves no past tick to answer from).
size_t SceneBytesAtLeast(size_t entities, bool history);

class SceneHistory {
 public:
  // Ticks per time-index span: a span's boxes cover at most this much
  // movement; shorter spans mean tighter boxes and more hierarchies. Fewer,
  // smaller-in-total hierarchies won over tighter boxes, since a rewound
  // walk misses the caches below the top of its span's hierarchy
  // (docs/decisions/0001-span-ticks.md).
  static constexpr uint64_t kSpanTicks = 16;

  // Keeps `ticks` (>= 1) ticks; `max_bytes` bounds memory_bytes, dropping
  // the oldest ticks early when a commit would exceed it: each entity's
  // ring of poses gets an equal share of the budget, set before the commit
  // writes (so the window is never allocated past the budget), and the
  // oldest spans go while the total is over it. A commit may pass the
  // budget by the index of one span (~100 bytes per entity) until its end.
  SceneHistory(SceneDimension dimension, uint32_t ticks,
               size_t max_bytes = std::numeric_limits<size_t>::max());
  ~SceneHistory();
  SceneHistory(SceneHistory&&) noexcept;
  SceneHistory& operator=(SceneHistory&&) noexcept;
  SceneHistory(const SceneHistory&) = delete;
  SceneHistory& operator=(const SceneHistory&) = delete;

  // Staged like Scene's, visible at Commit(tick); tick > latest().
  void Upsert(uint64_t id, const Shape& shape, uint32_t category);
  // The columnar form, as Scene::UpsertColumns (the same columns).
  void UpsertColumns(ShapeKind kind, size_t n, const uint64_t* ids,
                     const float* const* columns, const uint32_t* categories);
  void Remove(uint64_t id);
  void Clear();
  void Commit(uint64_t tick);
  // A new memory budget (as the constructor's), applied from the next
  // commit on.
  void SetMemoryBudget(size_t max_bytes);

  bool has_ticks() const;
  uint64_t latest() const;  // requires has_ticks()
  uint64_t oldest() const;  // requires has_ticks()
  uint32_t ticks() const;   // H
  SceneHistoryStats Stats() const;

  // The moment a query asking for `asked` is answered at.
  MomentResolution Resolve(SceneMoment asked, SceneMoment* used) const;

  // Whether a query at `asked` gets the same answer now, with a change for
  // tick `next` staged, as after Commit(next): the moment lies inside the
  // window Commit(next) keeps and needs no pose of `next`. A server answers
  // such queries first and records the tick after sending the answer.
  // False once the memory budget has been reached (a commit may then drop
  // ticks early); the commit that first reaches it may drop ticks that a
  // query answered before it was answered at (exactly, not clamped).
  bool AnswerableBefore(uint64_t next, SceneMoment asked) const;

  // As Scene's queries, at a moment Resolve() returned (kExact or kClamped).
  // CanOverlap: blocked when an entity of the blocking kind exists at any
  // tick of the moment's span.
  bool CanOverlap(SceneMoment at, ShapeKind query,
                  ShapeKind* blocking_kind) const;
  bool Overlap(SceneMoment at, const Shape& query, Boundary boundary,
               const EntityFilter& filter, size_t max_hits,
               std::vector<OverlapHit>* hits) const;
  bool Nearest(SceneMoment at, const Shape& query, size_t k, float max_gap,
               Boundary boundary, const EntityFilter& filter,
               std::vector<NearestHit>* hits) const;
  bool Cast(SceneMoment at, const CastQuery& cast, Boundary boundary,
            const EntityFilter& filter, bool all_hits, size_t max_hits,
            std::vector<CastHit>* hits) const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace collision

#endif  // COLLISION_CORE_SCENE_HISTORY_H_
