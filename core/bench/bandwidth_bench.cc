// Memory bandwidth on the same working-set sizes as the kernels (1k, 64k and
// 4M pairs of 28 and 48 bytes), so each kernel's bytes/s can be stated as a
// fraction of what the machine moves: "read" sums the bytes once in 8
// interleaved streams (the bound
// for a kernel that reads its columns and writes little), "triad" is
// STREAM's a = b + s * c over three arrays of a third of the bytes each.
// Also the benchmark main(), which records the Highway target.
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

// Working sets: 1k, 64k, 4M pairs at 28 B (circle-rect) and 48 B (box-box).
void Sizes(benchmark::internal::Benchmark* b) {
  for (int64_t pairs : {int64_t{1} << 10, int64_t{1} << 16, int64_t{1} << 22}) {
    b->Arg(pairs * 28);
    b->Arg(pairs * 48);
  }
}

BENCHMARK(BM_Read)->Apply(Sizes);
BENCHMARK(BM_Triad)->Apply(Sizes);

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
