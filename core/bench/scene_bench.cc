// The scene engine (scene.h) against Box2D 2.4.1's b2DynamicTree and against
// brute force (the pairwise Intersect / RayCast of scalar.h and cast.h over
// every entity), at N = 100, 1k, 10k and 100k entities:
//   overlap/<shapes>/<N>/{scene, box2d, brute}   circle of radius 3
//   raycast/<shapes>/<N>/{scene, box2d, brute}   first hit within 50
//   nearest/circles/<N>/scene                    k = 4, unbounded
//   sweep/circles/<N>/scene                      circle of radius 0.5, first
//   hit tick/circles/<N>/{scene, scene_columns, box2d}  move every entity
//     (Upsert each, or UpsertColumns once; then Commit)
// Time is per query (per tick for tick/*; `per_entity` divides by N).
// <shapes> is circles (radius 0.5..2) or rects (axis-aligned, half sizes
// 0.5..2). The Box2D rows are built only when Box2D is found
// (scripts/install-bench-peers.sh).
//
// Workload: one seeded world per (shapes, N), the same for every contender.
// The world is a square of side 10 * sqrt(N), so the density (one entity per
// 100 square units) and the hits per query do not change with N. Queries are
// 1024 seeded positions and directions, cycled; ray origins lie outside every
// entity, because Box2D's shape ray casts ignore a shape the ray starts in
// while ours hit it at distance 0.
//
// Box2D's tree is inserted proxy by proxy, as b2World does, in the order of
// median area ratio among 25 (see Box2dSide in scene_world.h): its query cost
// varies ~3x with the insertion order.
//
// Before timing, each world checks that the scene and brute force return the
// same overlap hits and the same first ray hit for 64 queries, and that
// Box2D finds the scene's overlap hits and, but for at most 1% of grazing
// rays, its first ray hits on all 1024 timed queries (and aborts otherwise);
// stderr reports both sides' hit counts and the Box2D tree chosen.
//
// Runs are short by default (--benchmark_min_time=0.05 unless given), so the
// binary finishes in well under a minute:
//   cmake --build build/release --target collision_scene_bench
//   build/release/core/bench/collision_scene_bench
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collision/core/batch.h"
#include "scene_world.h"

