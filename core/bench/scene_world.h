// The worlds of collision_scene_bench (scene_bench.cc): one seeded world
// per (shapes, N), the query each contender answers (the scene, brute force,
// Box2D's b2DynamicTree), and the check of their answers before timing.
// Included by scene_bench.cc alone.
#ifndef COLLISION_CORE_BENCH_SCENE_WORLD_H_
#define COLLISION_CORE_BENCH_SCENE_WORLD_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "bench_data.h"
#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "collision/core/scene.h"

#ifdef COLLISION_HAVE_BOX2D
#include <box2d/b2_circle_shape.h>
#include <box2d/b2_collision.h>
#include <box2d/b2_dynamic_tree.h>
#include <box2d/b2_polygon_shape.h>
#endif

namespace collision {
namespace bench {

constexpr size_t kSizes[] = {100, 1000, 10000, 100000};
constexpr size_t kQueries = 1024;  // a power of two: cycled with a mask
constexpr size_t kChecked = 64;    // queries compared before timing
constexpr Boundary kB = Boundary::kInclusive;
constexpr float kQueryRadius = 3.0f;
constexpr float kRayLength = 50.0f;
constexpr float kSweepRadius = 0.5f;
constexpr size_t kNearestK = 4;
constexpr size_t kAll = ~size_t{0};

enum class Shapes { kCircles, kRects };

inline const char* Name(Shapes s) {
  return s == Shapes::kCircles ? "circles" : "rects";
}

// Entity i: a circle of radius extent.x, or the rect center +- extent.
inline Shape MakeShape(Shapes kind, Vec2 center, Vec2 extent) {
  if (kind == Shapes::kCircles) return Circle{center, extent.x};
  return Rect{{center.x - extent.x, center.y - extent.y},
              {center.x + extent.x, center.y + extent.y}};
}

struct Ray {
  Vec2 origin;
  Vec2 direction;
};

inline Vec2 RandDirection(Rng& rng) {
  const float angle = rng.Uniform(-3.14159265f, 3.14159265f);
  return NormalizeDirection(Vec2{std::cos(angle), std::sin(angle)});
}

// Moves a centre by its velocity, reflecting the velocity at the world's
// walls: the per-entity motion of a tick, the same for every contender.
inline void Advance(float side, Vec2* center, Vec2* velocity) {
  center->x += velocity->x;
  center->y += velocity->y;
  if (center->x < 0.0f || center->x > side) velocity->x = -velocity->x;
  if (center->y < 0.0f || center->y > side) velocity->y = -velocity->y;
}

#ifdef COLLISION_HAVE_BOX2D

// Box2D's side: the tree (proxies created one by one, as b2World does) and
// one b2Shape per entity for the exact ray cast (as a fixture holds it).
//
// An inserted tree's shape depends on the order of the inserts: over the
// 10k circles world, 25 orders gave area ratios (b2DynamicTree::GetAreaRatio,
// the nodes' summed perimeters over the root's) of 311..522; in 24 orders
// counted, an overlap query visited 57..172 nodes on average and took
// 0.8..2.7 us, time following the ratio. Timing one order times one draw,
// and the index order is the second worst of them (516). So the tree is
// built in kBox2dOrders orders (the index order and seeded shuffles) and the
// one of median area ratio is kept: the tree a typical user gets. (A b2World
// whose bodies move reinserts them; over 3,600 ticks of this world's motion
// its ratio wandered in 285..418.)
constexpr int kBox2dOrders = 25;

struct Box2dSide {
  b2DynamicTree tree;
  std::vector<int32> proxies;  // by entity
  std::vector<b2CircleShape> circles;
  std::vector<b2PolygonShape> boxes;
  b2Transform identity;
  // The kept order (0: index order) and the spread of the orders tried.
  int order = 0;
  float area_ratio = 0.0f;
  float area_ratio_min = 0.0f;
  float area_ratio_max = 0.0f;
  float area_ratio_index_order = 0.0f;
};

inline b2AABB Bounds(Vec2 center, Vec2 extent) {
  b2AABB box;
  box.lowerBound.Set(center.x - extent.x, center.y - extent.y);
  box.upperBound.Set(center.x + extent.x, center.y + extent.y);
  return box;
}

inline void* UserData(size_t i) {
  return reinterpret_cast<void*>(static_cast<uintptr_t>(i));
}
inline uint32_t Index(const b2DynamicTree& tree, int32 proxy) {
  return static_cast<uint32_t>(
      reinterpret_cast<uintptr_t>(tree.GetUserData(proxy)));
}

#endif  // COLLISION_HAVE_BOX2D

// One world: entities, queries and every contender's structure over them.
struct World {
  Shapes kind;
  size_t n;
  float side;
  std::vector<Vec2> centers;
  std::vector<Vec2> extents;  // circles: (radius, radius)
  std::vector<Vec2> velocities;
  std::vector<Shape> shapes;  // brute force's input
  std::vector<Vec2> overlap_centers;
  std::vector<Ray> rays;
  std::vector<Vec2> nearest_points;
  Scene scene{SceneDimension::k2D};
#ifdef COLLISION_HAVE_BOX2D
  Box2dSide box2d;
#endif
};

// ---- The queries, one function per contender
// ----------------------------------

inline void SceneOverlap(const World& w, Vec2 c,
                         std::vector<OverlapHit>* hits) {
  w.scene.Overlap(Circle{c, kQueryRadius}, kB, EntityFilter{}, kAll, hits);
}

inline CastHit SceneRay(const World& w, const Ray& r, float radius) {
  static thread_local std::vector<CastHit> hits;
  w.scene.Cast(CastQuery{{r.origin.x, r.origin.y, 0.0f},
                         {r.direction.x, r.direction.y, 0.0f},
                         kRayLength,
                         radius},
               kB, EntityFilter{}, /*all_hits=*/false, 1, &hits);
  return hits.empty() ? CastHit{} : hits[0];
}

inline void BruteOverlap(const World& w, Vec2 c, std::vector<uint32_t>* hits) {
  hits->clear();
  const Shape query = Circle{c, kQueryRadius};
  for (size_t i = 0; i < w.n; ++i) {
    if (Intersect(query, w.shapes[i], kB).hit) {
      hits->push_back(static_cast<uint32_t>(i));
    }
  }
}

// The least (distance, id), as the scene orders first hits.
inline CastHit BruteRay(const World& w, const Ray& r) {
  CastHit best;
  for (size_t i = 0; i < w.n; ++i) {
    const CastResult c =
        RayCast(r.origin, r.direction, kRayLength, w.shapes[i], kB);
    if (c.hit && (!best.result.hit || c.distance < best.result.distance)) {
      best = CastHit{i, c};
    }
  }
  return best;
}

#ifdef COLLISION_HAVE_BOX2D

// Tree query with the circle's box, then an exact narrow phase per candidate.
// The narrow phase is a plain squared-distance test (circle-circle:
// d^2 <= (r1 + r2)^2; circle-rect: squared distance from the centre to the
// clamped point <= r^2), the same arithmetic as Intersect: b2TestOverlap on
// b2Shapes would run GJK and cost several times more per candidate.
struct Box2dOverlap {
  const World* w;
  Vec2 c;
  std::vector<uint32_t>* hits;

