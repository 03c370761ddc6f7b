// In-process cost of the wire path, no network: protobuf parse, validation,
// kernels and response encoding, for the per-pair and the columnar forms,
// against a plain memcpy of the same request bytes.
//
//   cmake --build build/release --target collision_wire_bench &&
//   build/release/server/bench/collision_wire_bench
#include <cstring>
#include <random>
#include <string>

#include "benchmark/benchmark.h"
#include "collision/handlers/pairs.h"
#include "collision/wire/pair_wire.h"
#include "collision/wire/wire_precheck.h"
#include "google/protobuf/arena.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"

namespace collision::server {
namespace {

// n circle-vs-rect pairs, random, in the columnar form.
v1::IntersectColumnsRequest Columns(int n) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> pos(-100, 100), len(0, 10);
  v1::IntersectColumnsRequest r;
  r.set_boundary(v1::BOUNDARY_RULE_INCLUSIVE);
  auto* g = r.add_groups()->mutable_circle_rect();
  for (int i = 0; i < n; ++i) {
    g->mutable_a()->add_x(pos(rng));
    g->mutable_a()->add_y(pos(rng));
    g->mutable_a()->add_radius(len(rng));
    const float x = pos(rng), y = pos(rng);
    g->mutable_b()->add_min_x(x);
    g->mutable_b()->add_min_y(y);
    g->mutable_b()->add_max_x(x + len(rng));
    g->mutable_b()->add_max_y(y + len(rng));
  }
  return r;
}

// The same pairs as per-pair messages.
v1::IntersectRequest Pairs(const v1::IntersectColumnsRequest& c) {
  v1::IntersectRequest r;
  r.set_boundary(c.boundary());
  const auto& g = c.groups(0).circle_rect();
  for (int i = 0; i < g.a().x_size(); ++i) {
    v1::ShapePair* p = r.add_pairs();
    v1::Circle* circle = p->mutable_a()->mutable_circle();
    circle->mutable_center()->set_x(g.a().x(i));
    circle->mutable_center()->set_y(g.a().y(i));
    circle->set_radius(g.a().radius(i));
    v1::Rect* rect = p->mutable_b()->mutable_rect();
    rect->mutable_min()->set_x(g.b().min_x(i));
    rect->mutable_min()->set_y(g.b().min_y(i));
    rect->mutable_max()->set_x(g.b().max_x(i));
    rect->mutable_max()->set_y(g.b().max_y(i));
  }
  return r;
}

void Report(benchmark::State& state, std::size_t bytes) {
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(bytes));
  state.counters["bytes_per_pair"] =
      static_cast<double>(bytes) / static_cast<double>(state.range(0));
}

void BM_MemcpyColumnsBytes(benchmark::State& state) {
  const std::string wire = Columns(int(state.range(0))).SerializeAsString();
  std::string copy(wire.size(), '\0');
  for (auto _ : state) {
    std::memcpy(copy.data(), wire.data(), wire.size());
    benchmark::DoNotOptimize(copy.data());
    benchmark::ClobberMemory();
  }
  Report(state, wire.size());
}

void BM_ParseColumns(benchmark::State& state) {
  const std::string wire = Columns(int(state.range(0))).SerializeAsString();
  v1::IntersectColumnsRequest request;
  for (auto _ : state) {
    request.ParseFromString(wire);
    benchmark::DoNotOptimize(request);
  }
  Report(state, wire.size());
}

// Parse + validate + kernels + encode the response: the server's work for
// one IntersectColumns call, on one thread.
void BM_ServeColumns(benchmark::State& state) {
  const std::string wire = Columns(int(state.range(0))).SerializeAsString();
  v1::IntersectColumnsRequest request;
  v1::IntersectColumnsResponse response;
  std::string out;
  for (auto _ : state) {
    request.ParseFromString(wire);
    if (!handlers::HandleIntersectColumns(request, &response,
                                          handlers::HandlerContext{})
             .ok()) {
      state.SkipWithError("rejected");
    }
    response.SerializeToString(&out);
    benchmark::DoNotOptimize(out.data());
  }
  Report(state, wire.size());
}

