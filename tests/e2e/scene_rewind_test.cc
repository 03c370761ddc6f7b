// Rewound scene queries (SceneQuery.at) against a real server on
// 127.0.0.1:0: a shot at a moment between two ticks hits where the target
// was then, the answer says which moment it used, old moments are clamped
// and say so, the future and bad fractions are rejected by field, the
// history's size is set by the config within the server's limit, and the
// metrics count rewound queries and history memory.
#include <string>

#include "collision/v1/scene.grpc.pb.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/e2e/scene_session_testing.h"
#include "tests/util/http_get.h"

namespace collision {
namespace {

using scene_testing::Config;
using scene_testing::Session;
using scene_testing::Start;
using ::testing::HasSubstr;

// Tick `tick`: entity 7, a circle of radius 1, at x = 10 * (tick - 100).
v1::SceneRequest Move(uint64_t tick) {
  v1::SceneRequest r;
  r.mutable_update()->set_tick(tick);
  v1::SceneEntity* e = r.mutable_update()->add_upserts();
  e->set_id(7);
  v1::Circle* c = e->mutable_shape()->mutable_circle();
  c->mutable_center()->set_x(10.0f * static_cast<float>(tick - 100));
  c->set_radius(1);
  return r;
}

// A 2D scene's config keeping `ticks` ticks of history.
v1::SceneRequest ConfigWithHistory(uint32_t ticks) {
  v1::SceneRequest config = Config(v1::DIMENSION_2D);
  config.mutable_config()->set_history_ticks(ticks);
  return config;
}

// A ray down the line x = `x` from y = 50, at the moment (tick, fraction).
v1::SceneQuery RayDownAt(float x, uint64_t tick, float fraction) {
  v1::SceneQuery q;
  v1::RaycastQuery* ray = q.mutable_raycast();
  ray->mutable_origin()->set_x(x);
  ray->mutable_origin()->set_y(50);
  ray->mutable_direction()->set_y(-1);
  ray->set_max_distance(100);
  q.mutable_at()->set_tick(tick);
  q.mutable_at()->set_fraction(fraction);
  return q;
}

TEST(SceneRewind, ShotsHitWhereTheTargetWasAndSayWhen) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  Session s(*server);
  ASSERT_FALSE(s.Send(ConfigWithHistory(16)).has_error());
  for (uint64_t t = 100; t <= 130; ++t) {
    ASSERT_FALSE(s.Send(Move(t)).has_error()) << t;
  }
  // Now at x = 300; at 120.5 it was at x = 205.
  v1::SceneRequest shots;
  *shots.add_queries() = RayDownAt(205, 120, 0.5f);
  *shots.add_queries() = RayDownAt(300, 120, 0.5f);
  *shots.add_queries() = RayDownAt(200, 120, 0.0f);
  *shots.add_queries() = RayDownAt(300, 130, 0.0f);
  v1::SceneQuery latest = RayDownAt(300, 0, 0);
  latest.clear_at();
  *shots.add_queries() = latest;
  *shots.add_queries() = RayDownAt(0, 100, 0.0f);  // older than 16 ticks
  const v1::SceneResponse r = s.Send(shots);
  ASSERT_FALSE(r.has_error()) << r.error().message();
  ASSERT_EQ(r.results_size(), 6);
  ASSERT_EQ(r.results(0).hits_size(), 1);
  EXPECT_EQ(r.results(0).hits(0).id(), 7u);
  EXPECT_FLOAT_EQ(r.results(0).hits(0).distance(), 49.0f);
  EXPECT_EQ(r.results(0).at().tick(), 120u);
  EXPECT_EQ(r.results(0).at().fraction(), 0.5f);
  EXPECT_FALSE(r.results(0).clamped());
  EXPECT_EQ(r.results(1).hits_size(), 0);  // not there yet at 120.5
  EXPECT_EQ(r.results(2).hits_size(), 1);
  EXPECT_EQ(r.results(3).hits_size(), 1);
  EXPECT_EQ(r.results(3).at().tick(), 130u);
  EXPECT_EQ(r.results(4).hits_size(), 1);
  EXPECT_FALSE(r.results(4).has_at());  // answered at the response's tick
  EXPECT_EQ(r.tick(), 130u);
  // Clamped to the oldest tick kept (115: x = 150), and says so.
  EXPECT_TRUE(r.results(5).clamped());
  EXPECT_EQ(r.results(5).at().tick(), 115u);
  EXPECT_EQ(r.results(5).hits_size(), 0);
  v1::SceneRequest oldest;
  *oldest.add_queries() = RayDownAt(150, 3, 0.9f);
  const v1::SceneResponse o = s.Send(oldest);
  ASSERT_EQ(o.results_size(), 1);
  EXPECT_TRUE(o.results(0).clamped());
  EXPECT_EQ(o.results(0).hits_size(), 1);
  EXPECT_TRUE(s.Close().ok());
}

// Each tick's message moves the target and shoots at moments before it.
// The server answers queries that do not need the new tick before
// recording it (and records it after the answer has left); the answers
// must be the ones of a history that already holds it: a shot between the
// last tick and the new one interpolates towards the new position, the
// window's edge moves with the new tick, and a shot just past it is clamped
// to the new oldest tick.
TEST(SceneRewind, ShotsInTheMessageOfATickSeeThatTickRecorded) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  Session s(*server);
  ASSERT_FALSE(s.Send(ConfigWithHistory(16)).has_error());
  auto x_at = [](double tick) { return static_cast<float>(10 * (tick - 100)); };
  for (uint64_t t = 100; t <= 140; ++t) {
    v1::SceneRequest m = Move(t);
    if (t >= 117) {
      *m.add_queries() = RayDownAt(x_at(t - 0.5), t - 1, 0.5f);  // needs t
      *m.add_queries() = RayDownAt(x_at(t - 2.75), t - 3, 0.25f);
      *m.add_queries() = RayDownAt(x_at(t - 15), t - 15, 0.0f);  // the edge
      *m.add_queries() = RayDownAt(x_at(t - 15), t - 16, 0.0f);  // clamped
      *m.add_queries() = RayDownAt(x_at(t - 16), t - 16, 0.0f);  // clamped
    }
    const v1::SceneResponse r = s.Send(m);
    ASSERT_FALSE(r.has_error()) << t << " " << r.error().message();
    if (t < 117) continue;
    ASSERT_EQ(r.results_size(), 5) << t;
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(r.results(i).hits_size(), 1) << t << " query " << i;
      EXPECT_EQ(r.results(i).hits(0).id(), 7u);
      EXPECT_FLOAT_EQ(r.results(i).hits(0).distance(), 49.0f) << t << " " << i;
    }
    EXPECT_EQ(r.results(0).at().tick(), t - 1);
    EXPECT_FALSE(r.results(0).clamped());
    EXPECT_FALSE(r.results(1).clamped());
    EXPECT_FALSE(r.results(2).clamped()) << t;
    EXPECT_EQ(r.results(2).at().tick(), t - 15);
    EXPECT_TRUE(r.results(3).clamped()) << t;
    EXPECT_EQ(r.results(3).at().tick(), t - 15);
    EXPECT_EQ(r.results(4).hits_size(), 0) << t;  // it was at t - 15 then
  }
  EXPECT_TRUE(s.Close().ok());
}

