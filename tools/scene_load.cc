#include "tools/scene_load.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "collision/client/scene_session.h"
#include "tools/run_state.h"

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

// A scene's place in the run, as the main thread sees it.
struct SceneState {
  enum class Phase { kOpening, kTicking, kOver };
  Phase phase = Phase::kOpening;
  // The tick waiting for its answer, if any: when it was due, whether it
  // counts.
  bool in_flight = false;
  absl::Time due;
  bool measured = false;
  bool exited = false;  // the thread is done with everything shared
};

// What the scene threads and the main thread share. Owned jointly: a
// thread stuck in a call past the run's hard stop is left behind (detached)
// and must find everything it touches still there.
struct SceneRun {
  SceneRun(const RunOptions& o, const SceneLoadOptions& s, absl::Time start)
      : run(o),
        scene(s),
        begin(start),
        measure_from(begin + o.warmup),
        end(o.requests > 0 ? absl::InfiniteFuture()
                           : measure_from + o.duration),
        period(absl::Seconds(1.0 / s.tick_rate)),
        series(measure_from, o.progress_interval),
        states(static_cast<std::size_t>(o.concurrency)) {}

  // When scene `w`'s first tick is due: the scenes start spread over one
  // period, as independent matches would.
  absl::Time FirstDue(int w) const {
    return begin + period * (static_cast<double>(w) /
                             static_cast<double>(run.concurrency));
  }
  // Measured ticks scene `w` sends in a --requests run.
  int64_t Quota(int w) const {
    if (run.requests <= 0) return std::numeric_limits<int64_t>::max();
    return run.requests / run.concurrency +
           (w < run.requests % run.concurrency ? 1 : 0);
  }
  // Records one measured tick (mu held).
  void Record(absl::Time due, absl::Time done, const absl::Status& s,
              int queries) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    const int64_t ns = absl::ToInt64Nanoseconds(done - due);
    result.latency.Record(ns);
    ++result.requests;
    const std::string code(absl::StatusCodeToString(s.code()));
    ++result.status_counts[code];
    if (s.ok()) {
      ++result.ok;
      result.pairs += queries;
    } else {
      ++result.errors;
      result.first_error.emplace(code, std::string(s.message()));
    }
    last_answer = std::max(last_answer, done);
    series.Record(done, ns, s.ok());
  }

  const RunOptions run;
  const SceneLoadOptions scene;
  const absl::Time begin, measure_from, end;
  const absl::Duration period;
  std::vector<std::unique_ptr<client::Client>> clients;
  v1::SceneConfig config;
  Series series;

  absl::Mutex mu;
  RunResult result ABSL_GUARDED_BY(mu);
  std::vector<SceneState> states ABSL_GUARDED_BY(mu);
  int64_t sent_in_window ABSL_GUARDED_BY(mu) = 0;
  absl::Time last_answer ABSL_GUARDED_BY(mu) = absl::InfinitePast();
  // Past the hard stop: the threads record nothing more.
  bool closed ABSL_GUARDED_BY(mu) = false;
};

