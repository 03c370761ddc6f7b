// What the hitbox tests (hitbox3_*_test.cc) share: generators of random
// and quarter-turned shapes, the scale errors are measured against, the
// worst-error report and printers.
#ifndef COLLISION_TESTS_CORE_HITBOX3_TESTING_H_
#define COLLISION_TESTS_CORE_HITBOX3_TESTING_H_

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "collision/core/cast.h"
#include "collision/core/scalar.h"
#include "gtest/gtest.h"
#include "hitbox3_reference.h"

namespace collision::hitbox3_testing {

namespace ref = ::collision::hitbox3_reference;

inline constexpr Boundary kIn = Boundary::kInclusive;
inline constexpr Boundary kEx = Boundary::kExclusive;
// Errors are measured relative to the scale of a case (its largest
// coordinate, size or radius). The worst seen is printed by each random
// test; this bound leaves a margin over it.
inline constexpr double kRelTol = 4e-6;
inline const float kSqrtHalf = std::sqrt(0.5f);

// ---- Generators ------------------------------------------------------------

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  float Uniform(float lo, float hi) {
    return std::uniform_real_distribution<float>(lo, hi)(rng_);
  }
  int Int(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng_);
  }
  Vec3 Point(float s) {
    return {Uniform(-s, s), Uniform(-s, s), Uniform(-s, s)};
  }
  Vec3 IntPoint(int s) {
    return {float(Int(-s, s)), float(Int(-s, s)), float(Int(-s, s))};
  }
  Quat Rotation() {
    std::normal_distribution<float> n;
    Quat q{n(rng_), n(rng_), n(rng_), n(rng_)};
    const float len = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return {q.w / len, q.x / len, q.y / len, q.z / len};
  }
  Vec3 Direction() {
    std::normal_distribution<float> n;
    return NormalizeDirection(Vec3{n(rng_), n(rng_), n(rng_)});
  }
  // Sizes: a few exactly zero, the rest in [0, s].
  float Size(float s) { return Int(0, 9) == 0 ? 0.0f : Uniform(0, s); }
  Capsule3 Capsule(float s) {
    Capsule3 c{Point(s), Point(s), Size(s / 2)};
    if (Int(0, 9) == 0) c.b = c.a;
    return c;
  }
  OrientedBox Box(float s) {
    return {Point(s), {Size(s), Size(s), Size(s)}, Rotation()};
  }

 private:
  std::mt19937 rng_;
};

// The 24 rotations that map axes to axes, as float unit quaternions with
// components in {0, +-1/2, +-sqrt(1/2), +-1} (one of each +-q pair).
inline std::vector<Quat> QuarterTurns() {
  const float values[] = {0, 0.5f, -0.5f, kSqrtHalf, -kSqrtHalf, 1, -1};
  std::vector<Quat> out;
  for (float w : values) {
    for (float x : values) {
      for (float y : values) {
        for (float z : values) {
          const double n =
              double(w) * w + double(x) * x + double(y) * y + double(z) * z;
          if (std::fabs(n - 1) > 1e-6 || w < 0) continue;
          if (w == 0 && (x < 0 || (x == 0 && (y < 0 || (y == 0 && z < 0))))) {
            continue;
          }
          const Mat3 r = RotationMatrix({w, x, y, z});
          bool permutation = true;
          for (float v : r.m) permutation = permutation && std::fabs(v) != 0.5f;
          int nonzero = 0;
          for (float v : r.m) nonzero += v != 0.0f;
          if (permutation && nonzero == 3) out.push_back({w, x, y, z});
        }
      }
    }
  }
  return out;
}

// The axis-aligned box an exactly quarter-turned box covers.
inline Box AxisAligned(const OrientedBox& b) {
  const Mat3 r = RotationMatrix(b.rotation);
  const float h[3] = {b.half_extents.x, b.half_extents.y, b.half_extents.z};
  float w[3];
  for (int i = 0; i < 3; ++i) {
    w[i] = std::fabs(r.m[3 * i]) * h[0] + std::fabs(r.m[3 * i + 1]) * h[1] +
           std::fabs(r.m[3 * i + 2]) * h[2];
  }
  const Vec3 c = b.center;
  return {{c.x - w[0], c.y - w[1], c.z - w[2]},
          {c.x + w[0], c.y + w[1], c.z + w[2]}};
}

inline float Scale(std::initializer_list<float> values) {
  float s = 0;
  for (float v : values) s = std::max(s, std::fabs(v));
  return s;
}
inline float Scale(const Vec3& v) { return Scale({v.x, v.y, v.z}); }
inline float Scale(const Capsule3& c) {
  return Scale({Scale(c.a), Scale(c.b), c.radius});
}
inline float Scale(const Sphere& s) {
  return Scale({Scale(s.center), s.radius});
}
inline float Scale(const OrientedBox& b) {
  return Scale(b.center) + Scale(b.half_extents);
}

// Tracks the worst error relative to the scale and checks each case.
struct Worst {
  std::string name;
  double worst = 0;
  int disjoint = 0, overlapping = 0, touching = 0;
  ~Worst() {
    std::printf(
        "[ accuracy ] %s: max |error| / scale = %.3g (%d disjoint, "
        "%d overlapping, %d touching)\n",
        name.c_str(), worst, disjoint, overlapping, touching);
  }
  void Check(const IntersectResult& got, double want, double scale,
             const std::string& what) {
    const double err = std::fabs(double(got.separation) - want) / scale;
    worst = std::max(worst, err);
    EXPECT_LE(err, kRelTol)
        << what << " got " << got.separation << " want " << want;
    if (want > kRelTol * scale) {
      EXPECT_EQ(got.relation, Relation::kDisjoint) << what;
    } else if (want < -kRelTol * scale) {
      EXPECT_EQ(got.relation, Relation::kOverlapping) << what;
    }
    EXPECT_EQ(got.hit, IsHit(got.relation, kIn)) << what;
    disjoint += got.relation == Relation::kDisjoint;
    overlapping += got.relation == Relation::kOverlapping;
    touching += got.relation == Relation::kTouching;
  }
};

inline std::string Fmt(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
inline std::string Str(const Vec3& v) {
  return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " +
         std::to_string(v.z) + ")";
}
inline std::string Str(const Capsule3& c) {
  return "capsule " + Str(c.a) + "-" + Str(c.b) + " r " +
         std::to_string(c.radius);
}
inline std::string Str(const OrientedBox& b) {
  return "box c " + Str(b.center) + " h " + Str(b.half_extents) + " q (" +
         std::to_string(b.rotation.w) + ", " + std::to_string(b.rotation.x) +
         ", " + std::to_string(b.rotation.y) + ", " +
         std::to_string(b.rotation.z) + ")";
}

inline void ExpectSame(const IntersectResult& a, const IntersectResult& b,
                       const std::string& what) {
  EXPECT_EQ(a.relation, b.relation) << what;
  EXPECT_EQ(a.hit, b.hit) << what;
  EXPECT_EQ(a.separation, b.separation) << what;
}

inline constexpr float kScales[] = {1e-3f, 1.0f, 1e6f};

}  // namespace collision::hitbox3_testing

#endif  // COLLISION_TESTS_CORE_HITBOX3_TESTING_H_