  bool QueryCallback(int32 proxy) {
    const uint32_t i = Index(w->box2d.tree, proxy);
    const Vec2 e = w->extents[i];
    const Vec2 p = w->centers[i];
    float dx, dy, r;
    if (w->kind == Shapes::kCircles) {
      dx = c.x - p.x;
      dy = c.y - p.y;
      r = kQueryRadius + e.x;
    } else {
      dx = c.x - std::clamp(c.x, p.x - e.x, p.x + e.x);
      dy = c.y - std::clamp(c.y, p.y - e.y, p.y + e.y);
      r = kQueryRadius;
    }
    if (dx * dx + dy * dy <= r * r) hits->push_back(i);
    return true;
  }
};

inline void Box2dOverlapQuery(const World& w, Vec2 c,
                              std::vector<uint32_t>* hits) {
  hits->clear();
  Box2dOverlap query{&w, c, hits};
  b2AABB box;
  box.lowerBound.Set(c.x - kQueryRadius, c.y - kQueryRadius);
  box.upperBound.Set(c.x + kQueryRadius, c.y + kQueryRadius);
  w.box2d.tree.Query(&query, box);
}

// b2World::RayCast's closest-hit callback: the shape's exact ray cast
// (b2CircleShape / b2PolygonShape::RayCast, virtual as through a fixture),
// then clip the ray to the hit by returning its fraction.
struct Box2dClosestRay {
  const World* w;
  int64_t index = -1;
  float fraction = 0.0f;
  b2Vec2 point{0.0f, 0.0f};
  b2Vec2 normal{0.0f, 0.0f};