TEST(SceneRewind, TheFutureAndBadFractionsAreRejectedByField) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  Session s(*server);
  ASSERT_FALSE(s.Send(Config(v1::DIMENSION_2D)).has_error());
  v1::SceneRequest early;
  *early.add_queries() = RayDownAt(0, 1, 0);
  v1::SceneResponse r = s.Send(early);
  ASSERT_TRUE(r.has_error());
  EXPECT_EQ(r.error().code(), int(grpc::StatusCode::INVALID_ARGUMENT));
  EXPECT_THAT(r.error().message(),
              HasSubstr("queries[0].at: the scene has no tick yet"));

  ASSERT_FALSE(s.Send(Move(100)).has_error());
  v1::SceneRequest bad = Move(101);  // the update comes first: 101 is latest
  *bad.add_queries() = RayDownAt(0, 101, 0.0f);   // fine
  *bad.add_queries() = RayDownAt(0, 101, 0.25f);  // after the latest tick
  *bad.add_queries() = RayDownAt(0, 102, 0.0f);
  *bad.add_queries() = RayDownAt(0, 100, 1.0f);
  *bad.add_queries() = RayDownAt(0, 100, -0.5f);
  r = s.Send(bad);
  ASSERT_TRUE(r.has_error());
  EXPECT_EQ(r.error().code(), int(grpc::StatusCode::INVALID_ARGUMENT));
  const std::string& m = r.error().message();
  EXPECT_THAT(m, ::testing::Not(HasSubstr("queries[0]")));
  EXPECT_THAT(m, HasSubstr("queries[1].at is in the future"));
  EXPECT_THAT(m, HasSubstr("queries[2].at is in the future"));
  EXPECT_THAT(m, HasSubstr("queries[3].at.fraction must be in [0, 1), got 1"));
  EXPECT_THAT(m, HasSubstr("queries[4].at.fraction must be in [0, 1)"));
  // Rejected whole: tick 101 was not applied.
  v1::SceneRequest again = Move(101);
  *again.add_queries() = RayDownAt(10, 100, 0.5f);
  r = s.Send(again);
  ASSERT_FALSE(r.has_error()) << r.error().message();
  EXPECT_EQ(r.results(0).hits_size(), 0);  // at 100.5: x = 5
  EXPECT_TRUE(s.Close().ok());
}

