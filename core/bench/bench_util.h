// Registration helpers shared by the benchmark files.
#ifndef COLLISION_CORE_BENCH_BENCH_UTIL_H_
#define COLLISION_CORE_BENCH_BENCH_UTIL_H_

#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "bench_data.h"

namespace collision {
namespace bench {

// Batch sizes: in L1 (1k), in L2/L3 (64k), in DRAM (4M).
inline constexpr size_t kSizes[] = {size_t{1} << 10, size_t{1} << 16,
                                    kMaxPairs};

// Only one kind's 4M-pair data set lives at a time (they are ~100-400 MB).
inline std::function<void()>& EvictCurrent() {
  static std::function<void()> evict = [] {};
  return evict;
}

template <class Data, class Make>
const Data& Cached(Make make) {
  static std::unique_ptr<Data> data;
  if (!data) {
    EvictCurrent()();
    data = std::make_unique<Data>(make());
    EvictCurrent() = [] { data.reset(); };
  }
  return *data;
}

// Registers `fn(state, n)` as name/<n> for every batch size; items are pairs,
// bytes are the bytes the variant reads and writes per pair.
inline void RegisterSizes(const std::string& name, double bytes_per_pair,
                          std::function<void(benchmark::State&, size_t)> fn) {
  for (size_t n : kSizes) {
    benchmark::RegisterBenchmark(
        (name + "/" + std::to_string(n)).c_str(),
        [fn, n, bytes_per_pair](benchmark::State& state) {
          fn(state, n);
          state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) *
                                  static_cast<int64_t>(n));
          state.SetBytesProcessed(static_cast<int64_t>(
              static_cast<double>(state.iterations()) * n * bytes_per_pair));
          state.counters["bytes_per_pair"] = bytes_per_pair;
        });
  }
}

}  // namespace bench
}  // namespace collision

#endif  // COLLISION_CORE_BENCH_BENCH_UTIL_H_