// One scene: opens it, then ticks on its schedule until the run is over.
// Returns early, touching nothing more, once the run is closed.
void TickScene(SceneRun& r, int w) {
  const std::size_t i = static_cast<std::size_t>(w);
  client::SceneSessionOptions session_options;
  session_options.message_timeout = r.run.client.timeout;
  session_options.scene_port = r.scene.scene_port;
  auto session = client::SceneSession::Open(*r.clients[i % r.clients.size()],
                                            r.config, session_options);
  {
    absl::MutexLock lock(&r.mu);
    if (r.closed) return;  // counted by the main thread
    if (!session.ok()) {
      if (r.result.scene_open_error.empty()) {
        r.result.scene_open_error = session.status().ToString();
      }
      r.states[i].phase = SceneState::Phase::kOver;
      return;
    }
    ++r.result.scenes_opened;
    r.states[i].phase = SceneState::Phase::kTicking;
  }
  World world(r.scene, r.run.seed + static_cast<uint64_t>(w));
  const int64_t quota = r.Quota(w);
  int64_t measured = 0;
  absl::Time due = r.FirstDue(w);
  for (uint64_t tick = 1; due < r.end && measured < quota; ++tick) {
    v1::SceneRequest request = world.Tick(tick);
    absl::SleepFor(due - absl::Now());
    // Time is up: the ticks still due are not sent late (they are the
    // run's unsent ones).
    if (absl::Now() >= r.end) break;
    const bool counts = due >= r.measure_from;
    {
      absl::MutexLock lock(&r.mu);
      if (r.closed) return;
      SceneState& s = r.states[i];
      s.in_flight = true;
      s.due = due;
      s.measured = counts;
      if (counts) ++r.sent_in_window;
    }
    absl::StatusOr<v1::SceneResponse> answer = (*session)->Send(request);
    const absl::Time done = absl::Now();
    {
      absl::MutexLock lock(&r.mu);
      if (r.closed) return;  // counted by the main thread
      r.states[i].in_flight = false;
      if (counts) {
        r.Record(due, done, answer.status(), request.queries_size());
        ++measured;
      }
    }
    // A tick answered after the next was due is not made up for: the
    // next goes at once, and the lateness shows in its latency.
    due += r.period;
  }
  {
    absl::MutexLock lock(&r.mu);
    if (r.closed) return;
    r.states[i].phase = SceneState::Phase::kOver;
  }
  (*session)->Finish().IgnoreError();
}

}  // namespace

int HistoryTicksNeeded(const SceneLoadOptions& scene) {
  if (scene.history_ticks > 0) return scene.history_ticks;
  if (scene.rewind_max <= absl::ZeroDuration()) return 1;
  const double ticks =
      std::ceil(absl::ToDoubleSeconds(scene.rewind_max) * scene.tick_rate);
  return static_cast<int>(std::min(ticks, 1e6)) + 2;
}

