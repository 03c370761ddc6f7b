// SceneService.Session against a real server on 127.0.0.1:0: a world built
// tick by tick over the stream answers every query exactly as the pairwise
// scalar functions answer over the same shapes (computed here, in process),
// and bad messages are rejected whole, by field, without ending the stream.
#include <chrono>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "collision/v1/scene.grpc.pb.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "server/server.h"
#include "tests/e2e/scene_session_testing.h"
#include "tests/util/http_get.h"
#include "tests/util/shape_proto.h"

namespace collision {
namespace {

using scene_testing::Config;
using scene_testing::Session;
using scene_testing::Start;

using ::testing::HasSubstr;
using test_util::ToProto;

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

class World2D {
 public:
  explicit World2D(uint32_t seed) : rng_(seed) {}
  float Coord() {
    return static_cast<float>(
        std::uniform_int_distribution<int>(-30, 30)(rng_));
  }
  float Size() {
    return static_cast<float>(std::uniform_int_distribution<int>(0, 3)(rng_));
  }
  Shape Entity() {
    switch (std::uniform_int_distribution<int>(0, 2)(rng_)) {
      case 0:
        return Vec2{Coord(), Coord()};
      case 1:
        return Circle{{Coord(), Coord()}, Size()};
      default: {
        const Vec2 min{Coord(), Coord()};
        return Rect{min, {min.x + Size(), min.y + Size()}};
      }
    }
  }
  std::mt19937& rng() { return rng_; }
  std::map<uint64_t, Shape> shapes;

 private:
  std::mt19937 rng_;
};

TEST(SceneSession, EveryAnswerEqualsPairwiseAnswersThroughTicks) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  Session session(*server);
  World2D world(7);
  v1::SceneResponse r = session.Send(Config(v1::DIMENSION_2D));
  ASSERT_FALSE(r.has_error()) << r.error().message();
  EXPECT_EQ(r.entities(), 0u);

