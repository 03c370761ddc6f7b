#include "tools/scene_load.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "collision/client/scene_session.h"

namespace collision::load {
namespace {

// Entities per area as in collision_scene_bench: a square of side
// 10 * sqrt(entities).
class World {
 public:
  World(const SceneLoadOptions& o, uint64_t seed)
      : options_(o),
        side_(10.0f * std::sqrt(static_cast<float>(o.entities))),
        rng_(seed),
        x_(static_cast<size_t>(o.entities)),
        y_(static_cast<size_t>(o.entities)) {
    std::uniform_real_distribution<float> pos(0.0f, side_);
    for (size_t i = 0; i < x_.size(); ++i) {
      x_[i] = pos(rng_);
      y_[i] = pos(rng_);
    }
  }

  // The next tick's message: moves (all entities on the first tick) and
  // the query mix.
  v1::SceneRequest Tick(uint64_t tick) {
    v1::SceneRequest r;
    v1::SceneUpdate* u = r.mutable_update();
    u->set_tick(tick);
    std::uniform_real_distribution<float> step(-0.1f, 0.1f);
    std::bernoulli_distribution moves(options_.moving);
    v1::EntityColumns* g = options_.columns ? u->add_upsert_columns() : nullptr;
    for (size_t i = 0; i < x_.size(); ++i) {
      if (tick > 1 && !moves(rng_)) continue;
      x_[i] += step(rng_);
      y_[i] += step(rng_);
      const float radius = 0.5f + 0.5f * static_cast<float>(i % 4);
      if (g != nullptr) {
        g->add_ids(i + 1);
        g->mutable_circles()->add_x(x_[i]);
        g->mutable_circles()->add_y(y_[i]);
        g->mutable_circles()->add_radius(radius);
      } else {
        v1::SceneEntity* e = u->add_upserts();
        e->set_id(i + 1);
        v1::Circle* c = e->mutable_shape()->mutable_circle();
        c->mutable_center()->set_x(x_[i]);
        c->mutable_center()->set_y(y_[i]);
        c->set_radius(radius);
      }
    }
    std::uniform_real_distribution<float> pos(0.0f, side_);
    std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
    std::uniform_int_distribution<uint64_t> shooter(1, x_.size());
    auto aim = [&](v1::Vec3* origin, v1::Vec3* direction) {
      origin->set_x(pos(rng_));
      origin->set_y(pos(rng_));
      const float a = angle(rng_);
      direction->set_x(std::cos(a));
      direction->set_y(std::sin(a));
    };
    for (int i = 0; i < options_.rays; ++i) {
      v1::SceneQuery* q = r.add_queries();
      aim(q->mutable_raycast()->mutable_origin(),
          q->mutable_raycast()->mutable_direction());
      q->mutable_raycast()->set_max_distance(100);
      q->set_exclude_id(shooter(rng_));
      if (options_.rewind_max > absl::ZeroDuration()) {
        // The moment the shooter saw: `lag` before this tick.
        const double lag_s = std::uniform_real_distribution<double>(
            absl::ToDoubleSeconds(options_.rewind_min),
            absl::ToDoubleSeconds(options_.rewind_max))(rng_);
        const double moment = std::max(
            1.0, static_cast<double>(tick) - lag_s * options_.tick_rate);
        const double whole = std::floor(moment);
        q->mutable_at()->set_tick(static_cast<uint64_t>(whole));
        q->mutable_at()->set_fraction(
            std::min(0.999f, static_cast<float>(moment - whole)));
      }
    }
    for (int i = 0; i < options_.sweeps; ++i) {
      v1::SweepQuery* s = r.add_queries()->mutable_sweep();
      aim(s->mutable_origin(), s->mutable_direction());
      s->set_radius(0.25f);
      s->set_max_distance(30);
    }
    for (int i = 0; i < options_.overlaps; ++i) {
      v1::Circle* c =
          r.add_queries()->mutable_overlap()->mutable_shape()->mutable_circle();
      c->mutable_center()->set_x(pos(rng_));
      c->mutable_center()->set_y(pos(rng_));
      c->set_radius(5);
    }
    return r;
  }

 private:
  const SceneLoadOptions options_;
  const float side_;
  std::mt19937_64 rng_;
  std::vector<float> x_;
  std::vector<float> y_;
};

double CpuSeconds(const timeval& t) {
  return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec);
}

struct Shared {
  absl::Mutex mu;
  RunResult result ABSL_GUARDED_BY(mu);
};

}  // namespace