namespace collision {
namespace bench {
namespace {

// ---- Benchmarks -------------------------------------------------------------

void HitsCounter(benchmark::State& state, size_t hits) {
  state.counters["hits_per_query"] = benchmark::Counter(
      static_cast<double>(hits), benchmark::Counter::kAvgIterations);
}

void BM_SceneOverlap(benchmark::State& state, Shapes kind, size_t n) {
  const World& w = GetWorld(kind, n);
  std::vector<OverlapHit> hits;
  size_t q = 0;
  size_t total = 0;
  for (auto _ : state) {
    SceneOverlap(w, w.overlap_centers[q++ & (kQueries - 1)], &hits);
    total += hits.size();
  }
  HitsCounter(state, total);
}

void BM_BruteOverlap(benchmark::State& state, Shapes kind, size_t n) {
  const World& w = GetWorld(kind, n);
  std::vector<uint32_t> hits;
  size_t q = 0;
  size_t total = 0;
  for (auto _ : state) {
    BruteOverlap(w, w.overlap_centers[q++ & (kQueries - 1)], &hits);
    total += hits.size();
  }
  HitsCounter(state, total);
}

void BM_SceneRay(benchmark::State& state, Shapes kind, size_t n) {
  const World& w = GetWorld(kind, n);
  size_t q = 0;
  size_t total = 0;
  for (auto _ : state) {
    total += SceneRay(w, w.rays[q++ & (kQueries - 1)], 0.0f).result.hit;
  }
  HitsCounter(state, total);
}

void BM_BruteRay(benchmark::State& state, Shapes kind, size_t n) {
  const World& w = GetWorld(kind, n);
  size_t q = 0;
  size_t total = 0;
  for (auto _ : state) {
    total += BruteRay(w, w.rays[q++ & (kQueries - 1)]).result.hit;
  }
  HitsCounter(state, total);
}

void BM_SceneNearest(benchmark::State& state, Shapes kind, size_t n) {
  const World& w = GetWorld(kind, n);
  std::vector<NearestHit> hits;
  size_t q = 0;
  size_t total = 0;
  for (auto _ : state) {
    w.scene.Nearest(w.nearest_points[q++ & (kQueries - 1)], kNearestK, INFINITY,
                    kB, EntityFilter{}, &hits);
    total += hits.size();
  }
  HitsCounter(state, total);
}

void BM_SceneSweep(benchmark::State& state, Shapes kind, size_t n) {
  const World& w = GetWorld(kind, n);
  size_t q = 0;
  size_t total = 0;
  for (auto _ : state) {
    total += SceneRay(w, w.rays[q++ & (kQueries - 1)], kSweepRadius).result.hit;
  }
  HitsCounter(state, total);
}

void TickCounters(benchmark::State& state, size_t n, double events,
                  const char* event_name) {
  state.counters["per_entity"] = benchmark::Counter(
      static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate |
                                  benchmark::Counter::kInvert);
  state.counters[event_name] =
      benchmark::Counter(events, benchmark::Counter::kAvgIterations);
}

// Each run moves its own copy of the world, so the query worlds stay fixed.
// The next tick's positions are computed with the timer paused: a tick row
// measures what the engine pays to take every entity's new shape, not the
// game's motion.
struct Motion {
  Motion(const World& w, Shapes k)
      : world(w), kind(k), centers(w.centers), velocities(w.velocities) {
    const size_t n = centers.size();
    before.resize(n);
    shapes.resize(n);
    ids.resize(n);
    for (size_t i = 0; i < n; ++i) ids[i] = i;
    for (auto& c : columns) c.resize(n);
  }
  // Advances every entity one tick into `shapes` and `columns` (circles: x
  // y radius; rects: min_x min_y max_x max_y).
  void Step() {
    for (size_t i = 0; i < centers.size(); ++i) {
      before[i] = centers[i];
      Advance(world.side, &centers[i], &velocities[i]);
      shapes[i] = MakeShape(kind, centers[i], world.extents[i]);
      const Vec2 e = world.extents[i];
      if (kind == Shapes::kCircles) {
        columns[0][i] = centers[i].x;
        columns[1][i] = centers[i].y;
        columns[2][i] = e.x;
      } else {
        columns[0][i] = centers[i].x - e.x;
        columns[1][i] = centers[i].y - e.y;
        columns[2][i] = centers[i].x + e.x;
        columns[3][i] = centers[i].y + e.y;
      }
    }
  }

