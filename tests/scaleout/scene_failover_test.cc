// A scene survives its replicas: a SceneSession ticking over a round_robin
// channel to three real collision_server processes whose streams age out
// every second or so, while the replica hosting the scene is drained
// (SIGTERM) and then the one hosting it next is SIGKILLed. No message may
// fail, and every answer must equal the brute-force pairwise answer over
// the world the test keeps itself, including a query rewound 12 ticks
// (~200 ms at 64 Hz): the session resends the history window on reopening.
// Once over gRPC, once over the replicas' scene ports.
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "collision/client/scene_session.h"
#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "collision/v1/collision.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/util/server_process.h"

namespace collision {
namespace {

namespace c = client;

class World {
 public:
  explicit World(uint32_t seed) : rng_(seed) {}
  float Coord() {
    return static_cast<float>(
        std::uniform_int_distribution<int>(-40, 40)(rng_));
  }
  Circle RandomCircle() {
    return Circle{
        {Coord(), Coord()},
        static_cast<float>(std::uniform_int_distribution<int>(0, 3)(rng_))};
  }
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  std::map<uint64_t, Circle> circles;

 private:
  std::mt19937 rng_;
};

void SetCircle(const Circle& c, v1::Shape* s) {
  s->mutable_circle()->mutable_center()->set_x(c.center.x);
  s->mutable_circle()->mutable_center()->set_y(c.center.y);
  s->mutable_circle()->set_radius(c.radius);
}

// One tick: moves, insertions, removals, and queries whose brute-force
// answers are checked. Returns false (with a failure recorded) on a miss.
class Ticker {
 public:
  Ticker(c::SceneSession* session, World* world)
      : session_(session), world_(world) {}

  void Tick() {
    v1::SceneRequest request;
    v1::SceneUpdate* update = request.mutable_update();
    update->set_tick(++tick_);
    std::vector<uint64_t> ids;
    for (const auto& [id, c] : world_->circles) ids.push_back(id);
    for (uint64_t id : ids) {
      const int what = world_->Int(0, 19);
      if (what == 0) {
        update->add_removals(id);
      } else if (what < 6) {
        Circle c = world_->circles[id];
        c.center.x += static_cast<float>(world_->Int(-1, 1));
        c.center.y += static_cast<float>(world_->Int(-1, 1));
        v1::SceneEntity* e = update->add_upserts();
        e->set_id(id);
        SetCircle(c, e->mutable_shape());
        pending_[id] = c;
      }
    }
    for (int i = 0; i < 3; ++i) {
      const Circle c = world_->RandomCircle();
      v1::SceneEntity* e = update->add_upserts();
      e->set_id(next_id_);
      SetCircle(c, e->mutable_shape());
      pending_[next_id_++] = c;
    }
    std::vector<Circle> probes;
    for (int q = 0; q < 4; ++q) {
      const Circle probe = world_->RandomCircle();
      probes.push_back(probe);
      v1::SceneQuery* overlap = request.add_queries();
      SetCircle(Circle{probe.center, probe.radius + 3},
                overlap->mutable_overlap()->mutable_shape());
      v1::RaycastQuery* ray = request.add_queries()->mutable_raycast();
      ray->mutable_origin()->set_x(probe.center.x);
      ray->mutable_origin()->set_y(probe.center.y);
      ray->mutable_direction()->set_x(q % 2 == 0 ? 1.0f : 0.6f);
      ray->mutable_direction()->set_y(q % 2 == 0 ? 0.0f : 0.8f);
      ray->set_max_distance(60);
    }
    // The world as it was 12 ticks ago (the default history is 64 ticks).
    const Circle rewound_probe = world_->RandomCircle();
    const uint64_t rewound_tick = tick_ > 12 ? tick_ - 12 : 0;
    if (rewound_tick > 0) {
      v1::SceneQuery* q = request.add_queries();
      SetCircle(Circle{rewound_probe.center, rewound_probe.radius + 3},
                q->mutable_overlap()->mutable_shape());
      q->mutable_at()->set_tick(rewound_tick);
    }
    absl::StatusOr<v1::SceneResponse> answer = session_->Send(request);
    if (!answer.ok()) {
      ++failed_;
      ADD_FAILURE() << "tick " << tick_ << ": " << answer.status();
      pending_.clear();
      --tick_;
      return;
    }
    // Acknowledged: the world moves on.
    for (uint64_t id : update->removals()) world_->circles.erase(id);
    for (const auto& [id, c] : pending_) world_->circles[id] = c;
    pending_.clear();
    ASSERT_EQ(answer->entities(), world_->circles.size()) << "tick " << tick_;
    for (int q = 0; q < 4; ++q) {
      const Circle& p = probes[static_cast<size_t>(q)];
      std::vector<uint64_t> want;
      for (const auto& [id, c] : world_->circles) {
        if (Intersect(Circle{p.center, p.radius + 3}, c, Boundary::kInclusive)
                .hit) {
          want.push_back(id);
        }
      }
      const v1::SceneQueryResult& got = answer->results(2 * q);
      ASSERT_EQ(got.hits_size(), static_cast<int>(want.size()))
          << "tick " << tick_;
      for (int h = 0; h < got.hits_size(); ++h) {
        ASSERT_EQ(got.hits(h).id(), want[static_cast<size_t>(h)]);
      }
      const Vec2 dir =
          NormalizeDirection(q % 2 == 0 ? Vec2{1.0f, 0.0f} : Vec2{0.6f, 0.8f});
      uint64_t first = 0;
      float best = INFINITY;
      for (const auto& [id, c] : world_->circles) {
        const CastResult r =
            RayCast(p.center, dir, 60, c, Boundary::kInclusive);
        if (r.hit && r.distance < best) {
          best = r.distance;
          first = id;
        }
      }
      const v1::SceneQueryResult& ray = answer->results(2 * q + 1);
      if (first == 0) {
        ASSERT_EQ(ray.hits_size(), 0) << "tick " << tick_;
      } else {
        ASSERT_EQ(ray.hits_size(), 1) << "tick " << tick_;
        ASSERT_EQ(ray.hits(0).id(), first) << "tick " << tick_;
        ASSERT_EQ(ray.hits(0).distance(), best) << "tick " << tick_;
      }
    }
    past_[tick_] = world_->circles;
    past_.erase(past_.begin(),
                past_.lower_bound(tick_ - std::min<uint64_t>(tick_, 20)));
    if (rewound_tick > 0) {
      const v1::SceneQueryResult& got = answer->results(8);
      ASSERT_FALSE(got.clamped()) << "tick " << tick_;
      std::vector<uint64_t> want;
      for (const auto& [id, c] : past_.at(rewound_tick)) {
        if (Intersect(Circle{rewound_probe.center, rewound_probe.radius + 3}, c,
                      Boundary::kInclusive)
                .hit) {
          want.push_back(id);
        }
      }
      ASSERT_EQ(got.hits_size(), static_cast<int>(want.size()))
          << "rewound, tick " << tick_;
      for (int h = 0; h < got.hits_size(); ++h) {
        ASSERT_EQ(got.hits(h).id(), want[static_cast<size_t>(h)]);
      }
    }
    ++answered_;
  }

