// The hitbox reference tick (issue #36): the reference tick's load in 3D
// with characters made of hitboxes. 64 players of 15 parts each (oriented
// boxes for head, torso, pelvis, hands and feet; capsules for the limbs),
// every player moving and turning every tick, plus 10k other entities
// (spheres, moved as columns), 64 players x 4 rewound raycasts aimed at
// other players, 200 swept projectiles and 50 overlaps, through the same
// server path as BM_SceneReferenceTick (tick_runner.h), so the two compare
// in one run.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "collision/v1/scene.pb.h"
#include "server/bench/tick_runner.h"

namespace collision::server {
namespace {

constexpr int kPlayers = 64;
constexpr int kParts = 15;
constexpr int kOthers = 10000;
constexpr float kSide = 1000.0f;  // the reference tick's density
constexpr uint64_t kPlayerIds = 1000000;

// A part in the player's frame (x forward, y left, z up; metres).
struct Part {
  bool capsule;
  float x, y, z;     // box centre, or the capsule's first end
  float hx, hy, hz;  // box half-extents, or the capsule's second end
  float radius;      // capsules
};
constexpr Part kBody[kParts] = {
    {false, 0, 0, 1.70f, 0.10f, 0.09f, 0.12f, 0},     // head
    {false, 0, 0, 1.30f, 0.12f, 0.20f, 0.25f, 0},     // torso
    {false, 0, 0, 0.95f, 0.11f, 0.17f, 0.10f, 0},     // pelvis
    {true, 0, 0.25f, 1.50f, 0, 0.30f, 1.20f, 0.06f},  // upper arms
    {true, 0, -0.25f, 1.50f, 0, -0.30f, 1.20f, 0.06f},
    {true, 0, 0.30f, 1.20f, 0.15f, 0.30f, 1.00f, 0.05f},  // forearms
    {true, 0, -0.30f, 1.20f, 0.15f, -0.30f, 1.00f, 0.05f},
    {false, 0.20f, 0.30f, 0.95f, 0.05f, 0.03f, 0.08f, 0},  // hands
    {false, 0.20f, -0.30f, 0.95f, 0.05f, 0.03f, 0.08f, 0},
    {true, 0, 0.10f, 0.90f, 0, 0.10f, 0.50f, 0.08f},  // thighs
    {true, 0, -0.10f, 0.90f, 0, -0.10f, 0.50f, 0.08f},
    {true, 0, 0.10f, 0.50f, 0, 0.10f, 0.10f, 0.06f},  // shins
    {true, 0, -0.10f, 0.50f, 0, -0.10f, 0.10f, 0.06f},
    {false, 0.05f, 0.10f, 0.04f, 0.13f, 0.05f, 0.04f, 0},  // feet
    {false, 0.05f, -0.10f, 0.04f, 0.13f, 0.05f, 0.04f, 0},
};

struct Player {
  float x, y, heading, turn;
};

void Set(v1::Vec3* v, float x, float y, float z) {
  v->set_x(x);
  v->set_y(y);
  v->set_z(z);
}

// The player's parts at its pose, as upserts.
void AddBody(const Player& p, int index, v1::SceneUpdate* u) {
  const float c = std::cos(p.heading), s = std::sin(p.heading);
  auto world = [&](float lx, float ly, float lz, v1::Vec3* out) {
    Set(out, p.x + c * lx - s * ly, p.y + s * lx + c * ly, lz);
  };
  // A turn about z by `heading`: w = cos(h/2), z = sin(h/2).
  const float qw = std::cos(p.heading / 2), qz = std::sin(p.heading / 2);
  for (int k = 0; k < kParts; ++k) {
    const Part& part = kBody[k];
    v1::SceneEntity* e = u->add_upserts();
    e->set_id(kPlayerIds + static_cast<uint64_t>(index * 16 + k));
    e->set_category(2);
    if (part.capsule) {
      v1::Capsule3* cap = e->mutable_shape()->mutable_capsule3();
      world(part.x, part.y, part.z, cap->mutable_a());
      world(part.hx, part.hy, part.hz, cap->mutable_b());
      cap->set_radius(part.radius);
    } else {
      v1::OrientedBox* box = e->mutable_shape()->mutable_oriented_box();
      world(part.x, part.y, part.z, box->mutable_center());
      Set(box->mutable_half_extents(), part.hx, part.hy, part.hz);
      box->mutable_rotation()->set_w(qw);
      box->mutable_rotation()->set_z(qz);
    }
  }
}

// `queries`: 0 none (the update alone), 1 the rays only, 2 the sweeps only,
// 3 everything.
std::vector<std::string> MakeHitboxTicks(int ticks, int queries) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pos(0.0f, kSide);
  std::uniform_real_distribution<float> unit(-1.0f, 1.0f);
  std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
  std::vector<Player> players(kPlayers);
  // Players gather in a 100 m square, as in a fight.
  for (Player& p : players) {
    p = {450 + 100 * (unit(rng) + 1) / 2, 450 + 100 * (unit(rng) + 1) / 2,
         angle(rng), 0.05f * unit(rng)};
  }
  std::vector<float> x(kOthers), y(kOthers), z(kOthers), r(kOthers);
  for (int i = 0; i < kOthers; ++i) {
    x[i] = pos(rng), y[i] = pos(rng), z[i] = 5 * (unit(rng) + 1);
    r[i] = 0.5f + 0.5f * static_cast<float>(i % 4);
  }
  std::vector<std::string> out;
  for (int t = 0; t < ticks; ++t) {
    v1::SceneRequest request;
    request.set_sequence(static_cast<uint64_t>(t + 1));
    v1::SceneUpdate* u = request.mutable_update();
    u->set_tick(static_cast<uint64_t>(t + 1));
    for (int i = 0; i < kPlayers; ++i) {
      Player& p = players[static_cast<size_t>(i)];
      p.heading += p.turn;
      p.x += 0.1f * std::cos(p.heading);  // 6.4 m/s at 64 Hz
      p.y += 0.1f * std::sin(p.heading);
      AddBody(p, i, u);
    }
    v1::EntityColumns* g = u->add_upsert_columns();
    for (int i = 0; i < kOthers; ++i) {
      x[i] += 0.1f * unit(rng), y[i] += 0.1f * unit(rng);
      g->add_ids(static_cast<uint64_t>(i + 1));
      g->mutable_spheres()->add_x(x[i]);
      g->mutable_spheres()->add_y(y[i]);
      g->mutable_spheres()->add_z(z[i]);
      g->mutable_spheres()->add_radius(r[i]);
    }
    // Each player shoots 4 times at another's chest, from eye height, as it
    // saw the world 3 to 10 ticks ago; its own parts are behind the muzzle.
    const bool rays = queries == 1 || queries == 3;
    const bool sweeps = queries >= 2;
    for (int i = 0; rays && i < kPlayers; ++i) {
      const Player& p = players[static_cast<size_t>(i)];
      for (int k = 0; k < 4; ++k) {
        const Player& target = players[rng() % kPlayers];
        v1::SceneQuery* q = request.add_queries();
        v1::RaycastQuery* ray = q->mutable_raycast();
        const float ox = p.x + 0.5f * std::cos(p.heading);
        const float oy = p.y + 0.5f * std::sin(p.heading);
        float dx = target.x - ox + 0.3f * unit(rng);
        float dy = target.y - oy + 0.3f * unit(rng);
        float dz = 1.3f - 1.65f + 0.3f * unit(rng);
        const float len = std::sqrt(dx * dx + dy * dy + dz * dz);
        if (len < 1e-3f) dx = 1, dy = 0, dz = 0;
        Set(ray->mutable_origin(), ox, oy, 1.65f);
        Set(ray->mutable_direction(), dx, dy, dz);
        ray->set_max_distance(150);
        q->set_mask(2);  // players only
        if (t > 0) {
          const int back = std::min(t, 3 + static_cast<int>(rng() % 8));
          q->mutable_at()->set_tick(static_cast<uint64_t>(t + 1 - back));
          q->mutable_at()->set_fraction(
              std::uniform_real_distribution<float>(0.0f, 0.999f)(rng));
        }
      }
    }
    for (int k = 0; sweeps && k < 200; ++k) {
      v1::SweepQuery* sweep = request.add_queries()->mutable_sweep();
      const float a = angle(rng);
      Set(sweep->mutable_origin(), 450 + 100 * (unit(rng) + 1) / 2,
          450 + 100 * (unit(rng) + 1) / 2, 1 + unit(rng));
      Set(sweep->mutable_direction(), std::cos(a), std::sin(a), 0);
      sweep->set_radius(0.25f);
      sweep->set_max_distance(30);
    }
    for (int k = 0; queries == 3 && k < 50; ++k) {
      v1::Sphere* s = request.add_queries()
                          ->mutable_overlap()
                          ->mutable_shape()
                          ->mutable_sphere();
      Set(s->mutable_center(), pos(rng), pos(rng), 5);
      s->set_radius(5);
    }
    out.push_back(request.SerializeAsString());
  }
  return out;
}

void BM_SceneHitboxTick(benchmark::State& state) {
  constexpr int kTicks = 64;
  const std::vector<std::string> ticks =
      MakeHitboxTicks(kTicks, static_cast<int>(state.range(0)));
  bench::TickRunner runner(v1::DIMENSION_3D);
  const auto ok = [&](const absl::Status& s) {
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
    return s.ok();
  };
  if (!ok(runner.Warm(ticks, nullptr))) return;
  for (auto _ : state) {
    if (!ok(runner.Next(ticks, nullptr))) return;
  }
  const bench::TickRunner::Times& times = runner.times();
  state.counters["answer_us"] =
      benchmark::Counter(times.answer, benchmark::Counter::kAvgIterations);
  state.counters["update_us"] =
      benchmark::Counter(times.update, benchmark::Counter::kAvgIterations);
  state.counters["queries_us"] =
      benchmark::Counter(times.queries, benchmark::Counter::kAvgIterations);
  state.counters["history_MB"] =
      static_cast<double>(runner.history().Stats().memory_bytes) / 1e6;
  state.counters["request_bytes"] = static_cast<double>(ticks[0].size());
  state.counters["hits_per_tick"] = benchmark::Counter(
      static_cast<double>(runner.hits()), benchmark::Counter::kAvgIterations);
}
// queries:3 is the hitbox tick; 0-2 take it apart.
BENCHMARK(BM_SceneHitboxTick)
    ->ArgNames({"queries"})
    ->Arg(3)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace collision::server
