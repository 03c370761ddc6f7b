// Shared by the SIMD tests: seeded shape generators (random and adversarial),
// struct-of-arrays column builders and bitwise float comparison.
#ifndef COLLISION_TESTS_SIMD_TEST_SUPPORT_H_
#define COLLISION_TESTS_SIMD_TEST_SUPPORT_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "collision/core/kernels.h"
#include "collision/core/scalar.h"
#include "collision/core/shapes.h"

namespace collision {
namespace testing_support {

inline constexpr float kHalfPi = 1.57079637f;

// Same bits (distinguishes -0 from +0).
inline bool BitEq(float a, float b) {
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x == y;
}

// How the values of a generated shape are drawn.
enum class Mix {
  kRandom,       // mostly continuous, some integers, some large, some tiny
  kAdversarial,  // only special values: small integers, +-0, halves, the
                 // magnitude bound, underflowing offsets
};

class Gen {
 public:
  Gen(uint64_t seed, Mix mix) : state_(seed), mix_(mix) {}

  float Coord() {
    if (mix_ == Mix::kAdversarial) return Pick(kSpecial);
    const int mode = Int(0, 15);
    if (mode < 6) return Uniform(-100.0f, 100.0f);
    if (mode < 11) return static_cast<float>(Int(-8, 8));
    if (mode < 13) return static_cast<float>(Int(-32, 32)) * 0.25f;
    if (mode < 14) return Uniform(-1.0f, 1.0f) * kMaxMagnitude;
    if (mode < 15) return kMaxMagnitude - static_cast<float>(Int(0, 4)) * 64;
    return Uniform(-1.0f, 1.0f) * 1e-20f;
  }
  float Length() {  // radius or size, >= 0
    if (mix_ == Mix::kAdversarial) return Pick(kSpecialLength);
    const int mode = Int(0, 9);
    if (mode < 4) return Uniform(0.0f, 50.0f);
    if (mode < 8) return static_cast<float>(Int(0, 6));
    if (mode < 9) return 0.0f;
    return Uniform(0.0f, 1.0f) * kMaxMagnitude;
  }
  Rotation Rot() {
    const int mode = Int(0, 9);
    if (mode < 3)
      return RotationFromAngle(static_cast<float>(Int(-8, 8)) * kHalfPi);
    if (mode < 4) return RotationFromAngle(Uniform(-1e-3f, 1e-3f));
    if (mode < 5) return Rotation{0.6f, 0.8f};
    if (mode < 6) return Rotation{-0.8f, 0.6f};
    return RotationFromAngle(Uniform(-kMaxAngle, kMaxAngle) *
                             (mix_ == Mix::kRandom ? 1.0f : 1e-3f));
  }
  float Angle() {
    const int mode = Int(0, 9);
    if (mode < 3) return static_cast<float>(Int(-4096, 4096)) * kHalfPi;
    if (mode < 4) return Uniform(-1e-3f, 1e-3f);
    if (mode < 5) return Pick(kSpecial) * 1e-9f;
    if (mode < 7) return Uniform(-7.0f, 7.0f);
    return Uniform(-kMaxAngle, kMaxAngle);
  }

  Vec2 V2() { return {Coord(), Coord()}; }
  Vec3 V3() { return {Coord(), Coord(), Coord()}; }
  Circle Ball2() { return {V2(), Int(0, 3) == 0 ? 0.0f : Length()}; }
  Sphere Ball3() { return {V3(), Int(0, 3) == 0 ? 0.0f : Length()}; }
  Rect RectShape() {
    Rect r;
    Interval(r.min.x, r.max.x);
    Interval(r.min.y, r.max.y);
    return r;
  }
  Box BoxShape() {
    Box b;
    Interval(b.min.x, b.max.x);
    Interval(b.min.y, b.max.y);
    Interval(b.min.z, b.max.z);
    return b;
  }
  RotatedRect Rotated() {
    RotatedRect r;
    r.size = {Length(), Length()};
    const int pivot = Int(0, 3);
    if (pivot == 0) {
      r.pivot = {0, 0};
    } else if (pivot == 1) {
      r.pivot = {r.size.x * 0.5f, r.size.y * 0.5f};
    } else {
      r.pivot = V2();
    }
    r.position = V2();
    r.rotation = Rot();
    return r;
  }

