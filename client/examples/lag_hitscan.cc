// Hitscan with 100 ms of lag: a player whose screen is 100 ms behind the
// server shoots at where the target *was*, and the server rewinds the
// scene to that moment to decide the hit (lag compensation).
//
//   collision_lag_hitscan --target=127.0.0.1:50051
//
// The scene ticks at 64 Hz and keeps one second of history (the default).
// A target runs along +x at 8 units/s; the shooter, 100 ms behind, aims
// at the target's position on their screen. The same shot is asked twice:
// rewound to the shooter's moment (a hit), and at the latest tick (a miss,
// the target has moved on).
#include <cmath>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "collision/client/client.h"
#include "collision/client/scene_session.h"

ABSL_FLAG(std::string, target, "127.0.0.1:50051", "collision_server");

namespace v1 = collision::v1;

namespace {

constexpr double kTickRate = 64;
constexpr double kLagSeconds = 0.100;
constexpr float kSpeed = 8.0f;  // units per second
constexpr uint64_t kShooter = 1, kTarget = 2;

// The target's centre at tick t: along y = 10, x = speed * t / rate.
float TargetX(double tick) { return kSpeed * float(tick / kTickRate); }

v1::SceneEntity Circle(uint64_t id, float x, float y, float r) {
  v1::SceneEntity e;
  e.set_id(id);
  v1::Circle* c = e.mutable_shape()->mutable_circle();
  c->mutable_center()->set_x(x);
  c->mutable_center()->set_y(y);
  c->set_radius(r);
  return e;
}

// A ray from the shooter at (0, 0) towards (x, 10).
v1::SceneQuery ShotAt(float x) {
  v1::SceneQuery q;
  v1::RaycastQuery* ray = q.mutable_raycast();
  ray->mutable_origin();  // (0, 0, 0)
  ray->mutable_direction()->set_x(x);
  ray->mutable_direction()->set_y(10);
  ray->set_max_distance(100);
  q.set_exclude_id(kShooter);
  return q;
}

}  // namespace

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  auto client = collision::client::Client::Create(absl::GetFlag(FLAGS_target));
  if (!client.ok()) {
    std::fprintf(stderr, "%s\n", client.status().ToString().c_str());
    return 1;
  }
  v1::SceneConfig config;
  config.set_dimension(v1::DIMENSION_2D);
  config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  config.set_tick_rate(static_cast<uint32_t>(kTickRate));  // history: 1 s
  auto scene = collision::client::SceneSession::Open(**client, config);
  if (!scene.ok()) {
    std::fprintf(stderr, "%s\n", scene.status().ToString().c_str());
    return 1;
  }
  // Half a second of ticks: the target runs.
  for (uint64_t tick = 1; tick <= 32; ++tick) {
    v1::SceneRequest update;
    update.mutable_update()->set_tick(tick);
    if (tick == 1) {
      *update.mutable_update()->add_upserts() = Circle(kShooter, 0, 0, 0.5f);
    }
    *update.mutable_update()->add_upserts() =
        Circle(kTarget, TargetX(double(tick)), 10, 0.5f);
    if (auto r = (*scene)->Send(update); !r.ok()) {
      std::fprintf(stderr, "tick %llu: %s\n", (unsigned long long)tick,
                   r.status().ToString().c_str());
      return 1;
    }
  }
  // Tick 33: the shooter fires at what their screen showed 100 ms ago.
  const uint64_t now = 33;
  const double seen = double(now) - kLagSeconds * kTickRate;  // 26.6
  const float aim_x = TargetX(seen);
  v1::SceneRequest shot;
  shot.mutable_update()->set_tick(now);
  *shot.mutable_update()->add_upserts() =
      Circle(kTarget, TargetX(double(now)), 10, 0.5f);
  v1::SceneQuery rewound = ShotAt(aim_x);
  rewound.mutable_at()->set_tick(static_cast<uint64_t>(std::floor(seen)));
  rewound.mutable_at()->set_fraction(float(seen - std::floor(seen)));
  *shot.add_queries() = rewound;
  *shot.add_queries() = ShotAt(aim_x);  // the same shot, not rewound
  auto answer = (*scene)->Send(shot);
  if (!answer.ok()) {
    std::fprintf(stderr, "%s\n", answer.status().ToString().c_str());
    return 1;
  }
  const v1::SceneQueryResult& lagged = answer->results(0);
  const v1::SceneQueryResult& latest = answer->results(1);
  std::printf("aimed at x = %.3f (the target 100 ms ago); it is now at %.3f\n",
              aim_x, TargetX(double(now)));
  std::printf("rewound to tick %llu + %.3f%s: %s\n",
              (unsigned long long)lagged.at().tick(), lagged.at().fraction(),
              lagged.clamped() ? " (clamped)" : "",
              lagged.hits_size() > 0 ? "hit" : "miss");
  if (lagged.hits_size() > 0) {
    std::printf("  target %llu at distance %.3f\n",
                (unsigned long long)lagged.hits(0).id(),
                lagged.hits(0).distance());
  }
  std::printf("at the latest tick %llu: %s\n",
              (unsigned long long)answer->tick(),
              latest.hits_size() > 0 ? "hit" : "miss");
  (*scene)->Finish().IgnoreError();
  return lagged.hits_size() == 1 && latest.hits_size() == 0 ? 0 : 2;
}
