// Memory bandwidth on the same working-set sizes as the kernels (1k, 64k and
// 4M pairs of 28 and 48 bytes), so each kernel's bytes/s can be stated as a
// fraction of what the machine moves: "read" sums the bytes once (the bound
// for a kernel that reads its columns and writes little), "triad" is
// STREAM's a = b + s * c over three arrays of a third of the bytes each.
// Also the benchmark main(), which records the Highway target.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "collision/core/batch.h"

namespace collision {
namespace bench {
namespace {

void BM_Read(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<uint64_t> data(bytes / 8, 1);
  for (auto _ : state) {
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 4 <= data.size(); i += 4) {
      s0 += data[i], s1 += data[i + 1], s2 += data[i + 2], s3 += data[i + 3];
    }
    benchmark::DoNotOptimize(s0 + s1 + s2 + s3);
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(bytes));
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
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("simd_target", collision::SimdTargetName());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
