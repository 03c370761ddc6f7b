// The kind table (kinds.h) against the supported pairings written out by
// hand, for all 81 ordered pairs of shape kinds: the table is what the
// dispatcher, the wire layer and metrics use, so a wrong row would
// silently misroute or miscount work.
#include "collision/core/kinds.h"

#include <optional>
#include <set>
#include <string>
#include <utility>

#include "gtest/gtest.h"

namespace collision {
namespace {

constexpr ShapeKind kAll[] = {
    ShapeKind::kPoint2,      ShapeKind::kCircle,   ShapeKind::kRect,
    ShapeKind::kRotatedRect, ShapeKind::kPoint3,   ShapeKind::kSphere,
    ShapeKind::kBox,         ShapeKind::kCapsule3, ShapeKind::kOrientedBox};

bool Ball2(ShapeKind k) {
  return k == ShapeKind::kPoint2 || k == ShapeKind::kCircle;
}
bool Ball3(ShapeKind k) {
  return k == ShapeKind::kPoint3 || k == ShapeKind::kSphere;
}

// The expected name of Intersect(a, b), or "" when unsupported; written
// from the contract in scalar.h, not from the table.
std::string ExpectedIntersect(ShapeKind a, ShapeKind b) {
  if ((Ball2(b) && !Ball2(a)) || (Ball3(b) && !Ball3(a))) std::swap(a, b);
  if (Ball2(a)) {
    if (Ball2(b)) return "circle_circle";
    if (b == ShapeKind::kRect) return "circle_rect";
    if (b == ShapeKind::kRotatedRect) return "circle_rotated_rect";
    return "";
  }
  if (Ball3(a)) {
    if (Ball3(b)) return "sphere_sphere";
    if (b == ShapeKind::kBox) return "sphere_box";
    if (b == ShapeKind::kCapsule3) return "sphere_capsule3";
    if (b == ShapeKind::kOrientedBox) return "sphere_oriented_box";
    return "";
  }
  if (a == ShapeKind::kRect && b == ShapeKind::kRect) return "rect_rect";
  // The 3D non-balls, named in the order capsule3, box, oriented box.
  const auto rank = [](ShapeKind k) {
    return k == ShapeKind::kCapsule3      ? 0
           : k == ShapeKind::kBox         ? 1
           : k == ShapeKind::kOrientedBox ? 2
                                          : -1;
  };
  if (rank(a) < 0 || rank(b) < 0) return "";
  if (rank(b) < rank(a)) std::swap(a, b);
  return std::string(KindName(a)) + "_" + KindName(b);
}

std::string ExpectedClosest(ShapeKind q, ShapeKind t) {
  if (Ball2(q)) {
    if (Ball2(t)) return "closest_circle";
    if (t == ShapeKind::kRect) return "closest_rect";
    if (t == ShapeKind::kRotatedRect) return "closest_rotated_rect";
  }
  if (Ball3(q)) {
    if (Ball3(t)) return "closest_sphere";
    if (t == ShapeKind::kBox) return "closest_box";
    if (t == ShapeKind::kCapsule3) return "closest_capsule3";
    if (t == ShapeKind::kOrientedBox) return "closest_oriented_box";
  }
  // Shape queries: 3D capsule3, box and oriented box, against any 3D target
  // (a point3 target as its sphere).
  const bool shape_query = q == ShapeKind::kCapsule3 || q == ShapeKind::kBox ||
                           q == ShapeKind::kOrientedBox;
  if (shape_query && Is3D(t)) {
    const char* target = Ball3(t) ? "sphere" : KindName(t);
    return std::string("closest_") + KindName(q) + "_to_" + target;
  }
  return "";
}

TEST(Kinds, IntersectPairingsMatchTheContractInEitherOrder) {
  for (ShapeKind a : kAll) {
    for (ShapeKind b : kAll) {
      const std::optional<WorkKind> k = IntersectWorkKind(a, b);
      const std::string want = ExpectedIntersect(a, b);
      EXPECT_EQ(k ? WorkKindName(*k) : "", want)
          << KindName(a) << " vs " << KindName(b);
      EXPECT_EQ(IsSupportedIntersectPair(a, b), !want.empty());
      EXPECT_EQ(IntersectWorkKind(a, b), IntersectWorkKind(b, a));
    }
  }
}

TEST(Kinds, ClosestPairingsNeedABallQueryOfTheTargetsDimension) {
  for (ShapeKind q : kAll) {
    for (ShapeKind t : kAll) {
      const std::optional<WorkKind> k = ClosestWorkKind(q, t);
      const std::string want = ExpectedClosest(q, t);
      EXPECT_EQ(k ? WorkKindName(*k) : "", want)
          << KindName(q) << " on " << KindName(t);
      EXPECT_EQ(IsSupportedClosestPointPair(q, t), !want.empty());
    }
  }
}

TEST(Kinds, TableRowsAreInEnumOrderWithUniqueNames) {
  std::set<std::string> names;
  for (int i = 0; i < kWorkKinds; ++i) {
    const WorkKindInfo& row = kWorkKindTable[i];
    EXPECT_EQ(static_cast<int>(row.kind), i);
    EXPECT_EQ(row.closest, i >= kIntersectWorkKinds) << row.name;
    EXPECT_EQ(row.three_d, Is3D(row.first)) << row.name;
    EXPECT_EQ(Is3D(row.first), Is3D(row.second)) << row.name;
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
  }
}

}  // namespace
}  // namespace collision
