// The rules every number of a request obeys, and the words an error uses for
// each, in one place: the per-pair parser (shape_parser.h), its string-free
// fast path (ShapeFromFields) and the columns checker (columns_check.cc) all
// apply these. The bounds themselves are the core's (shapes.h).
#ifndef COLLISION_WIRE_FIELD_RULES_H_
#define COLLISION_WIRE_FIELD_RULES_H_

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "collision/core/shapes.h"

namespace collision::wire {

enum class FieldRule {
  kCoord,     // a coordinate or offset: finite, |v| <= kMaxMagnitude
  kLength,    // a radius, width or height: also >= 0
  kAngle,     // radians: finite, |v| <= kMaxAngle
  kUnitPart,  // one of cos, sin: finite, |v| <= 1 (+ the unit tolerance)
};

// Whether `v` obeys `rule`; false for NaN and the infinities. One
// comparison or two, so that loops over columns vectorise.
inline bool Passes(float v, FieldRule rule) {
  switch (rule) {
    case FieldRule::kCoord:
      return std::fabs(v) <= kMaxMagnitude;
    case FieldRule::kLength:
      return v >= 0 && v <= kMaxMagnitude;
    case FieldRule::kAngle:
      return std::fabs(v) <= kMaxAngle;
    case FieldRule::kUnitPart:
      return std::fabs(v) <= 1.0f + kRotationUnitTolerance;
  }
  return false;
}

// Why `v` breaks `rule`, to follow a field path: "must be finite, got nan",
// "must be >= 0, got -1", "must be within [-1e9, 1e9], got 2e+09", ...
inline std::string WhyNot(float v, FieldRule rule) {
  if (!std::isfinite(v)) return absl::StrCat("must be finite, got ", v);
  switch (rule) {
    case FieldRule::kLength:
      if (v < 0) return absl::StrCat("must be >= 0, got ", v);
      [[fallthrough]];
    case FieldRule::kCoord:
      return absl::StrCat("must be within [-1e9, 1e9], got ", v);
    case FieldRule::kAngle:
      return absl::StrCat("must be within [-1e4, 1e4] radians, got ", v);
    case FieldRule::kUnitPart:
      return absl::StrCat("must be within [-1, 1], got ", v);
  }
  return "is invalid";
}

// A rotation given as (cos, sin) must have unit length: cos^2 + sin^2
// within kRotationUnitTolerance of 1 (computed in double). False for
// non-finite parts.
inline bool IsUnitRotation(float c, float s) {
  return std::fabs(double{c} * c + double{s} * s - 1.0) <=
         kRotationUnitTolerance;
}

// A rotation given as a quaternion must have unit length: w^2 + x^2 + y^2 +
// z^2 within kRotationUnitTolerance of 1 (computed in double). False for
// non-finite parts.
inline bool IsUnitQuaternion(float w, float x, float y, float z) {
  return std::fabs(double{w} * w + double{x} * x + double{y} * y +
                   double{z} * z - 1.0) <= kRotationUnitTolerance;
}

}  // namespace collision::wire

#endif  // COLLISION_WIRE_FIELD_RULES_H_
