// Shared by the cast tests: the boundary-rule shorthands and bit-exact
// comparison of two cast results.
#ifndef COLLISION_TESTS_CORE_CAST_TESTING_H_
#define COLLISION_TESTS_CORE_CAST_TESTING_H_

#include <cstring>

#include "collision/core/cast.h"
#include "gtest/gtest.h"

namespace collision {

inline constexpr Boundary kIn = Boundary::kInclusive;
inline constexpr Boundary kEx = Boundary::kExclusive;
inline constexpr float kHalfPi = 1.57079637f;

inline constexpr float kBig = kMaxMagnitude;

// A 10 x 10 square and a 10 x 10 x 10 cube with a corner at the origin.
inline const Rect kSquare{{0, 0}, {10, 10}};
inline const Box kCube{{0, 0, 0}, {10, 10, 10}};

inline void ExpectVec(const Vec3& v, float x, float y, float z = 0) {
  EXPECT_EQ(v.x, x);
  EXPECT_EQ(v.y, y);
  EXPECT_EQ(v.z, z);
}

inline void ExpectMiss(const CastResult& r) {
  EXPECT_FALSE(r.hit);
  EXPECT_EQ(r.distance, 0.0f);
  ExpectVec(r.point, 0, 0, 0);
  ExpectVec(r.normal, 0, 0, 0);
}

inline bool SameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

inline ::testing::AssertionResult BitEqual(const CastResult& a,
                                           const CastResult& b) {
  const float fa[] = {a.distance, a.point.x,  a.point.y, a.point.z,
                      a.normal.x, a.normal.y, a.normal.z};
  const float fb[] = {b.distance, b.point.x,  b.point.y, b.point.z,
                      b.normal.x, b.normal.y, b.normal.z};
  if (a.hit != b.hit) return ::testing::AssertionFailure() << "hit differs";
  for (int i = 0; i < 7; ++i) {
    if (!SameBits(fa[i], fb[i])) {
      return ::testing::AssertionFailure()
             << "field " << i << ": " << fa[i] << " vs " << fb[i];
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace collision

#endif  // COLLISION_TESTS_CORE_CAST_TESTING_H_
