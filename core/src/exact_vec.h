// The vector arithmetic the scalar reference (scalar.cc) and the casts
// (cast.cc) share. 2D and 3D use the same formulas, written once over
// N-element arrays. Every sum is spelled out term by term, left to right:
// no reassociation, and no fused multiply-add (collision_core is built with
// -ffp-contract=off), so that the SIMD kernels can match the reference bit
// for bit and integer inputs stay exact.
#ifndef COLLISION_CORE_SRC_EXACT_VEC_H_
#define COLLISION_CORE_SRC_EXACT_VEC_H_

#include <array>
#include <limits>

#include "collision/core/shapes.h"

namespace collision::exact {

template <int N>
using V = std::array<float, N>;

inline V<2> A(Vec2 v) { return {v.x, v.y}; }
inline V<3> A(Vec3 v) { return {v.x, v.y, v.z}; }
inline Vec3 ToVec3(const V<2>& v) { return {v[0], v[1], 0.0f}; }
inline Vec3 ToVec3(const V<3>& v) { return {v[0], v[1], v[2]}; }

// a[0] * b[0] + a[1] * b[1] (+ a[2] * b[2]), in that order.
template <int N>
float Dot(const V<N>& a, const V<N>& b) {
  float s = a[0] * b[0];
  for (int i = 1; i < N; ++i) s = s + a[i] * b[i];
  return s;
}

// Smallest normal float: below it |v|^2 is subnormal and v / |v| is not unit.
inline constexpr float kMinNormal = std::numeric_limits<float>::min();

}  // namespace collision::exact

#endif  // COLLISION_CORE_SRC_EXACT_VEC_H_
