// The golden cases and the helpers that build them, shared by the
// generator's files (generate_golden.cc writes them; golden_cases.cc and
// golden_seed_cases.cc list them).
#ifndef COLLISION_TOOLS_GOLDEN_GOLDEN_CASES_H_
#define COLLISION_TOOLS_GOLDEN_GOLDEN_CASES_H_

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "collision/client/shapes.h"
#include "collision/core/scalar.h"
#include "collision/wire/convert.h"
#include "google/protobuf/util/json_util.h"

namespace collision::golden {

namespace c = collision::client;

constexpr float kHalfPi = 1.57079637f;  // float(pi / 2): an exact quarter turn
constexpr float kPi6 = 0.52359879f;     // float(pi / 6), 30 degrees
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

constexpr v1::Relation kD = v1::RELATION_DISJOINT;
constexpr v1::Relation kT = v1::RELATION_TOUCHING;
constexpr v1::Relation kO = v1::RELATION_OVERLAPPING;

// A closest-point answer worked out by hand.
struct HandClosest {
  float x, y, z;  // closest_point
  float signed_distance;
  bool inside;
  float nx, ny, nz;  // normal
};

struct Case {
  std::string name;
  std::string source;  // where the case comes from (seed, proto comment)
  std::string note;    // what it shows, and the hand computation
  std::optional<v1::IntersectRequest> intersect;
  std::optional<v1::ClosestPointRequest> closest;
  // Hand-checked answers (empty: not hand-checked).
  std::vector<v1::Relation> hand_relations;
  std::vector<HandClosest> hand_closest;
  // Error cases: the substring (field path and reason) a client must see.
  std::string message_contains;
};

[[noreturn]] inline void Die(const std::string& what) {
  std::fprintf(stderr, "collision_golden_gen: %s\n", what.c_str());
  std::exit(1);
}

// ---- Case builders ---------------------------------------------------------

inline c::IntersectBatch Incl() {
  c::IntersectBatch b;
  b.Inclusive().WithRelation().WithSeparation();
  return b;
}
inline c::IntersectBatch Excl() {
  c::IntersectBatch b;
  b.Exclusive().WithRelation().WithSeparation();
  return b;
}

inline Case I(std::string name, std::string source, std::string note,
              const c::IntersectBatch& b, std::vector<v1::Relation> hand = {}) {
  Case k;
  k.name = std::move(name);
  k.source = std::move(source);
  k.note = std::move(note);
  k.intersect = b.request();
  k.hand_relations = std::move(hand);
  return k;
}

inline Case IErr(std::string name, std::string source,
                 const v1::IntersectRequest& r, std::string contains) {
  Case k;
  k.name = std::move(name);
  k.source = std::move(source);
  k.note = "rejected whole with INVALID_ARGUMENT; the message names the field";
  k.intersect = r;
  k.message_contains = std::move(contains);
  return k;
}

inline Case CP(std::string name, std::string source, std::string note,
               const c::ClosestPointBatch& b,
               std::vector<HandClosest> hand = {}) {
  Case k;
  k.name = std::move(name);
  k.source = std::move(source);
  k.note = std::move(note);
  k.closest = b.request();
  k.hand_closest = std::move(hand);
  return k;
}

inline Case CPErr(std::string name, std::string source,
                  const v1::ClosestPointRequest& r, std::string contains) {
  Case k;
  k.name = std::move(name);
  k.source = std::move(source);
  k.note = "rejected whole with INVALID_ARGUMENT; the message names the field";
  k.closest = r;
  k.message_contains = std::move(contains);
  return k;
}

inline v1::IntersectRequest One(v1::Shape a, v1::Shape b) {
  return c::IntersectBatch().Add(std::move(a), std::move(b)).request();
}

// The cases, by theme.
std::vector<Case> SeedCases();
std::vector<Case> PairKindCases();
std::vector<Case> ClosestCases();
std::vector<Case> ErrorCases();
std::vector<Case> HitboxCases();

}  // namespace collision::golden

#endif  // COLLISION_TOOLS_GOLDEN_GOLDEN_CASES_H_
