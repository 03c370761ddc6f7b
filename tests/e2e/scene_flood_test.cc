// One scene floods the shipped server with the costliest messages its
// limits allow (10,000 whole-world overlaps on 100k entities, back to back)
// while another scene ticks at 64 Hz beside it, over gRPC and over the
// scene port. Asserted: every victim tick is answered, correctly and on
// time for the server's promises (no error), and health answers SERVING
// throughout; the victim's latency against its unloaded latency is printed
// for docs/operations.md (no timing is asserted: a busy machine would make
// that flaky).
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "collision/client/client.h"
#include "collision/client/scene_session.h"
#include "gtest/gtest.h"
#include "tests/util/server_process.h"

namespace collision {
namespace {

namespace c = collision::client;
using testing::ServerProcess;

v1::SceneConfig Config(uint32_t max_entities) {
  v1::SceneConfig config;
  config.set_dimension(v1::DIMENSION_2D);
  config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  config.set_history_ticks(1);
  config.set_max_entities(max_entities);
  return config;
}

v1::SceneRequest Grid(uint64_t tick, uint32_t n) {
  v1::SceneRequest r;
  r.mutable_update()->set_tick(tick);
  v1::EntityColumns* g = r.mutable_update()->add_upsert_columns();
  const uint32_t side = static_cast<uint32_t>(std::ceil(std::sqrt(n)));
  for (uint32_t i = 0; i < n; ++i) {
    g->add_ids(i + 1);
    g->mutable_circles()->add_x(static_cast<float>(i % side));
    g->mutable_circles()->add_y(static_cast<float>(i / side));
    g->mutable_circles()->add_radius(0.5f);
  }
  return r;
}

// The victim's tick: its 1,000 entities moved, 20 rays and 10 overlaps.
v1::SceneRequest VictimTick(uint64_t tick) {
  v1::SceneRequest r = Grid(tick, 1000);
  for (int i = 0; i < 20; ++i) {
    v1::RaycastQuery* ray = r.add_queries()->mutable_raycast();
    ray->mutable_origin()->set_x(-1);
    ray->mutable_origin()->set_y(static_cast<float>(i));
    ray->mutable_direction()->set_x(1);
    ray->set_max_distance(100);
  }
  for (int i = 0; i < 10; ++i) {
    v1::Circle* c =
        r.add_queries()->mutable_overlap()->mutable_shape()->mutable_circle();
    c->mutable_center()->set_x(static_cast<float>(i));
    c->mutable_center()->set_y(static_cast<float>(i));
    c->set_radius(2);
  }
  return r;
}

struct Latency {
  double p50_ms = 0, p99_ms = 0, max_ms = 0;
  int answered = 0, failed = 0;
  std::string first_failure;
};

// `ticks` victim ticks at 64 Hz; latencies of the answered ones.
Latency RunVictim(c::SceneSession* victim, uint64_t* tick, int ticks) {
  Latency out;
  std::vector<double> ms;
  absl::Time due = absl::Now();
  for (int i = 0; i < ticks; ++i) {
    absl::SleepFor(due - absl::Now());
    due += absl::Milliseconds(15.625);
    const absl::Time start = absl::Now();
    absl::StatusOr<v1::SceneResponse> a = victim->Send(VictimTick(++*tick));
    if (!a.ok() || a->entities() != 1000 || a->results_size() != 30) {
      ++out.failed;
      if (out.first_failure.empty()) {
        out.first_failure = a.ok() ? a->ShortDebugString().substr(0, 200)
                                   : a.status().ToString();
      }
      continue;
    }
    ++out.answered;
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
  }
  std::sort(ms.begin(), ms.end());
  if (!ms.empty()) {
    out.p50_ms = ms[ms.size() / 2];
    out.p99_ms = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
    out.max_ms = ms.back();
  }
  return out;
}

class SceneFlood : public ::testing::TestWithParam<bool> {};

INSTANTIATE_TEST_SUITE_P(Transports, SceneFlood, ::testing::Bool(),
                         [](const ::testing::TestParamInfo<bool>& param) {
                           return param.param ? "ScenePort" : "Grpc";
                         });

TEST_P(SceneFlood, AnotherSceneIsAnsweredWhileOneFloods) {
  const bool port = GetParam();
  char dir[] = "/tmp/scene_flood.XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  ServerProcess server(COLLISION_SERVER_PATH, dir, "server");
  ASSERT_NO_FATAL_FAILURE(server.Start(
      {"--metrics_address=127.0.0.1:0", "--scene_port_address=127.0.0.1:0"}));
  ASSERT_NO_FATAL_FAILURE(server.WaitForPorts(true));
  std::string scene_port;
  {
    const std::string log = server.log();
    const std::size_t at = log.find("scene_port=127.0.0.1:");
    ASSERT_NE(at, std::string::npos);
    scene_port = absl::StrCat("127.0.0.1:", std::atoi(log.c_str() + at + 21));
  }
  auto client = c::Client::Create(server.target());
  ASSERT_TRUE(client.ok());
  c::SceneSessionOptions options;
  if (port) options.scene_port = scene_port;
  options.message_timeout = absl::Seconds(30);

  auto victim = c::SceneSession::Open(**client, Config(1000), options);
  ASSERT_TRUE(victim.ok()) << victim.status();
  uint64_t victim_tick = 0;
  RunVictim(victim->get(), &victim_tick, 32);  // warm-up
  const Latency unloaded = RunVictim(victim->get(), &victim_tick, 192);
  ASSERT_EQ(unloaded.failed, 0) << unloaded.first_failure;

  // The flood, on a client of its own.
  auto flood_client = c::Client::Create(server.target());
  ASSERT_TRUE(flood_client.ok());
  auto flood = c::SceneSession::Open(**flood_client, Config(100000), options);
  ASSERT_TRUE(flood.ok()) << flood.status();
  ASSERT_TRUE((*flood)->Send(Grid(1, 100000)).ok());
  v1::SceneRequest costly;
  for (int i = 0; i < 10000; ++i) {
    v1::SceneQuery* q = costly.add_queries();
    v1::Circle* c = q->mutable_overlap()->mutable_shape()->mutable_circle();
    c->mutable_center()->set_x(160);
    c->mutable_center()->set_y(160);
    c->set_radius(1000);
    q->set_max_hits(1000);
  }
  std::atomic<bool> stop{false};
  std::atomic<int> flood_messages{0};
  std::thread flooder([&] {
    while (!stop.load()) {
      absl::StatusOr<v1::SceneResponse> a = (*flood)->Send(costly);
      if (a.ok()) flood_messages.fetch_add(1);
    }
  });
  std::atomic<int> health_failures{0};
  std::thread prober([&] {
    while (!stop.load()) {
      if ((*client)->WaitUntilServing(absl::Seconds(5)).ok() == false) {
        health_failures.fetch_add(1);
      }
      absl::SleepFor(absl::Milliseconds(100));
    }
  });
  const Latency loaded = RunVictim(victim->get(), &victim_tick, 192);
  stop.store(true);
  flooder.join();
  prober.join();

  EXPECT_EQ(loaded.failed, 0) << loaded.first_failure;
  EXPECT_EQ(loaded.answered, 192);
  EXPECT_EQ(health_failures.load(), 0);
  EXPECT_GT(flood_messages.load(), 0);
  std::cout << "[ measured ] " << (port ? "scene port" : "gRPC")
            << ": victim unloaded p50 " << unloaded.p50_ms << " ms, p99 "
            << unloaded.p99_ms << " ms; beside the flood (" << flood_messages
            << " costly messages) p50 " << loaded.p50_ms << " ms, p99 "
            << loaded.p99_ms << " ms, max " << loaded.max_ms << " ms\n";
  (*flood)->Finish().IgnoreError();
  (*victim)->Finish().IgnoreError();
  std::system(absl::StrCat("rm -rf ", dir).c_str());
}

}  // namespace
}  // namespace collision