  Capsule3 Capsule() {
    const Vec3 a = V3();
    return {a, Int(0, 4) == 0 ? a : V3(), Int(0, 3) == 0 ? 0.0f : Length()};
  }
  // Unit quaternions: the identity, quarter turns about an axis, random.
  Quat UnitQuat() {
    const int mode = Int(0, 3);
    if (mode == 0) return Quat{};
    if (mode == 1) {
      const float h = 0.70710678f;
      Quat q{h, 0, 0, 0};
      (Int(0, 2) == 0 ? q.x : Int(0, 1) == 0 ? q.y : q.z) = Int(0, 1) ? h : -h;
      return q;
    }
    for (;;) {
      const double w = Uniform(-1, 1), x = Uniform(-1, 1), y = Uniform(-1, 1),
                   z = Uniform(-1, 1);
      const double n = std::sqrt(w * w + x * x + y * y + z * z);
      if (n < 0.1 || n > 1) continue;
      return Quat{float(w / n), float(x / n), float(y / n), float(z / n)};
    }
  }
  OrientedBox Obb() {
    return {V3(), {Length(), Length(), Length()}, UnitQuat()};
  }

  // Uniform in [lo, hi] (multiply-shift; the tiny bias is irrelevant here).
  int Int(int lo, int hi) {
    const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
    return lo + static_cast<int>(((Next() >> 32) * span) >> 32);
  }
  // Uniform in [lo, hi).
  float Uniform(float lo, float hi) {
    return lo + (hi - lo) * static_cast<float>(Next() >> 40) * 0x1p-24f;
  }

 private:
  template <size_t N>
  float Pick(const float (&values)[N]) {
    return values[Int(0, static_cast<int>(N) - 1)];
  }
  // A closed interval lo <= hi; a third of them start from a shared value
  // so edges coincide with other shapes' edges.
  void Interval(float& lo, float& hi) {
    const float a = Coord();
    const float b = Int(0, 2) == 0 ? a : Coord();
    lo = std::min(a, b);
    hi = std::max(a, b);
  }

  static constexpr float kSpecial[] = {
      -0.0f,   0.0f, 1.0f,  -1.0f,        2.0f,         -2.0f,
      3.0f,    4.0f, -3.0f, 0.5f,         5.0f,         1e-23f,
      -3e-23f, 1e9f, -1e9f, 999999936.0f, -999999872.0f};
  static constexpr float kSpecialLength[] = {0.0f, 0.0f, 1.0f, 2.0f,
                                             3.0f, 5.0f, 0.5f, 1e9f};
  // splitmix64: fast, so 1M pairs per kind are drawn in a few ms.
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  uint64_t state_;
  Mix mix_;
};

// Struct-of-arrays columns of n pairs, filled one shape at a time.
class Columns {
 public:
  explicit Columns(size_t num_cols) : cols_(num_cols) {}
  void Ball2(const Circle& c) { Put({c.center.x, c.center.y, c.radius}); }
  void Ball3(const Sphere& s) {
    Put({s.center.x, s.center.y, s.center.z, s.radius});
  }
  void RectShape(const Rect& r) { Put({r.min.x, r.min.y, r.max.x, r.max.y}); }
  void BoxShape(const Box& b) {
    Put({b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z});
  }
  void Rotated(const RotatedRect& r) {
    Put({r.size.x, r.size.y, r.pivot.x, r.pivot.y, r.position.x, r.position.y,
         r.rotation.cos, r.rotation.sin});
  }
  void Reserve(size_t n) {
    for (auto& c : cols_) c.reserve(n);
  }
  // Ends a pair: the next Put starts at column 0 again.
  void EndRow() { next_ = 0; }
  const float* col(size_t k) const { return cols_[k].data(); }
  float* mutable_col(size_t k) { return cols_[k].data(); }
  size_t rows() const { return cols_[0].size(); }

  simd::BallColumns2 B2(size_t at) const {
    return {col(at), col(at + 1), col(at + 2)};
  }
  simd::BallColumns3 B3(size_t at) const {
    return {col(at), col(at + 1), col(at + 2), col(at + 3)};
  }
  simd::RectColumns R(size_t at) const {
    return {col(at), col(at + 1), col(at + 2), col(at + 3)};
  }
  simd::BoxColumns X(size_t at) const {
    return {col(at),     col(at + 1), col(at + 2),
            col(at + 3), col(at + 4), col(at + 5)};
  }
  simd::RotatedRectColumns RR(size_t at) const {
    return {col(at),     col(at + 1), col(at + 2), col(at + 3),
            col(at + 4), col(at + 5), col(at + 6), col(at + 7)};
  }

 private:
  void Put(std::initializer_list<float> values) {
    for (float v : values) cols_[next_++].push_back(v);
  }
  std::vector<std::vector<float>> cols_;
  size_t next_ = 0;
};

}  // namespace testing_support
}  // namespace collision

#endif  // COLLISION_TESTS_SIMD_TEST_SUPPORT_H_
