// Benchmark data: the same seeded pairs in array-of-structs form (as the
// scalar seeds hold them) and in struct-of-arrays columns (as the kernels take
// them). Generated once per kind at the largest size; smaller sizes use a
// prefix, so 1k, 64k and 4M measure the same distribution.
#ifndef COLLISION_CORE_BENCH_BENCH_DATA_H_
#define COLLISION_CORE_BENCH_BENCH_DATA_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "collision/core/shapes.h"

namespace collision {
namespace bench {

inline constexpr size_t kMaxPairs = size_t{1} << 22;  // 4M

// splitmix64: fast enough to fill 4M pairs in well under a second.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t Next() {
    uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [lo, hi).
  float Uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(Next() >> 40) * 0x1p-24f;
  }

 private:
  uint64_t s_;
};

// Scene: shapes of size ~1-20 scattered over [-100, 100]^d, so that roughly
// a fifth to a half of the pairs hit, unpredictably (no branch-predictor
// memorisation beyond what the batch size allows).
inline Vec2 RandV2(Rng& r) {
  return {r.Uniform(-100, 100), r.Uniform(-100, 100)};
}
inline Vec3 RandV3(Rng& r) {
  return {r.Uniform(-100, 100), r.Uniform(-100, 100), r.Uniform(-100, 100)};
}
inline Circle RandCircle(Rng& r) { return {RandV2(r), r.Uniform(0, 30)}; }
inline Sphere RandSphere(Rng& r) { return {RandV3(r), r.Uniform(0, 40)}; }
inline Rect RandRect(Rng& r) {
  const Vec2 a = RandV2(r);
  return {a, {a.x + r.Uniform(0, 60), a.y + r.Uniform(0, 60)}};
}
inline Box RandBox(Rng& r) {
  const Vec3 a = RandV3(r);
  return {
      a,
      {a.x + r.Uniform(0, 70), a.y + r.Uniform(0, 70), a.z + r.Uniform(0, 70)}};
}
inline float RandAngle(Rng& r) { return r.Uniform(-3.2f, 3.2f); }
inline RotatedRect RandRotated(Rng& r, float angle) {
  RotatedRect rr;
  rr.size = {r.Uniform(0, 60), r.Uniform(0, 60)};
  rr.pivot = {rr.size.x * 0.5f, rr.size.y * 0.5f};
  rr.position = RandV2(r);
  rr.rotation = {std::cos(angle), std::sin(angle)};
  return rr;
}

// Struct-of-arrays columns, appended to one value at a time in column order.
class Soa {
 public:
  explicit Soa(size_t cols) : cols_(cols) {}
  void Reserve(size_t n) {
    for (auto& c : cols_) c.reserve(n);
  }
  void Row(std::initializer_list<float> values) {
    size_t k = 0;
    for (float v : values) cols_[k++].push_back(v);
  }
  const float* operator[](size_t k) const { return cols_[k].data(); }
  size_t num_cols() const { return cols_.size(); }

 private:
  std::vector<std::vector<float>> cols_;
};

}  // namespace bench
}  // namespace collision

#endif  // COLLISION_CORE_BENCH_BENCH_DATA_H_