  uint64_t next_id = 1;
  for (uint64_t tick = 1; tick <= 12; ++tick) {
    v1::SceneRequest request;
    v1::SceneUpdate* update = request.mutable_update();
    update->set_tick(tick * 10);
    // Move some, add some (per entity and as columns), remove some.
    std::vector<uint64_t> ids;
    for (const auto& [id, shape] : world.shapes) ids.push_back(id);
    for (uint64_t id : ids) {
      const int what = std::uniform_int_distribution<int>(0, 9)(world.rng());
      if (what == 0) {
        update->add_removals(id);
        world.shapes.erase(id);
      } else if (what < 4) {
        const Shape s = world.Entity();
        world.shapes[id] = s;
        v1::SceneEntity* e = update->add_upserts();
        e->set_id(id);
        ToProto(s, e->mutable_shape());
      }
    }
    for (int i = 0; i < 20; ++i) {
      const uint64_t id = next_id++;
      const Shape s = world.Entity();
      world.shapes[id] = s;
      v1::SceneEntity* e = update->add_upserts();
      e->set_id(id);
      ToProto(s, e->mutable_shape());
    }
    v1::EntityColumns* columns = update->add_upsert_columns();
    for (int i = 0; i < 10; ++i) {
      const uint64_t id = next_id++;
      const Circle c{{world.Coord(), world.Coord()}, world.Size()};
      world.shapes[id] = c;
      columns->add_ids(id);
      columns->mutable_circles()->add_x(c.center.x);
      columns->mutable_circles()->add_y(c.center.y);
      columns->mutable_circles()->add_radius(c.radius);
    }
    std::vector<Circle> overlap_queries;
    std::vector<Vec2> ray_origins;
    for (int q = 0; q < 10; ++q) {
      const Circle c{{world.Coord(), world.Coord()}, world.Size() + 2};
      overlap_queries.push_back(c);
      v1::SceneQuery* query = request.add_queries();
      ToProto(c, query->mutable_overlap()->mutable_shape());
      query->mutable_overlap()->set_include_relation(true);
      query->mutable_overlap()->set_include_separation(true);
      v1::SceneQuery* nearest = request.add_queries();
      ToProto(Vec2{c.center.x, c.center.y},
              nearest->mutable_nearest()->mutable_shape());
      nearest->mutable_nearest()->set_k(3);
      v1::SceneQuery* ray = request.add_queries();
      ray->mutable_raycast()->mutable_origin()->set_x(c.center.x);
      ray->mutable_raycast()->mutable_origin()->set_y(c.center.y);
      ray->mutable_raycast()->mutable_direction()->set_x(q % 2 ? 1 : 3);
      ray->mutable_raycast()->mutable_direction()->set_y(q % 2 ? 0 : 4);
      ray->mutable_raycast()->set_max_distance(100);
      ray->mutable_raycast()->set_all_hits(true);
    }
    r = session.Send(request);
    ASSERT_FALSE(r.has_error()) << r.error().message();
    EXPECT_EQ(r.tick(), tick * 10);
    ASSERT_EQ(r.entities(), world.shapes.size());
    ASSERT_EQ(r.results_size(), 30);
    for (int q = 0; q < 10; ++q) {
      const Circle& c = overlap_queries[static_cast<size_t>(q)];
      // Overlap: every entity Intersect says, by id, with its answer.
      const v1::SceneQueryResult& overlap = r.results(3 * q);
      std::vector<std::pair<uint64_t, IntersectResult>> want;
      for (const auto& [id, shape] : world.shapes) {
        const IntersectResult i = Intersect(c, shape, Boundary::kInclusive);
        if (i.hit) want.push_back({id, i});
      }
      ASSERT_EQ(overlap.hits_size(), static_cast<int>(want.size()));
      for (int h = 0; h < overlap.hits_size(); ++h) {
        EXPECT_EQ(overlap.hits(h).id(), want[static_cast<size_t>(h)].first);
        EXPECT_EQ(Bits(overlap.hits(h).separation()),
                  Bits(want[static_cast<size_t>(h)].second.separation));
        EXPECT_EQ(
            static_cast<int>(overlap.hits(h).relation()),
            static_cast<int>(want[static_cast<size_t>(h)].second.relation) + 1);
      }
      // Nearest: the 3 least gaps, ties by id.
      std::vector<std::pair<float, uint64_t>> gaps;
      for (const auto& [id, shape] : world.shapes) {
        gaps.push_back({ClosestPoint(Vec2{c.center.x, c.center.y}, shape,
                                     Boundary::kInclusive)
                            .gap,
                        id});
      }
      std::sort(gaps.begin(), gaps.end());
      const v1::SceneQueryResult& nearest = r.results(3 * q + 1);
      ASSERT_EQ(nearest.hits_size(), 3);
      EXPECT_TRUE(nearest.truncated());
      for (int h = 0; h < 3; ++h) {
        EXPECT_EQ(nearest.hits(h).id(), gaps[static_cast<size_t>(h)].second);
        EXPECT_EQ(Bits(nearest.hits(h).closest().gap()),
                  Bits(gaps[static_cast<size_t>(h)].first));
      }
      // Raycast, all hits by (distance, id).
      const Vec2 dir = NormalizeDirection(q % 2 ? Vec2{1, 0} : Vec2{3, 4});
      std::vector<std::pair<float, uint64_t>> casts;
      for (const auto& [id, shape] : world.shapes) {
        const CastResult cr = RayCast(Vec2{c.center.x, c.center.y}, dir, 100,
                                      shape, Boundary::kInclusive);
        if (cr.hit) casts.push_back({cr.distance, id});
      }
      std::sort(casts.begin(), casts.end());
      const v1::SceneQueryResult& ray = r.results(3 * q + 2);
      ASSERT_EQ(ray.hits_size(), static_cast<int>(casts.size()));
      for (int h = 0; h < ray.hits_size(); ++h) {
        EXPECT_EQ(ray.hits(h).id(), casts[static_cast<size_t>(h)].second);
        EXPECT_EQ(Bits(ray.hits(h).distance()),
                  Bits(casts[static_cast<size_t>(h)].first));
      }
    }
  }
  EXPECT_TRUE(session.Close().ok());
}

TEST(SceneSession, BadMessageIsRejectedWholeByFieldAndTheStreamGoesOn) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  Session session(*server);
  // No config first: rejected, the stream stays.
  v1::SceneRequest no_config;
  no_config.add_queries()->mutable_nearest()->set_k(1);
  v1::SceneResponse r = session.Send(no_config);
  EXPECT_EQ(r.error().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(r.error().message(), HasSubstr("config is required"));

  r = session.Send(Config(v1::DIMENSION_2D));
  ASSERT_FALSE(r.has_error()) << r.error().message();

  v1::SceneRequest good;
  good.mutable_update()->set_tick(1);
  v1::SceneEntity* e = good.mutable_update()->add_upserts();
  e->set_id(42);
  ToProto(Circle{{0, 0}, 1}, e->mutable_shape());
  r = session.Send(good);
  ASSERT_FALSE(r.has_error()) << r.error().message();
  EXPECT_EQ(r.entities(), 1u);

  // A valid upsert beside a bad one, a 3D shape and a zero direction: the
  // whole message is rejected, each bad field named, nothing applied.
  v1::SceneRequest bad;
  bad.mutable_update()->set_tick(2);
  v1::SceneEntity* ok = bad.mutable_update()->add_upserts();
  ok->set_id(43);
  ToProto(Circle{{5, 5}, 1}, ok->mutable_shape());
  v1::SceneEntity* negative = bad.mutable_update()->add_upserts();
  negative->set_id(44);
  ToProto(Circle{{5, 5}, -1}, negative->mutable_shape());
  v1::SceneEntity* sphere = bad.mutable_update()->add_upserts();
  sphere->set_id(45);
  ToProto(Sphere{{0, 0, 0}, 1}, sphere->mutable_shape());
  bad.mutable_update()->add_removals(999);
  v1::SceneQuery* ray = bad.add_queries();
  ray->mutable_raycast()->mutable_origin();
  ray->mutable_raycast()->mutable_direction();
  r = session.Send(bad);
  EXPECT_EQ(r.error().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(r.error().message(),
              HasSubstr("update.upserts[1].shape.circle.radius must be >= 0"));
  EXPECT_THAT(r.error().message(), HasSubstr("update.upserts[2].shape is a"));
  EXPECT_THAT(r.error().message(), HasSubstr("no entity 999"));
  EXPECT_THAT(r.error().message(),
              HasSubstr("queries[0].raycast.direction must not be zero"));
  EXPECT_EQ(r.results_size(), 0);

  // Nothing of it was applied: still one entity, and tick 2 is still free.
  v1::SceneRequest probe;
  probe.mutable_update()->set_tick(2);
  v1::SceneQuery* all = probe.add_queries();
  ToProto(Circle{{0, 0}, 100}, all->mutable_overlap()->mutable_shape());
  r = session.Send(probe);
  ASSERT_FALSE(r.has_error()) << r.error().message();
  EXPECT_EQ(r.entities(), 1u);
  ASSERT_EQ(r.results(0).hits_size(), 1);
  EXPECT_EQ(r.results(0).hits(0).id(), 42u);

  // Ticks must increase; a second config is refused.
  v1::SceneRequest stale;
  stale.mutable_update()->set_tick(2);
  r = session.Send(stale);
  EXPECT_THAT(r.error().message(), HasSubstr("update.tick must be >"));
  r = session.Send(Config(v1::DIMENSION_3D));
  EXPECT_THAT(r.error().message(), HasSubstr("only in the first message"));
  EXPECT_TRUE(session.Close().ok());
}

TEST(SceneSession, LimitsAreResourceExhaustedNamingTheLimit) {
  server::ServerOptions options;
  options.service.scenes.max_entities = 5;
  options.service.scenes.max_scenes = 1;
  options.service.scenes.max_queries = 3;
  auto server = Start(options);
  ASSERT_NE(server, nullptr);
  Session first(*server);
  ASSERT_FALSE(first.Send(Config(v1::DIMENSION_3D)).has_error());

  // A second scene on this server: over max_scenes.
  Session second(*server);
  v1::SceneResponse r = second.Send(Config(v1::DIMENSION_3D));
  EXPECT_EQ(r.error().code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(r.error().message(), HasSubstr("limit of 1 scenes"));

  v1::SceneRequest six;
  six.mutable_update()->set_tick(1);
  for (uint64_t id = 1; id <= 6; ++id) {
    v1::SceneEntity* e = six.mutable_update()->add_upserts();
    e->set_id(id);
    ToProto(Vec3{0, 0, 0}, e->mutable_shape());
  }
  r = first.Send(six);
  EXPECT_EQ(r.error().code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(r.error().message(), HasSubstr("limit of 5"));

  v1::SceneRequest queries;
  for (int i = 0; i < 4; ++i) {
    v1::SceneQuery* q = queries.add_queries();
    ToProto(Vec3{0, 0, 0}, q->mutable_nearest()->mutable_shape());
    q->mutable_nearest()->set_k(1);
  }
  r = first.Send(queries);
  EXPECT_EQ(r.error().code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(r.error().message(), HasSubstr("limit of 3 per message"));
  EXPECT_TRUE(first.Close().ok());

  // The first scene's end frees its slot (and its memory) before the
  // client hears the stream is over: the next scene opens at once, every
  // time (it used to wait for gRPC's OnDone, a moment after the client's
  // Finish returned).
  EXPECT_TRUE(second.Close().ok());
  for (int i = 0; i < 20; ++i) {
    Session next(*server);
    const v1::SceneResponse opened = next.Send(Config(v1::DIMENSION_2D));
    ASSERT_FALSE(opened.has_error()) << i << ": " << opened.error().message();
    ASSERT_TRUE(next.Close().ok());
  }
  Session third(*server);
  EXPECT_FALSE(third.Send(Config(v1::DIMENSION_2D)).has_error());
  EXPECT_TRUE(third.Close().ok());
}

TEST(SceneSession, RectQueryAgainstRotatedRectsIsAPerQueryError) {
  auto server = Start({});
  ASSERT_NE(server, nullptr);
  Session session(*server);
  ASSERT_FALSE(session.Send(Config(v1::DIMENSION_2D)).has_error());
  v1::SceneRequest request;
  request.mutable_update()->set_tick(1);
  v1::SceneEntity* e = request.mutable_update()->add_upserts();
  e->set_id(1);
  ToProto(RotatedRect{{2, 2}, {1, 1}, {0, 0}, {1, 0}}, e->mutable_shape());
  ToProto(Rect{{0, 0}, {1, 1}},
          request.add_queries()->mutable_overlap()->mutable_shape());
  ToProto(Circle{{0, 0}, 1},
          request.add_queries()->mutable_overlap()->mutable_shape());
  const v1::SceneResponse r = session.Send(request);
  ASSERT_FALSE(r.has_error()) << r.error().message();
  ASSERT_EQ(r.results_size(), 2);
  EXPECT_EQ(r.results(0).error().code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(r.results(0).error().message(), HasSubstr("rotated_rect"));
  ASSERT_EQ(r.results(1).hits_size(), 1);
  EXPECT_TRUE(session.Close().ok());
}

// Scenes open, their entities, queries by kind and the per-message
// histogram, scraped from the live /metrics endpoint; closing the stream
// frees the scene (the gauges return to 0, bounded wait).
TEST(SceneSession, MetricsCountScenesEntitiesAndQueries) {
  server::ServerOptions options;
  options.metrics_address = "127.0.0.1:0";
  auto server = Start(options);
  ASSERT_NE(server, nullptr);
  auto scrape = [&] {
    auto body = testing::HttpGet(server->metrics_port(), "/metrics");
    EXPECT_TRUE(body.ok()) << body.status();
    return testing::ParseSamples(body.ok() ? *body : "");
  };
  {
    Session session(*server);
    ASSERT_FALSE(session.Send(Config(v1::DIMENSION_3D)).has_error());
    v1::SceneRequest request;
    request.mutable_update()->set_tick(1);
    for (uint64_t id = 1; id <= 3; ++id) {
      v1::SceneEntity* e = request.mutable_update()->add_upserts();
      e->set_id(id);
      ToProto(Sphere{{static_cast<float>(id), 0, 0}, 1}, e->mutable_shape());
    }
    v1::RaycastQuery* ray = request.add_queries()->mutable_raycast();
    ray->mutable_origin()->set_x(-5);
    ray->mutable_direction()->set_x(1);
    ray->set_max_distance(20);
    ToProto(Vec3{0, 0, 0},
            request.add_queries()->mutable_overlap()->mutable_shape());
    ASSERT_FALSE(session.Send(request).has_error());
    auto samples = scrape();
    EXPECT_EQ(samples["collision_scenes_open"], 1);
    EXPECT_EQ(samples["collision_scene_entities"], 3);
    EXPECT_EQ(samples["collision_scene_queries_total{kind=\"raycast\"}"], 1);
    EXPECT_EQ(samples["collision_scene_queries_total{kind=\"overlap\"}"], 1);
    EXPECT_EQ(samples["collision_scene_message_seconds_count"], 2);
    EXPECT_TRUE(session.Close().ok());
  }
  // The stream's end (OnDone) may follow the client's Finish by a moment.
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  std::map<std::string, double> samples = scrape();
  while (samples["collision_scenes_open"] != 0 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
    samples = scrape();
  }
  EXPECT_EQ(samples["collision_scenes_open"], 0);
  EXPECT_EQ(samples["collision_scene_entities"], 0);
}

}  // namespace
}  // namespace collision