  float RayCastCallback(const b2RayCastInput& input, int32 proxy) {
    const uint32_t i = Index(w->box2d.tree, proxy);
    const b2Shape& shape =
        w->kind == Shapes::kCircles
            ? static_cast<const b2Shape&>(w->box2d.circles[i])
            : w->box2d.boxes[i];
    b2RayCastOutput out;
    if (!shape.RayCast(&out, input, w->box2d.identity, 0)) {
      return input.maxFraction;
    }
    index = i;
    fraction = out.fraction;
    point = (1.0f - out.fraction) * input.p1 + out.fraction * input.p2;
    normal = out.normal;
    return out.fraction;
  }
};

inline Box2dClosestRay Box2dRay(const World& w, const Ray& r) {
  Box2dClosestRay ray{&w};
  b2RayCastInput input;
  input.p1.Set(r.origin.x, r.origin.y);
  input.p2.Set(r.origin.x + kRayLength * r.direction.x,
               r.origin.y + kRayLength * r.direction.y);
  input.maxFraction = 1.0f;
  w.box2d.tree.RayCast(&ray, input);
  return ray;
}

#endif  // COLLISION_HAVE_BOX2D

// ---- World construction and the pre-timing check --------------------------

#ifdef COLLISION_HAVE_BOX2D

// Creates one proxy per entity in insertion order `k` (0: index order; else a
// shuffle seeded by k), each tagged with its entity's index.
inline void InsertInOrder(const World& w, int k, b2DynamicTree* tree,
                          std::vector<int32>* proxies) {
  std::vector<uint32_t> order(w.n);
  for (size_t i = 0; i < w.n; ++i) order[i] = static_cast<uint32_t>(i);
  Rng rng(0xB2D0000u + static_cast<uint64_t>(k));
  for (size_t i = w.n; k != 0 && i > 1; --i) {
    std::swap(order[i - 1], order[rng.Next() % i]);
  }
  if (proxies != nullptr) proxies->assign(w.n, b2_nullNode);
  for (uint32_t i : order) {
    const int32 proxy =
        tree->CreateProxy(Bounds(w.centers[i], w.extents[i]), UserData(i));
    if (proxies != nullptr) (*proxies)[i] = proxy;
  }
}

#endif  // COLLISION_HAVE_BOX2D

[[noreturn]] void Fail(const World& w, const char* what, size_t q) {
  std::fprintf(stderr, "scene_bench: %s/%zu: %s differs at query %zu\n",
               Name(w.kind), w.n, what, q);
  std::abort();
}

// Scene vs brute force (must agree exactly: both answer with the same
// pairwise functions).
inline void Check(const World& w) {
  std::vector<OverlapHit> scene_hits;
  std::vector<uint32_t> brute_hits;
  size_t total_hits = 0;
  size_t ray_hits = 0;
  for (size_t q = 0; q < kChecked; ++q) {
    const Vec2 c = w.overlap_centers[q];
    SceneOverlap(w, c, &scene_hits);
    BruteOverlap(w, c, &brute_hits);
    total_hits += brute_hits.size();
    if (scene_hits.size() != brute_hits.size()) Fail(w, "overlap count", q);
    for (size_t i = 0; i < brute_hits.size(); ++i) {
      if (scene_hits[i].id != brute_hits[i]) Fail(w, "overlap ids", q);
    }
    const CastHit scene_ray = SceneRay(w, w.rays[q], 0.0f);
    const CastHit brute_ray = BruteRay(w, w.rays[q]);
    ray_hits += brute_ray.result.hit;
    if (scene_ray.result.hit != brute_ray.result.hit ||
        (brute_ray.result.hit &&
         (scene_ray.id != brute_ray.id ||
          scene_ray.result.distance != brute_ray.result.distance))) {
      Fail(w, "first ray hit", q);
    }
  }
  std::fprintf(stderr,
               "scene_bench: %s/%zu: scene == brute force on %zu queries "
               "(%.2f overlap hits, %.2f ray hits per query)\n",
               Name(w.kind), w.n, kChecked,
               static_cast<double>(total_hits) / kChecked,
               static_cast<double>(ray_hits) / kChecked);
}

#ifdef COLLISION_HAVE_BOX2D

// Scene vs Box2D on every timed query: the rows compare like for like only
// if both find the same hits. The overlap test is the same arithmetic on
// both sides, so its hits must be equal; Box2D's ray cast is its own
// (b2CircleShape / b2PolygonShape::RayCast) and may differ on a grazing ray,
// so up to 1% of first hits may differ.
inline void CheckBox2d(const World& w) {
  std::vector<OverlapHit> scene_hits;
  std::vector<uint32_t> box2d_hits;
  size_t scene_total = 0, box2d_total = 0, overlap_diffs = 0;
  size_t scene_rays = 0, box2d_rays = 0, ray_diffs = 0;
  for (size_t q = 0; q < kQueries; ++q) {
    SceneOverlap(w, w.overlap_centers[q], &scene_hits);
    Box2dOverlapQuery(w, w.overlap_centers[q], &box2d_hits);
    std::sort(box2d_hits.begin(), box2d_hits.end());
    scene_total += scene_hits.size();
    box2d_total += box2d_hits.size();
    bool same = scene_hits.size() == box2d_hits.size();
    for (size_t i = 0; same && i < box2d_hits.size(); ++i) {
      same = scene_hits[i].id == box2d_hits[i];
    }
    overlap_diffs += !same;
    const CastHit scene_ray = SceneRay(w, w.rays[q], 0.0f);
    const Box2dClosestRay box2d_ray = Box2dRay(w, w.rays[q]);
    scene_rays += scene_ray.result.hit;
    box2d_rays += box2d_ray.index >= 0;
    const int64_t scene_id =
        scene_ray.result.hit ? static_cast<int64_t>(scene_ray.id) : -1;
    ray_diffs += box2d_ray.index != scene_id;
  }
  std::fprintf(stderr,
               "scene_bench: %s/%zu: on the %zu timed queries, overlap hits "
               "scene %zu box2d %zu (%zu queries differ), ray hits scene %zu "
               "box2d %zu (%zu first hits differ); Box2D tree: insertion order "
               "%d of %d, area ratio %.0f (orders %.0f..%.0f, index order "
               "%.0f)\n",
               Name(w.kind), w.n, kQueries, scene_total, box2d_total,
               overlap_diffs, scene_rays, box2d_rays, ray_diffs, w.box2d.order,
               kBox2dOrders, w.box2d.area_ratio, w.box2d.area_ratio_min,
               w.box2d.area_ratio_max, w.box2d.area_ratio_index_order);
  if (overlap_diffs != 0 || ray_diffs > kQueries / 100) {
    std::fprintf(stderr, "scene_bench: %s/%zu: Box2D's hits differ\n",
                 Name(w.kind), w.n);
    std::abort();
  }
}

#endif  // COLLISION_HAVE_BOX2D

inline std::unique_ptr<World> MakeWorld(Shapes kind, size_t n) {
  auto w = std::make_unique<World>();
  w->kind = kind;
  w->n = n;
  w->side = 10.0f * std::sqrt(static_cast<float>(n));
  Rng rng(0x5CE4E000u + n + (kind == Shapes::kRects ? 1u << 24 : 0u));
  for (size_t i = 0; i < n; ++i) {
    const Vec2 c{rng.Uniform(0, w->side), rng.Uniform(0, w->side)};
    const float ex = rng.Uniform(0.5f, 2.0f);
    const float ey = kind == Shapes::kCircles ? ex : rng.Uniform(0.5f, 2.0f);
    // 0.02..0.1 units per tick: 1.2..6 units/s at 60 Hz.
    const Vec2 d = RandDirection(rng);
    const float speed = rng.Uniform(0.02f, 0.1f);
    w->centers.push_back(c);
    w->extents.push_back({ex, ey});
    w->velocities.push_back({d.x * speed, d.y * speed});
    w->shapes.push_back(MakeShape(kind, c, {ex, ey}));
    w->scene.Upsert(i, w->shapes.back(), 1);
  }
  w->scene.Commit();

  std::vector<OverlapHit> inside;
  for (size_t q = 0; q < kQueries; ++q) {
    w->overlap_centers.push_back(
        {rng.Uniform(0, w->side), rng.Uniform(0, w->side)});
    w->nearest_points.push_back(
        {rng.Uniform(0, w->side), rng.Uniform(0, w->side)});
    Ray ray;
    do {
      ray.origin = {rng.Uniform(0, w->side), rng.Uniform(0, w->side)};
      w->scene.Overlap(ray.origin, kB, EntityFilter{}, kAll, &inside);
    } while (!inside.empty());
    ray.direction = RandDirection(rng);
    w->rays.push_back(ray);
  }

#ifdef COLLISION_HAVE_BOX2D
  Box2dSide& b = w->box2d;
  b.identity.SetIdentity();
  std::vector<std::pair<float, int>> ratios;
  for (int k = 0; k < kBox2dOrders; ++k) {
    b2DynamicTree tree;
    InsertInOrder(*w, k, &tree, nullptr);
    ratios.push_back({tree.GetAreaRatio(), k});
  }
  b.area_ratio_index_order = ratios[0].first;
  std::sort(ratios.begin(), ratios.end());
  b.area_ratio_min = ratios.front().first;
  b.area_ratio_max = ratios.back().first;
  b.area_ratio = ratios[kBox2dOrders / 2].first;
  b.order = ratios[kBox2dOrders / 2].second;
  InsertInOrder(*w, b.order, &b.tree, &b.proxies);
  for (size_t i = 0; i < n; ++i) {
    const Vec2 c = w->centers[i];
    const Vec2 e = w->extents[i];
    if (kind == Shapes::kCircles) {
      b.circles.emplace_back();
      b.circles.back().m_radius = e.x;
      b.circles.back().m_p.Set(c.x, c.y);
    } else {
      b.boxes.emplace_back();
      b.boxes.back().SetAsBox(e.x, e.y, b2Vec2(c.x, c.y), 0.0f);
    }
  }
#endif
  Check(*w);
#ifdef COLLISION_HAVE_BOX2D
  CheckBox2d(*w);
#endif
  return w;
}

// Worlds are built on first use (outside any timed loop) and kept.
inline const World& GetWorld(Shapes kind, size_t n) {
  static std::map<std::pair<Shapes, size_t>, std::unique_ptr<World>> worlds;
  std::unique_ptr<World>& w = worlds[{kind, n}];
  if (!w) w = MakeWorld(kind, n);
  return *w;
}

}  // namespace bench
}  // namespace collision

#endif  // COLLISION_CORE_BENCH_SCENE_WORLD_H_