  int answered() const { return answered_; }
  int failed() const { return failed_; }

 private:
  c::SceneSession* session_;
  World* world_;
  uint64_t tick_ = 0;
  uint64_t next_id_ = 1;
  std::map<uint64_t, Circle> pending_;
  std::map<uint64_t, std::map<uint64_t, Circle>> past_;  // worlds by tick
  int answered_ = 0;
  int failed_ = 0;
};

// Which server hosts the scene now: the one live server with a scene open,
// once a stream the session left behind has been closed (bounded wait);
// -1 when none is found. It keeps ticking meanwhile: a stream that ages out
// while nothing is sent is reopened only by the next tick, and a busy
// machine can make the look-up outlast a stream's age.
int Host(const std::vector<std::unique_ptr<testing::ServerProcess>>& servers,
         const std::vector<bool>& alive, Ticker* ticker) {
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (absl::Now() < deadline) {
    int host = -1;
    int open = 0;
    for (size_t i = 0; i < servers.size(); ++i) {
      if (!alive[i]) continue;
      const double scenes = servers[i]->Metric("collision_scenes_open");
      if (scenes > 0) {
        host = static_cast<int>(i);
        open += static_cast<int>(scenes);
      }
    }
    if (open == 1) return host;
    ticker->Tick();
  }
  return -1;
}

// The scene port a replica logged at start ("scene_port=127.0.0.1:N").
std::string ScenePortOf(const testing::ServerProcess& server) {
  const std::string log = server.log();
  const std::size_t at = log.find("scene_port=127.0.0.1:");
  if (at == std::string::npos) return "";
  return absl::StrCat("127.0.0.1:", std::atoi(log.c_str() + at + 21));
}

// Over gRPC (round_robin with health checking) or over the replicas' scene
// ports (the session's list of addresses).
class SceneFailover : public ::testing::TestWithParam<bool> {};

INSTANTIATE_TEST_SUITE_P(Transports, SceneFailover, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "ScenePort" : "Grpc";
                         });

TEST_P(SceneFailover, NoMessageLostThroughAgeingDrainAndKill) {
  const bool scene_port = GetParam();
  char dir_template[] = "/tmp/scene_failover.XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  struct Cleanup {
    std::string dir;
    ~Cleanup() { std::system(absl::StrCat("rm -rf ", dir).c_str()); }
  } cleanup{dir};

