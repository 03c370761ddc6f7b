// Memory bandwidth on the same working-set sizes as the kernels (1k, 64k and
// 4M pairs of 28 and 48 bytes), so each kernel's bytes/s can be stated as a
// fraction of what the machine moves: "read" sums the bytes once in 8
// interleaved streams (the bound
// for a kernel that reads its columns and writes little), "triad" is
// STREAM's a = b + s * c over three arrays of a third of the bytes each.
// BM_Latency: a dependent load's latency at the same and larger sizes. Also
// the benchmark main(), which records the Highway target.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "collision/core/batch.h"
#include "hwy/targets.h"

namespace collision {
namespace bench {
namespace {

// Reads the bytes as 8 interleaved streams, like a kernel reading its
// columns side by side (one stream alone does not reach the DRAM bound).
void BM_Read(benchmark::State& state) {
  constexpr size_t kStreams = 8;
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<uint64_t> data(bytes / 8, 1);
  const size_t per = data.size() / kStreams;
  for (auto _ : state) {
    uint64_t sum[kStreams] = {};
    for (size_t i = 0; i < per; ++i) {
      for (size_t k = 0; k < kStreams; ++k) sum[k] += data[k * per + i];
    }
    uint64_t total = 0;
    for (uint64_t v : sum) total += v;
    benchmark::DoNotOptimize(total);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(per * kStreams * 8));
}

void BM_Triad(benchmark::State& state) {
  const size_t n = static_cast<size_t>(state.range(0)) / 12;
  std::vector<float> a(n), b(n, 1.0f), c(n, 2.0f);
  for (auto _ : state) {
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0f * c[i];
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(12 * n));
}

// Latency of a load that depends on the one before (a pointer chase over
// the cache lines of `bytes` in a random cycle): what each level of a tree
// walk or a pose lookup costs when its data is not in a nearer cache.
// Rewound scene queries (docs/scenes.md) are bounded by chains of these.
void BM_Latency(benchmark::State& state) {
  constexpr size_t kLine = 64 / sizeof(uint64_t);
  const size_t lines = static_cast<size_t>(state.range(0)) / 64;
  std::vector<uint64_t> next(lines * kLine);
  std::vector<uint64_t> order(lines);
  for (size_t i = 0; i < lines; ++i) order[i] = i;
  uint64_t seed = 0x9E3779B97F4A7C15u;
  for (size_t i = lines - 1; i > 0; --i) {  // Fisher-Yates, xorshift
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    std::swap(order[i], order[seed % (i + 1)]);
  }
  for (size_t i = 0; i < lines; ++i) {
    next[order[i] * kLine] = order[(i + 1) % lines] * kLine;
  }
  uint64_t at = order[0] * kLine;
  constexpr int kHops = 1024;
  for (auto _ : state) {
    for (int h = 0; h < kHops; ++h) at = next[at];
    benchmark::DoNotOptimize(at);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kHops);
  state.counters["ns_per_load"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * kHops,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Working sets: 1k, 64k, 4M pairs at 28 B (circle-rect) and 48 B (box-box).
void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t pairs : {int64_t{1} << 10, int64_t{1} << 16, int64_t{1} << 22}) {
    b->Arg(pairs * 28);
    b->Arg(pairs * 48);
  }
}

BENCHMARK(BM_Read)->Apply(Sizes);
BENCHMARK(BM_Triad)->Apply(Sizes);
// L1 and L2 sized, then the rewound bench's index at H 64 (4 MB) and H 256
// (15 MB) and its poses at H 64 (44 MB) and H 256 (150 MB).
BENCHMARK(BM_Latency)
    ->Arg(int64_t{16} << 10)
    ->Arg(int64_t{512} << 10)
    ->Arg(int64_t{4} << 20)
    ->Arg(int64_t{16} << 20)
    ->Arg(int64_t{48} << 20)
    ->Arg(int64_t{150} << 20);

}  // namespace
}  // namespace bench
}  // namespace collision

int main(int argc, char** argv) {
  // COLLISION_BENCH_NO_AVX512=1: measure the AVX2 kernels on an AVX-512
  // machine (the CI and dev VMs differ), before any kernel picks its target.
  if (const char* v = std::getenv("COLLISION_BENCH_NO_AVX512");
      v != nullptr && std::string(v) == "1") {
    hwy::DisableTargets(HWY_AVX3 | HWY_AVX3_DL);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("simd_target", collision::SimdTargetName());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
