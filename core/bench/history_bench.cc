// Rewound queries (scene_history.h) against the same queries at the latest
// tick (scene.h), and what the history costs per tick and in memory.
//
//   latest/<query>/<N>                       Scene, the latest tick
//   rewound/<query>/<N>/H:<h>/moving:<pct>   SceneHistory at a random tick
//                                            of the window, random fraction
//   ratio/<query>/<N>/H:<h>/moving:<pct>     the two above alternated in
//                                            batches of 64 (counters below)
//   commit/<N>/H:<h>/moving:<pct>            one tick recorded (the share
//                                            of entities moved by it)
// <query>: overlap (circle of radius 3, every hit), raycast (first hit
// within 50), nearest (k = 4), sweep (circle of radius 0.5, first hit).
// Counters on the rewound rows: history_MB (all of it), index_MB (its time
// index), copies_MB (a full copy of the world per kept tick, for
// comparison), and poses. On the ratio rows: latest_ns and rewound_ns
// (medians over the batches, ns per query) and rewound_over_latest (the
// median of each batch pair's ratio). This VM's neighbours move memory-bound
// rows by up to 2x within minutes; a pair of batches 100 us apart shares
// the same neighbours, so that ratio holds still where two rows measured
// seconds apart do not.
//
// Workload: N circles (radius 0.5..2) in a square of side 10 * sqrt(N),
// moving 0.02..0.1 units per tick (1.2..6 units/s at 60 Hz) and bouncing
// off the walls; `moving` is the share moved each tick. Each world first
// records H + 16 ticks so the window is full; queries are 1024 seeded
// positions, directions and moments, cycled.
//   cmake --build build/release --target collision_history_bench
//   build/release/core/bench/collision_history_bench
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "bench_data.h"
#include "collision/core/cast.h"
#include "collision/core/scene.h"
#include "collision/core/scene_history.h"