void BM_ParsePairs(benchmark::State& state) {
  const std::string wire =
      Pairs(Columns(int(state.range(0)))).SerializeAsString();
  for (auto _ : state) {
    v1::IntersectRequest request;
    request.ParseFromString(wire);
    benchmark::DoNotOptimize(request);
  }
  Report(state, wire.size());
}

void BM_ParsePairsOnArena(benchmark::State& state) {
  const std::string wire =
      Pairs(Columns(int(state.range(0)))).SerializeAsString();
  for (auto _ : state) {
    google::protobuf::Arena arena;
    auto* request =
        google::protobuf::Arena::CreateMessage<v1::IntersectRequest>(&arena);
    request->ParseFromString(wire);
    benchmark::DoNotOptimize(request);
  }
  Report(state, wire.size());
}

void BM_ServePairs(benchmark::State& state) {
  const std::string wire =
      Pairs(Columns(int(state.range(0)))).SerializeAsString();
  std::string out;
  for (auto _ : state) {
    google::protobuf::Arena arena;
    auto* request =
        google::protobuf::Arena::CreateMessage<v1::IntersectRequest>(&arena);
    auto* response =
        google::protobuf::Arena::CreateMessage<v1::IntersectResponse>(&arena);
    request->ParseFromString(wire);
    if (!handlers::HandleIntersect(*request, response,
                                   handlers::HandlerContext{})
             .ok()) {
      state.SkipWithError("rejected");
    }
    response->SerializeToString(&out);
    benchmark::DoNotOptimize(out.data());
  }
  Report(state, wire.size());
}

// The per-pair request served from its bytes (pair_wire.h): what the
// service does for the plain encoding every client library writes.
void BM_ServePairsFromBytes(benchmark::State& state) {
  const std::string wire =
      Pairs(Columns(int(state.range(0)))).SerializeAsString();
  std::string out;
  for (auto _ : state) {
    out.clear();
    const auto decoded = handlers::DecodeIntersect(wire, wire::RequestLimits{});
    if (decoded == nullptr ||
        !decoded->Serve(handlers::HandlerContext{}, &out).ok()) {
      state.SkipWithError("not taken");
    }
    benchmark::DoNotOptimize(out.data());
  }
  Report(state, wire.size());
}

// Its decoding alone.
void BM_DecodePairsFromBytes(benchmark::State& state) {
  const std::string wire =
      Pairs(Columns(int(state.range(0)))).SerializeAsString();
  wire::ParsedIntersect parsed;
  for (auto _ : state) {
    if (!wire::DecodeIntersectRequest(wire, wire::RequestLimits{}, &parsed)) {
      state.SkipWithError("not taken");
    }
    benchmark::DoNotOptimize(parsed.pairs.data());
  }
  Report(state, wire.size());
}

// The count on the bytes every request gets before it is parsed
// (wire_precheck.h), on `range` empty pairs (2 bytes each, the most items
// per byte): an honest batch up to the default limit of 100,000, then what
// an attacker sends, up to the default receive limit (~10.6 MB).
void BM_PrecheckPairs(benchmark::State& state) {
  std::string wire;
  for (int64_t i = 0; i < state.range(0); ++i) wire.append("\x0a\x00", 2);
  const wire::RequestLimits limits;
  for (auto _ : state) {
    google::protobuf::io::ArrayInputStream in(wire.data(),
                                              static_cast<int>(wire.size()));
    benchmark::DoNotOptimize(wire::PrecheckRequestSize(
        &in, wire::RequestMessage::kIntersect, limits));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_PrecheckPairs)->Arg(1024)->Arg(100000)->Arg(5000000);

#define SIZES Arg(64)->Arg(1024)->Arg(16384)->Arg(65536)
BENCHMARK(BM_MemcpyColumnsBytes)->SIZES;
BENCHMARK(BM_ParseColumns)->SIZES;
BENCHMARK(BM_ServeColumns)->SIZES;
BENCHMARK(BM_ParsePairs)->SIZES;
BENCHMARK(BM_ParsePairsOnArena)->SIZES;
BENCHMARK(BM_ServePairs)->SIZES;
BENCHMARK(BM_DecodePairsFromBytes)->SIZES;
BENCHMARK(BM_ServePairsFromBytes)->SIZES;

}  // namespace
}  // namespace collision::server

BENCHMARK_MAIN();
