// The reference tick of docs/scenes.md, as the server handles it, in
// process: 10k moving circles (every entity moved, as columns or as
// per-entity upserts), 64 players x 4 raycasts, 200 swept projectiles and
// 50 overlaps, from the encoded SceneRequest to the encoded SceneResponse
// (parse on an arena, validate, apply, answer, serialize). The loopback
// round trip comes on top (scripts/bench-e2e.sh measures it).
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "collision/client/client.h"
#include "collision/client/scene_session.h"
#include "collision/handlers/scene.h"
#include "collision/v1/scene.grpc.pb.h"
#include "collision/v1/scene.pb.h"
#include "collision/wire/scene_request.h"
#include "google/protobuf/arena.h"
#include "grpcpp/grpcpp.h"
#include "server/bench/frame_socket.h"
#include "server/bench/tick_runner.h"
#include "server/scene_recorder.h"
#include "server/server.h"

namespace collision::server {
namespace {

constexpr int kEntities = 10000;
constexpr float kSide = 1000.0f;  // density as collision_scene_bench

struct Ticks {
  std::vector<std::string> requests;  // encoded, one per tick
};

// `moving_every`: entity i moves in a tick when i % moving_every == 0.
// `rewind`: every raycast asks for the world 50-150 ms ago at 64 Hz (3 to
// 10 ticks back, any fraction), as a shot lag-compensated for its player.
Ticks MakeTicks(bool columns, int ticks, int moving_every, bool rewind) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> pos(0.0f, kSide);
  std::uniform_real_distribution<float> step(-0.1f, 0.1f);
  std::uniform_real_distribution<float> angle(0.0f, 6.2831853f);
  std::vector<float> x(kEntities), y(kEntities), r(kEntities);
  for (int i = 0; i < kEntities; ++i) {
    x[i] = pos(rng);
    y[i] = pos(rng);
    r[i] = 0.5f + 0.5f * static_cast<float>(i % 4);
  }
  Ticks out;
  for (int t = 0; t < ticks; ++t) {
    v1::SceneRequest request;
    request.set_sequence(static_cast<uint64_t>(t + 1));
    v1::SceneUpdate* u = request.mutable_update();
    u->set_tick(static_cast<uint64_t>(t + 1));
    v1::EntityColumns* g = columns ? u->add_upsert_columns() : nullptr;
    for (int i = 0; i < kEntities; ++i) {
      // The first tick places everyone.
      if (t > 0 && i % moving_every != 0) continue;
      x[i] += step(rng);
      y[i] += step(rng);
      if (columns) {
        g->add_ids(static_cast<uint64_t>(i + 1));
        g->mutable_circles()->add_x(x[i]);
        g->mutable_circles()->add_y(y[i]);
        g->mutable_circles()->add_radius(r[i]);
      } else {
        v1::SceneEntity* e = u->add_upserts();
        e->set_id(static_cast<uint64_t>(i + 1));
        v1::Circle* c = e->mutable_shape()->mutable_circle();
        c->mutable_center()->set_x(x[i]);
        c->mutable_center()->set_y(y[i]);
        c->set_radius(r[i]);
      }
    }
    auto cast = [&](v1::Vec3* origin, v1::Vec3* direction) {
      origin->set_x(pos(rng));
      origin->set_y(pos(rng));
      const float a = angle(rng);
      direction->set_x(std::cos(a));
      direction->set_y(std::sin(a));
    };
    for (int player = 0; player < 64; ++player) {
      for (int k = 0; k < 4; ++k) {
        v1::SceneQuery* q = request.add_queries();
        v1::RaycastQuery* ray = q->mutable_raycast();
        cast(ray->mutable_origin(), ray->mutable_direction());
        ray->set_max_distance(100);
        q->set_exclude_id(static_cast<uint64_t>(player + 1));
        if (rewind && t > 0) {
          const int back = std::min(t, 3 + static_cast<int>(rng() % 8));
          q->mutable_at()->set_tick(static_cast<uint64_t>(t + 1 - back));
          q->mutable_at()->set_fraction(
              std::uniform_real_distribution<float>(0.0f, 0.999f)(rng));
        }
      }
    }
    for (int p = 0; p < 200; ++p) {
      v1::SweepQuery* sweep = request.add_queries()->mutable_sweep();
      cast(sweep->mutable_origin(), sweep->mutable_direction());
      sweep->set_radius(0.25f);
      sweep->set_max_distance(30);
    }
    for (int o = 0; o < 50; ++o) {
      v1::OverlapQuery* overlap = request.add_queries()->mutable_overlap();
      v1::Circle* c = overlap->mutable_shape()->mutable_circle();
      c->mutable_center()->set_x(pos(rng));
      c->mutable_center()->set_y(pos(rng));
      c->set_radius(5);
    }
    out.requests.push_back(request.SerializeAsString());
  }
  return out;
}

// `idle_ms`: the thread sleeps that long before each tick (untimed), as a
// server at 64 ticks per second idles between messages; 0: back to back.
// `record`: each message and its answer also go to a scene recording
// (scene_recorder.h) in a temporary directory, as a recorded scene's do:
// 1 written by the tick itself, 2 queued to the server's writer thread.
void BM_SceneReferenceTick(benchmark::State& state) {
  const bool columns = state.range(0) != 0;
  const int idle_ms = static_cast<int>(state.range(3));
  std::unique_ptr<SceneRecorder> recorder;
  std::string record_dir;
  if (state.range(4) != 0) {
    record_dir =
        (std::filesystem::temp_directory_path() / "crecXXXXXX").string();
    if (mkdtemp(record_dir.data()) == nullptr) {
      state.SkipWithError("mkdtemp failed");
      return;
    }
    SceneRecordOptions options;
    options.dir = record_dir;
    options.max_bytes = int64_t{1} << 40;
    if (state.range(4) == 2) {
      options.writer = std::make_shared<RecordWriter>(kRecordPendingBytes);
    }
    auto created = SceneRecorder::Create(options, wire::SceneLimits{});
    if (!created.ok()) {
      state.SkipWithError(std::string(created.status().message()).c_str());
      return;
    }
    recorder = *std::move(created);
  }
  constexpr int kTicks = 64;
  const bool rewind = state.range(2) != 0;
  const Ticks ticks =
      MakeTicks(columns, kTicks, static_cast<int>(state.range(1)), rewind);
  bench::TickRunner runner(v1::DIMENSION_2D);
  const auto ok = [&](const absl::Status& s) {
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
    return s.ok();
  };
  if (!ok(runner.Warm(ticks.requests, recorder.get()))) return;
  for (auto _ : state) {
    if (idle_ms > 0) {
      state.PauseTiming();
      std::this_thread::sleep_for(std::chrono::milliseconds(idle_ms));
      state.ResumeTiming();
    }
    if (!ok(runner.Next(ticks.requests, recorder.get()))) return;
  }
  // The time a caller waits for (the answer encoded); the benchmark's own
  // time adds the history's recording after it, the CPU a tick costs.
  const bench::TickRunner::Times& times = runner.times();
  state.counters["answer_us"] =
      benchmark::Counter(times.answer, benchmark::Counter::kAvgIterations);
  state.counters["update_us"] =
      benchmark::Counter(times.update, benchmark::Counter::kAvgIterations);
  state.counters["queries_us"] =
      benchmark::Counter(times.queries, benchmark::Counter::kAvgIterations);
  const SceneHistory& history = runner.history();
  state.counters["history_MB"] =
      static_cast<double>(history.Stats().memory_bytes) / 1e6;
  state.counters["history_ticks"] =
      static_cast<double>(history.latest() - history.oldest() + 1);
  state.counters["request_bytes"] =
      static_cast<double>(ticks.requests[0].size());
  state.counters["response_bytes"] =
      static_cast<double>(runner.last_answer().size());
  state.counters["hits_per_tick"] = benchmark::Counter(
      static_cast<double>(runner.hits()), benchmark::Counter::kAvgIterations);
  if (recorder != nullptr) {
    state.counters["record_us"] =
        benchmark::Counter(times.record, benchmark::Counter::kAvgIterations);
    // 1: the recording kept up (the writer never fell behind its bound).
    state.counters["recorded"] = recorder->stopped() ? 0 : 1;
    recorder.reset();
    std::filesystem::remove_all(record_dir);
  }
}
BENCHMARK(BM_SceneReferenceTick)
    ->ArgNames({"columns", "moving_every", "rewind", "idle_ms", "record"})
    ->Args({1, 1, 0, 0, 0})
    ->Args({0, 1, 0, 0, 0})
    ->Args({1, 10, 0, 0, 0})
    ->Args({1, 1, 1, 0, 0})
    ->Args({1, 1, 0, 0, 1})
    ->Args({1, 1, 0, 0, 2})
    ->Args({1, 1, 1, 0, 2})
    ->Unit(benchmark::kMicrosecond);
// The same code with the pauses of a 64 Hz match between ticks: what a tick
// costs on a core that has been idle (on this VM it is not the same; see
// docs/decisions/0010-record-history-after-the-answer.md). 256 ticks, 4 s,
// whatever --benchmark_min_time.
BENCHMARK(BM_SceneReferenceTick)
    ->ArgNames({"columns", "moving_every", "rewind", "idle_ms", "record"})
    ->Args({1, 1, 0, 15, 0})
    ->Args({1, 1, 1, 15, 0})
    ->Args({1, 1, 0, 15, 1})
    ->Args({1, 1, 0, 15, 2})
    ->Args({1, 1, 1, 15, 2})
    ->Iterations(256)
    ->Unit(benchmark::kMicrosecond);

using bench::FrameSocket;
using bench::PlainTcpEcho;

enum Transport { kGrpc = 0, kScenePort = 1, kPlainTcp = 2 };

// The same ticks over loopback to a server in this process: the time from
// writing a tick's request to reading its response, per tick, with p50 and
// p99 over the run. Ticks go one at a time (the next is sent when the
// previous is answered), as a game server waits for its hits; `paced`: at
// 64 ticks per second, as a match runs (else back to back, which also
// waits for whatever the server does after each answer). `transport`:
// SceneService.Session on gRPC, the scene port (plain TCP frames), or the
// machine's floor: the same request and answer bytes over plain TCP with
// nothing computed (PlainTcpEcho). `floor`: every request carries its tick
// number alone (no changes, no queries): the round trip of the stream
// itself.
void BM_SceneReferenceTickLoopback(benchmark::State& state) {
  const bool columns = state.range(0) != 0;
  const bool paced = state.range(3) != 0;
  const bool floor = state.range(4) != 0;
  const auto transport = static_cast<Transport>(state.range(5));
  constexpr int kTicks = 64;
  const Ticks ticks = MakeTicks(
      columns, kTicks, static_cast<int>(state.range(1)), state.range(2) != 0);
  std::vector<v1::SceneRequest> requests(kTicks);
  for (int t = 0; t < kTicks; ++t) {
    v1::SceneRequest& request = requests[static_cast<size_t>(t)];
    request.ParseFromString(ticks.requests[static_cast<size_t>(t)]);
    if (floor) {
      request.mutable_update()->clear_upsert_columns();
      request.mutable_update()->clear_upserts();
      request.clear_queries();
    }
  }
  ServerOptions options;
  options.address = "127.0.0.1:0";
  options.scene_port_address = "127.0.0.1:0";
  options.allow_reuseport = false;
  auto server = CollisionServer::Start(options);
  if (!server.ok()) {
    state.SkipWithError(std::string(server.status().message()).c_str());
    return;
  }
  v1::SceneRequest open;
  open.mutable_config()->set_dimension(v1::DIMENSION_2D);
  open.mutable_config()->set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  // One exchange, whichever the transport: a request's bytes in, its
  // answer's bytes out.
  auto stub = v1::SceneService::NewStub(grpc::CreateChannel(
      (*server)->address(), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReaderWriter<v1::SceneRequest, v1::SceneResponse>>
      stream;
  std::unique_ptr<FrameSocket> frames;
  std::unique_ptr<PlainTcpEcho> echo;
  v1::SceneResponse response;
  std::string answer;
  auto exchange = [&](const v1::SceneRequest& request) {
    if (stream != nullptr) {
      return stream->Write(request) && stream->Read(&response) &&
             !response.has_error();
    }
    return frames->Write(request.SerializeAsString()) &&
           frames->Read(&answer) &&
           (transport == kPlainTcp ||
            (response.ParseFromString(answer) && !response.has_error()));
  };
  if (transport == kGrpc) {
    stream = stub->Session(&context);
  } else {
    frames = FrameSocket::Connect((*server)->scene_port());
    if (frames == nullptr ||
        !frames->Write(v1::SceneHello().SerializeAsString())) {
      state.SkipWithError("no scene port");
      return;
    }
  }
  if (!exchange(open)) {
    state.SkipWithError("scene not opened");
    return;
  }
  std::vector<double> micros;
  int64_t hits = 0;
  // One scene for the whole run, warmed up by one unmeasured pass over the
  // ticks (its history fills its window; a match runs for minutes, so its
  // first second is not what a game server waits on tick after tick).
  // The passes repeat the ticks with their numbers going on. The floor's
  // answers are the scene port's to the warm-up pass.
  std::vector<std::string> answers;
  uint64_t pass = 0;
  auto due = std::chrono::steady_clock::now();
  auto send_pass = [&](bool measured) {
    const uint64_t offset = pass++ * kTicks;
    for (int t = 0; t < kTicks; ++t) {
      v1::SceneRequest request = requests[static_cast<size_t>(t)];
      request.mutable_update()->set_tick(request.update().tick() + offset);
      for (v1::SceneQuery& q : *request.mutable_queries()) {
        if (q.has_at()) q.mutable_at()->set_tick(q.at().tick() + offset);
      }
      if (paced) std::this_thread::sleep_until(due);
      due += std::chrono::microseconds(1000000 / 64);
      const auto start = std::chrono::steady_clock::now();
      if (!exchange(request)) return false;
      if (!measured) {
        answers.push_back(answer);
        continue;
      }
      micros.push_back(std::chrono::duration<double, std::micro>(
                           std::chrono::steady_clock::now() - start)
                           .count());
      if (transport != kPlainTcp) {
        for (const auto& r : response.results()) hits += r.hits_size();
      }
    }
    return true;
  };
  if (!send_pass(false)) {
    state.SkipWithError("tick not answered");
    return;
  }
  if (transport == kPlainTcp) {
    echo = std::make_unique<PlainTcpEcho>(answers);
    frames = FrameSocket::Connect(echo->port());
    if (frames == nullptr) {
      state.SkipWithError("no plain TCP echo");
      return;
    }
  }
  std::size_t request_bytes = 0, answer_bytes = 0;
  for (int t = 0; t < kTicks; ++t) {
    request_bytes += requests[static_cast<size_t>(t)].ByteSizeLong();
  }
  for (const std::string& a : answers) answer_bytes += a.size();
  while (state.KeepRunningBatch(kTicks)) {
    if (!send_pass(true)) {
      state.SkipWithError("tick not answered");
      return;
    }
  }
  if (stream != nullptr) {
    stream->WritesDone();
    stream->Finish();
  }
  frames.reset();
  echo.reset();
  std::sort(micros.begin(), micros.end());
  auto at = [&](double q) {
    return micros[std::min(micros.size() - 1,
                           static_cast<size_t>(q * micros.size()))];
  };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  state.counters["max_us"] = micros.back();
  state.counters["hits_per_tick"] =
      static_cast<double>(hits) / static_cast<double>(micros.size());
  state.counters["request_bytes"] = static_cast<double>(request_bytes) / kTicks;
  state.counters["answer_bytes"] =
      static_cast<double>(answer_bytes) / static_cast<double>(answers.size());
  (*server)->Shutdown(absl::Seconds(5));
}
// Back to back, per transport: the reference tick (columns, or per-entity
// upserts; 1 in 10 moving; every raycast rewound) and the floor.
BENCHMARK(BM_SceneReferenceTickLoopback)
    ->ArgNames({"columns", "moving_every", "rewind", "paced", "floor",
                "transport"})
    ->ArgsProduct({{1}, {1}, {0}, {0}, {0, 1}, {kGrpc, kScenePort, kPlainTcp}})
    ->Args({0, 1, 0, 0, 0, kGrpc})
    ->Args({1, 10, 0, 0, 0, kGrpc})
    ->Args({1, 1, 1, 0, 0, kGrpc})
    ->Args({1, 1, 1, 0, 0, kScenePort})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
// Paced: 12 passes of 64 ticks (12 s each), whatever --benchmark_min_time:
// the reference tick, every raycast rewound, and the floor, per transport.
BENCHMARK(BM_SceneReferenceTickLoopback)
    ->ArgNames({"columns", "moving_every", "rewind", "paced", "floor",
                "transport"})
    ->ArgsProduct({{1}, {1}, {0, 1}, {1}, {0}, {kGrpc, kScenePort, kPlainTcp}})
    ->ArgsProduct({{1}, {1}, {0}, {1}, {1}, {kGrpc, kScenePort, kPlainTcp}})
    ->Iterations(12 * 64)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

// A game server's 64 Hz loop around the C++ SceneSession: each tick it
// hands the reference tick over, does `work_us` of its own work (busy: the
// rest of its tick), then takes the answer. `async`: SendAsync, so the
// round trip overlaps the work; else Send, then the work. Reported: how
// long the loop waits for the answer beyond its own work (stall), p50/p99:
// with the round trip overlapped, what is left of it.
void BM_SceneGameLoop(benchmark::State& state) {
  const bool async = state.range(0) != 0;
  const bool port = state.range(1) != 0;
  const auto work = std::chrono::microseconds(state.range(2));
  constexpr int kTicks = 64;
  const Ticks ticks = MakeTicks(true, kTicks, 1, false);
  std::vector<v1::SceneRequest> requests(kTicks);
  for (int t = 0; t < kTicks; ++t) {
    requests[static_cast<size_t>(t)].ParseFromString(
        ticks.requests[static_cast<size_t>(t)]);
  }
  ServerOptions options;
  options.address = "127.0.0.1:0";
  options.scene_port_address = "127.0.0.1:0";
  options.allow_reuseport = false;
  auto server = CollisionServer::Start(options);
  if (!server.ok()) {
    state.SkipWithError(std::string(server.status().message()).c_str());
    return;
  }
  auto client = client::Client::Create((*server)->address());
  if (!client.ok()) {
    state.SkipWithError("no client");
    return;
  }
  client::SceneSessionOptions session_options;
  if (port) {
    session_options.scene_port =
        absl::StrCat("127.0.0.1:", (*server)->scene_port());
  }
  v1::SceneConfig config;
  config.set_dimension(v1::DIMENSION_2D);
  config.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  auto session = client::SceneSession::Open(**client, config, session_options);
  if (!session.ok()) {
    state.SkipWithError(std::string(session.status().message()).c_str());
    return;
  }
  auto spin = [](std::chrono::microseconds d) {
    const auto until = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  std::vector<double> stalls;
  uint64_t pass = 0;
  auto due = std::chrono::steady_clock::now();
  auto run_pass = [&](bool measured) {
    const uint64_t offset = pass++ * kTicks;
    for (int t = 0; t < kTicks; ++t) {
      v1::SceneRequest request = requests[static_cast<size_t>(t)];
      request.mutable_update()->set_tick(request.update().tick() + offset);
      std::this_thread::sleep_until(due);
      due += std::chrono::microseconds(1000000 / 64);
      absl::StatusOr<v1::SceneResponse> answer;
      std::chrono::steady_clock::time_point waited;
      if (async) {
        auto future = (*session)->SendAsync(std::move(request));
        spin(work);
        waited = std::chrono::steady_clock::now();
        answer = future.get();
      } else {
        waited = std::chrono::steady_clock::now();
        answer = (*session)->Send(std::move(request));
        const auto stall = std::chrono::steady_clock::now() - waited;
        spin(work);
        waited = std::chrono::steady_clock::now() - stall;
      }
      if (!answer.ok()) return false;
      if (measured) {
        stalls.push_back(std::chrono::duration<double, std::micro>(
                             std::chrono::steady_clock::now() - waited)
                             .count());
      }
    }
    return true;
  };
  if (!run_pass(false)) {
    state.SkipWithError("tick not answered");
    return;
  }
  while (state.KeepRunningBatch(kTicks)) {
    if (!run_pass(true)) {
      state.SkipWithError("tick not answered");
      return;
    }
  }
  (*session)->Finish().IgnoreError();
  std::sort(stalls.begin(), stalls.end());
  auto at = [&](double q) {
    return stalls[std::min(stalls.size() - 1,
                           static_cast<size_t>(q * stalls.size()))];
  };
  state.counters["stall_p50_us"] = at(0.5);
  state.counters["stall_p99_us"] = at(0.99);
  (*server)->Shutdown(absl::Seconds(5));
}
// 6 passes of 64 ticks (6 s each), whatever --benchmark_min_time.
BENCHMARK(BM_SceneGameLoop)
    ->ArgNames({"async", "port", "work_us"})
    ->ArgsProduct({{0, 1}, {0, 1}, {3000}})
    ->Iterations(6 * 64)
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();

}  // namespace
}  // namespace collision::server

BENCHMARK_MAIN();