absl::StatusOr<RunResult> RunScenes(const RunOptions& run,
                                    const SceneLoadOptions& scene) {
  if (run.concurrency < 1) {
    return absl::InvalidArgumentError("--concurrency (scenes) must be >= 1");
  }
  if (scene.entities < 1 || scene.tick_rate <= 0 || scene.moving < 0 ||
      scene.moving > 1 || scene.rays < 0 || scene.sweeps < 0 ||
      scene.overlaps < 0 || scene.rewind_min < absl::ZeroDuration() ||
      scene.rewind_max < scene.rewind_min) {
    return absl::InvalidArgumentError(
        "scene load: --scene_entities >= 1, --tick_rate > 0, --scene_moving "
        "in [0, 1], query counts >= 0, 0 <= --scene_rewind_min <= "
        "--scene_rewind_max");
  }
  std::vector<std::unique_ptr<client::Client>> clients;
  for (int c = 0; c < std::max(1, run.connections); ++c) {
    auto created = client::Client::Create(run.target, run.client);
    if (!created.ok()) return created.status();
    clients.push_back(*std::move(created));
  }
  v1::SceneConfig config;
  config.set_dimension(v1::DIMENSION_2D);
  config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  // One second of history at this rate (the server's default for it).
  config.set_tick_rate(static_cast<uint32_t>(
      std::clamp(std::lround(scene.tick_rate), 1L, 1000L)));

  Shared shared;
  std::atomic<bool> failed_to_open{false};
  absl::Status open_error;
  absl::Mutex open_mu;
  const absl::Duration period = absl::Seconds(1.0 / scene.tick_rate);
  const absl::Time begin = absl::Now();
  const absl::Time measure_from = begin + run.warmup;
  const absl::Time end = measure_from + run.duration;
  rusage before;
  getrusage(RUSAGE_SELF, &before);

  std::vector<std::thread> workers;
  for (int w = 0; w < run.concurrency; ++w) {
    workers.emplace_back([&, w] {
      const client::Client& c =
          *clients[static_cast<size_t>(w) % clients.size()];
      auto session = client::SceneSession::Open(c, config);
      if (!session.ok()) {
        absl::MutexLock lock(&open_mu);
        open_error = session.status();
        failed_to_open = true;
        return;
      }
      World world(scene, run.seed + static_cast<uint64_t>(w));
      RunResult mine;
      // Scenes start spread over one period, as independent matches would.
      absl::Time due = begin + period * (static_cast<double>(w) /
                                         static_cast<double>(run.concurrency));
      for (uint64_t tick = 1;; ++tick) {
        v1::SceneRequest request = world.Tick(tick);
        if (due >= end || (run.requests > 0 && mine.requests >= run.requests))
          break;
        absl::SleepFor(due - absl::Now());
        absl::StatusOr<v1::SceneResponse> answer = (*session)->Send(request);
        const absl::Time done = absl::Now();
        if (due >= measure_from) {
          ++mine.requests;
          mine.latency.Record(absl::ToInt64Nanoseconds(done - due));
          const std::string code = answer.ok()
                                       ? "OK"
                                       : std::string(absl::StatusCodeToString(
                                             answer.status().code()));
          ++mine.status_counts[code];
          if (answer.ok()) {
            ++mine.ok;
            mine.pairs += request.queries_size();
          } else {
            ++mine.errors;
            mine.first_error.emplace(code,
                                     std::string(answer.status().message()));
          }
        }
        due += period;
        // A tick that came back after the next was due is not made up: the
        // schedule moves on and the lateness shows in the latencies.
      }
      (*session)->Finish().IgnoreError();
      absl::MutexLock lock(&shared.mu);
      RunResult& all = shared.result;
      all.latency.Merge(mine.latency);
      all.requests += mine.requests;
      all.ok += mine.ok;
      all.errors += mine.errors;
      all.pairs += mine.pairs;
      for (const auto& [k, v] : mine.status_counts) all.status_counts[k] += v;
      for (const auto& [k, v] : mine.first_error) {
        all.first_error.emplace(k, v);
      }
    });
  }
  for (std::thread& t : workers) t.join();
  if (failed_to_open) {
    absl::MutexLock lock(&open_mu);
    return absl::UnavailableError(
        absl::StrCat("could not open a scene: ", open_error.ToString()));
  }
  rusage after;
  getrusage(RUSAGE_SELF, &after);
  absl::MutexLock lock(&shared.mu);
  RunResult out = std::move(shared.result);
  out.seconds = absl::ToDoubleSeconds(run.duration);
  out.cpu_user_s = CpuSeconds(after.ru_utime) - CpuSeconds(before.ru_utime);
  out.cpu_system_s = CpuSeconds(after.ru_stime) - CpuSeconds(before.ru_stime);
  out.cores =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return out;
}

}  // namespace collision::load
