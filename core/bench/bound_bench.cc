// The load bound of a hit-only kernel, measured in the same binary: a loop
// that does the least a hit kernel must do, i.e. load each of its columns
// once per pair and write one bit per pair, with one Xor per column so that
// no load is dead. It is compiled per Highway target and reached through
// HWY_DYNAMIC_DISPATCH like the kernels, so it runs on the same target, with
// the same vector width, on the same column arrays (so with the same cache
// footprint and alignment); `<kind>/simd_hit` as a fraction of
// `<kind>/load_bound` is how far a kernel is from what the load ports allow.
#include "bound_bench.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "bench_util.h"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "bound_bench.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
// Must come after foreach_target.h.
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace collision {
namespace bench {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Bits of the sign of the Xor of the K columns, LSB-first like hit_bits.
// K is a template parameter so the column pointers live in registers, as in
// the kernels' loops.
template <size_t K>
HWY_NOINLINE void LoadBoundK(const float* const* in, size_t n, uint8_t* bits) {
  const hn::ScalableTag<float> d;
  const float* cols[K];
  for (size_t k = 0; k < K; ++k) cols[k] = in[k];
  const size_t lanes = hn::Lanes(d);
  const auto zero = hn::Zero(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    auto acc = hn::LoadU(d, cols[0] + i);
    for (size_t k = 1; k < K; ++k) {
      acc = hn::Xor(acc, hn::LoadU(d, cols[k] + i));
    }
    const auto m = hn::Lt(acc, zero);
    if (lanes >= 8) {
      hn::StoreMaskBits(d, m, bits + i / 8);
    } else {  // fewer than 8 lanes: or them into the shared byte
      uint8_t b = 0;
      hn::StoreMaskBits(d, m, &b);
      if (i % 8 == 0) bits[i / 8] = 0;
      bits[i / 8] = static_cast<uint8_t>(bits[i / 8] | (b << (i % 8)));
    }
  }
  // Tail: never run at the benchmark sizes (multiples of every vector length).
  for (; i < n; ++i) {
    float x = 0.0f;
    for (size_t k = 0; k < K; ++k) x += cols[k][i];
    if (i % 8 == 0) bits[i / 8] = 0;
    bits[i / 8] = static_cast<uint8_t>(bits[i / 8] | ((x < 0) << (i % 8)));
  }
}

// The other bound, of the full-result kernels: one square root per pair
// (their separation), loaded from and stored to one column each.
HWY_NOINLINE void SqrtBoundT(const float* in, size_t n, float* out) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
  for (; i + lanes <= n; i += lanes) {
    hn::StoreU(hn::Sqrt(hn::LoadU(d, in + i)), d, out + i);
  }
  for (; i < n; ++i) out[i] = std::sqrt(in[i]);
}

void LoadBoundT(const float* const* in, size_t cols, size_t n, uint8_t* bits) {
  switch (cols) {
    case 6:
      return LoadBoundK<6>(in, n, bits);
    case 7:
      return LoadBoundK<7>(in, n, bits);
    case 8:
      return LoadBoundK<8>(in, n, bits);
    case 10:
      return LoadBoundK<10>(in, n, bits);
    case 11:
      return LoadBoundK<11>(in, n, bits);
    case 12:
      return LoadBoundK<12>(in, n, bits);
    default:
      HWY_ABORT("no load bound loop for %zu columns", cols);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace bench
}  // namespace collision
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace collision {
namespace bench {

HWY_EXPORT(LoadBoundT);
HWY_EXPORT(SqrtBoundT);

void RegisterLoadBound(const std::string& kind, size_t cols,
                       const Soa& (*soa)(), double bytes_per_pair) {
  RegisterSizes(kind + "/load_bound", bytes_per_pair,
                [cols, soa](benchmark::State& state, size_t n) {
                  const Soa& s = soa();
                  std::vector<const float*> in(cols);
                  for (size_t k = 0; k < cols; ++k) in[k] = s[k];
                  std::vector<uint8_t> bits(n / 8 + 1);
                  for (auto _ : state) {
                    HWY_DYNAMIC_DISPATCH(LoadBoundT)
                    (in.data(), cols, n, bits.data());
                    benchmark::ClobberMemory();
                  }
                });
}

void RegisterSqrtBound() {
  RegisterSizes("sqrt_bound/simd", 8, [](benchmark::State& state, size_t n) {
    std::vector<float> in(n), out(n);
    for (size_t i = 0; i < n; ++i) in[i] = 1.0f + static_cast<float>(i);
    for (auto _ : state) {
      HWY_DYNAMIC_DISPATCH(SqrtBoundT)(in.data(), n, out.data());
      benchmark::ClobberMemory();
    }
  });
}

}  // namespace bench
}  // namespace collision
#endif  // HWY_ONCE