TEST(SceneRewind, HistoryLengthIsConfiguredWithinTheServersLimit) {
  server::ServerOptions options;
  options.service.scenes.max_history_ticks = 128;
  options.metrics_address = "127.0.0.1:0";
  auto server = Start(options);
  ASSERT_NE(server, nullptr);
  {
    Session s(*server);
    v1::SceneRequest config = Config(v1::DIMENSION_2D);
    config.mutable_config()->set_history_ticks(129);
    const v1::SceneResponse r = s.Send(config);
    ASSERT_TRUE(r.has_error());
    EXPECT_EQ(r.error().code(), int(grpc::StatusCode::RESOURCE_EXHAUSTED));
    EXPECT_THAT(r.error().message(), HasSubstr("limit of 128 ticks"));
  }
  {
    Session s(*server);
    v1::SceneRequest config = Config(v1::DIMENSION_2D);
    config.mutable_config()->set_tick_rate(200);  // one second: 200 ticks
    const v1::SceneResponse r = s.Send(config);
    ASSERT_TRUE(r.has_error());
    EXPECT_THAT(r.error().message(), HasSubstr("tick_rate 200"));
  }
  Session s(*server);
  v1::SceneRequest config = Config(v1::DIMENSION_2D);
  config.mutable_config()->set_tick_rate(20);  // one second: 20 ticks
  ASSERT_FALSE(s.Send(config).has_error());
  for (uint64_t t = 100; t <= 140; ++t)
    ASSERT_FALSE(s.Send(Move(t)).has_error());
  v1::SceneRequest shot;
  *shot.add_queries() = RayDownAt(0, 100, 0);
  const v1::SceneResponse r = s.Send(shot);
  EXPECT_EQ(r.results(0).at().tick(), 121u);  // 140 and the 19 before it
  EXPECT_TRUE(r.results(0).clamped());

  auto body = testing::HttpGet(server->metrics_port(), "/metrics");
  ASSERT_TRUE(body.ok()) << body.status();
  auto samples = testing::ParseSamples(*body);
  EXPECT_EQ(samples["collision_scene_rewound_queries_total{clamped=\"true\"}"],
            1);
  EXPECT_EQ(samples["collision_scene_rewound_queries_total{clamped=\"false\"}"],
            0);
  // 20 ticks of one entity: a few kilobytes, not nothing.
  EXPECT_GT(samples["collision_scene_history_bytes"], 1000);
  EXPECT_TRUE(s.Close().ok());
}

}  // namespace
}  // namespace collision