absl::StatusOr<RunResult> RunScenes(const RunOptions& run,
                                    const SceneLoadOptions& scene) {
  if (run.concurrency < 1) {
    return absl::InvalidArgumentError("--concurrency (scenes) must be >= 1");
  }
  if (run.requests <= 0 && run.duration <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("need --requests > 0 or --duration > 0");
  }
  if (scene.entities < 1 || scene.tick_rate <= 0 || scene.moving < 0 ||
      scene.moving > 1 || scene.rays < 0 || scene.sweeps < 0 ||
      scene.overlaps < 0 || scene.rewind_min < absl::ZeroDuration() ||
      scene.rewind_max < scene.rewind_min || scene.history_ticks < 0) {
    return absl::InvalidArgumentError(
        "scene load: --scene_entities >= 1, --tick_rate > 0, --scene_moving "
        "in [0, 1], query counts >= 0, 0 <= --scene_rewind_min <= "
        "--scene_rewind_max, --scene_history_ticks >= 0");
  }
  const absl::Time begin = absl::Now();
  auto r = std::make_shared<SceneRun>(run, scene, begin);
  for (int c = 0; c < std::max(1, run.connections); ++c) {
    client::ClientOptions co = run.client;
    co.own_connection = run.connections > 1;
    auto created = client::Client::Create(run.target, co);
    if (!created.ok()) return created.status();
    r->clients.push_back(*std::move(created));
  }
  r->config.set_dimension(v1::DIMENSION_2D);
  r->config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  r->config.set_tick_rate(static_cast<uint32_t>(
      std::clamp(std::lround(scene.tick_rate), 1L, 1000L)));
  r->config.set_history_ticks(static_cast<uint32_t>(HistoryTicksNeeded(scene)));
  // A game asks for what its match holds: the server reserves memory for
  // that many entities, not for its own per-scene limit.
  r->config.set_max_entities(static_cast<uint32_t>(scene.entities));

  // The ticks due in the measured window, scene by scene, on the very
  // schedule the threads follow.
  int64_t due = 0;
  if (run.requests <= 0) {
    for (int w = 0; w < run.concurrency; ++w) {
      for (absl::Time t = r->FirstDue(w); t < r->end; t += r->period) {
        due += t >= r->measure_from;
      }
    }
  }

  std::vector<std::thread> threads;
  for (int w = 0; w < run.concurrency; ++w) {
    // The thread keeps the run alive for as long as it may touch it.
    threads.emplace_back([r, w] {
      TickScene(*r, w);
      absl::MutexLock lock(&r->mu);
      r->states[static_cast<std::size_t>(w)].exited = true;
    });
  }

  // Main thread: CPU at the start of the measured window, progress, and the
  // hard stop: the end plus one deadline, the longest an answer may take.
  const absl::Time hard_stop = r->end + run.client.timeout;
  auto over = [&r]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(r->mu) {
    for (const SceneState& s : r->states) {
      if (s.phase != SceneState::Phase::kOver) return false;
    }
    return true;
  };
  rusage before{};
  bool sampled = false;
  absl::Time stopped = absl::InfinitePast();
  {
    absl::MutexLock lock(&r->mu);
    int64_t last_done = 0;
    absl::Time last_print = r->measure_from;
    for (bool done = false; !done;) {
      const absl::Time now = absl::Now();
      if (!sampled && now >= r->measure_from) {
        getrusage(RUSAGE_SELF, &before);
        sampled = true;
      }
      done = over();
      if (!done && now >= hard_stop) {
        r->closed = true;
        stopped = now;
        done = true;
      }
      if (run.progress && sampled &&
          (done || now - last_print >= run.progress_interval)) {
        const int64_t ticks = r->result.requests;
        PrintProgress(
            now - r->measure_from, "ticks", ticks,
            static_cast<double>(ticks - last_done) /
                std::max(1e-9, absl::ToDoubleSeconds(now - last_print)),
            r->result.errors, done);
        last_done = ticks;
        last_print = now;
      }
      if (done) break;
      // Wakes when every scene is over, else to sample, print or stop.
      absl::Time wake = std::min(hard_stop, last_print + run.progress_interval);
      if (!sampled) wake = std::min(wake, r->measure_from);
      r->mu.AwaitWithDeadline(absl::Condition(&over), std::max(wake, now));
    }
    if (!sampled) getrusage(RUSAGE_SELF, &before);
    if (r->closed) {
      // What the hard stop cut short: scenes that never opened, and ticks
      // that got no answer.
      for (SceneState& s : r->states) {
        if (s.phase == SceneState::Phase::kOpening) {
          if (r->result.scene_open_error.empty()) {
            r->result.scene_open_error = absl::StrCat(
                "DEADLINE_EXCEEDED: not opened by the run's end plus "
                "--deadline (",
                absl::FormatDuration(run.client.timeout), ")");
          }
        } else if (s.phase == SceneState::Phase::kTicking && s.in_flight) {
          ++r->result.scenes_abandoned;
          if (s.measured) {
            r->Record(s.due, stopped,
                      absl::DeadlineExceededError(absl::StrCat(
                          "no answer by the run's end plus --deadline (",
                          absl::FormatDuration(run.client.timeout), ")")),
                      0);
          }
        }
      }
    }
  }
  // The threads still finishing their streams get one deadline more; the
  // ones stuck past it are left behind (they own what they touch).
  const absl::Time leave = absl::Now() + run.client.timeout;
  for (std::size_t w = 0; w < threads.size(); ++w) {
    bool exited;
    {
      absl::MutexLock lock(&r->mu);
      const bool* flag = &r->states[w].exited;
      r->mu.AwaitWithDeadline(absl::Condition(flag), leave);
      exited = *flag;
    }
    if (exited) {
      threads[w].join();
    } else {
      threads[w].detach();
    }
  }
  rusage after{};
  getrusage(RUSAGE_SELF, &after);

  absl::MutexLock lock(&r->mu);
  RunResult out = r->result;
  out.series = r->series.Take();
  out.scenes = run.concurrency;
  out.due = due;
  out.unsent = std::max<int64_t>(0, due - r->sent_in_window);
  const absl::Time last = std::max(r->last_answer, stopped);
  out.seconds = std::max(1e-9, absl::ToDoubleSeconds(last - r->measure_from));
  out.cpu_user_s = CpuSeconds(after.ru_utime) - CpuSeconds(before.ru_utime);
  out.cpu_system_s = CpuSeconds(after.ru_stime) - CpuSeconds(before.ru_stime);
  out.cores =
      static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return out;
}

}  // namespace collision::load