namespace collision {
namespace bench {
namespace {

constexpr size_t kQueries = 1024;
constexpr Boundary kB = Boundary::kInclusive;
constexpr size_t kAll = ~size_t{0};

struct World {
  size_t n = 0;
  uint32_t ticks = 0;
  int moving_pct = 0;
  float side = 0;
  std::vector<Vec2> centers, velocities;
  std::vector<float> radii;
  Scene scene{SceneDimension::k2D};
  std::unique_ptr<SceneHistory> history;
  uint64_t tick = 0;
  Rng rng{1};
  std::vector<Vec2> points;
  std::vector<Vec2> origins, directions;
  std::vector<SceneMoment> moments;
};

// One tick: moves `moving_pct`% of the entities (a rotating window of
// them), recorded by both the scene and the history.
void Step(World* w) {
  const size_t moved = w->n * static_cast<size_t>(w->moving_pct) / 100;
  const size_t start = (w->tick * moved) % w->n;
  for (size_t k = 0; k < moved; ++k) {
    const size_t i = (start + k) % w->n;
    Vec2& c = w->centers[i];
    Vec2& v = w->velocities[i];
    c.x += v.x;
    c.y += v.y;
    if (c.x < 0.0f || c.x > w->side) v.x = -v.x;
    if (c.y < 0.0f || c.y > w->side) v.y = -v.y;
    const Circle shape{c, w->radii[i]};
    w->scene.Upsert(i, shape, 1);
    w->history->Upsert(i, shape, 1);
  }
  ++w->tick;
  w->scene.Commit();
  w->history->Commit(w->tick);
}

World& GetWorld(size_t n, uint32_t ticks, int moving_pct) {
  static std::map<std::tuple<size_t, uint32_t, int>, std::unique_ptr<World>>
      worlds;
  std::unique_ptr<World>& slot = worlds[{n, ticks, moving_pct}];
  if (slot) return *slot;
  slot = std::make_unique<World>();
  World& w = *slot;
  w.n = n;
  w.ticks = ticks;
  w.moving_pct = moving_pct;
  w.side = 10.0f * std::sqrt(static_cast<float>(n));
  w.history = std::make_unique<SceneHistory>(SceneDimension::k2D, ticks);
  Rng& rng = w.rng;
  for (size_t i = 0; i < n; ++i) {
    const Vec2 c{rng.Uniform(0, w.side), rng.Uniform(0, w.side)};
    const float angle = rng.Uniform(-3.14159265f, 3.14159265f);
    const float speed = rng.Uniform(0.02f, 0.1f);
    w.centers.push_back(c);
    w.velocities.push_back({std::cos(angle) * speed, std::sin(angle) * speed});
    w.radii.push_back(rng.Uniform(0.5f, 2.0f));
    w.scene.Upsert(i, Circle{c, w.radii.back()}, 1);
    w.history->Upsert(i, Circle{c, w.radii.back()}, 1);
  }
  w.tick = 1;
  w.scene.Commit();
  w.history->Commit(w.tick);
  for (uint32_t t = 0; t < ticks + 16; ++t) Step(&w);
  for (size_t q = 0; q < kQueries; ++q) {
    w.points.push_back({rng.Uniform(0, w.side), rng.Uniform(0, w.side)});
    w.origins.push_back({rng.Uniform(0, w.side), rng.Uniform(0, w.side)});
    const float angle = rng.Uniform(-3.14159265f, 3.14159265f);
    w.directions.push_back(
        NormalizeDirection(Vec2{std::cos(angle), std::sin(angle)}));
    const uint64_t oldest = w.history->oldest();
    const uint64_t span = w.history->latest() - oldest;
    SceneMoment m;
    m.tick = oldest + static_cast<uint64_t>(rng.Uniform(0.0f, 1.0f) *
                                            static_cast<float>(span));
    if (m.tick >= w.history->latest()) m.tick = w.history->latest() - 1;
    m.fraction = rng.Uniform(0.0f, 0.999f);
    w.moments.push_back(m);
  }
  return w;
}

enum class Query { kOverlap, kRaycast, kNearest, kSweep };

// One query at the latest tick (`at` null) or rewound.
size_t Ask(const World& w, Query kind, size_t q, const SceneMoment* at) {
  static thread_local std::vector<OverlapHit> overlap;
  static thread_local std::vector<NearestHit> nearest;
  static thread_local std::vector<CastHit> cast;
  const Vec2 p = w.points[q];
  const CastQuery c{{w.origins[q].x, w.origins[q].y, 0.0f},
                    {w.directions[q].x, w.directions[q].y, 0.0f},
                    50.0f,
                    kind == Query::kSweep ? 0.5f : 0.0f};
  switch (kind) {
    case Query::kOverlap:
      if (at) {
        w.history->Overlap(*at, Circle{p, 3.0f}, kB, {}, kAll, &overlap);
      } else {
        w.scene.Overlap(Circle{p, 3.0f}, kB, {}, kAll, &overlap);
      }
      return overlap.size();
    case Query::kNearest:
      if (at) {
        w.history->Nearest(*at, p, 4, INFINITY, kB, {}, &nearest);
      } else {
        w.scene.Nearest(p, 4, INFINITY, kB, {}, &nearest);
      }
      return nearest.size();
    case Query::kRaycast:
    case Query::kSweep:
      if (at) {
        w.history->Cast(*at, c, kB, {}, false, 1, &cast);
      } else {
        w.scene.Cast(c, kB, {}, false, 1, &cast);
      }
      return cast.size();
  }
  return 0;
}

void BM_Latest(benchmark::State& state, Query kind, size_t n) {
  const World& w = GetWorld(n, 64, 100);
  size_t q = 0, hits = 0;
  for (auto _ : state) hits += Ask(w, kind, q++ & (kQueries - 1), nullptr);
  state.counters["hits_per_query"] =
      benchmark::Counter(double(hits), benchmark::Counter::kAvgIterations);
}

void BM_Rewound(benchmark::State& state, Query kind, size_t n, uint32_t h,
                int moving) {
  const World& w = GetWorld(n, h, moving);
  size_t q = 0, hits = 0;
  for (auto _ : state) {
    const size_t i = q++ & (kQueries - 1);
    hits += Ask(w, kind, i, &w.moments[i]);
  }
  const SceneHistoryStats s = w.history->Stats();
  state.counters["hits_per_query"] =
      benchmark::Counter(double(hits), benchmark::Counter::kAvgIterations);
  state.counters["history_MB"] = double(s.memory_bytes) / 1e6;
  state.counters["index_MB"] = double(s.index_bytes) / 1e6;
  state.counters["copies_MB"] =
      double(w.scene.Stats().memory_bytes) * double(h) / 1e6;
  state.counters["poses"] = double(s.poses);
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

void BM_Ratio(benchmark::State& state, Query kind, size_t n, uint32_t h,
              int moving) {
  const World& w = GetWorld(n, h, moving);
  constexpr size_t kBatch = 64;
  std::vector<double> latest, rewound, ratios;
  size_t q = 0, hits = 0, round = 0;
  // Each batch's time per query: the same queries at the latest tick (the
  // world's own Scene) or at their moments.
  auto batch = [&](size_t first, bool rewind) {
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < kBatch; ++i) {
      const size_t j = (first + i) & (kQueries - 1);
      hits += Ask(w, kind, j, rewind ? &w.moments[j] : nullptr);
    }
    const std::chrono::duration<double, std::nano> took =
        std::chrono::steady_clock::now() - start;
    return took.count() / kBatch;
  };
  for (auto _ : state) {
    // Alternating which goes first, so neither always finds the caches
    // as the other left them.
    double l, r;
    if (round++ % 2 == 0) {
      l = batch(q, false);
      r = batch(q, true);
    } else {
      r = batch(q, true);
      l = batch(q, false);
    }
    q += kBatch;
    latest.push_back(l);
    rewound.push_back(r);
    ratios.push_back(r / l);
  }
  benchmark::DoNotOptimize(hits);
  state.counters["latest_ns"] = Median(latest);
  state.counters["rewound_ns"] = Median(rewound);
  state.counters["rewound_over_latest"] = Median(ratios);
}

void BM_Commit(benchmark::State& state, size_t n, uint32_t h, int moving) {
  World& w = GetWorld(n, h, moving);
  for (auto _ : state) Step(&w);  // the scene's commit is timed too
  state.counters["moved_per_tick"] = double(n * size_t(moving) / 100);
}

void BM_SceneOnlyCommit(benchmark::State& state, size_t n, int moving) {
  // The same motion committed to a Scene alone: what the history adds.
  World& w = GetWorld(n, 64, moving);
  std::vector<Vec2> centers = w.centers;
  Scene scene{SceneDimension::k2D};
  for (size_t i = 0; i < n; ++i) scene.Upsert(i, Circle{centers[i], 1}, 1);
  scene.Commit();
  const size_t moved = n * size_t(moving) / 100;
  size_t tick = 0;
  for (auto _ : state) {
    const size_t start = (tick++ * moved) % n;
    for (size_t k = 0; k < moved; ++k) {
      const size_t i = (start + k) % n;
      centers[i].x += w.velocities[i].x;
      centers[i].y += w.velocities[i].y;
      scene.Upsert(i, Circle{centers[i], w.radii[i]}, 1);
    }
    scene.Commit();
  }
}

const char* Name(Query q) {
  switch (q) {
    case Query::kOverlap:
      return "overlap";
    case Query::kRaycast:
      return "raycast";
    case Query::kNearest:
      return "nearest";
    case Query::kSweep:
      return "sweep";
  }
  return "";
}

void RegisterAll() {
  const size_t n = 10000;
  // Ratio rows after the others: `--benchmark_filter='^(latest|rewound)'`
  // runs the table, '^ratio' the pairs.
  for (const char* row : {"rewound", "ratio"}) {
    for (Query q :
         {Query::kOverlap, Query::kRaycast, Query::kNearest, Query::kSweep}) {
      if (row == std::string("rewound")) {
        benchmark::RegisterBenchmark(
            (std::string("latest/") + Name(q) + "/" + std::to_string(n))
                .c_str(),
            BM_Latest, q, n);
      }
      for (uint32_t h : {64u, 256u}) {
        for (int moving : {10, 100}) {
          benchmark::RegisterBenchmark(
              (std::string(row) + "/" + Name(q) + "/" + std::to_string(n) +
               "/H:" + std::to_string(h) + "/moving:" + std::to_string(moving))
                  .c_str(),
              row == std::string("rewound") ? BM_Rewound : BM_Ratio, q, n, h,
              moving);
        }
      }
    }
  }
  for (int moving : {10, 100}) {
    benchmark::RegisterBenchmark(
        ("commit/" + std::to_string(n) +
         "/scene_only/moving:" + std::to_string(moving))
            .c_str(),
        BM_SceneOnlyCommit, n, moving);
    for (uint32_t h : {64u, 256u}) {
      benchmark::RegisterBenchmark(
          ("commit/" + std::to_string(n) + "/H:" + std::to_string(h) +
           "/moving:" + std::to_string(moving))
              .c_str(),
          BM_Commit, n, h, moving);
    }
  }
}

}  // namespace
}  // namespace bench
}  // namespace collision

int main(int argc, char** argv) {
  collision::bench::RegisterAll();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
