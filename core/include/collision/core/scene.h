// A scene: one match's collision world, kept between ticks, answering
// overlap, nearest, raycast and swept-ball queries against every entity.
//
// Model:
// - An entity has a caller-chosen id (uint64), one shape and a category
//   (32 layer bits). A scene is 2D (points, circles, rects, rotated rects)
//   or 3D (points, spheres, boxes); shapes of the other dimension are
//   rejected by the caller's validation (debug-asserted here).
// - A query carries a filter: an entity is a candidate when
//   (category & mask) != 0 and it is not the excluded id (e.g. the shooter).
//   Category 0 is never hit.
// - Answers are exactly the pairwise answers: an overlap hit's
//   IntersectResult is bit for bit Intersect(query, entity) (scalar.h), a
//   nearest hit's ClosestPointResult is ClosestPoint(query, entity), a cast
//   hit's CastResult is RayCast / SweepCircle / SweepSphere (cast.h). The
//   broadphase only decides which entities are tested; it never changes an
//   answer. Points are stored as zero-radius balls, which those functions
//   answer identically.
// - Orders: overlap hits by id; nearest hits by (gap, id); all-hits casts by
//   (distance, id); the first hit of a cast is the least (distance, id).
//   A result holds at most `max_hits` hits (nearest: k) and says when more
//   qualified (`truncated`); the hits kept are the first ones in that order.
//
// Updates are staged (Upsert, Remove, Clear) and become visible at Commit();
// queries see the last committed state and must not be called with staged
// updates pending (debug-asserted). Not thread-safe for writes; concurrent
// const queries are safe.
//
// Engine: per shape family (balls, rects, rotated rects; balls3, boxes) a
// struct-of-arrays store in bounding-volume-hierarchy leaf order, so the
// SIMD kernels of kernels.h run over each leaf's contiguous columns with the
// query broadcast. Moves refit the hierarchy; insertions go to an unsorted
// tail scanned by the kernels until the next rebuild (see scene.cc for the
// policy, docs/decisions/ for the measured choices).
#ifndef COLLISION_CORE_SCENE_H_
#define COLLISION_CORE_SCENE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "collision/core/cast.h"
#include "collision/core/shapes.h"

namespace collision {

enum class SceneDimension : uint8_t { k2D = 2, k3D = 3 };

// The columns of a shape kind for Scene::UpsertColumns, in the order
// ShapeKindInfo::columns (shapes.h) gives.
constexpr size_t ColumnsOf(ShapeKind kind) {
  return static_cast<size_t>(InfoOf(kind).columns);
}

struct EntityFilter {
  uint32_t mask = 0xFFFFFFFFu;  // candidate when (category & mask) != 0
  bool exclude = false;         // when true, `exclude_id` is never hit
  uint64_t exclude_id = 0;
};

struct OverlapHit {
  uint64_t id = 0;
  IntersectResult result;
};

struct NearestHit {
  uint64_t id = 0;
  ClosestPointResult result;
};

struct CastHit {
  uint64_t id = 0;
  CastResult result;
};

// A ray (radius 0) or a swept ball (radius > 0). 2D scenes ignore z.
// `direction` must be unit (NormalizeDirection).
struct CastQuery {
  Vec3 origin;
  Vec3 direction;
  float max_distance = 0;
  float radius = 0;
};

struct SceneStats {
  size_t entities = 0;
  size_t memory_bytes = 0;  // heap held by the scene, approximately
  uint64_t rebuilds = 0;    // hierarchy rebuilds since creation
  uint64_t refits = 0;
};

class Scene {
 public:
  explicit Scene(SceneDimension dimension);
  ~Scene();
  Scene(Scene&&) noexcept;
  Scene& operator=(Scene&&) noexcept;
  Scene(const Scene&) = delete;
  Scene& operator=(const Scene&) = delete;

  SceneDimension dimension() const;

  // Staged updates. Upsert inserts an entity or replaces its shape and
  // category (the kind may change). Remove of an unknown id returns false.
  // Clear removes every entity.
  void Upsert(uint64_t id, const Shape& shape, uint32_t category);
  // The columnar form: n upserts of one kind, exactly as Upsert(ids[i],
  // shape i, categories[i]) for i = 0..n-1 in order, where shape i is row i
  // of the kind's columns (ColumnsOf) and a null `categories` means 1 for
  // every entity. Cheaper per entity than Upsert; cheapest when the ids come
  // in the order of the last commit's upserts (a game's entities, tick after
  // tick).
  void UpsertColumns(ShapeKind kind, size_t n, const uint64_t* ids,
                     const float* const* columns, const uint32_t* categories);
  bool Remove(uint64_t id);
  void Clear();
  // Makes the staged updates visible to queries.
  void Commit();

  size_t size() const;
  bool Contains(uint64_t id) const;
  // How many of `ids` (distinct) the scene does not hold: !Contains for
  // each, cheaper when they come in the order of the last commit's upserts
  // of `kind`'s family (a game's columnar update, tick after tick).
  size_t CountAbsent(ShapeKind kind, const uint64_t* ids, size_t n) const;
  SceneStats Stats() const;

  // Whether an overlap query of this kind can be answered against every
  // entity of the scene: Intersect does not answer rect vs rotated rect or
  // rotated rect vs rotated rect, so rect and rotated-rect queries cannot be
  // asked while the scene holds rotated rects (and rotated-rect queries
  // while it holds rects). Returns the kind that blocks it, if any.
  bool CanOverlap(ShapeKind query, ShapeKind* blocking_kind) const;

  // Entities the query shape intersects under `boundary` (requires
  // CanOverlap). Returns true when more than max_hits qualified.
  bool Overlap(const Shape& query, Boundary boundary,
               const EntityFilter& filter, size_t max_hits,
               std::vector<OverlapHit>* hits) const;

  // The k entities with the least ClosestPoint gap to the query ball
  // (point, circle, point3 or sphere), among those with gap <= max_gap.
  // Returns true when more than k qualified.
  bool Nearest(const Shape& query, size_t k, float max_gap, Boundary boundary,
               const EntityFilter& filter, std::vector<NearestHit>* hits) const;

  // The first entity the ray or swept ball hits (at most one hit), or with
  // all_hits every entity it hits, up to max_hits. Returns true when more
  // than max_hits were hit.
  bool Cast(const CastQuery& cast, Boundary boundary,
            const EntityFilter& filter, bool all_hits, size_t max_hits,
            std::vector<CastHit>* hits) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace collision

#endif  // COLLISION_CORE_SCENE_H_