  std::vector<std::unique_ptr<testing::ServerProcess>> servers;
  for (int i = 0; i < 3; ++i) {
    servers.push_back(std::make_unique<testing::ServerProcess>(
        COLLISION_SERVER_PATH, dir, absl::StrCat("server", i)));
    // Streams end at ~0.9 s of age (min(age, grace) less a tenth).
    servers.back()->Start(
        {"--metrics_address=127.0.0.1:0", "--scene_port_address=127.0.0.1:0",
         "--max_connection_age=1s", "--max_connection_age_grace=1s",
         "--drain_grace=200ms", "--shutdown_deadline=3s"});
  }
  for (auto& s : servers) ASSERT_NO_FATAL_FAILURE(s->WaitForPorts(true));
  c::SceneSessionOptions session_options;
  if (scene_port) {
    for (auto& s : servers) {
      const std::string port = ScenePortOf(*s);
      ASSERT_FALSE(port.empty()) << s->log();
      if (!session_options.scene_port.empty()) {
        session_options.scene_port += ",";
      }
      session_options.scene_port += port;
    }
  }
  const std::string target = absl::StrCat("ipv4:127.0.0.1:", servers[0]->port(),
                                          ",127.0.0.1:", servers[1]->port(),
                                          ",127.0.0.1:", servers[2]->port());
  c::ClientOptions options;
  options.load_balancing_policy = "round_robin";
  options.health_check_service = v1::CollisionService::service_full_name();
  auto client = c::Client::Create(target, options);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE((*client)->WaitUntilServing(absl::Seconds(10)).ok());

  v1::SceneConfig config;
  config.set_dimension(v1::DIMENSION_2D);
  config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  auto session = c::SceneSession::Open(**client, config, session_options);
  ASSERT_TRUE(session.ok()) << session.status();
  World world(11);
  Ticker ticker(session->get(), &world);
  std::vector<bool> alive = {true, true, true};

  // Phase 1: tick until the streams' age has moved the scene twice.
  const absl::Time limit = absl::Now() + absl::Seconds(30);
  while ((*session)->reopens() < 2 && absl::Now() < limit) {
    ASSERT_NO_FATAL_FAILURE(ticker.Tick());
  }
  ASSERT_GE((*session)->reopens(), 2) << "streams did not age";

  // Phase 2: drain the replica hosting the scene.
  int host = Host(servers, alive, &ticker);
  ASSERT_GE(host, 0);
  const int reopens_before_drain = (*session)->reopens();
  servers[static_cast<size_t>(host)]->Signal(SIGTERM);
  while ((*session)->reopens() == reopens_before_drain && absl::Now() < limit) {
    ASSERT_NO_FATAL_FAILURE(ticker.Tick());
  }
  EXPECT_EQ(servers[static_cast<size_t>(host)]->WaitExit(absl::Seconds(10)), 0);
  alive[static_cast<size_t>(host)] = false;

  // Phase 3: SIGKILL the replica hosting it now.
  for (int i = 0; i < 20; ++i) ASSERT_NO_FATAL_FAILURE(ticker.Tick());
  host = Host(servers, alive, &ticker);
  ASSERT_GE(host, 0);
  const int reopens_before_kill = (*session)->reopens();
  servers[static_cast<size_t>(host)]->Signal(SIGKILL);
  servers[static_cast<size_t>(host)]->WaitExit(absl::Seconds(5));
  alive[static_cast<size_t>(host)] = false;
  for (int i = 0; i < 50; ++i) ASSERT_NO_FATAL_FAILURE(ticker.Tick());
  EXPECT_GT((*session)->reopens(), reopens_before_kill);

  EXPECT_EQ(ticker.failed(), 0);
  std::cout << "[ measured ] " << ticker.answered() << " ticks answered, "
            << (*session)->reopens() << " reopens, 0 lost\n";
  (*session)->Finish().IgnoreError();
}

}  // namespace
}  // namespace collision