  const World& world;
  Shapes kind;
  std::vector<Vec2> centers;
  std::vector<Vec2> velocities;
  std::vector<Vec2> before;
  std::vector<Shape> shapes;
  std::vector<uint64_t> ids;
  std::array<std::vector<float>, 4> columns;
};

void BM_SceneTick(benchmark::State& state, Shapes kind, size_t n,
                  bool columnar) {
  const World& w = GetWorld(kind, n);
  Motion motion(w, kind);
  Scene scene(SceneDimension::k2D);
  for (size_t i = 0; i < n; ++i) scene.Upsert(i, w.shapes[i], 1);
  scene.Commit();
  const uint64_t rebuilds = scene.Stats().rebuilds;
  const ShapeKind shape_kind =
      kind == Shapes::kCircles ? ShapeKind::kCircle : ShapeKind::kRect;
  const float* columns[4] = {motion.columns[0].data(), motion.columns[1].data(),
                             motion.columns[2].data(),
                             motion.columns[3].data()};
  for (auto _ : state) {
    state.PauseTiming();
    motion.Step();
    state.ResumeTiming();
    if (columnar) {
      scene.UpsertColumns(shape_kind, n, motion.ids.data(), columns, nullptr);
    } else {
      for (size_t i = 0; i < n; ++i) scene.Upsert(i, motion.shapes[i], 1);
    }
    scene.Commit();
  }
  TickCounters(state, n, static_cast<double>(scene.Stats().rebuilds - rebuilds),
               "rebuilds_per_tick");
}
void BM_SceneTickEach(benchmark::State& state, Shapes kind, size_t n) {
  BM_SceneTick(state, kind, n, false);
}
void BM_SceneTickColumns(benchmark::State& state, Shapes kind, size_t n) {
  BM_SceneTick(state, kind, n, true);
}

#ifdef COLLISION_HAVE_BOX2D

void BM_Box2dOverlap(benchmark::State& state, Shapes kind, size_t n) {
  const World& w = GetWorld(kind, n);
  std::vector<uint32_t> hits;
  size_t q = 0;
  size_t total = 0;
  for (auto _ : state) {
    Box2dOverlapQuery(w, w.overlap_centers[q++ & (kQueries - 1)], &hits);
    total += hits.size();
  }
  HitsCounter(state, total);
}

void BM_Box2dRay(benchmark::State& state, Shapes kind, size_t n) {
  const World& w = GetWorld(kind, n);
  size_t q = 0;
  size_t total = 0;
  for (auto _ : state) {
    const Box2dClosestRay ray = Box2dRay(w, w.rays[q++ & (kQueries - 1)]);
    benchmark::DoNotOptimize(ray.point);
    total += ray.index >= 0;
  }
  HitsCounter(state, total);
}

// MoveProxy with the tight box and the displacement, as b2Body's
// SynchronizeFixtures does: the proxy is reinserted only when the box
// leaves its fat box (tight box + 0.1, stretched 4x along the motion).
void BM_Box2dTick(benchmark::State& state, Shapes kind, size_t n) {
  const World& w = GetWorld(kind, n);
  Motion motion(w, kind);
  b2DynamicTree tree;
  std::vector<int32> proxies;
  for (size_t i = 0; i < n; ++i) {
    proxies.push_back(
        tree.CreateProxy(Bounds(w.centers[i], w.extents[i]), UserData(i)));
  }
  size_t reinserts = 0;
  for (auto _ : state) {
    state.PauseTiming();
    motion.Step();
    state.ResumeTiming();
    for (size_t i = 0; i < n; ++i) {
      const Vec2 c = motion.centers[i];
      const b2Vec2 displacement(c.x - motion.before[i].x,
                                c.y - motion.before[i].y);
      reinserts +=
          tree.MoveProxy(proxies[i], Bounds(c, w.extents[i]), displacement);
    }
  }
  TickCounters(state, n, static_cast<double>(reinserts), "reinserts_per_tick");
}

#endif  // COLLISION_HAVE_BOX2D

using Fn = void (*)(benchmark::State&, Shapes, size_t);

void Register(const std::string& query, Shapes kind, size_t n,
              const char* contender, Fn fn) {
  const std::string name =
      query + "/" + Name(kind) + "/" + std::to_string(n) + "/" + contender;
  benchmark::RegisterBenchmark(name.c_str(), fn, kind, n);
}

void RegisterAll() {
  for (Shapes kind : {Shapes::kCircles, Shapes::kRects}) {
    for (size_t n : kSizes) {
      Register("overlap", kind, n, "scene", BM_SceneOverlap);
#ifdef COLLISION_HAVE_BOX2D
      Register("overlap", kind, n, "box2d", BM_Box2dOverlap);
#endif
      Register("overlap", kind, n, "brute", BM_BruteOverlap);
    }
    for (size_t n : kSizes) {
      Register("raycast", kind, n, "scene", BM_SceneRay);
#ifdef COLLISION_HAVE_BOX2D
      Register("raycast", kind, n, "box2d", BM_Box2dRay);
#endif
      Register("raycast", kind, n, "brute", BM_BruteRay);
    }
  }
  for (size_t n : kSizes) {
    Register("nearest", Shapes::kCircles, n, "scene", BM_SceneNearest);
  }
  for (size_t n : kSizes) {
    Register("sweep", Shapes::kCircles, n, "scene", BM_SceneSweep);
  }
  for (size_t n : kSizes) {
    Register("tick", Shapes::kCircles, n, "scene", BM_SceneTickEach);
    Register("tick", Shapes::kCircles, n, "scene_columns", BM_SceneTickColumns);
#ifdef COLLISION_HAVE_BOX2D
    Register("tick", Shapes::kCircles, n, "box2d", BM_Box2dTick);
#endif
  }
}

}  // namespace
}  // namespace bench
}  // namespace collision

int main(int argc, char** argv) {
  // Short runs unless the caller chose a minimum time.
  std::vector<char*> args(argv, argv + argc);
  char default_min_time[] = "--benchmark_min_time=0.05";
  const bool chosen = std::any_of(args.begin(), args.end(), [](char* a) {
    return std::strncmp(a, "--benchmark_min_time", 20) == 0;
  });
  if (!chosen) args.insert(args.begin() + 1, default_min_time);
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 1;
  benchmark::AddCustomContext("simd_target", collision::SimdTargetName());
#ifdef COLLISION_HAVE_BOX2D
  benchmark::AddCustomContext("box2d", "2.4.1 b2DynamicTree");
#endif
  collision::bench::RegisterAll();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
