// The load bound of the hit-only kernels, measured in the same binary: see
// bound_bench.cc.
#ifndef COLLISION_CORE_BENCH_BOUND_BENCH_H_
#define COLLISION_CORE_BENCH_BOUND_BENCH_H_

#include <cstddef>
#include <string>

#include "bench_data.h"

namespace collision {
namespace bench {

// Registers `<kind>/load_bound/<n>` for every batch size: a Highway loop on
// the kernels' dispatch path that loads the first `cols` columns of `soa()`
// (exactly the columns the hit-only kernel reads, from the same arrays) and
// writes one bit per pair. Call it beside `<kind>/simd_hit` so that both run
// one after the other under the same machine load.
void RegisterLoadBound(const std::string& kind, size_t cols,
                       const Soa& (*soa)(), double bytes_per_pair);

// Registers `sqrt_bound/simd/<n>`: one vector square root per pair, the
// operation that bounds the full-result ball kernels (their separation).
void RegisterSqrtBound();

}  // namespace bench
}  // namespace collision

#endif  // COLLISION_CORE_BENCH_BOUND_BENCH_H_
